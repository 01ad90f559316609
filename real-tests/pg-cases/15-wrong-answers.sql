-- Answers the model gave wrongly until this file (the categories of "The PostgreSQL
-- model answers wrongly in places"): each is now PostgreSQL's answer, or refused.

-- case: a window function is computed as one, never as a plain aggregate of the whole input
CREATE TABLE w (x int);
INSERT INTO w VALUES (1), (2), (3);
SELECT x, sum(x) OVER (ORDER BY x) FROM w;
SELECT count(*) OVER () FROM w;
SELECT x, row_number() OVER (ORDER BY x) FROM w ORDER BY x;
SELECT rank() OVER (ORDER BY x) FROM w;
SELECT sum(x), count(*) FROM w;
DELETE FROM w;
SELECT sum(x) OVER () FROM w;

-- case: an aggregate over no rows answers one row; one not modelled is refused
-- (A NULL, or a count of 0: never no row at all.)
CREATE TABLE s (t text);
SELECT string_agg(t, ','), jsonb_agg(t), every(t = 'a'), array_agg(t) FROM s;
SELECT count(*) FILTER (WHERE t = 'a') FROM s;
-- refused
SELECT stddev(length(t)) FROM s;
-- refused
SELECT mode() WITHIN GROUP (ORDER BY t) FROM s;
SELECT count(*), max(t) FROM s;

-- case: a partial unique index is refused; a partial plain index changes no answer
CREATE TABLE m (id int, user_id int, archived boolean);
-- refused
CREATE UNIQUE INDEX m_live ON m (user_id) WHERE archived = false;
CREATE INDEX m_live_plain ON m (user_id) WHERE archived = false;
INSERT INTO m VALUES (1, 7, false), (2, 7, true), (3, 8, false), (4, 8, true);
SELECT id FROM m WHERE user_id = 7 AND archived = false ORDER BY id;

-- case: a failed transaction block refuses SAVEPOINT and RELEASE with 25P02
BEGIN;
-- expect 22012
SELECT 1 / 0;
-- expect 25P02
SAVEPOINT a;
-- expect 25P02
RELEASE SAVEPOINT a;
-- expect 3B001
ROLLBACK TO SAVEPOINT a;
-- expect 25P02
SELECT 1;
ROLLBACK;
SELECT 1;

-- case: ROLLBACK TO a savepoint revives a failed block
CREATE TABLE r (x int);
BEGIN;
INSERT INTO r VALUES (1);
SAVEPOINT a;
INSERT INTO r VALUES (2);
-- expect 22012
SELECT 1 / 0;
-- expect 25P02
SAVEPOINT b;
ROLLBACK TO SAVEPOINT a;
INSERT INTO r VALUES (3);
COMMIT;
SELECT x FROM r ORDER BY x;

-- case: START TRANSACTION's tag is its own
-- expect START TRANSACTION
START TRANSACTION;
COMMIT;
START TRANSACTION ISOLATION LEVEL REPEATABLE READ;
-- expect START TRANSACTION
START TRANSACTION;
ROLLBACK;
-- expect BEGIN
BEGIN;
COMMIT;

-- case: upper and lower change ASCII letters only, as the C locale does
SELECT upper('straße'), lower('STRAẞE'), upper('élan'), lower('ÉLAN'), upper('abc'), lower('ABC');

-- case: clock_timestamp() reads after now() and statement_timestamp()
BEGIN;
SELECT clock_timestamp() > now(), clock_timestamp() > statement_timestamp();
SELECT clock_timestamp() = now(), statement_timestamp() = now();
COMMIT;
SELECT statement_timestamp() = now(), clock_timestamp() > now();

-- case: pg_advisory_unlock_all() returns void
SELECT pg_advisory_lock(42);
SELECT pg_advisory_unlock_all();
SELECT pg_try_advisory_lock(42);
SELECT pg_advisory_unlock_all(), 1;

-- case: integers in PostgreSQL's other spellings: bases and underscores
SELECT '0x1F'::int, '0o17'::int, '0b101'::int, '-0x10'::int8, '1_000_000'::int, ' 42 '::int2;
SELECT '0X1f'::int, '+7'::int, '0x_1F'::int, '0o_17'::int;
-- expect 22P02
SELECT '1__000'::int;
-- expect 22P02
SELECT '_1'::int;
-- expect 22P02
SELECT '1_'::int;
-- expect 22P02
SELECT '0x'::int;
-- expect 22P02
SELECT '0x1G'::int;
-- expect 22003
SELECT '99999999999999999999'::int8;
-- expect 22003
SELECT '0x80000000'::int;
SELECT '-9223372036854775808'::int8, '0x7FFFFFFFFFFFFFFF'::int8;
-- expect 22003
SELECT '9223372036854775808'::int8;

-- case: timestamptz input: 'epoch', the other special values refused, bad input 22007
SELECT 'epoch'::timestamptz, ' EPOCH '::timestamptz = '1970-01-01 00:00:00+00'::timestamptz;
-- refused
SELECT 'infinity'::timestamptz;
-- refused
SELECT 'today'::timestamptz > '2000-01-01'::timestamptz;
-- expect 22007
SELECT 'not a time'::timestamptz;
-- expect 22008
SELECT '2026-02-30 10:00:00+00'::timestamptz;
-- expect 22008
SELECT '2026-13-01'::timestamptz;
SELECT '2024-02-29 10:00:00+00'::timestamptz;
-- expect 22007
SELECT '1 fortnight'::interval;

-- case: custom dotted settings, as row-level security reads them
SET app.user_id = 42;
SHOW app.user_id;
SELECT current_setting('app.user_id');
SET app.tenant = 'acme';
SELECT current_setting('app.tenant'), current_setting('app.user_id');
-- expect 42704
SHOW app.never_set;
-- expect 42704
SELECT current_setting('app.never_set');
BEGIN;
SET LOCAL app.request = 'r1';
SELECT current_setting('app.request');
COMMIT;
SHOW app.request;
RESET app.tenant;
SHOW app.tenant;

-- case: SET is transactional: an abort or a rollback to a savepoint takes it back
BEGIN;
SET enable_seqscan = off;
SHOW enable_seqscan;
ROLLBACK;
SHOW enable_seqscan;
BEGIN;
SET enable_seqscan = off;
COMMIT;
SHOW enable_seqscan;
RESET enable_seqscan;
BEGIN;
SET enable_indexscan = off;
SAVEPOINT a;
SET enable_seqscan = off;
SET LOCAL enable_sort = off;
ROLLBACK TO SAVEPOINT a;
SHOW enable_seqscan;
SHOW enable_sort;
SHOW enable_indexscan;
SAVEPOINT b;
SET enable_seqscan = off;
RELEASE SAVEPOINT b;
COMMIT;
SHOW enable_seqscan;
SHOW enable_indexscan;
BEGIN;
SET enable_bitmapscan = off;
-- expect 22012
SELECT 1 / 0;
ROLLBACK;
SHOW enable_bitmapscan;
BEGIN;
SET app.tenant = 'acme';
ROLLBACK;
SHOW app.tenant;

-- case: a minus sign folds into a numeric literal, as PostgreSQL's grammar does
SELECT -2147483648, -9223372036854775808, - 5, -2.5, -(1), -0;
-- expect 22003
SELECT abs(-9223372036854775808);
-- expect 22003
SELECT abs((-2147483648)::int4);

-- case: float4 arithmetic stays in float4, with PostgreSQL's overflow and underflow
SELECT 1::float4 + 0.1::float4, 1::float4 * 0.1::float4, 1::float4 / 3::float4, 1::float4 - 0.1::float4;
SELECT 10::float4 / 3, 2::float4 + 1, 0.1::float4 + 0.2::float8;
-- expect 22003
SELECT 1e30::float4 * 1e30::float4;
-- expect 22003
SELECT 1e-30::float4 * 1e-30::float4;
-- expect 22003
SELECT 1e-300::float8 * 1e-300::float8;
-- expect 22003
SELECT 1e-300::float8 / 1e300::float8;

-- case: NOT EXISTS is an unnamed column; || on text and on arrays
SELECT NOT EXISTS (SELECT 1), EXISTS (SELECT 1);
SELECT 'a' || 1, 1 || 'a', 'a' || NULL;
-- refused
SELECT ARRAY[1, 2] || ARRAY[3];
-- refused
SELECT ARRAY['a'] || 'b'::text;

-- case: the vector type exists once CREATE EXTENSION vector ran, not before
-- expect 42704
CREATE TABLE e (id int, v vector(3));
-- expect 42704
SELECT '[1,2]'::vector;
-- expect 42704
SELECT CAST('[1,2]' AS vector(2));
CREATE EXTENSION vector;
CREATE TABLE e (id int, v vector(3));
SELECT '[1,2]'::vector::text, CAST('[1,2]' AS vector(2))::text;
