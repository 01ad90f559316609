-- INSERT … ON CONFLICT, UPDATE and DELETE, with RETURNING.

-- case: ON CONFLICT DO UPDATE SET c = EXCLUDED.c
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL, note text);
INSERT INTO kv VALUES ('a', 1, NULL), ('b', 2, 'bee');
-- expect INSERT 0 2
INSERT INTO kv (k, v, note) VALUES ('a', 10, 'ay'), ('c', 3, NULL) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, note = EXCLUDED.note RETURNING k, v, note;
-- expect INSERT 0 1
INSERT INTO kv AS t (k, v, note) VALUES ('b', 20, 'new') ON CONFLICT (k) DO UPDATE SET note = COALESCE(t.note, EXCLUDED.note) RETURNING k, v, note;
-- expect INSERT 0 1
INSERT INTO kv AS t (k, v, note) VALUES ('c', 30, 'sea') ON CONFLICT (k) DO UPDATE SET note = COALESCE(t.note, EXCLUDED.note), v = t.v + EXCLUDED.v RETURNING k, v, note;
SELECT k, v, note FROM kv ORDER BY k;

-- case: ON CONFLICT DO NOTHING, RETURNING nothing for the skipped row
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1);
-- expect INSERT 0 1
INSERT INTO kv VALUES ('a', 5), ('b', 6) ON CONFLICT (k) DO NOTHING RETURNING k, v;
-- expect INSERT 0 0
INSERT INTO kv VALUES ('b', 7) ON CONFLICT DO NOTHING;
-- expect 21000
INSERT INTO kv VALUES ('c', 1), ('c', 2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
-- expect 42P10
INSERT INTO kv VALUES ('d', 1) ON CONFLICT (v) DO NOTHING;
SELECT k, v FROM kv ORDER BY k;

-- case: UPDATE … SET … WHERE … RETURNING
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL, note text);
INSERT INTO kv VALUES ('a', 1, NULL), ('b', 2, 'x'), ('c', 3, 'x');
-- expect UPDATE 2
UPDATE kv SET v = v * 10, note = 'big' WHERE v >= 2 RETURNING k, v, note;
-- expect UPDATE 0
UPDATE kv SET v = 0 WHERE k = 'zz';
-- expect UPDATE 1
UPDATE kv SET note = COALESCE(note, 'was null') WHERE k IN ('a') RETURNING note;
-- expect 23502
UPDATE kv SET v = NULL WHERE k = 'a';
-- expect 23505
UPDATE kv SET k = 'a' WHERE k = 'b';
SELECT k, v, note FROM kv ORDER BY v DESC;

-- case: DELETE with an alias, NOT EXISTS and RETURNING
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
CREATE TABLE log (pos bigserial PRIMARY KEY, k text NOT NULL, body bytea);
INSERT INTO kv VALUES ('a', 1), ('b', 2);
INSERT INTO log (k, body) VALUES ('a', '\x01'::bytea), ('z', '\x0203'::bytea), ('b', NULL), ('y', '\x'::bytea) RETURNING pos, k, body;
-- expect DELETE 2
DELETE FROM log l WHERE NOT EXISTS (SELECT 1 FROM kv WHERE kv.k = l.k) RETURNING pos, k, body;
-- expect DELETE 1
DELETE FROM kv WHERE v = 2;
-- expect DELETE 0
DELETE FROM kv WHERE k = 'nope' RETURNING k;
-- expect DELETE 1
DELETE FROM kv t WHERE t.k = ANY(ARRAY['a', 'q']);
SELECT pos, k, body FROM log ORDER BY pos;

-- case: bigserial values are taken even by a rolled-back insert
CREATE TABLE log (pos bigserial PRIMARY KEY, k text NOT NULL);
INSERT INTO log (k) VALUES ('a') RETURNING pos;
BEGIN;
INSERT INTO log (k) VALUES ('b') RETURNING pos;
ROLLBACK;
-- expect 23502
INSERT INTO log (k) VALUES (NULL);
INSERT INTO log (k) VALUES ('c') RETURNING pos;
SELECT pos, k FROM log ORDER BY pos;
