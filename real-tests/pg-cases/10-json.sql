-- json and the rest of jsonb's operators: langchain-rust's pgvector store (its tables have
-- `cmetadata JSON` columns, its filters `#>>`), json's text kept as written and its
-- operators, its lack of equality, jsonb's `#>`, `#>>`, `#-`, `-`, `?|`, `?&`, and
-- timestamptz made JSON.

-- case: langchain-rust: StoreBuilder::build creates the extension, tables and indexes, then the collection
BEGIN;
-- builder.rs create_vector_extension_if_not_exists (PG_LOCKID_EXTENSION, mod.rs)
-- params int8:1573678846307946496
SELECT pg_advisory_xact_lock($1);
-- builder.rs create_vector_extension_if_not_exists
CREATE EXTENSION IF NOT EXISTS vector;
-- builder.rs create_collection_table_if_not_exists (creates the extension again)
CREATE EXTENSION IF NOT EXISTS vector;
-- params int8:1573678846307946495
SELECT pg_advisory_xact_lock($1);
-- builder.rs create_collection_table_if_not_exists
CREATE TABLE IF NOT EXISTS langchain_pg_collection (
        name VARCHAR,
        cmetadata JSON,
        "uuid" TEXT NOT NULL,
        UNIQUE (name),
        PRIMARY KEY (uuid)
    );
-- builder.rs create_embedding_table_if_not_exists
-- params int8:1573678846307946494
SELECT pg_advisory_xact_lock($1);
CREATE TABLE IF NOT EXISTS langchain_pg_embedding
             (collection_id TEXT,
             embedding VECTOR(3),
             document VARCHAR,
             cmetadata JSON,
             "uuid" TEXT NOT NULL,
             CONSTRAINT langchain_pg_embedding_collection_id_fkey
             FOREIGN KEY (collection_id) REFERENCES langchain_pg_collection("uuid") ON DELETE CASCADE,
             PRIMARY KEY ("uuid"));
CREATE INDEX IF NOT EXISTS langchain_pg_embedding_collection_id ON langchain_pg_embedding (collection_id);
-- builder.rs, with .hns_index(HNSWIndex::new(16, 64, "vector_cosine_ops"))
CREATE INDEX IF NOT EXISTS langchain_pg_embedding_embedding_hnsw ON langchain_pg_embedding USING hnsw (embedding vector_cosine_ops) WITH (m=16, ef_construction = 64);
-- builder.rs create_or_get_collection: $1 a fresh Uuid as text, $3 serde_json::Value (sqlx: jsonb) into json
INSERT INTO langchain_pg_collection (uuid, name, cmetadata)
        VALUES('3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01', 'langchain', '{}'::jsonb) ON CONFLICT (name) DO
        UPDATE SET cmetadata = '{}'::jsonb;
-- builder.rs create_or_get_collection
-- params text:langchain
SELECT uuid FROM langchain_pg_collection WHERE name = $1 ORDER BY name limit 1;
COMMIT;
-- a second build(): the conflict path keeps the first uuid and replaces the metadata
BEGIN;
INSERT INTO langchain_pg_collection (uuid, name, cmetadata)
        VALUES('9f0c6a51-1d7e-4b0f-8a3e-0c2d4e6f8a02', 'langchain', '{"owner": "x",  "v": 2}'::jsonb) ON CONFLICT (name) DO
        UPDATE SET cmetadata = '{"owner": "x",  "v": 2}'::jsonb;
-- params text:langchain
SELECT uuid FROM langchain_pg_collection WHERE name = $1 ORDER BY name limit 1;
COMMIT;
SELECT uuid, name, cmetadata FROM langchain_pg_collection ORDER BY name;

-- case: langchain-rust: add_documents and similarity_search with PgFilter filters
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS langchain_pg_collection (
        name VARCHAR,
        cmetadata JSON,
        "uuid" TEXT NOT NULL,
        UNIQUE (name),
        PRIMARY KEY (uuid)
    );
CREATE TABLE IF NOT EXISTS langchain_pg_embedding
             (collection_id TEXT,
             embedding VECTOR(3),
             document VARCHAR,
             cmetadata JSON,
             "uuid" TEXT NOT NULL,
             CONSTRAINT langchain_pg_embedding_collection_id_fkey
             FOREIGN KEY (collection_id) REFERENCES langchain_pg_collection("uuid") ON DELETE CASCADE,
             PRIMARY KEY ("uuid"));
CREATE INDEX IF NOT EXISTS langchain_pg_embedding_embedding_hnsw ON langchain_pg_embedding USING hnsw (embedding vector_cosine_ops) WITH (m=16, ef_construction = 64);
INSERT INTO langchain_pg_collection (uuid, name, cmetadata)
        VALUES('3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01', 'langchain', '{}'::jsonb) ON CONFLICT (name) DO
        UPDATE SET cmetadata = '{}'::jsonb;
-- pgvector.rs add_documents: one transaction, $3 pgvector::Vector, $4 json!(metadata) (jsonb)
BEGIN;
INSERT INTO langchain_pg_embedding 
(uuid, document, embedding, cmetadata, collection_id) VALUES ('a0000000-0000-4000-8000-000000000001', 'alpha', '[1,0,0]', '{"topic": "a", "n": "1", "meta": {"source": "web"}}'::jsonb, '3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01');
INSERT INTO langchain_pg_embedding 
(uuid, document, embedding, cmetadata, collection_id) VALUES ('a0000000-0000-4000-8000-000000000002', 'beta', '[1,1,0]', '{"topic": "b", "n": "2", "meta": {"source": "book"}}'::jsonb, '3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01');
INSERT INTO langchain_pg_embedding 
(uuid, document, embedding, cmetadata, collection_id) VALUES ('a0000000-0000-4000-8000-000000000003', 'gamma', '[0,1,0]', '{"topic": "a", "n": "3"}'::jsonb, '3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01');
INSERT INTO langchain_pg_embedding 
(uuid, document, embedding, cmetadata, collection_id) VALUES ('a0000000-0000-4000-8000-000000000004', 'delta', '[1,2,3]', '{"topic": "c", "n": "4"}'::jsonb, '3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01');
COMMIT;
-- pgvector.rs similarity_search, no filters ($1 = 3 as i64, $2 the query vector, $3 limit as i32)
WITH filtered_embedding_dims AS MATERIALIZED (
                SELECT
                    *
                FROM
                    langchain_pg_embedding
                WHERE
                    vector_dims(embedding) = 3
            )
            SELECT
                data.document,
                data.cmetadata,
                data.distance
            FROM (
                SELECT
                    filtered_embedding_dims.*,
                    embedding <=> '[1,0,0]' AS distance
                FROM
                    filtered_embedding_dims
                    JOIN langchain_pg_collection ON filtered_embedding_dims.collection_id = langchain_pg_collection.uuid
                WHERE langchain_pg_collection.name = 'langchain'
            ) AS data
            WHERE TRUE
            ORDER BY
                data.distance DESC
            LIMIT 3;
-- pgvector.rs similarity_search, PgFilter::Eq(JsonField(["topic"]), LitStr("a"))
WITH filtered_embedding_dims AS MATERIALIZED (
                SELECT * FROM langchain_pg_embedding WHERE vector_dims(embedding) = 3
            )
            SELECT data.document, data.cmetadata, data.distance
            FROM (
                SELECT filtered_embedding_dims.*, embedding <=> '[1,0,0]' AS distance
                FROM filtered_embedding_dims
                    JOIN langchain_pg_collection ON filtered_embedding_dims.collection_id = langchain_pg_collection.uuid
                WHERE langchain_pg_collection.name = 'langchain'
            ) AS data
            WHERE cmetadata#>>'{topic}' = 'a'
            ORDER BY data.distance DESC
            LIMIT 10;
-- PgFilter::In(JsonField(["topic"]), ["a","c"]) OR PgFilter::Eq(JsonField(["meta","source"]), LitStr("book"))
WITH filtered_embedding_dims AS MATERIALIZED (
                SELECT * FROM langchain_pg_embedding WHERE vector_dims(embedding) = 3
            )
            SELECT data.document, data.cmetadata, data.distance
            FROM (
                SELECT filtered_embedding_dims.*, embedding <=> '[1,0,0]' AS distance
                FROM filtered_embedding_dims
                    JOIN langchain_pg_collection ON filtered_embedding_dims.collection_id = langchain_pg_collection.uuid
                WHERE langchain_pg_collection.name = 'langchain'
            ) AS data
            WHERE cmetadata#>>'{topic}' = ANY(ARRAY['a','c']) OR cmetadata#>>'{meta,source}' = 'book'
            ORDER BY data.distance DESC
            LIMIT 10;
-- PgFilter::Cmp(Greater, JsonField(["n"]), LitStr("1")) AND Cmp(Less, ...): text comparison
WITH filtered_embedding_dims AS MATERIALIZED (
                SELECT * FROM langchain_pg_embedding WHERE vector_dims(embedding) = 3
            )
            SELECT data.document, data.cmetadata, data.distance
            FROM (
                SELECT filtered_embedding_dims.*, embedding <=> '[1,0,0]' AS distance
                FROM filtered_embedding_dims
                    JOIN langchain_pg_collection ON filtered_embedding_dims.collection_id = langchain_pg_collection.uuid
                WHERE langchain_pg_collection.name = 'langchain'
            ) AS data
            WHERE cmetadata#>>'{n}' > '1' AND cmetadata#>>'{n}' < '4'
            ORDER BY data.distance DESC
            LIMIT 10;
-- another name_space: no rows
WITH filtered_embedding_dims AS MATERIALIZED (
                SELECT * FROM langchain_pg_embedding WHERE vector_dims(embedding) = 3
            )
            SELECT data.document, data.cmetadata, data.distance
            FROM (
                SELECT filtered_embedding_dims.*, embedding <=> '[1,0,0]' AS distance
                FROM filtered_embedding_dims
                    JOIN langchain_pg_collection ON filtered_embedding_dims.collection_id = langchain_pg_collection.uuid
                WHERE langchain_pg_collection.name = 'other'
            ) AS data
            WHERE TRUE
            ORDER BY data.distance DESC
            LIMIT 10;
-- a document of a collection that does not exist: the foreign key
-- expect 23503
INSERT INTO langchain_pg_embedding 
(uuid, document, embedding, cmetadata, collection_id) VALUES ('a0000000-0000-4000-8000-000000000009', 'orphan', '[1,0,0]', '{}'::jsonb, 'no-such-collection');

-- case: langchain-rust: removing a collection cascades, drop_tables
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS langchain_pg_collection (
        name VARCHAR,
        cmetadata JSON,
        "uuid" TEXT NOT NULL,
        UNIQUE (name),
        PRIMARY KEY (uuid)
    );
CREATE TABLE IF NOT EXISTS langchain_pg_embedding
             (collection_id TEXT,
             embedding VECTOR(3),
             document VARCHAR,
             cmetadata JSON,
             "uuid" TEXT NOT NULL,
             CONSTRAINT langchain_pg_embedding_collection_id_fkey
             FOREIGN KEY (collection_id) REFERENCES langchain_pg_collection("uuid") ON DELETE CASCADE,
             PRIMARY KEY ("uuid"));
INSERT INTO langchain_pg_collection (uuid, name, cmetadata)
        VALUES('3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01', 'langchain', '{}'::jsonb) ON CONFLICT (name) DO
        UPDATE SET cmetadata = '{}'::jsonb;
INSERT INTO langchain_pg_embedding 
(uuid, document, embedding, cmetadata, collection_id) VALUES ('a0000000-0000-4000-8000-000000000001', 'alpha', '[1,0,0]', '{"topic": "a"}'::jsonb, '3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01');
-- pgvector.rs Store::remove_collection names a table `collection` that build() never creates
-- params text:3b7b0d8e-3f5c-4a8e-9a55-5a3c1e2f0a01
-- expect 42P01
DELETE FROM collection WHERE uuid = $1;
-- builder.rs remove_collection (pre_delete_collection): ON DELETE CASCADE empties the embeddings
BEGIN;
-- params text:langchain
-- expect DELETE 1
DELETE FROM langchain_pg_collection WHERE name = $1;
-- expect SELECT 1
SELECT count(*) FROM langchain_pg_embedding;
COMMIT;
-- pgvector.rs drop_tables
DROP TABLE IF EXISTS langchain_pg_embedding;
DROP TABLE IF EXISTS langchain_pg_collection;
DROP TABLE IF EXISTS langchain_pg_collection;

-- case: json input kept as written, output, casts
SELECT '{"b": 1,  "a" : [1, 2 ], "a":3}'::json AS kept, '  {"b": 1}  '::json AS spaced, json '[1 ,2]' AS typed;
SELECT '{"a": "\u0000", "b": "\ud800"}'::json AS escapes_unchecked, '{"a": 1e1000}'::json AS big;
SELECT '{"a" : 1}'::json::jsonb AS to_jsonb, '{"a" : 1,"a":2}'::jsonb::json AS from_jsonb, '{"a" : 1}'::json::text AS to_text, '[1 ]'::text::json AS from_text, '1'::json::varchar AS to_varchar;
SELECT '{}'::json AS empty, NULL::json AS nothing, ARRAY['{"a" : 1}'::json, '[2]'] AS arr;
-- expect 22P02
SELECT '{"a"  1}'::json;
-- expect 22P02
SELECT '"\uzzzz"'::json;
-- expect 22P02
SELECT '{"a":1} x'::json;
-- expect 22P05
SELECT '{"a": "\u0000"}'::json::jsonb;
-- expect 42846
SELECT '{"a":1}'::json::int;

-- case: json operators select the text as written
SELECT '{"b": 1,  "a" : [1, 2 ], "a":3}'::json -> 'a' AS last_dup, '{"b": 1,  "a" : [1,   2 ] }'::json -> 'a' AS spaced, '{"b": 1,  "a" : [1,   2 ] }'::json ->> 'a' AS spaced_text;
SELECT '{"b": "x\u00e9y"}'::json -> 'b' AS escaped, '{"b": "x\u00e9y"}'::json ->> 'b' AS unescaped, '{"a\u0062": 1}'::json -> 'ab' AS key_unescaped;
SELECT '[1, {"x" : 1.50}, "s" ]'::json -> 1 AS obj, '[1, {"x" : 1.50}, "s" ]'::json -> -1 AS from_end, '[ 1 , 2 ]'::json -> 2 AS past, '5'::json -> 0 AS scalar, '{"a":1}'::json -> 0 AS obj_index, '[1]'::json ->> 'a' AS arr_key;
SELECT '[1, {"x" : 1.50}, "s" ]'::json #> '{1,x}' AS p, '[1, {"x" : 1.50}, "s" ]'::json #>> '{1,x}' AS pt, '  {"b": 1}  '::json #> '{}' AS whole, '"a\nb"'::json #>> '{}' AS unescaped_whole;
SELECT '{"a":{"b":[1,{"c" : true }]}}'::json #> '{a,b,1,c}' AS deep, '{"a":{"b":[1,{"c" : true }]}}'::json #> '{a,b,-1}' AS neg, '{"a":{"b":[1,{"c" : true }]}}'::json #> '{a,x}' AS missing, '{"a":{"b":[1]}}'::json #> '{a,NULL}' AS null_step, '[1,2]'::json #> '{ 1}' AS spaced_index, '[1,2]'::json #> '{1x}' AS bad_index;
SELECT '{"a": null}'::json ->> 'a' AS sql_null, '{"a": null}'::json -> 'a' AS json_null, 'null'::json #>> '{}' AS top_null, '{"a":1}'::json ->> NULL::text AS null_key;
SELECT '{"a" : 1}'::json -> 'a' AS a, '{"a" : 1}'::json ->> 'a' AS at, '{"a" : 1}'::json #> '{a}' AS p, '{"a" : 1}'::json #>> '{a}' AS pt;
-- expect 22P05
SELECT '{"a": 1, "b": "\u0000"}'::json -> 'a';
-- expect 22P02
SELECT '["\ud800", 1]'::json -> 1;
-- expect 42883
SELECT '{"a":1}'::json ? 'a';
-- expect 42883
SELECT '{"a":1}'::json @> '{}';
-- expect 42883
SELECT '{"a":1}'::json || '{}'::json;
-- expect 42883
SELECT '{"a":1}'::json -> 1::bigint;
-- params text:a
SELECT '{"a": [1, 2]}'::json -> $1 AS by_param;
-- params text:{a,1}
SELECT '{"a": [1, 2]}'::json #>> $1 AS by_path_param;

-- case: json has no equality and no order
CREATE TABLE j (id int, doc json);
-- expect 42883
SELECT '{"a":1}'::json = '{"a":1}'::json;
-- expect 42883
SELECT '{"a":1}'::json = '{"a":1}';
-- expect 42883
SELECT '{"a":1}'::json = 'x'::text;
-- expect 42883
SELECT DISTINCT doc FROM j;
-- expect 42883
SELECT DISTINCT '{"a":1}'::json;
-- expect 42883
SELECT 1 FROM j GROUP BY doc;
-- expect 42883
SELECT doc FROM j ORDER BY doc;
-- expect 42883
SELECT doc FROM j ORDER BY 1;
-- expect 42883
SELECT id FROM j ORDER BY doc -> 'a';
-- expect 42883
SELECT 1 WHERE '{"a":1}'::json IN ('{"a":1}'::json);
INSERT INTO j VALUES (1, '{"k" : "v"}'), (2, NULL), (3, '[1, 2]');
SELECT id, doc FROM j ORDER BY id;
SELECT id FROM j ORDER BY doc ->> 'k', id;
SELECT doc ->> 'k' AS k, count(*) FROM j GROUP BY doc ->> 'k' ORDER BY k;
-- expect 42883
SELECT id FROM j WHERE doc = '{"k" : "v"}';

-- case: json columns and parameters, text and binary
CREATE TABLE meta (id int PRIMARY KEY, doc json, b jsonb);
INSERT INTO meta VALUES (1, '{"b" : 2, "a" : 1}', '{"b" : 2, "a" : 1}');
INSERT INTO meta VALUES (2, '{"x":1}'::jsonb, '{"x" : 1}'::json);
-- params int4:3 json:{"z":[1,2],"z":3}
INSERT INTO meta (id, doc) VALUES ($1, $2);
-- expect 22P02
-- params int4:4 json:{"z"
INSERT INTO meta (id, doc) VALUES ($1, $2);
-- params int4:3
SELECT doc, doc -> 'z' AS z FROM meta WHERE id = $1;
SELECT id, doc, b, doc::jsonb = b AS same FROM meta ORDER BY id;
UPDATE meta SET doc = '{"a" :   [ ]}' WHERE id = 1;
-- params int4:1
SELECT doc, json_typeof(doc), json_array_length(doc -> 'a') FROM meta WHERE id = $1;
-- params json:[1,2]
SELECT $1::json AS echoed, json_array_length($1) AS n;
-- expect 42883
SELECT jsonb_typeof(doc) FROM meta;
-- expect 42883
SELECT json_typeof(b) FROM meta;

-- case: json functions
SELECT json_typeof('{"a" : 1}'), json_typeof('1'::json), json_typeof(' "s"'), json_typeof('null'), json_typeof('[true]'), json_typeof('false'), json_typeof(NULL) IS NULL AS null_in;
SELECT json_array_length('[1, [2, 3]]'), json_array_length('[]'), json_array_length('[1, "\u0000"]');
-- expect 22023
SELECT json_array_length('{}');
-- expect 22023
SELECT json_array_length('5');
SELECT json_build_object('a', 1, 'b', 'x', 'c', '{"z" : 1}'::json, 'd', '{"z" : 1}'::jsonb) AS o, json_build_object() AS empty;
SELECT json_build_object('a', NULL, 'b', ARRAY[1,2], 'c', true, 'd', 1.5::float8, 'e', 'NaN'::float8, 'f', 'q"x'::text, 'g', 1e20::float8) AS o;
SELECT json_build_object(1, 2, true, 'x') AS keys, jsonb_build_object(true, 1, 1.5::float8, 2, 'NaN'::float8, 3, '\x01'::bytea, 4) AS jsonb_keys, json_build_object(1.5::float4, 1, 'NaN'::float8, 3, '\x01'::bytea, 4, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 5) AS json_keys;
-- expect 22023
SELECT json_build_object('a');
-- expect 22004
SELECT json_build_object(NULL, 1);
-- expect 22023
SELECT json_build_object('{"k":1}'::json, 1);
SELECT to_json('x'::text), to_json(1), to_json('{"z" : 1}'::json), to_json('{"z": [1,2]}'::jsonb), to_json(ARRAY['a','b']), to_json(NULL::text), to_json('Infinity'::float8);
SELECT to_jsonb('{"a" : 1, "a" : 2}'::json) AS from_json, jsonb_build_object('j', '[1 , 2]'::json) AS json_value;
-- expect 22023
SELECT jsonb_build_object('{"k":1}'::json, 1);

-- case: jsonb path operators
SELECT '{"a":{"b":[1,{"c" : true }]}}'::jsonb #> '{a,b,1}' AS p, '{"a":{"b":[1,{"c" : true }]}}'::jsonb #>> '{a,b,1}' AS pt, '{"a":{"b":[1,{"c" : true }]}}'::jsonb #>> '{a,b,1,c}' AS leaf;
SELECT '{"a":"s"}'::jsonb #>> '{a}' AS s, '{"a":null}'::jsonb #>> '{a}' AS sql_null, '{"a":null}'::jsonb #> '{a}' AS json_null, '"x"'::jsonb #>> '{}' AS top, '5'::jsonb #> '{0}' AS scalar_step;
SELECT '{"a":1}'::jsonb #> '{}' AS whole, '{"a":1}'::jsonb #> '{a,b}' AS past_scalar, '{"a":1}'::jsonb #> ARRAY['a'] AS typed_path, '{"a":{"b":1}}'::jsonb #> '{a,NULL}' AS null_step;
SELECT '[1,2]'::jsonb #> '{01}', '[1,2]'::jsonb #> '{ 1}', '[1,2]'::jsonb #> '{1x}', '[1,2]'::jsonb #> '{-1}', '[1,2]'::jsonb #> '{+1}', '[1,2]'::jsonb #> '{99999999999}';
SELECT '{"a":1}'::jsonb #> '{a}' AS p, '{"a":1}'::jsonb #>> '{a}' AS pt, '{"a":1}'::jsonb #> NULL::text[] AS null_path;
-- params text:{meta,source}
SELECT '{"meta":{"source":"web"}}'::jsonb #>> $1 AS by_param;
CREATE TABLE docs (id int, meta jsonb);
INSERT INTO docs VALUES (1, '{"topic":"a","tags":["x","y"],"n":{"m":1}}'), (2, '{"topic":"b","tags":["y"]}'), (3, '{"other":true}');
SELECT id FROM docs WHERE meta #>> '{n,m}' = '1' OR meta #> '{tags}' @> '["x"]' ORDER BY id;
SELECT id FROM docs WHERE meta ?| ARRAY['other','nope'] ORDER BY id;
SELECT id FROM docs WHERE meta ?& '{topic,tags}' ORDER BY id;

-- case: jsonb deletion operators
SELECT '{"a":1,"b":2}'::jsonb - 'a' AS key, '{"a":1,"b":2}'::jsonb - 'z' AS missing, '["a","b","a",1]'::jsonb - 'a' AS strings;
SELECT '[1,2,3]'::jsonb - 1 AS i, '[1,2,3]'::jsonb - -1 AS neg, '[1,2,3]'::jsonb - 5 AS past, '[1,2,3]'::jsonb - -5 AS before, '[1,2]'::jsonb - 1::smallint AS small;
SELECT '{"a":1,"b":2,"c":3}'::jsonb - '{a,c}'::text[] AS keys, '["a","b"]'::jsonb - '{a}'::text[] AS arr, '{"a":1}'::jsonb - '{}'::text[] AS none, '{"a":1,"b":2}'::jsonb - ARRAY['a', NULL] AS with_null, '{"a":1}'::jsonb - NULL::text AS null_key;
SELECT '{"a":1}'::jsonb - 'a' AS gone, '[1,2]'::jsonb - '1' AS text_not_index;
-- expect 22023
SELECT '"a"'::jsonb - 'a';
-- expect 22023
SELECT '5'::jsonb - 0;
-- expect 22023
SELECT '{"a":1}'::jsonb - 0;
-- expect 22023
SELECT '5'::jsonb - '{a}'::text[];
-- expect 42883
SELECT '{"a":1}'::jsonb - 1::bigint;
SELECT '{"a":{"b":[1,2,3]}}'::jsonb #- '{a,b,1}' AS mid, '{"a":{"b":[1,2,3]}}'::jsonb #- '{a,b,-1}' AS neg, '{"a":{"b":[1,2,3]}}'::jsonb #- '{a,x}' AS missing, '{"a":{"b":[1,2,3]}}'::jsonb #- '{}' AS none, '{"a":1}'::jsonb #- '{a}' AS all_gone;
SELECT '{"a":{"b":[1,2,3]}}'::jsonb #- '{a,b,9}' AS past, '[1,[2]]'::jsonb #- '{1,0,5}' AS into_scalar, '[]'::jsonb #- '{a}' AS empty, '{"a":1}'::jsonb #- '{b,NULL}' AS null_unreached, '[1,{"x":3}]'::jsonb #- '{0,x}' AS scalar_mid;
-- expect 22P02
SELECT '{"a":{"b":[1,2,3]}}'::jsonb #- '{a,b,x}';
-- expect 22P02
SELECT '[1,2]'::jsonb #- '{a}';
-- expect 22023
SELECT '5'::jsonb #- '{0}';
-- expect 22004
SELECT '{"a":{"b":[1,2,3]}}'::jsonb #- '{a,NULL}';
-- expect 22004
SELECT '{"a":1}'::jsonb #- '{a,NULL}';
CREATE TABLE docs (id int, meta jsonb);
INSERT INTO docs VALUES (1, '{"a":1,"secret":2}');
UPDATE docs SET meta = meta - 'secret' #- '{a}';
SELECT meta FROM docs;

-- case: jsonb existence of any or all keys
SELECT '{"a":1,"b":2}'::jsonb ?| '{a,z}', '{"a":1,"b":2}'::jsonb ?| '{y,z}', '{"a":1,"b":2}'::jsonb ?& '{a,b}', '{"a":1,"b":2}'::jsonb ?& '{a,z}', '{"a":1}'::jsonb ?& '{}', '{"a":1}'::jsonb ?| '{}';
SELECT '["a","b"]'::jsonb ?| '{a}', '"a"'::jsonb ?& '{a}', '{"a":1}'::jsonb ?& ARRAY['a',NULL], '{"a":1}'::jsonb ?| ARRAY[NULL,'a'], '{"a":1}'::jsonb ?| NULL::text[] AS null_keys;

-- case: timestamptz made JSON
SELECT to_jsonb('2026-01-02 03:04:05.123456+00'::timestamptz) AS micro, to_jsonb('2026-01-02 03:04:05+00'::timestamptz) AS whole, to_jsonb('2026-01-02 03:04:05.1+00'::timestamptz) AS tenth;
SELECT jsonb_build_object('t', '2026-07-02 03:04:05+00'::timestamptz, 'k', 1) AS o, jsonb_build_object('2026-07-02 03:04:05+00'::timestamptz, 1) AS key;
SELECT to_json('2026-01-02 03:04:05+00'::timestamptz) AS j, json_build_object('t', '2026-01-02 03:04:05.5+00'::timestamptz) AS o, json_build_object('2026-07-02 03:04:05+00'::timestamptz, 1) AS key;
SELECT to_jsonb('20000-03-15 12:00:00+00'::timestamptz) AS far;
-- params timestamptz:0
SELECT to_jsonb($1::timestamptz) AS epoch, jsonb_build_object('at', $1::timestamptz) AS o;
SET TimeZone = 'Etc/UTC';
SELECT to_jsonb('2026-01-02 03:04:05+00'::timestamptz) AS etc_utc;

-- case: json has no index operator class
CREATE TABLE jj (id int, doc json);
-- expect 42704
CREATE INDEX ON jj (doc);
-- expect 42704
CREATE UNIQUE INDEX jj_doc ON jj (doc);
-- expect 42704
CREATE TABLE jk (doc json UNIQUE);
-- expect 42704
CREATE TABLE jl (doc json PRIMARY KEY);
-- expect 42704
CREATE TABLE jm (id int, doc json, PRIMARY KEY (id, doc));

-- case: aggregates over json
CREATE TABLE ja (id int, doc json, b jsonb);
INSERT INTO ja VALUES (1, '{"a" : 1}', '{"a":1}'), (2, NULL, NULL), (3, '[2 ]', '[2]');
SELECT count(doc) AS n, count(*) AS rows FROM ja;
SELECT array_agg(doc) AS docs FROM ja;
-- expect 42883
SELECT min(doc) FROM ja;
-- expect 42883
SELECT max(doc) FROM ja;
-- expect 42883
SELECT max(b) FROM ja;
