-- numeric (an arbitrary-precision decimal with PostgreSQL's result scales), full-text
-- search with the 'simple' configuration, expression indexes, pg_extension, and mem0's
-- pgvector store (mem0/vector_stores/pgvector.py, mem0-ts) that uses them.

-- case: numeric literals, scales and the four operations
SELECT 1.10 * 2.000 AS product, 1.1 + 2.000 AS sum, 1.1 - 2.000 AS difference, 0.0 * 5 AS zero, -0.0 AS negzero;
SELECT 1::numeric / 3 AS third, 2.0 / 3 AS two_thirds, 10 / 4.0 AS quarter, 1e-20 / 3 AS tiny, 123456789::numeric / 0.001 AS big;
SELECT 100::numeric / 99 AS a, 99 / 100::numeric AS b, 9999 / 1::numeric AS c, 10000 / 1::numeric AS d, 1e-5 / 1e5 AS e;
SELECT 12345678901234567890.123 / 7 AS long_quotient, 2 / 3.000000000000000000000001 AS scale_kept, 1.0 / 3.0 * 3 AS roundtrip;
SELECT 7.5 % 2 AS m1, -7.5 % 2 AS m2, 7 % 2.50 AS m3, 5.5::numeric % -2 AS m4, 0.3 % 0.1 AS m5, 10 % 3.0 AS m6;
SELECT 1 + 1.5 AS int_numeric, 1::int8 * 2.5 AS int8_numeric, 1.5 * 2::float8 AS numeric_float, 1.5::real * 2.0 AS real_numeric;
SELECT 1.5::real * 2.1 AS real_times, 0.5 * 3::float8 AS half, 2::int2 % 1.5 AS int2_mod;
SELECT 1.5 + '1' AS unknown_operand, -(1.50) AS negated, abs(-1.50) AS absolute;
-- expect 22012
SELECT 1::numeric / 0;
-- expect 22012
SELECT 1.0 % 0;
-- expect 22P02
SELECT 1.5 + '1x';
-- expect 42883
SELECT 1.5 % 1.5::float8;

-- case: numeric text input and output
SELECT '  -0.00  '::numeric AS a, '1e2'::numeric AS b, '1.5e-3'::numeric AS c, '.5'::numeric AS d, '5.'::numeric AS e, '+1.5'::numeric AS f, '  12  '::numeric AS g;
SELECT '1.5e+2'::numeric AS a, '-.0e5'::numeric AS b, 'Infinity'::numeric AS c, '+inf'::numeric AS d, ' nan '::numeric AS e, '-Infinity'::numeric AS f;
SELECT 'NaN'::numeric + 1 AS nan_sum, 'inf'::numeric - 'inf'::numeric AS inf_diff, 'inf'::numeric + 1 AS inf_sum, 'inf'::numeric * 0 AS inf_zero, 'inf'::numeric * -2 AS neg_inf;
SELECT 1 / 'inf'::numeric AS over_inf, 'inf'::numeric / 2 AS inf_half, 'inf'::numeric % 2 AS inf_mod, 2 % 'inf'::numeric AS mod_inf, 'nan'::numeric / 0 AS nan_zero;
SELECT 1.5 = 1.50 AS same, 1 = 1.0 AS int_same, 1.5 > 1 AS greater, 2::float8 > 1.5 AS float_greater, 'NaN'::numeric > 'inf'::numeric AS nan_last, -'NaN'::numeric AS neg_nan, abs('-inf'::numeric) AS abs_inf;
SELECT 0.5 = 0.5::float8 AS exact, 0.1 = 0.1::float4 AS widened, 0.1::float4 = 0.1 AS widened_too;
SELECT '1e131071'::numeric > 0 AS largest, length('1e-16383'::numeric::text) AS smallest_length;
-- expect 22P02
SELECT 'abc'::numeric;
-- expect 22P02
SELECT ''::numeric;
-- expect 22P02
SELECT '1e'::numeric;
-- expect 22P02
SELECT '-NaN'::numeric;
-- expect 22003
SELECT '1e-20000'::numeric;
-- expect 22003
SELECT '1e131072'::numeric;
-- expect 22003
SELECT '1e999999999999'::numeric;

-- case: numeric casts to and from integers, floats and text
SELECT 2.5::numeric::int AS a, (-2.5)::numeric::int AS b, 3.5::numeric::int2 AS c, 2.5::numeric::int8 AS d, 1.49::numeric::int AS e;
SELECT 0.1::float8::numeric AS a, 0.30000000000000004::float8::numeric AS b, 1e20::float8::numeric AS c, 1.5e-5::float8::numeric AS d, 0.1::float4::numeric AS e;
SELECT 'NaN'::float8::numeric AS a, 'inf'::float8::numeric AS b, 123456789.123456789::float8::numeric AS c, (1::float8/3)::numeric AS d;
SELECT 0.1::numeric::float8 AS a, 1e-40::numeric::float4 AS b, 3.4e38::numeric::float4 AS c, 'NaN'::numeric::float8 AS d, 1.23::numeric::text AS e, 7::numeric AS f;
SELECT '{1.5,NaN,-2}'::numeric[] AS arr, ARRAY[1.0,0.0,0.0] AS literal, ARRAY[1.5,2]::int[] AS ints, ARRAY[1, 2.5] AS mixed;
-- expect 22003
SELECT 1e10::numeric::int;
-- expect 22003
SELECT 99999::numeric::int2;
-- expect 0A000
SELECT 'NaN'::numeric::int;
-- expect 0A000
SELECT 'inf'::numeric::int8;
-- expect 22003
SELECT 1e400::numeric::float8;
-- expect 22003
SELECT 1e-400::numeric::float8;

-- case: numeric(p, s) columns and casts round and overflow
SELECT 12.345::numeric(4,2) AS a, 123.456::numeric(5,2) AS b, 1.5::numeric(2,-1) AS c, 0.0012::numeric(2,4) AS d, 12345::numeric(5,-2) AS e, 0.001::numeric(3,5) AS f;
CREATE TABLE prices (id int PRIMARY KEY, amount numeric(8,2), ratio numeric, plain decimal(5));
INSERT INTO prices VALUES (1, 10.005, 1.5, 12.5), (2, '3.14159', 2, 99999.4), (3, 0, 'NaN', NULL), (4, -7.125, -0.25, -3);
SELECT id, amount, ratio, plain FROM prices ORDER BY id;
SELECT id FROM prices ORDER BY ratio, id;
SELECT sum(amount) AS total, avg(amount) AS mean, min(amount) AS least, max(ratio) AS most, count(ratio) AS n FROM prices;
SELECT id, amount * ratio AS product, amount / 3 AS third, round(amount, 1) AS rounded FROM prices WHERE ratio <> 'NaN' ORDER BY id;
UPDATE prices SET amount = amount * 2 WHERE id = 1 RETURNING amount;
SELECT id FROM prices WHERE amount > 5 AND ratio >= 1.5 ORDER BY id;
-- expect 22003
INSERT INTO prices VALUES (5, 1234567.891, 0, 0);
-- expect 22003
INSERT INTO prices VALUES (6, 'inf', 0, 0);
-- expect 22003
SELECT 123.5::numeric(4,2);
-- expect 22023
SELECT 1.0::numeric(0,0);
-- expect 22023
SELECT 1.0::numeric(1001);
-- expect 22023
SELECT 1.0::numeric(2,1001);
DROP TABLE prices;

-- case: round, sum and avg in numeric
SELECT round(2.5) AS a, round(-2.5) AS b, round(1234.5678, 2) AS c, round(1234.5678, -2) AS d, round(1.5::float8) AS e, round(2.5::float8) AS f, round(5.5, 3) AS g;
SELECT round(1) AS int_round, round(1, 1) AS int_round_scale, round('nan'::numeric, 2) AS nan_round, round(1.5, -2000) AS far_left;
CREATE TABLE nums (i int, b int8, n numeric);
INSERT INTO nums VALUES (1, 1, 1.50), (2, 2, 2.0), (2, NULL, 2);
SELECT sum(i) AS int_total, avg(i) AS int_mean, sum(b) AS int8_total, avg(b) AS int8_mean, sum(n) AS total, avg(n) AS mean FROM nums;
SELECT sum(n) AS total, avg(n) AS mean FROM nums WHERE i > 5;
SELECT n FROM nums GROUP BY n ORDER BY n;
DROP TABLE nums;

-- case: numeric in LIMIT, beside int and float columns, and in jsonb
CREATE TABLE scores (id int PRIMARY KEY, f float8, r real, doc jsonb);
INSERT INTO scores VALUES (1, 0.25, 0.5, '{"score": 0.9, "n": 1.50}'), (2, 0.75, 1.5, '{"score": 0.4, "n": 2}'), (3, 1.5, 2.5, '{"score": 0.1, "n": -3e2}');
SELECT id, 0.5 * f AS half, f + 0.1 AS plus, r * 2.0 AS doubled FROM scores WHERE id > 0.5 AND f > 0.5 ORDER BY id LIMIT 1.5;
SELECT id FROM scores ORDER BY id LIMIT 2.5;
SELECT id, (doc->>'score')::numeric AS score, (doc->'n')::numeric AS n FROM scores WHERE (doc->>'score')::numeric >= 0.4 ORDER BY id;
SELECT jsonb_build_object('a', 1.50, 'b', 'NaN'::numeric, 'c', 1e3) AS built, to_jsonb(2.50) AS single, to_jsonb('-inf'::numeric) AS infinite;
-- expect 22023
SELECT ('{"n": "x"}'::jsonb->'n')::numeric;
DROP TABLE scores;

-- case: tsvector and tsquery with the simple configuration
-- (the model refuses, 0A000, what it does not tokenize as PostgreSQL does: other
-- configurations, the one-argument forms, text the parser reads as another token type:
-- tsearch.rs's unit tests pin those refusals)
SELECT to_tsvector('simple', 'Like pizza and PIZZA like 123 abc123 123abc 0x1f') AS v, plainto_tsquery('simple', 'pizza like') AS q, plainto_tsquery('simple', 'Pizza') AS one;
SELECT to_tsvector('simple', 'a,b;c!d?e"f(g)h[i]j{k}l*m=n^o|p#q$r%s:t''u\v') AS separators, to_tsvector('simple'::regconfig, 'x  y') AS regconfig, 'simple'::regconfig AS config;
SELECT to_tsvector('simple', '') AS empty, to_tsvector('simple', NULL) AS null_text, 'b:2 a:1,3 c'::tsvector AS literal;
SELECT to_tsvector('simple', 'a b') @@ plainto_tsquery('simple', 'b a') AS both, plainto_tsquery('simple', 'b a') @@ to_tsvector('simple', 'a c') AS reversed, 'x' @@ plainto_tsquery('simple', 'x') AS literal;
SELECT ts_rank_cd(to_tsvector('simple', 'like pizza a b c pizza like'), plainto_tsquery('simple', 'pizza like')) AS cd_pair, ts_rank(to_tsvector('simple', 'like pizza a b c pizza like'), plainto_tsquery('simple', 'pizza like')) AS rank_pair;
SELECT ts_rank(to_tsvector('simple', 'like pizza pizza'), plainto_tsquery('simple', 'pizza')) AS rank_one, ts_rank_cd(to_tsvector('simple', 'pizza x pizza'), plainto_tsquery('simple', 'pizza')) AS cd_one, ts_rank_cd(to_tsvector('simple', 'a b c a'), plainto_tsquery('simple', 'a c b')) AS cd_three;
SELECT ts_rank(to_tsvector('simple', 'a b c a'), plainto_tsquery('simple', 'a c b')) AS rank_three, ts_rank(to_tsvector('simple', 'x y'), plainto_tsquery('simple', 'a c')) AS rank_none, ts_rank_cd(to_tsvector('simple', 'x y'), plainto_tsquery('simple', 'a c')) AS cd_none;
SELECT ts_rank(to_tsvector('simple', 'a x x x x x x x x b'), plainto_tsquery('simple', 'a b')) AS far, ts_rank_cd(to_tsvector('simple', 'a x x x x x x x x b a b'), plainto_tsquery('simple', 'b a')) AS cd_covers, ts_rank(to_tsvector('simple', 'a b a b a b'), plainto_tsquery('simple', 'a b a')) AS repeated;
-- params text:pizza
SELECT plainto_tsquery('simple', $1) AS q, to_tsvector('simple', 'pizza fan pizza') AS v, ts_rank_cd(to_tsvector('simple', 'pizza fan'), plainto_tsquery('simple', $1)) AS r;
-- params text:b text:c
SELECT plainto_tsquery('simple', 'a ' || $1 || ' ' || $2) AS three;
-- expect 42704
SELECT to_tsvector('nope', 'pizza');

-- case: expression indexes and pg_extension
CREATE TABLE docs (id int PRIMARY KEY, body text, meta jsonb);
CREATE INDEX docs_fts ON docs USING gin (to_tsvector('simple', body));
CREATE INDEX IF NOT EXISTS docs_fts ON docs USING gin (to_tsvector('simple', body));
CREATE INDEX docs_lower ON docs (lower(body));
CREATE INDEX docs_kind ON docs ((meta->>'kind'));
INSERT INTO docs VALUES (1, 'Pizza night', '{"kind": "a"}'), (2, 'pasta', '{"kind": "b"}');
SELECT id FROM docs WHERE to_tsvector('simple', body) @@ plainto_tsquery('simple', 'pizza') ORDER BY id;
SELECT id FROM docs WHERE lower(body) = 'pasta' AND meta->>'kind' = 'b';
DROP INDEX docs_lower;
-- expect 42P17
CREATE INDEX docs_bad ON docs USING gin (to_tsvector(body));
-- expect 42P17
CREATE INDEX docs_now ON docs ((now()));
-- expect 42703
CREATE INDEX docs_missing ON docs (lower(nothing));
-- expect 42704
CREATE INDEX docs_gin_text ON docs USING gin (lower(body));
DROP TABLE docs;
SELECT extname, extrelocatable, extversion, extconfig, extcondition FROM pg_extension WHERE extname = 'plpgsql';
SELECT * FROM pg_extension WHERE extname = 'vectorscale';
SELECT count(*) FROM pg_catalog.pg_extension WHERE extname IN ('plpgsql', 'nothing');

-- case: mem0: create_col, insert, search with filters, get, update, delete (psycopg 3, one transaction per cursor)
-- pgvector.py list_cols (from _ensure_collection)
SELECT table_name FROM information_schema.tables WHERE table_schema = 'public';
-- pgvector.py create_col (hnsw=True, diskann=False: the defaults of configs/vector_stores/pgvector.py)
BEGIN;
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS "mem0" (
                    id UUID PRIMARY KEY,
                    vector vector(3),
                    payload JSONB
                );
CREATE INDEX IF NOT EXISTS "mem0_hnsw_idx" ON "mem0"
                    USING hnsw (vector vector_cosine_ops);
CREATE INDEX IF NOT EXISTS "mem0_text_lemmatized_idx" ON "mem0"
                USING gin(to_tsvector('simple', payload->>'text_lemmatized'));
COMMIT;
-- pgvector.py insert (psycopg 3 executemany): id a str, vector a list[float] (float8[]), payload json.dumps (a str)
BEGIN;
INSERT INTO "mem0" (id, vector, payload) VALUES ('c1a5e6b2-7d4e-4f8a-9b0c-000000000001', '{1,0,0}'::float8[], '{"data": "Likes pizza", "hash": "h1", "user_id": "alice", "score": 0.9, "text_lemmatized": "like pizza", "created_at": "2026-01-01T00:00:00-08:00"}');
INSERT INTO "mem0" (id, vector, payload) VALUES ('c1a5e6b2-7d4e-4f8a-9b0c-000000000002', '{1,1,0}'::float8[], '{"data": "Is a vegetarian", "hash": "h2", "user_id": "alice", "agent_id": "chef", "score": 0.4, "text_lemmatized": "be a vegetarian"}');
INSERT INTO "mem0" (id, vector, payload) VALUES ('c1a5e6b2-7d4e-4f8a-9b0c-000000000003', '{0,1,0}'::float8[], '{"data": "Lives in Paris", "hash": "h3", "user_id": "bob", "score": 0.7, "text_lemmatized": "live in paris"}');
INSERT INTO "mem0" (id, vector, payload) VALUES ('c1a5e6b2-7d4e-4f8a-9b0c-000000000004', '{1,2,3}'::float8[], '{"data": "Pizza_100% fan", "hash": "h4", "user_id": "alice", "score": 0.1, "text_lemmatized": "pizza fan"}');
COMMIT;
-- pgvector.py search, filters {"user_id": "alice"}: psycopg 3 sends str parameters untyped
-- params text:user_id text:alice
SELECT id, vector <=> '{1,0,0}'::float8[]::vector AS distance, payload
                FROM "mem0"
                WHERE payload->>$1 = $2
                ORDER BY distance
                LIMIT 5;
-- the same as psycopg2 interpolates it (a list becomes ARRAY[...], numeric[])
SELECT id, vector <=> ARRAY[1.0,0.0,0.0]::vector AS distance, payload
                FROM "mem0"
                WHERE payload->>'user_id' = 'alice'
                ORDER BY distance
                LIMIT 5;
-- filters {"$or": [{"user_id": "bob"}, {"agent_id": "chef"}], "score": {"gte": 0.4}}
SELECT id, vector <=> ARRAY[1.0,0.0,0.0]::vector AS distance, payload
                FROM "mem0"
                WHERE ((payload->>'user_id' = 'bob') OR (payload->>'agent_id' = 'chef')) AND (payload->>'score')::numeric >= 0.4
                ORDER BY distance
                LIMIT 5;
-- filters {"user_id": {"in": ["alice", "carol"]}, "agent_id": "*", "$not": [{"score": {"lt": 0.2}}]}
SELECT id, vector <=> ARRAY[1.0,0.0,0.0]::vector AS distance, payload
                FROM "mem0"
                WHERE payload->>'user_id' = ANY(ARRAY['alice','carol']) AND payload ? 'agent_id' AND NOT ((payload->>'score')::numeric < 0.2)
                ORDER BY distance
                LIMIT 5;
-- filters {"data": {"icontains": "pizza_100%"}, "user_id": {"nin": ["bob"]}, "hash": {"ne": "h1"}}
SELECT id, vector <=> ARRAY[1.0,0.0,0.0]::vector AS distance, payload
                FROM "mem0"
                WHERE payload->>'data' ILIKE '%pizza\_100\%%' ESCAPE '\' AND NOT (payload->>'user_id' = ANY(ARRAY['bob'])) AND payload->>'hash' != 'h1'
                ORDER BY distance
                LIMIT 5;
-- pgvector.py keyword_search
SELECT id, ts_rank_cd(to_tsvector('simple', payload->>'text_lemmatized'), plainto_tsquery('simple', 'pizza')) AS score, payload
                    FROM "mem0"
                    WHERE to_tsvector('simple', payload->>'text_lemmatized') @@ plainto_tsquery('simple', 'pizza')
                    
                    ORDER BY score DESC
                    LIMIT 5;
-- pgvector.py get
-- params text:c1a5e6b2-7d4e-4f8a-9b0c-000000000002
-- psycopg sends the str untyped; a typed client sees the server infer uuid (2950) and refuses text
-- expect client: the server infers [2950]
SELECT id, payload FROM "mem0" WHERE id = $1;
SELECT id, payload FROM "mem0" WHERE id = 'c1a5e6b2-7d4e-4f8a-9b0c-000000000002';
-- get with an id that is not a uuid (an LLM-made id)
-- expect 22P02
SELECT id, payload FROM "mem0" WHERE id = 'memory-2';
-- pgvector.py update: the vector a list[float], the payload psycopg's Json (json into jsonb)
BEGIN;
-- expect UPDATE 1
UPDATE "mem0" SET vector = '{0,0,1}'::float8[] WHERE id = 'c1a5e6b2-7d4e-4f8a-9b0c-000000000002';
-- expect UPDATE 1
UPDATE "mem0" SET payload = '{"data": "Is a vegan", "hash": "h2b", "user_id": "alice", "updated_at": "2026-01-02"}'::json WHERE id = 'c1a5e6b2-7d4e-4f8a-9b0c-000000000002';
COMMIT;
-- pgvector.py delete
-- expect DELETE 1
DELETE FROM "mem0" WHERE id = 'c1a5e6b2-7d4e-4f8a-9b0c-000000000003';
-- pgvector.py list, filters {"user_id": "alice"}, top_k 100 (no ORDER BY: compared as a multiset)
SELECT id, payload
                FROM "mem0"
                WHERE payload->>'user_id' = 'alice'
                LIMIT 100;
-- pgvector.py list_cols again
SELECT table_name FROM information_schema.tables WHERE table_schema = 'public';

-- case: mem0: col_info, reset and the mem0-ts statements
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS "mem0" (
                    id UUID PRIMARY KEY,
                    vector vector(3),
                    payload JSONB
                );
-- mem0-ts pgvector.ts insert (node-postgres: text parameters, cast in SQL)
INSERT INTO "mem0" (id, vector, payload)
      VALUES ('c1a5e6b2-7d4e-4f8a-9b0c-000000000001', '[1,0,0]'::vector, '{"data": "Likes pizza", "userId": "alice"}'::jsonb);
INSERT INTO "mem0" (id, vector, payload)
      VALUES ('c1a5e6b2-7d4e-4f8a-9b0c-000000000002', '[0,1,0]'::vector, '{"data": "Lives in Paris", "userId": "bob"}'::jsonb);
-- mem0-ts search, filters {"userId": {"in": ["alice"]}}: $1::vector, ANY($2::text[]), LIMIT $3
SELECT id, vector <=> '[1,0,0]'::vector AS distance, payload
      FROM "mem0"
      WHERE payload->>'userId' = ANY('{alice}'::text[])
      ORDER BY distance
      LIMIT 5;
-- mem0-ts update
UPDATE "mem0"
      SET vector = '[1,1,0]'::vector, payload = '{"data": "Likes pasta", "userId": "alice"}'::jsonb
      WHERE id = 'c1a5e6b2-7d4e-4f8a-9b0c-000000000001';
-- mem0-ts list's count
SELECT COUNT(*)
      FROM "mem0"
      WHERE payload->>'userId' = 'alice';
-- pgvector.py col_info (the size is left out: it is the server's storage, not the model's)
SELECT
                    table_name,
                    (SELECT COUNT(*) FROM "mem0") as row_count
                FROM information_schema.tables
                WHERE table_schema = 'public' AND table_name = 'mem0';
-- pgvector.py create_col, diskann=True: asks for the vectorscale extension
SELECT * FROM pg_extension WHERE extname = 'vectorscale';
-- pgvector.py reset: delete_col then create_col
DROP TABLE IF EXISTS "mem0";
CREATE TABLE IF NOT EXISTS "mem0" (
                    id UUID PRIMARY KEY,
                    vector vector(3),
                    payload JSONB
                );
-- expect SELECT 0
SELECT id, payload FROM "mem0" WHERE payload->>'userId' = 'alice' LIMIT 100;
