-- What PostgreSQL's parse analysis raises before any row is read (issue 51): an unknown
-- column or FROM item, a condition that is not boolean, an untyped literal a condition
-- cannot read — inside subqueries and over empty tables too, where the model used to
-- answer rows; and of two errors, analysis's before evaluation's.

-- case: a condition that is not boolean is 42804, rows or none
CREATE TABLE t0 (id int PRIMARY KEY, c0 text, c1 int);
-- expect 42804
SELECT id FROM t0 WHERE c1;
-- expect 42804
SELECT id FROM t0 WHERE EXISTS (SELECT 1 FROM t0 b WHERE b.c1);
-- expect 42804
SELECT a.id FROM t0 a JOIN t0 b ON a.c1;
-- expect 42804
SELECT c1 FROM t0 GROUP BY c1 HAVING c1;
-- expect 42804
SELECT id FROM t0 WHERE c1 > 0 AND c1;
-- expect 42804
SELECT id FROM t0 WHERE c1 > 0 OR c0;
-- expect 42804
SELECT id FROM t0 WHERE NOT c0;
-- expect 42804
SELECT CASE WHEN c1 THEN 1 END FROM t0;
-- expect 42804
SELECT id FROM t0 WHERE (SELECT NULL);
-- expect 42804
SELECT id FROM t0 WHERE CASE WHEN c1 > 0 THEN NULL END;
-- expect 42804
UPDATE t0 SET c1 = 1 WHERE c1;
-- expect 42804
DELETE FROM t0 WHERE c0;
-- expect 22P02
SELECT id FROM t0 WHERE 'maybe';
SELECT id FROM t0 WHERE NULL;
SELECT id FROM t0 WHERE 'true';
INSERT INTO t0 VALUES (1, 'a', 2);
-- expect 42804
SELECT id FROM t0 WHERE c1 + 1;
SELECT id FROM t0 WHERE c1 > 0 AND 't';

-- case: an unknown column is 42703 and an unknown qualifier 42P01, rows or none
CREATE TABLE t0 (id int PRIMARY KEY, c0 text, c1 int);
-- expect 42703
SELECT id FROM t0 WHERE EXISTS (SELECT 1 FROM t0 b WHERE b.zz = 1);
-- expect 42703
SELECT id FROM t0 WHERE t0.zz = 1;
-- expect 42P01
SELECT id FROM t0 WHERE q.zz = 1;
-- expect 42P01
SELECT id FROM t0 WHERE EXISTS (SELECT 1 FROM t0 b WHERE q.id = b.id);
-- expect 42703
SELECT id FROM t0 WHERE EXISTS (SELECT 1 FROM t0 b WHERE t0.zz = b.id);
-- expect 42703
SELECT * FROM (SELECT id AS k FROM t0) s WHERE s.id = 1;
-- expect 42703
SELECT id FROM t0 ORDER BY zz;
-- expect 42703
SELECT id AS k FROM t0 ORDER BY k + 1;
-- expect 42703
SELECT c1 FROM t0 GROUP BY zz;
-- expect 42703
SELECT id FROM t0 UNION SELECT zz FROM t0;
-- expect 42703
INSERT INTO t0 (id) SELECT zz FROM t0;
-- expect 42703
UPDATE t0 SET c1 = 1 WHERE zz = 2;
-- expect 42703
DELETE FROM t0 WHERE EXISTS (SELECT 1 FROM t0 b WHERE b.zz = t0.id);
SELECT id AS k FROM t0 ORDER BY k;
SELECT c1 AS g, count(*) FROM t0 GROUP BY g;
SELECT c1, count(*) FROM t0 GROUP BY 1;
INSERT INTO t0 VALUES (1, 'a', 2);
-- expect 42703
SELECT id FROM t0 WHERE EXISTS (SELECT 1 FROM t0 b WHERE b.zz = 1);

-- case: an analysis error comes before an evaluation error
CREATE TABLE t0 (id int PRIMARY KEY, c0 text, c1 int);
INSERT INTO t0 VALUES (1, 'x', 2);
-- expect 42703
SELECT zz, 1 / 0 FROM t0;
-- expect 42703
SELECT 1 / 0 FROM t0 WHERE zz;
-- expect 42703
SELECT id FROM t0 WHERE c0::int > 0 AND zz = 1;
-- expect 42804
SELECT id / 0 FROM t0 WHERE c1;

-- case: LIKE of a type with no cast to text is 42883, before a literal's cast outside it
CREATE TABLE t0 (id int PRIMARY KEY, c0 timestamptz, c1 text, c2 jsonb);
-- expect 42883
SELECT id FROM t0 WHERE c0 LIKE 'a%';
-- expect 42883
SELECT id FROM t0 WHERE c2 NOT ILIKE 'x';
-- expect 42883
SELECT id FROM t0 WHERE c1 LIKE 1;
-- expect 42883
UPDATE t0 SET c0 = t0.c0 WHERE EXISTS (SELECT 1 FROM t0 z WHERE ('ab')::int IN (SELECT y.id FROM t0 y WHERE y.c0 NOT LIKE '%'));
SELECT id FROM t0 WHERE c1 NOT ILIKE 'a%';
SELECT id FROM t0 WHERE c1 LIKE 'a' ESCAPE 'b';

-- case: COALESCE's arguments after its first constant non-NULL one are never folded
CREATE TABLE t0 (id int PRIMARY KEY, c0 text);
SELECT coalesce(length(coalesce('a', NULL::text)), (2147483647 + 2)) AS c3 FROM t0 a;
SELECT coalesce(NULL, abs(coalesce(-1, 1 / 0)), 2147483647 + 1) FROM t0;
INSERT INTO t0 VALUES (1, 'x');
SELECT coalesce(length(coalesce('a', NULL::text)), (2147483647 + 2)) AS c3 FROM t0 a;

-- case: a strict operator with a constant NULL input folds to NULL, so a CASE arm behind it is dropped
CREATE TABLE t0 (id int PRIMARY KEY, c0 timestamptz);
SELECT CASE WHEN (NULL >= NULL::timestamptz) THEN (2147483647 + 7) ELSE NULL END AS c1 FROM t0;
INSERT INTO t0 VALUES (1, now());
SELECT CASE WHEN (NULL >= NULL::timestamptz) THEN (2147483647 + 7) ELSE NULL END AS c1 FROM t0;

-- case: a FROM item named twice is 42712 before its columns are resolved
CREATE TABLE t0 (id int PRIMARY KEY, c0 int);
-- expect 42712
SELECT id FROM t0 JOIN t0 ON true;
-- expect 42712
UPDATE t0 SET c0 = 1 FROM t0 WHERE t0.id = 1;
-- expect 42712
DELETE FROM t0 USING t0 WHERE id = 1;
SELECT a.id FROM t0 a JOIN t0 b ON a.id = b.id;

-- case: to_jsonb of an untyped literal is 42804 where parse analysis meets it, FROM before the target list
CREATE TABLE t0 (id int PRIMARY KEY, c0 int);
-- expect 42804
SELECT ('')::int AS c0 FROM t0 a JOIN t0 b ON (to_jsonb('ab') IS NOT NULL);
-- expect 42804
SELECT to_jsonb('x%') AS c0 FROM t0 a WHERE 'ab';
-- expect 22P02
SELECT ('')::int AS c0, to_jsonb('x%') FROM t0 a;

-- case: a qualifier names the nearest FROM item so named, whose missing column is 42703 though an outer one has it
CREATE TABLE t0 (id int PRIMARY KEY, c0 int);
CREATE TABLE t1 (id int PRIMARY KEY, c2 boolean);
-- expect 42703
SELECT id FROM t1 z WHERE EXISTS (SELECT 1 FROM t0 z WHERE z.c2);
-- expect 42703
DELETE FROM t0 WHERE (t0.id / 3) IN (SELECT z.id FROM t1 z WHERE (EXISTS (SELECT 1 FROM t0 z WHERE z.c2) <> false));
INSERT INTO t1 VALUES (1, true);
INSERT INTO t0 VALUES (1, 2);
-- expect 42703
SELECT id FROM t1 z WHERE EXISTS (SELECT 1 FROM t0 z WHERE z.c2);
SELECT id FROM t1 z WHERE EXISTS (SELECT 1 FROM t0 y WHERE z.c2);

-- case: a comparison with a constant NULL side folds to NULL whatever the other side (a strict operator's has_null_input), and two timestamptz constants compare at plan time: the CASE arm behind either is dropped unfolded
CREATE TABLE fold_n (id int, at timestamptz);
SELECT CASE WHEN NULL >= coalesce(NULL::timestamptz, at) THEN 2147483647 + 7 ELSE 1 END FROM fold_n;
SELECT CASE WHEN at < NULL THEN 2147483647 + 7 ELSE 1 END FROM fold_n;
SELECT CASE WHEN (NULL = id) IS NULL THEN 1 ELSE 2147483647 + 7 END FROM fold_n;
SELECT CASE WHEN ('1999-12-31 23:59:59.5+00'::timestamptz >= '2024-01-01 00:00:00+00'::timestamptz) THEN (2147483647 + 7) ELSE NULL END FROM fold_n;
SELECT CASE WHEN '1 day'::interval > '2 days' THEN 1 / 0 END FROM fold_n;
SELECT CASE WHEN '2024-01-01'::timestamptz > '2023-01-01' THEN 1 / 0 END FROM fold_n;
SELECT CASE WHEN '2024-01-01'::timestamptz > '2023-01-01'::date THEN 1 / 0 END FROM fold_n;
SELECT CASE WHEN id > 1 THEN 2147483647 + 7 END FROM fold_n;
