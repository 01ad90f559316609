-- Issue 54's failure isolation and small fixes: what made the model panic (a table
-- dropped with its vector index and made again; an index on too many dimensions) and
-- the pgvector and DEALLOCATE answers it gave wrongly, each as PostgreSQL answers it.

-- case: a table dropped with its HNSW index and rows leaves nothing behind
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE dropped (id int4 PRIMARY KEY, v vector(2));
CREATE INDEX dropped_hnsw ON dropped USING hnsw (v vector_l2_ops);
INSERT INTO dropped VALUES (1, '[1,1]'), (2, '[2,2]'), (3, '[3,3]');
DROP TABLE dropped;
CREATE TABLE dropped (id int4 PRIMARY KEY, v vector(2));
-- expect INSERT 0 2
INSERT INTO dropped VALUES (1, '[5,5]'), (2, '[6,6]');
CREATE INDEX dropped_hnsw ON dropped USING hnsw (v vector_l2_ops);
INSERT INTO dropped VALUES (3, '[7,7]');
BEGIN;
SET LOCAL enable_seqscan = off;
SELECT id FROM dropped ORDER BY v <-> '[0,0]' LIMIT 5;
COMMIT;

-- case: a table dropped with its IVFFlat index and rows leaves nothing behind
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE dropped_ivf (id int4 PRIMARY KEY, v vector(2));
INSERT INTO dropped_ivf VALUES (1, '[1,1]'), (2, '[2,2]'), (3, '[3,3]');
CREATE INDEX dropped_ivf_idx ON dropped_ivf USING ivfflat (v vector_l2_ops) WITH (lists = 1);
INSERT INTO dropped_ivf VALUES (4, '[4,4]');
DROP TABLE dropped_ivf;
CREATE TABLE dropped_ivf (id int4 PRIMARY KEY, v vector(2));
-- expect INSERT 0 1
INSERT INTO dropped_ivf VALUES (1, '[9,9]');
SELECT id, v::text FROM dropped_ivf ORDER BY id;

-- case: after DROP INDEX a kNN query scans the table
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE knn (id int4 PRIMARY KEY, v vector(2));
CREATE INDEX knn_hnsw ON knn USING hnsw (v vector_l2_ops);
INSERT INTO knn VALUES (1, '[1,1]');
DELETE FROM knn;
INSERT INTO knn VALUES (2, '[2,2]'), (3, '[3,3]'), (4, '[4,4]');
-- expect DROP INDEX
DROP INDEX knn_hnsw;
BEGIN;
SET LOCAL enable_seqscan = off;
-- expect SELECT 3
SELECT id FROM knn ORDER BY v <-> '[0,0]' LIMIT 3;
COMMIT;
-- expect 42704
DROP INDEX knn_hnsw;
DROP INDEX IF EXISTS knn_hnsw;

-- case: a vector index on more dimensions than pgvector indexes
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE wide (id int4, v vector(16000), narrow vector(2000), plain vector);
-- expect 54000
CREATE INDEX ON wide USING hnsw (v vector_l2_ops);
-- expect 54000
CREATE INDEX ON wide USING ivfflat (v vector_l2_ops);
-- expect 54000
CREATE INDEX ON wide USING hnsw (v vector_l2_ops) WITH (m = 16, ef_construction = 16);
-- expect 22023
CREATE INDEX ON wide USING hnsw (v vector_l2_ops) WITH (m = 1);
-- expect 22023
CREATE INDEX ON wide USING hnsw (plain vector_l2_ops);
-- expect 22023
CREATE INDEX ON wide USING ivfflat (plain vector_l2_ops);
-- expect 42704
CREATE INDEX ON wide USING hnsw (id);
-- expect CREATE INDEX
CREATE INDEX wide_narrow ON wide USING hnsw (narrow vector_cosine_ops);
-- expect INSERT 0 1
INSERT INTO wide (id) VALUES (1);
-- expect 42P01
CREATE UNIQUE INDEX wide_u ON nowhere USING hnsw (v);
-- expect 0A000
CREATE UNIQUE INDEX wide_u ON wide USING hnsw (v);
-- expect INSERT 0 1
INSERT INTO wide (id) VALUES (1);

-- case: DEALLOCATE ALL, and a name no statement has
-- expect DEALLOCATE ALL
DEALLOCATE ALL;
-- expect DEALLOCATE ALL
DEALLOCATE PREPARE ALL;
-- expect 26000
DEALLOCATE nothing_prepared;
-- expect 26000
DEALLOCATE "ALL";
BEGIN;
-- expect DEALLOCATE ALL
DEALLOCATE ALL;
-- expect 26000
DEALLOCATE PREPARE nothing_prepared;
-- expect 25P02
DEALLOCATE ALL;
ROLLBACK;
-- expect DEALLOCATE ALL
DEALLOCATE ALL;

-- case: vector || vector concatenates as pgvector's vector_concat
CREATE EXTENSION IF NOT EXISTS vector;
SELECT ('[1,2]'::vector || '[3]'::vector)::text AS joined;
SELECT ('[1.5]'::vector || '[2,3]')::text, vector_dims('[1,2]'::vector || '[3,4,5]');
CREATE TABLE cat (id int4, a vector(2), b vector(1));
INSERT INTO cat VALUES (1, '[1,2]', '[3]'), (2, NULL, '[4]');
SELECT id, (a || b)::text, (a || b) <-> '[0,0,0]' FROM cat ORDER BY id;
SELECT id, (a || '[9]')::text, ('[9]' || b)::text FROM cat ORDER BY id;
-- expect 22000
SELECT a || b <-> '[1,1]' FROM cat;

-- case: an array cast to vector fails where pgvector's array_to_vector fails
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '{1,2,3}'::float8[]::vector::text, ARRAY[1,2]::vector::text, '{1.5,2.25}'::numeric[]::vector::text;
-- expect 22000
SELECT '{4e38}'::float8[]::vector;
-- expect 22000
SELECT '{-4e38,1}'::float8[]::vector;
-- expect 22000
SELECT '{NaN}'::float8[]::vector;
-- expect 22004
SELECT '{1,NULL}'::float8[]::vector;
-- expect 22000
SELECT '{}'::int4[]::vector;
-- expect 22000
SELECT '{1,2}'::int4[]::vector(3);
-- expect 22003
SELECT '{1e39}'::numeric[]::vector;
-- expect 42846
SELECT ARRAY[1::int8, 2]::vector;
SELECT '{1,2}'::float8[]::vector(2)::text;

-- case: vector's type modifier is one integer
CREATE EXTENSION IF NOT EXISTS vector;
-- expect 22023
CREATE TABLE typmod_two (v vector(3,2));
-- expect 22P02
CREATE TABLE typmod_text (v vector('a'));
-- expect 22023
CREATE TABLE typmod_zero (v vector(0));
-- expect 22023
CREATE TABLE typmod_big (v vector(16001));
-- expect 22023
SELECT '[1,2,3]'::vector(3,2);
-- expect 22P02
SELECT '[1,2,3]'::vector('x');
-- expect CREATE TABLE
CREATE TABLE typmod_quoted (v vector('3'));
-- expect 22000
INSERT INTO typmod_quoted VALUES ('[1,2]');

-- case: pgvector's settings out of their range
CREATE EXTENSION IF NOT EXISTS vector;
-- expect 22023
SET hnsw.ef_search = 0;
-- expect 22023
SET hnsw.ef_search = 1001;
-- expect 22023
SET hnsw.ef_search = -5;
-- expect 22023
SET hnsw.ef_search = 'many';
-- expect 22023
SET hnsw.ef_search = 3000000000;
SET hnsw.ef_search = 10.5;
SHOW hnsw.ef_search;
SET hnsw.ef_search = 1e2;
SHOW hnsw.ef_search;
-- expect 22023
SET ivfflat.probes = 0;
-- expect 22023
SET ivfflat.probes = 32769;
-- expect 22023
SET ivfflat.max_probes = 0;
-- expect 22023
SET hnsw.max_scan_tuples = 0;
-- expect 22023
SET hnsw.scan_mem_multiplier = 0.5;
-- expect 22023
SET hnsw.scan_mem_multiplier = 1001;
SET hnsw.scan_mem_multiplier = 2.50;
SHOW hnsw.scan_mem_multiplier;
SET ivfflat.probes = 7;
SHOW ivfflat.probes;
BEGIN;
-- expect 22023
SET LOCAL hnsw.ef_search = 0;
ROLLBACK;
