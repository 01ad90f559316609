-- What the differential fuzzer (real-tests/pgfuzz/, issue 51) found the model answering
-- otherwise than PostgreSQL, each minimised from its seed and now PostgreSQL's answer.

-- case: a SELECT's untyped output column is text
CREATE TABLE t0 (id int PRIMARY KEY, c0 text);
SELECT NULL AS c2 FROM t0 a;
SELECT NULL, 'B' FROM t0 a;
WITH s AS (SELECT a.id AS k0 FROM t0 a) SELECT 'x' AS v, NULL FROM s;
INSERT INTO t0 VALUES (1, 'a');
SELECT NULL AS n, 'lit' AS l FROM t0;
SELECT v FROM (SELECT NULL AS v) s;

-- case: a CASE is named after its ELSE when that has a name
CREATE TABLE t0 (id int PRIMARY KEY, c1 uuid, c2 uuid);
SELECT CASE WHEN false THEN a.c1 ELSE a.c2 END FROM t0 a;
SELECT CASE WHEN true THEN NULL ELSE coalesce(NULL, 'ffffffff-ffff-4fff-bfff-ffffffffffff'::uuid) END FROM t0 a;
SELECT CASE WHEN NULL THEN NULL ELSE lower(NULL::text) END FROM t0 a;
SELECT CASE WHEN true THEN 1 ELSE 2 END FROM t0 a;
SELECT CASE WHEN true THEN 1 END FROM t0 a;

-- case: a CASE's type is its branches' common type
CREATE TABLE t0 (id int PRIMARY KEY);
SELECT CASE WHEN false THEN 100 ELSE 1.50 END AS c1 FROM t0 a;
INSERT INTO t0 VALUES (1);
SELECT CASE WHEN id = 1 THEN 100 ELSE 1.50 END AS c1 FROM t0;
SELECT CASE WHEN id = 1 THEN 1 ELSE 2::bigint END AS c1 FROM t0;

-- case: an assignment PostgreSQL's assignment casts do not allow is 42804, rows or none
CREATE TABLE t0 (id int PRIMARY KEY, c0 numeric(12,2), c1 int NOT NULL, c2 text);
-- expect 42804
UPDATE t0 SET c1 = NULL::boolean, c0 = t0.c0;
-- expect 42804
INSERT INTO t0 (id, c1) VALUES (1, true);
INSERT INTO t0 (id, c0, c1, c2) VALUES (1, 2.5::float8, 3::bigint, 4);
-- expect 42804
UPDATE t0 SET c1 = 'a'::text;
UPDATE t0 SET c2 = 5, c1 = 2.7;
SELECT id, c0, c1, c2 FROM t0;

-- case: an UPDATE's literal is read as its column's type before any row
CREATE TABLE t0 (id int PRIMARY KEY, c1 int);
-- expect 22P02
UPDATE t0 SET c1 = 'B';

-- case: boolean to integer casts, boolean to text spelled out
CREATE TABLE t0 (id int PRIMARY KEY, c3 boolean);
INSERT INTO t0 VALUES (1, true), (2, false), (3, NULL);
SELECT id, (c3)::int, (c3)::text FROM t0 ORDER BY id;
SELECT (EXISTS (SELECT 1 FROM t0 z WHERE z.c3))::text AS c0;
-- expect 42846
SELECT true::bigint;
-- expect 42804
UPDATE t0 SET c3 = NULL WHERE (t0.c3)::int;

-- case: min and max only where PostgreSQL has them
CREATE TABLE t0 (id int PRIMARY KEY, c0 jsonb, c1 boolean, c2 uuid);
-- expect 42883
SELECT max(a.c1) AS a0 FROM t0 a;
-- expect 42883
SELECT min(a.c2) FROM t0 a;
-- expect 42883
SELECT count(*) FROM t0 a GROUP BY a.id HAVING max(a.c0) IS NULL;
SELECT max(id), min(id) FROM t0;

-- case: a column outside GROUP BY and aggregates is 42803
CREATE TABLE t0 (id int PRIMARY KEY, c0 float8, c1 uuid);
-- expect 42803
SELECT a.c1 AS a0, count(*) AS a1 FROM t0 a;
-- refused
SELECT a.c0, count(*) FROM t0 a GROUP BY a.id;
SELECT a.c1, count(*) FROM t0 a GROUP BY a.c1;
SELECT a.c0 + 1, count(*) FROM t0 a GROUP BY a.c0 + 1;

-- case: constants fail before any row is read (parse-time literals, plan-time folding)
CREATE TABLE t0 (id int PRIMARY KEY, c0 text, c1 int);
-- expect 22P02
SELECT ('ab')::int AS c3 FROM t0 a;
-- expect 22012
SELECT (1 % 0) AS c2 FROM t0 a;
-- expect 22003
SELECT ('NaN'::float8)::int FROM t0 a;
-- expect 22P02
SELECT ('B' || 2)::int FROM t0 a;
-- expect 22003
SELECT (2147483647 + 1) FROM t0 a;
-- expect 22P02
SELECT CASE WHEN false THEN 'x'::int END FROM t0 a;
-- expect 22P02
SELECT (('B')::int = ANY(ARRAY[2])) AS c2 FROM t0 a;
-- expect 22P02
SELECT (coalesce('b', 'b'))::int FROM t0 a;
-- expect 22012
SELECT 1 FROM t0 a WHERE a.id = 1 / 0;
-- expect 22012
SELECT nullif(1, 1 / 0) FROM t0 a;
SELECT CASE WHEN false THEN 1 / 0 ELSE 1 END FROM t0 a;
SELECT 1 FROM t0 a WHERE false AND 1 / 0 = 1;
SELECT coalesce(1, 1 / 0) FROM t0 a;
SELECT CASE WHEN (NULL < CASE WHEN false THEN 1e10::float8 ELSE 'Infinity'::float8 END) THEN ('NaN'::float8)::int ELSE NULL END AS c0 FROM t0 a;
SELECT (a.id / 0) FROM t0 a;
-- expect 22012
UPDATE t0 SET c1 = 1 / 0 WHERE false;

-- case: an unknown table in a subquery no row reaches is 42P01
CREATE TABLE t0 (id int PRIMARY KEY, c4 boolean);
-- expect 42P01
SELECT count(*) AS n FROM t0 a WHERE (1 IN (SELECT z.id FROM t1 z WHERE a.c4));
-- expect 42P01
SELECT (SELECT max(z.id) FROM t1 z) FROM t0 a;

-- case: to_jsonb of an untyped literal is 42804
CREATE TABLE t1 (id int PRIMARY KEY);
-- expect 42804
SELECT to_jsonb('a') FROM t1 a;
-- expect 42804
SELECT to_jsonb(NULL);
SELECT to_jsonb('a'::text), to_jsonb(1);

-- case: a savepoint name that does not exist fails the open block
CREATE TABLE t0 (id int PRIMARY KEY);
BEGIN;
INSERT INTO t0 VALUES (1);
-- expect 3B001
RELEASE SAVEPOINT nope;
-- expect 25P02
SELECT 1;
ROLLBACK;
BEGIN;
SAVEPOINT a;
INSERT INTO t0 VALUES (2);
-- expect 3B001
ROLLBACK TO SAVEPOINT nope;
ROLLBACK TO SAVEPOINT a;
INSERT INTO t0 VALUES (3);
COMMIT;
SELECT id FROM t0 ORDER BY id;

-- case: coalesce stops at its first argument that is not null
CREATE TABLE t0 (id int PRIMARY KEY, c0 int);
INSERT INTO t0 VALUES (1, NULL), (2, 7);
SELECT id, coalesce(3.14159, 2147483647 + c0) FROM t0 ORDER BY id;
SELECT id, coalesce(c0, 1 / (c0 - 7)) FROM t0 WHERE id = 2;
-- expect 22012
SELECT id, coalesce(c0, 1 / (id - 1)) FROM t0 WHERE id = 1;
SELECT coalesce(NULL, c0, 0) FROM t0 ORDER BY id;

-- case: min and max keep the later of equal values
CREATE TABLE t0 (id int PRIMARY KEY, f float8, n numeric);
INSERT INTO t0 VALUES (1, -0::float8 * 1, 1.0), (2, 0, 1.00), (3, -0.0::float8 * 1, 1.000);
SELECT min(f)::text, max(f)::text, min(n), max(n) FROM t0;
UPDATE t0 SET f = f * 0 WHERE id = 1;
SELECT min(f)::text, max(f)::text FROM t0;

