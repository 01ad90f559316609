-- UNNEST in FROM (swiftide's bulk upsert), the array parameters sqlx binds (uuid[],
-- text[], vector[], jsonb[] in binary), INSERT … SELECT … ON CONFLICT, foreign keys
-- checked at the statement's end, DISTINCT with a qualified ORDER BY.

-- case: swiftide: setup, the UNNEST bulk upsert and retrieve with a metadata filter
-- persist.rs setup: one transaction
BEGIN;
CREATE EXTENSION IF NOT EXISTS vector;
-- pgv_table_types.rs generate_create_table_sql, builder .vector_size(3).with_vector(EmbeddedField::Combined).with_metadata("category").with_metadata("priority")
CREATE TABLE IF NOT EXISTS swiftide_pgv_store (
  id UUID NOT NULL,
  chunk TEXT NOT NULL,
  vector_combined VECTOR(3),
  meta_category JSONB,
  meta_priority JSONB,
  PRIMARY KEY (id)
);
-- pgv_table_types.rs create_index_sql
CREATE INDEX IF NOT EXISTS swiftide_pgv_store_embedding_idx ON swiftide_pgv_store USING hnsw (vector_combined vector_cosine_ops);
COMMIT;
-- sqlx resolves `_vector` for the Vec<pgvector::Vector> parameter (see the rig case)
-- params text:_vector
-- expect SELECT 1
SELECT oid > 16383 AS found FROM pg_catalog.pg_type WHERE typname ILIKE $1;
-- pgv_table_types.rs generate_unnest_upsert_sql + store_nodes (one transaction);
-- $1 Vec<Uuid>, $2 Vec<&str>, $3 Vec<pgvector::Vector>, $4/$5 Vec<serde_json::Value>
BEGIN;
-- expect INSERT 0 3
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST(ARRAY['5e0a6f0c-0000-4000-8000-000000000001', '5e0a6f0c-0000-4000-8000-000000000002', '5e0a6f0c-0000-4000-8000-000000000003']::UUID[], ARRAY['content1', 'content2', 'content3']::TEXT[], ARRAY['[1,0,0]', '[1,1,0]', '[0,1,0]']::VECTOR[], ARRAY['{"category": "A"}', '{"category": "A"}', '{"category": "B"}']::JSONB[], ARRAY['{"priority": "1"}', '{"priority": "2"}', '{"priority": "1"}']::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
COMMIT;
-- the same node ids again: every row takes the DO UPDATE path
BEGIN;
-- expect INSERT 0 2
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST(ARRAY['5e0a6f0c-0000-4000-8000-000000000003', '5e0a6f0c-0000-4000-8000-000000000004']::UUID[], ARRAY['content3 v2', 'content4']::TEXT[], ARRAY['[0,1,0]', '[1,2,3]']::VECTOR[], ARRAY['{"category": "B"}', '{"category": "A"}']::JSONB[], ARRAY['{"priority": "3"}', '{"priority": "2"}']::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
COMMIT;
-- retrieve.rs, SimilaritySingleEmbedding without a filter: $1 the query Vector, $2 top_k as i32
SELECT id, chunk, meta_category, meta_priority FROM swiftide_pgv_store ORDER BY vector_combined <=> '[1,0,0]' LIMIT 3;
-- retrieve.rs, from_filter("category = \"A\""): meta_category->>$1 = $2 (both bound as String)
-- params text:category text:A
SELECT id, chunk, meta_category, meta_priority FROM swiftide_pgv_store WHERE meta_category->>$1 = $2 ORDER BY vector_combined <=> '[1,0,0]' LIMIT 10;
-- the same with literals
SELECT id, chunk, meta_category, meta_priority FROM swiftide_pgv_store WHERE meta_category->>'category' = 'A' ORDER BY vector_combined <=> '[1,0,0]' LIMIT 10;
-- a node whose vector has the wrong dimension: the whole batch fails
BEGIN;
-- expect 22000
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST(ARRAY['5e0a6f0c-0000-4000-8000-000000000005']::UUID[], ARRAY['content5']::TEXT[], ARRAY['[1,0]']::VECTOR[], ARRAY['{"category": "A"}']::JSONB[], ARRAY['{"priority": "1"}']::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
ROLLBACK;
-- expect SELECT 1
SELECT count(*) FROM swiftide_pgv_store;

-- case: swiftide: the bulk upsert as store_nodes sends it, arrays bound in binary
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS swiftide_pgv_store (id UUID NOT NULL, chunk TEXT NOT NULL, vector_combined VECTOR(3), meta_category JSONB, meta_priority JSONB, PRIMARY KEY (id));
BEGIN;
-- params uuid[]:5e0a6f0c-0000-4000-8000-000000000001,5e0a6f0c-0000-4000-8000-000000000002 text[]:content1|content2 vector[]:1,0,0|1,1,0 jsonb[]:{"category":"A"}|{"category":"B"} jsonb[]:{"priority":"1"}|\N
-- expect INSERT 0 2
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST($1::UUID[], $2::TEXT[], $3::VECTOR[], $4::JSONB[], $5::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
COMMIT;
-- params uuid[]:5e0a6f0c-0000-4000-8000-000000000002 text[]:content2b vector[]:0,0,1 jsonb[]:{"category":"C"} jsonb[]:{"priority":"2"}
-- expect INSERT 0 1
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST($1::UUID[], $2::TEXT[], $3::VECTOR[], $4::JSONB[], $5::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
-- the same id twice in one batch
-- params uuid[]:5e0a6f0c-0000-4000-8000-000000000009,5e0a6f0c-0000-4000-8000-000000000009 text[]:a|b vector[]:1,0,0|0,1,0 jsonb[]:{}|{} jsonb[]:{}|{}
-- expect 21000
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST($1::UUID[], $2::TEXT[], $3::VECTOR[], $4::JSONB[], $5::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
-- a wrong dimension after a repeated id: the repeat fails first, as rows go in order
-- params uuid[]:5e0a6f0c-0000-4000-8000-000000000001,5e0a6f0c-0000-4000-8000-000000000001,5e0a6f0c-0000-4000-8000-000000000008 text[]:a|b|c vector[]:1,0,0|0,1,0|1,0 jsonb[]:{}|{}|{} jsonb[]:{}|{}|{}
-- expect 21000
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST($1::UUID[], $2::TEXT[], $3::VECTOR[], $4::JSONB[], $5::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
-- params uuid[]:5e0a6f0c-0000-4000-8000-000000000007,5e0a6f0c-0000-4000-8000-000000000007 text[]:a|b vector[]:1,0|0,1,0 jsonb[]:{}|{} jsonb[]:{}|{}
-- expect 22000
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST($1::UUID[], $2::TEXT[], $3::VECTOR[], $4::JSONB[], $5::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
-- a NULL chunk from a shorter array
-- params uuid[]:5e0a6f0c-0000-4000-8000-000000000006 text[]:\N vector[]:1,0,0 jsonb[]:{} jsonb[]:{}
-- expect 23502
INSERT INTO swiftide_pgv_store (id, chunk, vector_combined, meta_category, meta_priority)
            SELECT id, chunk, vector_combined, meta_category, meta_priority
            FROM UNNEST($1::UUID[], $2::TEXT[], $3::VECTOR[], $4::JSONB[], $5::JSONB[]) AS t(id, chunk, vector_combined, meta_category, meta_priority)
            ON CONFLICT (id) DO UPDATE SET chunk = EXCLUDED.chunk, vector_combined = EXCLUDED.vector_combined, meta_category = EXCLUDED.meta_category, meta_priority = EXCLUDED.meta_priority;
SELECT id, chunk, vector_combined::text, meta_category, meta_priority FROM swiftide_pgv_store ORDER BY id;
-- an untyped parameter: unnest(unknown) is ambiguous
-- params text:{a}
-- expect 42725
SELECT * FROM UNNEST($1) AS t(x);
-- params vector[]:1,2|3,4,5
SELECT x::text, vector_dims(x), n FROM UNNEST($1::vector[]) WITH ORDINALITY AS t(x, n) ORDER BY n;
-- params vector[]:1,2
-- expect 22000
SELECT * FROM UNNEST($1::vector(3)[]) AS t(x);
-- params text[]:x|\N|yz
SELECT * FROM UNNEST($1::text[]) AS t(x);

-- case: UNNEST: several arrays zipped, names and types
CREATE EXTENSION IF NOT EXISTS vector;
SELECT * FROM UNNEST(ARRAY[1,2,3], ARRAY['a','b']);
SELECT * FROM UNNEST(ARRAY[1,2,3]);
SELECT * FROM UNNEST(ARRAY[1,2,3]) AS t;
SELECT t.x FROM UNNEST(ARRAY[1,2,3]) AS t(x) WHERE x > 1 ORDER BY x DESC;
SELECT * FROM UNNEST(ARRAY[1,2,3]) WITH ORDINALITY;
SELECT * FROM UNNEST(ARRAY[1,2,3], ARRAY['a']) WITH ORDINALITY;
SELECT * FROM UNNEST(ARRAY[1,2,3], ARRAY['a']) WITH ORDINALITY AS t(a, b, c);
SELECT * FROM UNNEST(ARRAY[1,2,3], ARRAY['a']) WITH ORDINALITY AS t(a);
SELECT * FROM UNNEST(ARRAY[1]) WITH ORDINALITY AS t;
SELECT * FROM UNNEST(ARRAY[1], ARRAY[2]) WITH ORDINALITY AS t;
SELECT unnest FROM UNNEST(ARRAY[1]);
SELECT * FROM UNNEST('{a,b}'::text[]) AS t(x);
SELECT * FROM UNNEST(NULL::int8[]) AS t(x);
SELECT * FROM UNNEST(ARRAY[]::int8[], ARRAY[1]) AS t(x, y);
SELECT * FROM UNNEST(ARRAY['5e0a6f0c-0000-4000-8000-000000000001', NULL]::UUID[], ARRAY['{"a": 1}']::JSONB[]) AS t(u, j);
SELECT x::text, vector_dims(x) FROM UNNEST(ARRAY['[1,2]', '[3,4,5]']::vector[]) AS t(x);
SELECT count(*), max(o) FROM UNNEST(ARRAY['a','b','c']) WITH ORDINALITY AS t(x, o);
CREATE TABLE u1 (id int8 PRIMARY KEY, name text);
INSERT INTO u1 VALUES (1, 'one'), (2, 'two');
SELECT u1.name, t.x FROM u1, UNNEST(ARRAY[1, 2, 2]) AS t(x) WHERE u1.id = t.x ORDER BY t.x, u1.name;
SELECT u1.name FROM u1 JOIN UNNEST(ARRAY[2]) AS t(x) ON u1.id = t.x;
-- expect 42P10
SELECT * FROM UNNEST(ARRAY[1,2,3], ARRAY['a']) AS t(a, b, c);
-- expect 42725
SELECT * FROM UNNEST('{a,b}') AS t(x);
-- expect 42883
SELECT * FROM UNNEST(1) AS t(x);
-- expect 42712
SELECT * FROM UNNEST(ARRAY[1]) AS t(x), UNNEST(ARRAY[2]) AS t(y);
-- expect 42712
SELECT * FROM UNNEST(ARRAY[1]), UNNEST(ARRAY[2]);
-- expect 22000
SELECT * FROM UNNEST(ARRAY['[1,2]']::vector(3)[]) AS t(x);
-- expect 22000
SELECT ARRAY['[1,2]']::vector(3)[];

-- case: INSERT … SELECT FROM UNNEST with ON CONFLICT
CREATE TABLE u2 (id int8 PRIMARY KEY, body text NOT NULL);
-- expect INSERT 0 3
INSERT INTO u2 (id, body) SELECT id, body FROM UNNEST(ARRAY[1, 2, 3]::int8[], ARRAY['a', 'b', 'c']::text[]) AS t(id, body) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body;
-- expect INSERT 0 2
INSERT INTO u2 (id, body) SELECT id, body FROM UNNEST(ARRAY[3, 4]::int8[], ARRAY['c2', 'd']::text[]) AS t(id, body) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body;
-- expect 21000
INSERT INTO u2 (id, body) SELECT id, body FROM UNNEST(ARRAY[5, 5]::int8[], ARRAY['e', 'f']::text[]) AS t(id, body) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body;
-- expect INSERT 0 1
INSERT INTO u2 (id, body) SELECT id, body FROM UNNEST(ARRAY[6, 6]::int8[], ARRAY['g', 'h']::text[]) AS t(id, body) ON CONFLICT (id) DO NOTHING;
-- expect 23505
INSERT INTO u2 (id, body) SELECT id, body FROM UNNEST(ARRAY[7, 7]::int8[], ARRAY['g', 'h']::text[]) AS t(id, body);
-- expect 23502
INSERT INTO u2 (id, body) SELECT id, body FROM UNNEST(ARRAY[8, 9]::int8[], ARRAY['i']::text[]) AS t(id, body);
INSERT INTO u2 SELECT * FROM UNNEST(ARRAY[10]::int8[], ARRAY['j']::text[]) RETURNING id, body;
SELECT id, body FROM u2 ORDER BY id;

-- case: foreign keys are checked when the statement ends
CREATE TABLE f1 (id int8 PRIMARY KEY, parent int8 REFERENCES f1 (id));
-- expect INSERT 0 1
INSERT INTO f1 VALUES (1, 1);
-- expect INSERT 0 2
INSERT INTO f1 VALUES (2, 3), (3, 2);
-- expect 23503
INSERT INTO f1 VALUES (4, 5);
-- expect 23503
INSERT INTO f1 VALUES (5, 4), (6, 7);
-- expect DELETE 2
DELETE FROM f1 WHERE id IN (2, 3);
-- expect DELETE 1
DELETE FROM f1 WHERE id = 1;
INSERT INTO f1 VALUES (10, NULL), (11, 10), (12, 11);
-- expect 23503
DELETE FROM f1 WHERE id = 10;
-- expect DELETE 3
DELETE FROM f1 WHERE id IN (10, 11, 12);
INSERT INTO f1 VALUES (20, NULL), (21, 20);
-- expect 23503
UPDATE f1 SET id = 22 WHERE id = 20;
-- expect 23503
UPDATE f1 SET parent = 23 WHERE id = 21;
-- expect 23503
UPDATE f1 SET id = id + 100 WHERE id IN (20, 21);
-- expect UPDATE 1
UPDATE f1 SET parent = id WHERE id = 21;
-- expect UPDATE 1
UPDATE f1 SET parent = 20 WHERE id = 21;
-- expect INSERT 0 2
INSERT INTO f1 SELECT id, parent FROM UNNEST(ARRAY[31, 30]::int8[], ARRAY[30, NULL]::int8[]) AS t(id, parent);
SELECT id, parent FROM f1 ORDER BY id;
CREATE TABLE c1 (id int8 PRIMARY KEY, parent int8 REFERENCES c1 (id) ON DELETE CASCADE);
INSERT INTO c1 VALUES (1, NULL), (2, 1), (3, 2), (4, NULL), (5, 4);
-- expect DELETE 2
DELETE FROM c1 WHERE id IN (1, 2);
SELECT id, parent FROM c1 ORDER BY id;
DELETE FROM c1 WHERE id IN (5, 4) RETURNING id;
INSERT INTO c1 VALUES (7, 7);
-- expect DELETE 1
DELETE FROM c1 WHERE id = 7;
SELECT count(*) FROM c1;
CREATE TABLE p2 (id int8 PRIMARY KEY);
CREATE TABLE k2 (id int8 PRIMARY KEY, p int8 REFERENCES p2 (id));
INSERT INTO p2 VALUES (1);
INSERT INTO k2 VALUES (1, 1);
-- expect 23503
DELETE FROM p2;
-- expect 23503
INSERT INTO k2 VALUES (1, 7) ON CONFLICT (id) DO UPDATE SET p = EXCLUDED.p;

-- case: DISTINCT with ORDER BY a qualified name of a select item
CREATE TABLE d1 (id int8, v text);
INSERT INTO d1 VALUES (2, 'a'), (1, 'b'), (2, 'c');
SELECT DISTINCT id FROM d1 ORDER BY d1.id;
SELECT DISTINCT d1.id FROM d1 ORDER BY id DESC;
SELECT DISTINCT d.id FROM d1 AS d ORDER BY d.id;
SELECT DISTINCT id AS x FROM d1 ORDER BY d1.id;
SELECT DISTINCT ON (d1.id) id, v FROM d1 ORDER BY id, v DESC;
-- expect 42P10
SELECT DISTINCT id FROM d1 ORDER BY d1.v;
