-- pgvector 0.8's halfvec type (issue 45): text input rounded to IEEE half precision and
-- printed as the shortest float4 that reads back, pgvector's errors (SQLSTATE and
-- message), the typmod, the casts between vector, halfvec and arrays, the operators and
-- functions with their vector/halfvec overload resolution, sum and avg, btree order, and
-- HNSW and IVFFlat indexes on halfvec columns answering ORDER BY … LIMIT. `<+>` is left
-- out: sqlparser 0.64 does not parse it.

-- case: halfvec text input and output: rounding to half, range and syntax errors
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '[1,2,3]'::halfvec::text, '[-1,-2,-3]'::halfvec::text, '[1.,2.,3.]'::halfvec::text, ' [ 1,  2 ,    3  ] '::halfvec::text;
SELECT '[1.23456]'::halfvec::text, '[0.1,3.14159,1e-5,65519,-65519]'::halfvec::text, '[1e-8,-1e-8]'::halfvec::text, '[1e-46,1]'::halfvec::text;
SELECT '[0.333333,100000.5e-5,6e-8,5.9e-8,2.9e-8]'::halfvec::text;
-- expect 22003
SELECT '[65520,-65520]'::halfvec;
-- expect 22003
SELECT '[4e38,1]'::halfvec;
-- expect 22000
SELECT '[NaN,1]'::halfvec;
-- expect 22000
SELECT '[Infinity,1]'::halfvec;
-- expect 22000
SELECT '[-Infinity,1]'::halfvec;
-- expect 22P02
SELECT '[hello,1]'::halfvec;
-- expect 22P02
SELECT '[1,2,3'::halfvec;
-- expect 22P02
SELECT '[1,2,3]9'::halfvec;
-- expect 22P02
SELECT '1,2,3'::halfvec;
-- expect 22P02
SELECT ''::halfvec;
-- expect 22000
SELECT '[]'::halfvec;
-- expect 22000
SELECT '[ ]'::halfvec;
-- expect 22P02
SELECT '[1,]'::halfvec;
-- expect 22P02
SELECT '[1, ,3]'::halfvec;

-- case: the halfvec(n) typmod and its errors
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '[1,2,3]'::halfvec(3)::text;
-- expect 22000
SELECT '[1,2,3]'::halfvec(2);
-- expect 22023
SELECT '[1,2,3]'::halfvec(3, 2);
-- expect 22P02
SELECT '[1,2,3]'::halfvec('a');
-- expect 22023
SELECT '[1,2,3]'::halfvec(0);
-- expect 22023
SELECT '[1,2,3]'::halfvec(16001);
-- expect 22000
SELECT '{"[1,2,3]"}'::halfvec(2)[];
-- refused
SELECT unnest('{"[1,2,3]", "[4,5,6]"}'::halfvec[])::text;
SELECT ARRAY['[1,2]'::halfvec]::text;

-- case: casts between vector, halfvec and arrays
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '[1,2,3]'::vector::halfvec::text, '[1,2,3]'::vector::halfvec(3)::text, '[0.1,1e-8]'::vector::halfvec::text;
-- expect 22000
SELECT '[1,2,3]'::vector::halfvec(2);
-- expect 22003
SELECT '[65520]'::vector::halfvec;
SELECT '[1,2,3]'::halfvec::vector::text, '[0.1]'::halfvec::vector(1)::text, '[0.1]'::halfvec::text;
-- expect 22000
SELECT '[1,2,3]'::halfvec::vector(2);
SELECT '{1,2,3}'::int[]::halfvec::text, ARRAY[1.5,2]::halfvec(2)::text, ARRAY[0.1,1e-8]::float8[]::halfvec::text;
-- expect 22003
SELECT ARRAY[1e10]::float8[]::halfvec;
-- expect 22003
SELECT ARRAY[70000]::halfvec;
-- expect 22000
SELECT ARRAY[1,2]::halfvec(3);
-- expect 22004
SELECT ARRAY[1,NULL]::halfvec;
-- expect 22000
SELECT ARRAY['Infinity']::float8[]::halfvec;
-- expect 22000
SELECT ARRAY[1e300]::float8[]::halfvec;

-- case: arithmetic and concatenation, with half precision's overflow and underflow
CREATE EXTENSION IF NOT EXISTS vector;
SELECT ('[1,2,3]'::halfvec + '[4,5,6]')::text, ('[1,2,3]'::halfvec - '[4,5,6]')::text, ('[1,2,3]'::halfvec * '[4,5,6]')::text;
SELECT ('[0.1,0.2]'::halfvec + '[0.2,0.3]')::text, ('[0.1,0.2]'::halfvec * '[0.3,0.7]')::text, ('[1,2]'::halfvec + '[0.1,0.2]'::vector)::text;
-- expect 22003
SELECT '[65519]'::halfvec + '[65519]';
-- expect 22003
SELECT '[-65519]'::halfvec - '[65519]';
-- expect 22003
SELECT '[65519]'::halfvec * '[65519]';
-- expect 22003
SELECT '[1e-7]'::halfvec * '[1e-7]';
-- expect 22000
SELECT '[1,2]'::halfvec + '[3]';
-- expect 22000
SELECT '[1,2]'::halfvec * '[3]';
SELECT ('[1,2,3]'::halfvec || '[4,5]')::text, ('[1]'::halfvec || '[0.1]'::vector)::text;

-- case: btree comparisons and halfvec_cmp
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '[1,2,3]'::halfvec < '[1,2,3]', '[1,2,3]'::halfvec < '[1,2]', '[1,2,3]'::halfvec <= '[1,2,3]', '[1,2,3]'::halfvec <= '[1,2]';
SELECT '[1,2,3]'::halfvec = '[1,2,3]', '[1,2,3]'::halfvec = '[1,2]', '[1,2,3]'::halfvec != '[1,2,3]', '[1,2,3]'::halfvec <> '[1,2]';
SELECT '[1,2,3]'::halfvec >= '[1,2,3]', '[1,2,3]'::halfvec >= '[1,2]', '[1,2,3]'::halfvec > '[1,2,3]', '[1,2,3]'::halfvec > '[1,2]';
SELECT '[0.1]'::halfvec = '[0.1]'::vector, '[0.1]'::halfvec = '[0.1001]'::halfvec;
SELECT halfvec_cmp('[1,2,3]', '[1,2,3]'), halfvec_cmp('[1,2,3]', '[0,0,0]'), halfvec_cmp('[0,0,0]', '[1,2,3]'), halfvec_cmp('[1,2]', '[1,2,3]');
SELECT halfvec_cmp('[1,2,3]', '[1,2]'), halfvec_cmp('[1,2]', '[2,3,4]'), halfvec_cmp('[2,3]', '[1,2,3]'), halfvec_cmp('[1,2]'::vector, '[1,3]');
SELECT vector_cmp('[1,2]', '[1,3]');
CREATE TABLE t (id int4, v halfvec(2));
INSERT INTO t VALUES (1, '[1,2]'), (2, '[0.5,9]'), (3, '[1,1]'), (4, NULL), (5, '[1,2]');
SELECT id, v::text FROM t ORDER BY v, id;
SELECT id, v::text FROM t ORDER BY v DESC, id;
SELECT count(DISTINCT v) FROM t;
SELECT id FROM t WHERE v = '[1,2]' ORDER BY id;

-- case: distances, norms and functions, and which overload each call resolves to
CREATE EXTENSION IF NOT EXISTS vector;
SELECT vector_dims('[1,2,3]'::halfvec), l2_norm('[3,4]'::halfvec), l2_norm('[0,1]'::halfvec), l2_norm('[0,0]'::halfvec), l2_norm('[2]'::halfvec);
SELECT round(l2_norm('[1,1]'::halfvec)::numeric, 5), l2_norm('[0.1,0.2]'::halfvec);
SELECT l2_distance('[0,0]'::halfvec, '[3,4]'), l2_distance('[0,0]'::halfvec, '[0,1]'), l2_distance('[1,1,1,1,1,1,1,1,1]'::halfvec, '[1,1,1,1,1,1,1,4,5]'), '[0,0]'::halfvec <-> '[3,4]';
SELECT inner_product('[1,2]'::halfvec, '[3,4]'), inner_product('[65504]'::halfvec, '[65504]'), inner_product('[1,1,1,1,1,1,1,1,1]'::halfvec, '[1,2,3,4,5,6,7,8,9]'), '[1,2]'::halfvec <#> '[3,4]';
SELECT cosine_distance('[1,2]'::halfvec, '[2,4]'), cosine_distance('[1,2]'::halfvec, '[0,0]'), cosine_distance('[1,1]'::halfvec, '[1,1]'), cosine_distance('[1,0]'::halfvec, '[0,2]');
SELECT cosine_distance('[1,1]'::halfvec, '[-1,-1]'), cosine_distance('[1,1]'::halfvec, '[1.1,1.1]'), cosine_distance('[1,1]'::halfvec, '[-1.1,-1.1]'), '[1,2]'::halfvec <=> '[2,4]';
SELECT l1_distance('[0,0]'::halfvec, '[3,4]'), l1_distance('[1,2,3,4,5,6,7,8,9]'::halfvec, '[0,3,2,5,4,7,6,9,8]');
-- within 0.000001
SELECT l2_distance('[0.1,0.2,0.3]'::halfvec, '[0.3,0.2,0.1]'), cosine_distance('[0.1,0.2,0.3]'::halfvec, '[0.3,0.2,0.1]'), inner_product('[0.1,0.2,0.3]'::halfvec, '[0.3,0.2,0.1]');
-- within 0.000001
SELECT '[0.1,0.2]'::vector <-> '[0.3,0.1]'::halfvec, l2_distance('[0.1,0.2]'::vector, '[0.3,0.1]'::halfvec), l2_distance('[0.1,0.2]'::vector, '[0.3,0.1]');
-- expect 22000
SELECT l2_distance('[1,2]'::halfvec, '[3]');
-- expect 22000
SELECT inner_product('[1,2]'::halfvec, '[3]');
-- expect 22000
SELECT cosine_distance('[1,2]'::halfvec, '[3]');
-- expect 22000
SELECT l1_distance('[1,2]'::halfvec, '[3]');
-- expect 22000
SELECT '[1,2]'::halfvec <-> '[1,2,3]'::halfvec;
SELECT l2_normalize('[3,4]'::halfvec)::text, l2_normalize('[3,0]'::halfvec)::text, l2_normalize('[0,0.1]'::halfvec)::text, l2_normalize('[0,0]'::halfvec)::text, l2_normalize('[65504]'::halfvec)::text, l2_normalize('[1,2,3]'::halfvec)::text;
SELECT subvector('[1,2,3,4,5]'::halfvec, 1, 3)::text, subvector('[1,2,3,4,5]'::halfvec, 3, 2)::text, subvector('[1,2,3,4,5]'::halfvec, -1, 3)::text, subvector('[1,2,3,4,5]'::halfvec, 3, 9)::text;
SELECT subvector('[1,2,3,4,5]'::halfvec, 3, 2147483647)::text, subvector('[1,2,3,4,5]'::halfvec, -2147483644, 2147483647)::text, subvector('[1,2,3]'::vector, 2, 5)::text;
-- expect 22000
SELECT subvector('[1,2,3,4,5]'::halfvec, 1, 0);
-- expect 22000
SELECT subvector('[1,2,3,4,5]'::halfvec, 3, -1);
-- expect 22000
SELECT subvector('[1,2,3,4,5]'::halfvec, -1, 2);
-- expect 22000
SELECT subvector('[1,2,3,4,5]'::halfvec, 2147483647, 10);
-- expect 42725
SELECT l2_norm('[3,4]'::vector);
-- expect 42725
SELECT vector_dims('[1,2]');
-- expect 42725
SELECT l2_distance('[1,2]', '[3,4]');
-- expect 42883
SELECT vector_norm('[1,2]'::halfvec);
SELECT ('[1,2]'::vector + '[1,3]'::halfvec)::text, l2_normalize('[1,2]'::vector)::text, ('[1,2]'::halfvec || '[1]'::vector)::text;

-- case: sum and avg over halfvec
CREATE EXTENSION IF NOT EXISTS vector;
SELECT avg(v)::text, sum(v)::text FROM unnest(ARRAY['[1,2,3]'::halfvec, '[3,5,7]']) v;
SELECT avg(v)::text, sum(v)::text FROM unnest(ARRAY['[1,2,3]'::halfvec, '[3,5,7]', NULL]) v;
SELECT avg(v)::text, sum(v)::text FROM unnest(ARRAY[]::halfvec[]) v;
SELECT avg(v)::text, sum(v)::text FROM unnest(ARRAY['[0.1,0.2]'::halfvec, '[0.3,0.7]', '[0.5,0.01]']) v;
SELECT avg(v)::text FROM unnest(ARRAY['[65504]'::halfvec, '[65504]']) v;
-- expect 22000
SELECT avg(v) FROM unnest(ARRAY['[1,2]'::halfvec, '[3]']) v;
-- expect 22000
SELECT sum(v) FROM unnest(ARRAY['[1,2]'::halfvec, '[3]']) v;
-- expect 22003
SELECT sum(v) FROM unnest(ARRAY['[65504]'::halfvec, '[65504]']) v;
SELECT avg(v)::text, sum(v)::text FROM unnest(ARRAY['[1,2,3]'::vector, '[3,5,7]', '[0.1,0.2,0.3]']) v;

-- case: a halfvec column: storing, rounding, assignment casts, typmod errors
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE items (id int4 PRIMARY KEY, embedding halfvec(3), plain halfvec);
-- expect INSERT 0 3
INSERT INTO items VALUES (1, '[0.1,0.2,0.3]', '[1]'), (2, '[1,2,3]'::vector, '[1,2,3,4]'), (3, ARRAY[1,2,3], NULL);
-- expect 22000
INSERT INTO items VALUES (4, '[1,2]', NULL);
-- expect 22003
INSERT INTO items VALUES (5, '[1,2,70000]', NULL);
-- expect UPDATE 1
UPDATE items SET embedding = embedding + '[0.001,0.001,0.001]' WHERE id = 1;
SELECT id, embedding::text, plain::text, vector_dims(embedding), embedding::vector::text FROM items ORDER BY id;
CREATE TABLE v (id int4, e vector(3));
-- expect INSERT 0 3
INSERT INTO v SELECT id, embedding FROM items;
SELECT id, e::text FROM v ORDER BY id;

-- case: HNSW on halfvec: the four classes' errors, the index path, a NULL query
CREATE EXTENSION IF NOT EXISTS vector;
SET enable_seqscan = off;
CREATE TABLE t (val halfvec(3));
INSERT INTO t (val) VALUES ('[0,0,0]'), ('[1,2,3]'), ('[1,1,1]'), (NULL);
-- expect 42704
CREATE INDEX ON t USING hnsw (val);
-- expect 42804
CREATE INDEX ON t USING hnsw (val vector_l2_ops);
CREATE INDEX l2 ON t USING hnsw (val halfvec_l2_ops);
INSERT INTO t (val) VALUES ('[1,2,4]');
SELECT val::text FROM t ORDER BY val <-> '[3,3,3]';
SELECT val::text FROM t ORDER BY val <-> '[3,3,3]'::vector LIMIT 2;
SELECT COUNT(*) FROM t;
DROP INDEX l2;
CREATE INDEX ip ON t USING hnsw (val halfvec_ip_ops);
SELECT val::text FROM t ORDER BY val <#> '[3,3,3]';
DROP INDEX ip;
CREATE INDEX cos ON t USING hnsw (val halfvec_cosine_ops);
SELECT val::text FROM t ORDER BY val <=> '[3,3,3]';
SELECT COUNT(*) FROM (SELECT val::text FROM t ORDER BY val <=> '[0,0,0]') t2;
DROP INDEX cos;
CREATE INDEX l1 ON t USING hnsw (val halfvec_l1_ops);
TRUNCATE t;
SELECT val::text FROM t ORDER BY val <-> '[3,3,3]';
CREATE TABLE wide (v halfvec(4001), w halfvec(4000), n halfvec);
-- expect 54000
CREATE INDEX ON wide USING hnsw (v halfvec_l2_ops);
CREATE INDEX wide_w ON wide USING hnsw (w halfvec_l2_ops);
-- expect 22023
CREATE INDEX wide_n ON wide USING hnsw (n halfvec_l2_ops);
CREATE TABLE vt (v vector(3));
-- expect 42804
CREATE INDEX ON vt USING hnsw (v halfvec_l2_ops);

-- case: IVFFlat on halfvec
CREATE EXTENSION IF NOT EXISTS vector;
SET enable_seqscan = off;
CREATE TABLE t (val halfvec(3));
INSERT INTO t (val) VALUES ('[0,0,0]'), ('[1,2,3]'), ('[1,1,1]'), (NULL);
CREATE INDEX l2 ON t USING ivfflat (val halfvec_l2_ops) WITH (lists = 1);
INSERT INTO t (val) VALUES ('[1,2,4]');
SELECT val::text FROM t ORDER BY val <-> '[3,3,3]';
DROP INDEX l2;
CREATE INDEX ip ON t USING ivfflat (val halfvec_ip_ops) WITH (lists = 1);
SELECT val::text FROM t ORDER BY val <#> '[3,3,3]';
DROP INDEX ip;
CREATE INDEX cos ON t USING ivfflat (val halfvec_cosine_ops) WITH (lists = 1);
SELECT val::text FROM t ORDER BY val <=> '[3,3,3]';
-- expect 42704
CREATE INDEX ON t USING ivfflat (val halfvec_l1_ops);
CREATE TABLE wide (v halfvec(4001));
-- expect 54000
CREATE INDEX ON wide USING ivfflat (v halfvec_l2_ops);
