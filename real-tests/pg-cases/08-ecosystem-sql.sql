-- The SQL the ecosystem's pgvector stores send (langchain-rust, rig-postgres, swiftide,
-- mem0), with text/int8/vector columns.

-- case: quoted identifiers in key lists keep their case and lose their quotes
CREATE TABLE t1 ("uuid" TEXT NOT NULL, body text, PRIMARY KEY ("uuid"));
INSERT INTO t1 VALUES ('a', 'x');
-- expect 23505
INSERT INTO t1 VALUES ('a', 'y');
INSERT INTO t1 VALUES ('b', 'y') ON CONFLICT ("uuid") DO UPDATE SET body = EXCLUDED.body;
SELECT "uuid", body FROM t1 ORDER BY "uuid";
CREATE TABLE t2 ("Key" text, "Other" int8, UNIQUE ("Key", "Other"));
INSERT INTO t2 VALUES ('k', 1);
-- expect 23505
INSERT INTO t2 VALUES ('k', 1);
-- expect 42703
CREATE TABLE t3 ("Key" text, PRIMARY KEY (key));
CREATE TABLE t4 (Mixed text, PRIMARY KEY ("mixed"));
-- expect 42703
CREATE TABLE t5 (Mixed text, UNIQUE ("Mixed"));
CREATE TABLE t6 ("A" int8 PRIMARY KEY, b int8 REFERENCES t6 ("A"));
INSERT INTO t6 VALUES (1, NULL);
INSERT INTO t6 VALUES (2, 1);
-- expect 23503
INSERT INTO t6 VALUES (3, 9);

-- case: sqlx's type lookup reads pg_type by name
CREATE EXTENSION IF NOT EXISTS vector;
-- params text:vector
SELECT oid > 16383 AS found FROM pg_catalog.pg_type WHERE typname ILIKE $1;
-- params text:_vector
SELECT typname FROM pg_catalog.pg_type WHERE typname ILIKE $1;
SELECT typname FROM pg_catalog.pg_type WHERE typname ILIKE 'VECTOR';
SELECT oid, typname FROM pg_catalog.pg_type WHERE typname = 'int8';
SELECT t.oid, t.typname FROM pg_catalog.pg_type t WHERE t.typname IN ('text', '_text') ORDER BY t.oid;
SELECT oid::int8 AS n FROM pg_catalog.pg_type WHERE typname = 'bool';

-- case: a qualified star
CREATE TABLE docs (id int8 PRIMARY KEY, body text);
CREATE TABLE tags (doc int8, tag text);
INSERT INTO docs VALUES (1, 'one'), (2, 'two');
INSERT INTO tags VALUES (1, 'a'), (1, 'b'), (2, 'c');
SELECT docs.*, 7 AS x FROM docs ORDER BY id;
SELECT d.*, t.tag FROM docs d JOIN tags t ON t.doc = d.id ORDER BY t.tag;
SELECT t.*, d.* FROM docs d JOIN tags t ON t.doc = d.id WHERE t.tag = 'c';
SELECT "D".* FROM docs "D" ORDER BY 1 DESC;
-- params int8:1
SELECT d.* FROM docs d WHERE d.id = $1;
-- expect 42P01
SELECT x.* FROM docs d;

-- case: SELECT DISTINCT
CREATE TABLE kv (k text, v int8, note text);
INSERT INTO kv VALUES ('a', 1, 'x'), ('b', 1, 'x'), ('a', 1, 'y'), ('a', 1, 'x'), ('c', NULL, NULL), ('d', NULL, NULL);
SELECT DISTINCT k FROM kv ORDER BY k;
SELECT DISTINCT k, note FROM kv ORDER BY k, note;
SELECT DISTINCT v, note FROM kv ORDER BY v, note;
SELECT DISTINCT note FROM kv ORDER BY note DESC;
SELECT DISTINCT v FROM kv ORDER BY 1 NULLS FIRST;
SELECT count(*) FROM (SELECT DISTINCT k, v FROM kv) s;
SELECT DISTINCT k FROM kv ORDER BY k DESC LIMIT 2 OFFSET 1;
SELECT ALL k FROM kv WHERE v = 1 ORDER BY k, note;
-- expect 42P10
SELECT DISTINCT k FROM kv ORDER BY v;

-- case: DISTINCT ON, and rig's nearest chunk per document
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE documents (pk int8 PRIMARY KEY, id text NOT NULL, document text, embedding vector(3));
INSERT INTO documents VALUES (1, 'a', 'a1', '[1,0,0]'), (2, 'a', 'a2', '[0,1,0]'), (3, 'b', 'b1', '[0,0,1]'), (4, 'b', 'b2', '[1,1,0]'), (5, 'c', 'c1', '[-1,0,0]');
SELECT DISTINCT ON (id) id, document, embedding <=> '[1,0,0]' AS distance FROM documents ORDER BY id, distance;
-- params text:[1,0,0] int8:2
SELECT id, distance FROM (SELECT DISTINCT ON (id) id, embedding <=> $1::text::vector AS distance FROM documents ORDER BY id, distance) AS d ORDER BY distance LIMIT $2;
SELECT DISTINCT ON (id) id, pk FROM documents ORDER BY id DESC, pk DESC;
SELECT DISTINCT ON (1) id, pk FROM documents ORDER BY 1, 2;
SELECT DISTINCT ON (id, pk > 2) id, pk FROM documents ORDER BY id, pk > 2, pk;
-- expect 42P10
SELECT DISTINCT ON (id) id, pk FROM documents ORDER BY pk, id;
-- expect 42P10
SELECT DISTINCT ON (id, document) id FROM documents ORDER BY id, pk;

-- case: ILIKE and LIKE with ESCAPE
CREATE TABLE notes (id int8 PRIMARY KEY, payload text);
INSERT INTO notes VALUES (1, 'I like Pizza_100%!'), (2, 'pizzax100%'), (3, 'PIZZA_100% yes'), (4, NULL), (5, 'ÉCOLE');
SELECT id FROM notes WHERE payload ILIKE '%pizza\_100\%%' ESCAPE '\' ORDER BY id;
SELECT id FROM notes WHERE payload NOT ILIKE '%pizza\_100\%%' ORDER BY id;
SELECT id FROM notes WHERE payload LIKE '%Pizza!_100!%%' ESCAPE '!' ORDER BY id;
SELECT id FROM notes WHERE payload ILIKE '%pizza_100%' ESCAPE '' ORDER BY id;
SELECT id FROM notes WHERE payload ILIKE 'é%' ORDER BY id;
SELECT id FROM notes WHERE payload LIKE '_COLE' ORDER BY id;
-- params text:%yes
SELECT id FROM notes WHERE payload ILIKE $1 ORDER BY id;
SELECT 'abc' ILIKE 'A_C' AS a, 'abc' NOT LIKE 'a%' AS b, 'a' LIKE NULL AS c, 'a' LIKE 'a' ESCAPE NULL AS d;
SELECT 'a' LIKE 'a\' AS ends, 'a' LIKE 'a%\' AS star;
-- expect 22025
SELECT 'ab' LIKE 'a\';
-- expect 22025
SELECT 'abc' LIKE 'a%\';
-- expect 22025
SELECT 'a' LIKE 'a' ESCAPE 'ab';

-- case: mem0 lists its tables in information_schema.tables
SELECT table_name FROM information_schema.tables WHERE table_schema = 'public';
CREATE TABLE mem0 (id text PRIMARY KEY, payload text);
CREATE TABLE mem0migrations (id text PRIMARY KEY);
SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name;
SELECT table_name, (SELECT COUNT(*) FROM "mem0") AS row_count FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'mem0';
-- params text:mem0
SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = 'public' AND table_name = $1) AS found;

-- case: langchain-rust's search: a MATERIALIZED CTE joined, with a qualified star
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE coll (uuid text PRIMARY KEY, name text NOT NULL);
CREATE TABLE emb (id text PRIMARY KEY, collection_id text, document text, embedding vector);
INSERT INTO coll VALUES ('c1', 'langchain'), ('c2', 'other');
INSERT INTO emb VALUES ('e1', 'c1', 'one', '[1,0,0]'), ('e2', 'c1', 'two', '[0,1,0]'), ('e3', 'c2', 'three', '[1,1,0]'), ('e4', 'c1', 'four', '[1,1]');
WITH filtered AS MATERIALIZED (SELECT * FROM emb WHERE vector_dims(embedding) = 3) SELECT data.document, data.distance FROM (SELECT filtered.*, embedding <=> '[1,0,0]' AS distance FROM filtered JOIN coll ON filtered.collection_id = coll.uuid WHERE coll.name = 'langchain') AS data ORDER BY data.distance LIMIT 3;
-- params int8:3 text:[0,1,0] int8:2
WITH f AS NOT MATERIALIZED (SELECT * FROM emb WHERE vector_dims(embedding) = $1) SELECT f.id, f.embedding <=> $2::text::vector AS d FROM f ORDER BY d LIMIT $3;
WITH a AS (SELECT id FROM emb WHERE id < 'e3'), b (x) AS (SELECT id FROM a WHERE id > 'e1') SELECT * FROM b;
WITH emb AS (SELECT 'shadow'::text AS id) SELECT id FROM emb;
SELECT (WITH n AS (SELECT count(*) AS c FROM emb) SELECT c FROM n) AS total;
-- expect 42P10
WITH a (x, y) AS (SELECT id FROM emb) SELECT * FROM a;
