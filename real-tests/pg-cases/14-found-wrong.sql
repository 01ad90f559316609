-- Answers the model gave wrongly until this file: a derived table's alias column list,
-- a TimeZone other than UTC, float4's rounding.

-- case: a derived table's alias column list renames its columns in order
SELECT s.a, s.b FROM (SELECT 1 AS x, 2 AS y) AS s(a, b);
SELECT a FROM (SELECT 1 AS x, 2 AS y) AS s(a);
SELECT x FROM (SELECT 1 AS x, 2 AS y) AS s(y, x);
SELECT * FROM (SELECT 1 AS x, 2 AS y) AS s(y);
-- expect 42P10
SELECT * FROM (SELECT 1 AS x) AS s(a, b);

-- case: float4 keeps a float4's precision
SELECT 0.1::float8::float4::float8, 1::float4 = 1::float8, '0.1'::float4::float8, 16777217::float4::float8;
SELECT '0.1'::float4 = 0.1::float8;
-- expect 22003
SELECT '1e39'::float4;
-- expect 22003
SELECT 1e300::float8::float4;

-- case: TimeZone UTC is what the model prints in
SET TimeZone = 'UTC';
SELECT '2026-01-01 00:00:00+02'::timestamptz::text;
