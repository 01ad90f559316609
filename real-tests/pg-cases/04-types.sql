-- Types and functions of the subset: text, varchar, int4, int8, bool, float8, bytea,
-- timestamptz arithmetic (deterministic expressions only, never now() itself), hashtext.

-- case: literals and casts of every type
SELECT 'abc'::text AS t, 'ab'::varchar(5) AS vc, 7::int4 AS i4, 9000000000::int8 AS i8, true AS b, 1.5::float8 AS f, '\x0102'::bytea AS bin;
SELECT 1 + 2 AS sum, 7 / 2 AS quotient, -3 * 2 AS product, 0.1::float8 + 0.2::float8 AS f;
SELECT NULL::text IS NULL AS isnull, 'a' = 'a' AS same, 'a' < 'b' AS less;
SELECT 2147483647::int4 + 0::int8 AS widened;
-- expect 22P02
SELECT 'x'::int4;
-- expect SELECT 1
SELECT 'abcdef'::varchar(3) AS truncated;

-- case: a table of every type
CREATE TABLE every (t text, vc varchar(8), i4 int4, i8 int8, b bool, f float8, bin bytea, ts timestamptz);
INSERT INTO every VALUES ('x', 'y', 1, 2, true, 0.5, '\xdeadbeef'::bytea, '2026-01-02 03:04:05+00');
INSERT INTO every (t) VALUES ('nulls');
SELECT t, vc, i4, i8, b, f, bin FROM every ORDER BY t;
SELECT ts = '2026-01-02 03:04:05+00'::timestamptz AS same, ts + interval '1 millisecond' > ts AS later FROM every WHERE t = 'x';
-- expect 22001
INSERT INTO every (vc) VALUES ('too long a value');
-- params int4:5 int8:6 bool:true float8:0.25 text:hey bytea:\x0a0b varchar:vc
INSERT INTO every (i4, i8, b, f, t, bin, vc) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING i4, i8, b, f, t, bin, vc;
-- params int4:null
SELECT count(*) FROM every WHERE i4 = $1;

-- case: timestamptz arithmetic with intervals
SELECT now() < now() + interval '1 day' AS ahead, now() - interval '1 millisecond' < now() AS behind;
SELECT '2026-01-01 00:00:00+00'::timestamptz + interval '1 millisecond' = '2026-01-01 00:00:00.001+00'::timestamptz AS exact;
SELECT now() = now() AS stable;
BEGIN;
CREATE TABLE leases (k text PRIMARY KEY, until timestamptz NOT NULL);
INSERT INTO leases VALUES ('a', now() + interval '10 seconds'), ('b', now() - interval '1 millisecond');
SELECT k FROM leases WHERE until > now() ORDER BY k;
COMMIT;

-- case: hashtext
SELECT hashtext('abc') AS h, hashtext('') AS empty, hashtext('abc') = hashtext('abc') AS same;

-- case: division by zero, undefined table, undefined column, syntax
-- expect 22012
SELECT 1 / 0;
-- expect 22012
SELECT 1.0::float8 / 0;
-- expect 42P01
SELECT * FROM missing_table;
CREATE TABLE kv (k text PRIMARY KEY);
-- expect 42703
SELECT nope FROM kv;
-- expect 42703
UPDATE kv SET nope = 1;
-- expect 42601
SELEC 1;
-- expect 42601
FROM kv SELECT 1;
