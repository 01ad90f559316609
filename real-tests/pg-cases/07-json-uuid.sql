-- uuid and jsonb, as LLM memory stores use them (ids as uuid, metadata as jsonb): every
-- input form, the text and binary output, the operators, the errors. gen_random_uuid()
-- differs by nature between the two servers, so only its properties are compared.

-- case: uuid input forms and output
SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid AS upper, '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'::uuid AS braced, 'a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid AS bare, 'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11'::uuid AS grouped, '{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}'::uuid AS mixed;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid::text AS t, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = 'A0EEBC999C0B4EF8BB6D6BB9BD380A11' AS same;
SELECT '00000000-0000-0000-0000-000000000001'::uuid < 'ffffffff-0000-0000-0000-000000000000'::uuid AS less, '10000000-0000-0000-0000-000000000000'::uuid > '0fffffff-ffff-ffff-ffff-ffffffffffff'::uuid AS greater;
SELECT uuid 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS typed, NULL::uuid AS nothing;
SELECT ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '00000000-0000-0000-0000-000000000000'::uuid] AS ids;
-- expect 22P02
SELECT 'x'::uuid;
-- expect 22P02
SELECT ' a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
-- expect 22P02
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1'::uuid;
-- expect 22P02
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111'::uuid;
-- expect 22P02
SELECT 'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
-- expect 22P02
SELECT 'a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
-- expect 22P02
SELECT '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
-- expect 22P02
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-'::uuid;
-- expect 22P02
SELECT 'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
-- expect 42883
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = 'x'::text;

-- case: a uuid primary key
CREATE TABLE docs (id uuid PRIMARY KEY, body text);
INSERT INTO docs VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'one'), ('00000000-0000-0000-0000-000000000002', 'two'), ('ffffffff-ffff-ffff-ffff-ffffffffffff', 'three');
-- expect 23505
INSERT INTO docs VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'dup');
SELECT id, body FROM docs ORDER BY id;
SELECT id FROM docs ORDER BY id DESC LIMIT 1;
SELECT id FROM docs WHERE id IN ('00000000-0000-0000-0000-000000000002', 'ffffffff-ffff-ffff-ffff-ffffffffffff') ORDER BY id;
SELECT body FROM docs WHERE id::text LIKE 'a0ee%';
-- params uuid:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11
SELECT id, body FROM docs WHERE id = $1;
-- params uuid[]:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,ffffffff-ffff-ffff-ffff-ffffffffffff
SELECT body FROM docs WHERE id = ANY($1) ORDER BY body;
-- params uuid:11111111-2222-3333-4444-555555555555 text:four
INSERT INTO docs (id, body) VALUES ($1, $2) RETURNING id, body;
-- params uuid:11111111-2222-3333-4444-555555555555
DELETE FROM docs WHERE id = $1 RETURNING body;
-- expect 22P02
INSERT INTO docs VALUES ('nope', 'x');
CREATE TABLE chunks (id uuid PRIMARY KEY, doc uuid REFERENCES docs (id) ON DELETE CASCADE);
INSERT INTO chunks VALUES ('00000000-0000-0000-0000-0000000000c1', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
-- expect 23503
INSERT INTO chunks VALUES ('00000000-0000-0000-0000-0000000000c2', '00000000-0000-0000-0000-00000000dead');
DELETE FROM docs WHERE id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
SELECT count(*) FROM chunks;

-- case: gen_random_uuid gives distinct version-4 uuids
CREATE TABLE g (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
INSERT INTO g (n) VALUES (1), (2), (3);
SELECT count(*) FROM g a JOIN g b ON a.id = b.id;
SELECT n, id::text LIKE '________-____-4___-____-____________' AS v4, (id::text LIKE '%-____-8___-%' OR id::text LIKE '%-____-9___-%' OR id::text LIKE '%-____-a___-%' OR id::text LIKE '%-____-b___-%') AS variant FROM g ORDER BY n;
SELECT gen_random_uuid() <> gen_random_uuid() AS differ, length(gen_random_uuid()::text) AS len;

-- case: jsonb input is normalised
SELECT '{"b": [1, 2], "a": 1.50, "a": 2.0}'::jsonb AS j;
SELECT '{"aa":1,"b":2,"c":{"z":null,"y":true}, "ab": "x"}'::jsonb AS ordered, '[1,"x",null,false,{"k":[]}]'::jsonb AS arr;
SELECT '  "x\u00e9\ud83d\ude00\/\n"  '::jsonb AS s, '-0'::jsonb AS negzero, '1e2'::jsonb AS e, '1.50e1'::jsonb AS e2, '-1.2345E-2'::jsonb AS small, '0.00'::jsonb AS zeros, '1E+3'::jsonb AS plus;
SELECT '[]'::jsonb AS a, '{}'::jsonb AS o, 'null'::jsonb AS n, 'true'::jsonb AS t, '"\u0001\t"'::jsonb AS ctrl, '"é ü \" \\"'::jsonb AS quoted;
SELECT '{"a":1}'::jsonb::text AS t, '{"a":1}'::jsonb = '{ "a" : 1.0 }' AS same, '[1,2]'::jsonb = '[2,1]'::jsonb AS differs, '{"a":1}'::jsonb <> '{"a":2}'::jsonb AS unequal;
SELECT jsonb '{"k": [true]}' AS typed, NULL::jsonb AS nothing, '123456789012345678901234567890.123456789'::jsonb AS big, '1e-3'::jsonb AS tiny;
SELECT ARRAY['{"a":1}'::jsonb, '[]'::jsonb, '"s"'::jsonb] AS docs;
-- The model's nesting bound (512 levels) and no further: PostgreSQL goes on to its stack depth.
SELECT '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'::jsonb = '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1.0]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'::jsonb AS deep;
-- expect 22P02
SELECT ''::jsonb;
-- expect 22P02
SELECT '{'::jsonb;
-- expect 22P02
SELECT '[1,]'::jsonb;
-- expect 22P02
SELECT '{"a"}'::jsonb;
-- expect 22P02
SELECT '01'::jsonb;
-- expect 22P02
SELECT '1.'::jsonb;
-- expect 22P02
SELECT '.5'::jsonb;
-- expect 22P02
SELECT '+1'::jsonb;
-- expect 22P02
SELECT 'tru'::jsonb;
-- expect 22P02
SELECT 'truex'::jsonb;
-- expect 22P02
SELECT '1x'::jsonb;
-- expect 22P02
SELECT '[1] 2'::jsonb;
-- expect 22P02
SELECT '{''a'':1}'::jsonb;
-- expect 22P02
SELECT '"\x"'::jsonb;
-- expect 22P02
SELECT '"\ud800"'::jsonb;
-- expect 22P02
SELECT '"\udc00"'::jsonb;
-- expect 22P02
SELECT '"\u12"'::jsonb;
-- expect 22P02
SELECT E'"\t"'::jsonb;
-- expect 22P02
SELECT 'NaN'::jsonb;
-- expect 22P05
SELECT '"\u0000"'::jsonb;
-- expect 22003
SELECT '1e-16384'::jsonb;
-- expect 22003
SELECT '1e999999999999'::jsonb;

-- case: jsonb -> and ->>
CREATE TABLE mem (id int PRIMARY KEY, metadata jsonb);
INSERT INTO mem VALUES (1, '{"user": "alice", "tags": ["a", "b"], "score": 0.50, "nested": {"k": [1, {"x": "y"}]}, "nil": null}'), (2, '{"user": "bob", "tags": ["b"], "score": 2}'), (3, '[10, 20, 30]'), (4, '"scalar"'), (5, NULL), (6, '7');
SELECT id, metadata FROM mem ORDER BY id;
SELECT id, metadata -> 'user' AS u, metadata ->> 'user' AS ut, metadata -> 'tags' -> 0 AS t0, metadata -> 'tags' ->> -1 AS tlast FROM mem ORDER BY id;
SELECT id, metadata -> 0 AS e0, metadata ->> -1 AS elast, metadata -> 5 AS missing, metadata -> -4 AS before FROM mem ORDER BY id;
SELECT metadata -> 'nested' -> 'k' -> 1 ->> 'x' AS deep, metadata ->> 'nil' IS NULL AS nil_is_null, metadata -> 'nil' AS nil_json, metadata ->> 'score' AS score, metadata -> 'missing' AS missing, metadata ->> 'tags' AS tags_text FROM mem WHERE id = 1;
SELECT id FROM mem WHERE metadata ->> 'user' = 'alice';
SELECT id FROM mem WHERE metadata -> 'user' = '"bob"';
SELECT '5'::jsonb -> 0 AS scalar0, '"s"'::jsonb ->> 0 AS scalar_text, '"s"'::jsonb -> -1 AS scalar_back, '{"a":1}'::jsonb -> 0 AS obj0, '[1]'::jsonb -> 'a' AS arr_key, '{"a":1}'::jsonb -> NULL AS null_key;
-- params text:bob
SELECT id FROM mem WHERE metadata ->> 'user' = $1;
-- params text:user
SELECT id, metadata ->> $1 AS v FROM mem ORDER BY id;
-- params int4:1
SELECT id, metadata -> $1::int AS v FROM mem ORDER BY id;
-- params int4:1
SELECT metadata FROM mem WHERE id = $1;
-- expect 42883
SELECT '{"a":1}'::jsonb -> 1::int8;
-- expect 42883
SELECT '{"a":1}'::jsonb ->> true;

-- case: jsonb containment, existence and concatenation
CREATE TABLE mem (id int PRIMARY KEY, metadata jsonb);
INSERT INTO mem VALUES (1, '{"user": "alice", "tags": ["a", "b"], "score": 0.50}'), (2, '{"user": "bob", "tags": ["b"], "score": 2}'), (3, '[1, "b", {"user": "carol"}]'), (4, NULL);
SELECT id FROM mem WHERE metadata @> '{"user": "alice"}' ORDER BY id;
SELECT id FROM mem WHERE metadata @> '{"tags": ["b"]}' ORDER BY id;
SELECT id FROM mem WHERE metadata @> '"b"' ORDER BY id;
SELECT id FROM mem WHERE metadata @> '[{"user": "carol"}]' ORDER BY id;
SELECT id FROM mem WHERE metadata ? 'tags' ORDER BY id;
SELECT id FROM mem WHERE NOT metadata @> '{"score": 0.5}' ORDER BY id;
-- params jsonb:{"score":2.00}
SELECT id FROM mem WHERE metadata @> $1;
-- params jsonb:{"user":"dave","tags":[]}
INSERT INTO mem VALUES (5, $1) RETURNING metadata;
-- params text:user
SELECT count(*) FROM mem WHERE metadata ? $1;
SELECT '{"a":1,"b":{"c":[1,2]}}'::jsonb @> '{"b":{"c":[2]}}' AS nested, '{"a":1}'::jsonb @> '{"a":1,"b":2}' AS bigger, '[1,2,3]'::jsonb @> '[3,1,1]' AS dup, '["foo","bar"]'::jsonb @> '"foo"' AS scalar_in_array, '"foo"'::jsonb @> '["foo"]' AS array_in_scalar, '[1,[2,3]]'::jsonb @> '[[3]]' AS nested_array, '[1,[2,3]]'::jsonb @> '[3]' AS not_flat;
SELECT '1.0'::jsonb @> '1' AS numeric_eq, '{"a":[1]}'::jsonb @> '{"a":1}' AS kind, '[]'::jsonb @> '{}' AS obj_in_arr, '{}'::jsonb @> '{}' AS empty, '[{"a":1,"b":2}]'::jsonb @> '[{"a":1}]' AS objs, '"a"'::jsonb @> '"a"' AS scalars, '{"a":{"b":1}}'::jsonb @> '{"a":{}}' AS empty_nested, '[[1,2]]'::jsonb @> '[[]]' AS empty_array;
SELECT '{"a":1}'::jsonb <@ '{"a":1,"b":2}' AS within, '[1]'::jsonb <@ '[1,2]' AS within_array;
SELECT '{"a":1,"b":null}'::jsonb ? 'b' AS key, '["x",1]'::jsonb ? 'x' AS elem, '[1]'::jsonb ? '1' AS numeric_elem, '"x"'::jsonb ? 'x' AS scalar, '{"a":{"b":1}}'::jsonb ? 'b' AS nested;
SELECT '{"a":1,"b":2}'::jsonb || '{"b":3,"c":4}' AS merged, '[1]'::jsonb || '2' AS appended, '{"a":1}'::jsonb || '[2]'::jsonb AS obj_arr, '[2]'::jsonb || '{"a":1}'::jsonb AS arr_obj, '1'::jsonb || '2'::jsonb AS scalars, '{"a":1}'::jsonb || '5'::jsonb AS obj_scalar, '[]'::jsonb || '[]'::jsonb AS empties;
SELECT '{"a":1}'::jsonb || 'x'::text AS text_concat, 'x'::text || '[1]'::jsonb AS text_first, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid || '!' AS uuid_text;
-- params jsonb:{"x":1,"user":"bobby"}
UPDATE mem SET metadata = metadata || $1 WHERE id = 2 RETURNING metadata;
-- expect 22P02
SELECT id FROM mem WHERE metadata @> 'not json';
-- expect 42883
SELECT '{"a":1}'::jsonb @> '{"a":1}'::text;

-- case: jsonb order, equality and uniqueness
CREATE TABLE ord (k int PRIMARY KEY, j jsonb);
INSERT INTO ord VALUES (1, 'null'), (2, '[]'), (3, '"a"'), (4, '1'), (5, 'true'), (6, '[1]'), (7, '{}'), (8, '{"a": 1}'), (9, '[1, 2]'), (10, '"b"'), (11, '1.0'), (12, 'false'), (13, '{"b": 1}'), (14, '{"aa": 1}'), (15, '[[1]]'), (16, '[{}]'), (17, '-2'), (18, '"ab"'), (19, '[true]'), (20, '{"a": 1, "b": 2}'), (21, '[null]'), (22, '["a"]');
SELECT k, j FROM ord ORDER BY j, k;
SELECT k FROM ord WHERE j = '1' ORDER BY k;
SELECT k FROM ord WHERE j > '{"a": 1}' ORDER BY k;
CREATE TABLE u (j jsonb UNIQUE);
INSERT INTO u VALUES ('{"a": 1.0, "b": [1]}');
-- expect 23505
INSERT INTO u VALUES ('{"b": [1.00], "a": 1}');
INSERT INTO u VALUES ('{"a": 1, "b": [1, 1]}');
SELECT count(*) FROM u;

-- case: jsonb functions
SELECT jsonb_build_object('b', 1, 'a', 'text', 'c', true, 'd', NULL, 'a', 2.5::float8) AS o, jsonb_build_object() AS empty;
SELECT jsonb_build_object('arr', ARRAY[1, 2], 'nested', '{"x": 1}'::jsonb, 'f', 'NaN'::float8, 'u', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 1, 'intkey', 'big', 1e20::float8, 'neg', -0.0::float8) AS o;
SELECT to_jsonb('x'::text) AS s, to_jsonb(5) AS i, to_jsonb(ARRAY['a', 'b']) AS a, to_jsonb(true) AS b, to_jsonb('{"k": 1}'::jsonb) AS j, to_jsonb(NULL::text) AS n;
SELECT jsonb_typeof('[1]') AS a, jsonb_typeof('{}') AS o, jsonb_typeof('1') AS n, jsonb_typeof('"s"') AS s, jsonb_typeof('null') AS z, jsonb_typeof('false') AS b, jsonb_array_length('[1, 2, 3]') AS len;
-- params text:k text:v
SELECT jsonb_build_object($1::text, $2::text) AS o;
-- expect 22023
SELECT jsonb_build_object('a');
-- expect 22023
SELECT jsonb_build_object(NULL::text, 1);
-- expect 22023
SELECT jsonb_array_length('{}');
-- expect 22023
SELECT jsonb_array_length('5');

-- case: jsonb casts to scalars
SELECT '5'::jsonb::int AS i, '2.5'::jsonb::int4 AS half, '-2.5'::jsonb::int8 AS neg_half, '1.5e1'::jsonb::int2 AS e, 'true'::jsonb::bool AS b, '0.1'::jsonb::float8 AS f, '1.25'::jsonb::float4 AS r, 'null'::jsonb::int AS n, ('{"n": 3}'::jsonb -> 'n')::int + 1 AS arith;
SELECT ('{"n": 3}'::jsonb ->> 'n')::int8 AS via_text, '{"n": 3}'::jsonb::text AS t, '[1, 2]'::jsonb::varchar AS vc;
-- expect 22023
SELECT '"5"'::jsonb::int;
-- expect 22023
SELECT '{}'::jsonb::bool;
-- expect 22023
SELECT '1'::jsonb::bool;
-- expect 22023
SELECT '[1]'::jsonb::float8;
-- expect 22003
SELECT '3000000000'::jsonb::int4;
-- expect 22003
SELECT '1e400'::jsonb::float8;
-- expect 42846
SELECT '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"'::jsonb::uuid;
