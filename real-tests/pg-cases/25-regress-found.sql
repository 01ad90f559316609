-- What PostgreSQL 18.3's own regression files (real-tests/pg_regress.rs) found the model
-- answering wrongly, each now answered as PostgreSQL answers or refused.

-- case: array literals read as array_in reads them
SELECT '{1,null,3}'::int[], '{}'::text[], '{ ab\c , "ab\"c" }'::text[];
SELECT '{null,n\ull,"null"}'::text[], '{{},{}}'::text[];
-- expect 22P02
SELECT '{"a"b}'::text[];
-- expect 22P02
SELECT '{foo,,bar}'::text[];
-- expect 22P02
SELECT '{1,}'::text[];
-- expect 22P02
SELECT '{}}'::text[];
-- expect 22P02
SELECT '{{1},{}}'::text[];
-- refused
SELECT '{{1,2},{3,4}}'::int[];
-- refused
SELECT '[0:1]={1,2}'::int[];
SELECT 33 = ANY ('{1,2,33}'), 33 = ANY ('{1,null,3}'), NULL::int >= ANY ('{}');
SELECT cardinality('{}'::int[]), cardinality('{5,6}'::int[]), array_length('{5,6}'::int[], 1), array_length('{5,6}'::int[], 2);
-- refused
SELECT 'foo' LIKE ALL (ARRAY['f%', '%o']);

-- case: VALUES takes its rows' common type, an untyped literal read as it
SELECT a, b, sum(b) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (VALUES (1, 1::numeric), (2, 2), (3, 'NaN'), (4, 3)) t(a, b);
SELECT * FROM (VALUES (1), (3000000000), (NULL)) t(n);
SELECT column1 FROM (VALUES (1), (2.5)) v;
-- expect 42804
SELECT * FROM (VALUES (1), ('x'::text)) t(n);
-- refused
SELECT var_pop(n) OVER () FROM (VALUES (1), (2)) t(n);

-- case: DROP TABLE drops every table it names or none
CREATE TABLE parent (id int PRIMARY KEY);
CREATE TABLE child (id int REFERENCES parent (id));
-- expect 2BP01
DROP TABLE parent;
-- expect 42P01
DROP TABLE child, missing;
SELECT count(*) FROM child;
-- expect DROP TABLE
DROP TABLE parent, child;
CREATE TABLE parent (id int PRIMARY KEY);
CREATE TABLE child (id int REFERENCES parent (id));
-- refused
DROP TABLE parent CASCADE;
-- refused
CREATE TABLE base (a int) PARTITION BY RANGE (a);
CREATE TABLE plain (a int);
-- refused
CREATE TABLE heir (b text) INHERITS (plain);

-- case: a LATERAL VALUES reads the columns before it (the model panicked typing it)
SELECT * FROM (VALUES (1)) x(lb), LATERAL (VALUES (lb)) y(lbcopy);
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) x(n, s), LATERAL (VALUES (n * 10, s || '!')) y(m, t) ORDER BY n;
