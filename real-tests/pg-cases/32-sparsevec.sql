-- pgvector 0.8's sparsevec type (issue 45): the text form `{1:1.5,3:2}/5` with
-- pgvector's errors (SQLSTATE and message), the typmod, the casts to and from vector,
-- halfvec and arrays (real[] among them), the comparisons and btree order, the distance
-- functions and operators (`<+>` too) with the overloads the implicit casts pick, and
-- HNSW's sparsevec classes answering ORDER BY.

-- case: sparsevec text input and output, and its errors
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '{1:1.5,3:3.5}/5'::sparsevec::text, '{1:-2,3:-4}/5'::sparsevec::text, ' { 1 : 1.5 ,  3  :  3.5  } / 5 '::sparsevec::text;
SELECT '{2:1,1:1}/2'::sparsevec::text, '{1:0,2:1,3:0}/3'::sparsevec::text, '{}/5'::sparsevec::text, '{1:1.23456}/1'::sparsevec::text;
SELECT '{1:1.5e-38,2:-1.5e38}/2'::sparsevec::text, '{1:1e-40}/1'::sparsevec::text, '{1:0x1p3}/1'::sparsevec::text;
-- expect 22P02
SELECT '{1:hello,2:1}/2'::sparsevec;
-- expect 22000
SELECT '{1:NaN,2:1}/2'::sparsevec;
-- expect 22000
SELECT '{1:-Infinity,2:1}/2'::sparsevec;
-- expect 22003
SELECT '{1:4e38,2:1}/2'::sparsevec;
-- expect 22003
SELECT '{1:1e-46,2:1}/2'::sparsevec;
-- expect 22P02
SELECT ''::sparsevec;
-- expect 22P02
SELECT '{1:1}'::sparsevec;
-- expect 22P02
SELECT '{}/1a'::sparsevec;
-- expect 22P02
SELECT '{1:}/1'::sparsevec;
-- expect 22P02
SELECT '{1:1,}/1'::sparsevec;
-- expect 22000
SELECT '{1:1,1:1}/2'::sparsevec;
SELECT '{1:0,1:0}/2'::sparsevec::text;
-- expect 22000
SELECT '{0:1}/1'::sparsevec;
-- expect 22000
SELECT '{2:1}/1'::sparsevec;
-- expect 22000
SELECT '{}/-1'::sparsevec;
-- expect 54000
SELECT '{}/1000000001'::sparsevec;
-- expect 54000
SELECT '{}/9223372036854775808'::sparsevec;
-- expect 22000
SELECT '{-2147483649:1}/1'::sparsevec;

-- case: the sparsevec(n) typmod and its errors
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '{}/3'::sparsevec(3)::text;
-- expect 22000
SELECT '{}/3'::sparsevec(2);
-- expect 22000
SELECT '{5:1}/3'::sparsevec(2);
-- expect 22023
SELECT '{}/3'::sparsevec(3, 2);
-- expect 22P02
SELECT '{}/3'::sparsevec('a');
-- expect 22023
SELECT '{}/3'::sparsevec(0);
-- expect 22023
SELECT '{}/3'::sparsevec(1000000001);

-- case: casts between sparsevec, the dense types and arrays
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '[0,1.5,0,3.5,0]'::vector::sparsevec::text, '[0,1.5,0,3.5,0]'::halfvec::sparsevec(5)::text;
SELECT '{2:1.5,4:3.5}/5'::sparsevec::vector::text, '{2:1.5,4:3.5}/5'::sparsevec::halfvec(5)::text, '{1:1e-8}/1'::sparsevec::halfvec::text;
-- expect 22000
SELECT '[0,1.5,0,3.5,0]'::vector::sparsevec(4);
-- expect 22000
SELECT '{2:1.5,4:3.5}/5'::sparsevec::vector(4);
-- expect 54000
SELECT '{}/16001'::sparsevec::vector;
-- expect 22003
SELECT '{1:65520}/1'::sparsevec::halfvec;
SELECT ARRAY[1,0,2,0,3,0]::sparsevec::text, ARRAY[1.0,0.0,2.0]::sparsevec::text, ARRAY[1,0,2]::float8[]::sparsevec::text;
SELECT '{1,0,2,0,3,0}'::real[]::sparsevec(6)::text, '{1,2,3}'::real[]::vector::text, '{1,2,3}'::real[]::halfvec(3)::text;
SELECT '[1,2,3]'::vector::real[], '[1.5,2]'::halfvec::real[], '{1.5,-2,1e-7}'::real[];
-- expect 22004
SELECT '{NULL}'::real[]::sparsevec;
-- expect 22000
SELECT '{NaN}'::real[]::sparsevec;
-- expect 22000
SELECT '{Infinity}'::real[]::vector;
-- expect 22000
SELECT '{}'::real[]::sparsevec;
-- expect 22000
SELECT '{1,2,3}'::real[]::sparsevec(2);
-- expect 22000
SELECT ARRAY[4e38,0]::float8[]::sparsevec;

-- case: comparisons, sparsevec_cmp and the btree order
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '{1:1,2:2,3:3}/3'::sparsevec < '{1:1,2:2}/2', '{1:1,2:2,3:3}/3'::sparsevec = '{1:1,2:2,3:3}/3', '{1:1}/3'::sparsevec >= '{2:1}/3', '{1:-1}/3'::sparsevec > '{2:1}/3';
SELECT sparsevec_cmp('{1:1,2:2,3:3}/3', '{}/3'), sparsevec_cmp('{}/3', '{1:1,2:2,3:3}/3'), sparsevec_cmp('{1:1,2:2}/2', '{1:1,2:2,3:3}/3'), sparsevec_cmp('{1:2,2:3}/2', '{1:1,2:2,3:3}/3');
SELECT sparsevec_cmp('{1:1}/2', '[1,0]'::vector), '[1,0]'::vector = '{1:1}/2'::sparsevec, '[0,1]'::halfvec < '{1:1}/2'::sparsevec;
CREATE TABLE t (id int, v sparsevec(3));
INSERT INTO t VALUES (1, '{}/3'), (2, '{1:1,2:2,3:3}/3'), (3, '{1:1,2:1,3:1}/3'), (4, NULL), (5, '{3:-1}/3'), (6, '{2:5}/3');
SELECT id, v::text FROM t ORDER BY v, id;
SELECT id, v::text FROM t ORDER BY v DESC, id;
SELECT id FROM t WHERE v = '{1:1,2:2,3:3}/3' ORDER BY id;
CREATE INDEX ON t (v);
SELECT id FROM t WHERE v > '{}/3' ORDER BY id;

-- case: distances, norms and the overload each call resolves to
CREATE EXTENSION IF NOT EXISTS vector;
SELECT l2_distance('{}/2'::sparsevec, '{1:3,2:4}/2'), l2_distance('{1:3}/2'::sparsevec, '{2:4}/2'), '{}/2'::sparsevec <-> '{1:3,2:4}/2';
SELECT inner_product('{1:1,3:3,5:5}/5'::sparsevec, '{2:4,3:6,4:8}/5'), inner_product('{1:3e38}/1'::sparsevec, '{1:3e38}/1'), '{1:1,2:2}/2'::sparsevec <#> '{1:3,2:4}/2';
SELECT cosine_distance('{1:1,2:2}/2'::sparsevec, '{1:2,2:4}/2'), cosine_distance('{1:1}/2'::sparsevec, '{2:2}/2'), cosine_distance('{1:1,2:1}/2'::sparsevec, '{1:-1.1,2:-1.1}/2'), cosine_distance('{}/1'::sparsevec, '{}/1'), '{1:1,2:2}/2'::sparsevec <=> '{1:2,2:4}/2';
SELECT l1_distance('{1:1,3:3,5:5,7:7}/8'::sparsevec, '{2:2,4:4,6:6,8:8}/8'), l1_distance('{1:3e38}/1'::sparsevec, '{1:-3e38}/1'), '{}/2'::sparsevec <+> '{1:3,2:4}/2';
SELECT l2_norm('{1:3,2:4}/2'::sparsevec), l2_norm('{}/2'::sparsevec), l2_norm('{1:3e37,2:4e37}/2'::sparsevec)::real;
SELECT l2_normalize('{1:3,2:4}/2'::sparsevec)::text, l2_normalize('{}/2'::sparsevec)::text, l2_normalize('{1:3e38,2:1e-37}/2'::sparsevec)::text;
SELECT l2_distance('[1,2]'::vector, '{1:3}/2'::sparsevec), '[1,2]'::halfvec <-> '{1:3}/2'::sparsevec, '[0,0]'::vector <+> '[3,4]', '[0,0]'::halfvec <+> '[3,4]';
SELECT l2_norm('[3,4]'::halfvec), sparsevec_cmp('[1,2]'::halfvec, '[1,2]'::halfvec);
-- expect 22000
SELECT l2_distance('{1:1}/2'::sparsevec, '{1:1}/3');
-- expect 22000
SELECT '{1:1}/2'::sparsevec <=> '{1:1}/3';
-- expect 42883
SELECT vector_dims('{1:1}/2'::sparsevec);
-- expect 42883
SELECT '{1:1}/2'::sparsevec + '{1:1}/2';
-- expect 42725
SELECT l2_norm('[3,4]'::vector);
-- expect 42725
SELECT l2_distance('{1:1}/2', '{1:1}/2');

-- case: a sparsevec column: assignment casts, the typmod, NULLs
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE items (id int PRIMARY KEY, e sparsevec(3), d vector(3));
INSERT INTO items VALUES (1, '{1:1}/3', '[1,0,2]'), (2, '[0,2,0]'::vector, '{3:4}/3'::sparsevec), (3, ARRAY[0,0,5], NULL);
UPDATE items SET e = d WHERE d IS NOT NULL;
SELECT id, e::text, d::text, e <-> d, l2_norm(e) FROM items ORDER BY id;
-- expect 22000
INSERT INTO items VALUES (4, '{1:1}/4', NULL);
-- expect 22000
INSERT INTO items VALUES (5, '[1,2]'::vector, NULL);

-- case: HNSW on sparsevec: the four classes, their errors, the index path
CREATE EXTENSION IF NOT EXISTS vector;
SET enable_seqscan = off;
CREATE TABLE t (val sparsevec(3));
INSERT INTO t (val) VALUES ('{}/3'), ('{1:1,2:2,3:3}/3'), ('{1:1,2:1,3:1}/3'), (NULL);
-- expect 42704
CREATE INDEX ON t USING hnsw (val);
-- expect 42804
CREATE INDEX ON t USING hnsw (val vector_l2_ops);
-- expect 42704
CREATE INDEX ON t USING ivfflat (val sparsevec_l2_ops);
CREATE INDEX l2 ON t USING hnsw (val sparsevec_l2_ops);
INSERT INTO t (val) VALUES ('{1:1,2:2,3:4}/3');
SELECT val::text FROM t ORDER BY val <-> '{1:3,2:3,3:3}/3';
SELECT val::text FROM t ORDER BY val <-> '[3,3,3]'::vector LIMIT 2;
DROP INDEX l2;
CREATE INDEX ip ON t USING hnsw (val sparsevec_ip_ops);
SELECT val::text FROM t ORDER BY val <#> '{1:3,2:3,3:3}/3';
DROP INDEX ip;
CREATE INDEX cos ON t USING hnsw (val sparsevec_cosine_ops);
SELECT val::text FROM t ORDER BY val <=> '{1:3,2:3,3:3}/3';
SELECT COUNT(*) FROM (SELECT val::text FROM t ORDER BY val <=> '{}/3') t2;
DROP INDEX cos;
CREATE INDEX l1 ON t USING hnsw (val sparsevec_l1_ops);
SELECT val::text FROM t ORDER BY val <+> '{1:3,2:3,3:3}/3';
-- expect 22000
SELECT val::text FROM t ORDER BY val <+> '{1:3}/4';
TRUNCATE t;
SELECT val::text FROM t ORDER BY val <+> '{1:3,2:3,3:3}/3';
CREATE TABLE n (val sparsevec);
-- expect 22023
CREATE INDEX ON n USING hnsw (val sparsevec_l2_ops);
CREATE TABLE dense (val sparsevec(1001));
INSERT INTO dense (val) SELECT array_agg(1)::vector::sparsevec FROM generate_series(1, 1001);
-- expect 54000
CREATE INDEX ON dense USING hnsw (val sparsevec_l2_ops);
TRUNCATE dense;
CREATE INDEX ON dense USING hnsw (val sparsevec_l2_ops);
-- expect 54000
INSERT INTO dense (val) SELECT array_agg(1)::vector::sparsevec FROM generate_series(1, 1001);
SELECT COUNT(*) FROM dense;
