-- The extended protocol as tokio-postgres's `query` speaks it: a named statement parsed
-- without parameter types and described (the server infers them; a type other than the
-- case's is a client error, as in tokio-postgres), bound with binary parameters,
-- executed with binary results, closed.

-- case: the extended protocol: upsert, update and delete with parameters
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL, note text, at timestamptz);
-- params text:a int8:1 text:null
-- expect INSERT 0 1
INSERT INTO kv (k, v, note) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v RETURNING k, v, note;
-- params text:a int8:5 text:five
-- expect INSERT 0 1
INSERT INTO kv AS t (k, v, note) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET v = t.v + EXCLUDED.v, note = COALESCE(t.note, EXCLUDED.note) RETURNING k, v, note;
-- params text:b int8:2
-- expect INSERT 0 1
INSERT INTO kv (k, v) VALUES ($1, $2), ('a', 0) ON CONFLICT (k) DO NOTHING RETURNING k;
-- params int8:3 text:a
-- expect UPDATE 1
UPDATE kv SET v = v * $1 WHERE k = $2 RETURNING v;
-- params text:a
-- expect 23505
INSERT INTO kv (k, v) VALUES ($1, 1);
-- params timestamptz:0 text:a
-- expect UPDATE 1
UPDATE kv SET at = $1 WHERE k = $2 RETURNING at, at + interval '1 millisecond' AS next;
-- params
SELECT k, v, note FROM kv ORDER BY k;
-- params text:a
-- expect DELETE 1
DELETE FROM kv WHERE k = $1 RETURNING k, v;
-- params
-- expect SELECT 1
SELECT count(*) FROM kv;

-- case: the extended protocol: errors, an aborted transaction and a lock wait
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1);
-- params int4:0
-- expect 22012
SELECT 1 / $1;
-- params int8:1
-- expect client: the server infers [23]
SELECT 1 + $1;
-- params
-- expect 42P01
SELECT * FROM nope;
-- params text:x
-- expect 22P02
SELECT ($1::text)::int4;
BEGIN;
-- params text:a
-- expect 23505
INSERT INTO kv (k, v) VALUES ($1, 2);
-- params
-- expect 25P02
SELECT 1;
ROLLBACK;
BEGIN;
UPDATE kv SET v = 2 WHERE k = 'a';
-- conn 2
-- params int8:9 text:a
-- expect blocked, then UPDATE 1
UPDATE kv SET v = $1 WHERE k = $2 RETURNING v;
-- conn 1
COMMIT;
-- conn 2
-- params text:a
-- expect SELECT 1
SELECT v FROM kv WHERE k = $1;
