-- The type lookups sqlx 0.8 (sqlx-postgres/src/connection/describe.rs) sends on its own,
-- each with its Parse declaring the parameters' types as sqlx does, and `regtype` around
-- them. pgvector's OIDs differ between servers (they are assigned by CREATE EXTENSION):
-- statements about `vector` compare OIDs with each other, never print one.

-- case: sqlx finds a type's OID by name (fetch_type_id_by_name)
CREATE EXTENSION IF NOT EXISTS vector;
-- params declared text:int4
SELECT $1::regtype::oid;
-- params declared text:uuid
SELECT $1::regtype::oid;
-- params declared text:_jsonb
SELECT $1::regtype::oid;
-- params declared text:varchar
SELECT $1::regtype::oid;
-- params declared text:vector
SELECT $1::regtype::oid > 16383 AS found;
-- params declared text:_vector
SELECT $1::regtype::oid = (SELECT typarray FROM pg_catalog.pg_type WHERE typname = 'vector') AS same;
-- params declared text:nosuch
-- expect 42704
SELECT $1::regtype::oid;
-- params declared text:x.int4
-- expect 3F000
SELECT $1::regtype::oid;
-- without declared types the server infers regtype for the parameter
-- params text:int4
SELECT $1::regtype::oid;

-- case: sqlx finds an array type's OID (fetch_array_type_id)
CREATE EXTENSION IF NOT EXISTS vector;
-- params declared text:uuid
SELECT oid, typarray FROM pg_catalog.pg_type WHERE oid = $1::regtype::oid;
-- params declared text:int8
SELECT oid, typarray FROM pg_catalog.pg_type WHERE oid = $1::regtype::oid;
-- params declared text:timestamptz
SELECT oid, typarray FROM pg_catalog.pg_type WHERE oid = $1::regtype::oid;
-- params declared text:vector
SELECT oid = 'vector'::regtype::oid AS same, typarray = '_vector'::regtype::oid AS arr FROM pg_catalog.pg_type WHERE oid = $1::regtype::oid;

-- case: sqlx names a type it met by OID (fetch_type_by_oid)
CREATE EXTENSION IF NOT EXISTS vector;
-- params declared oid:2950
SELECT oid::regtype::text, typtype, typcategory, typrelid, typelem, typbasetype FROM pg_catalog.pg_type WHERE oid = $1;
-- params declared oid:1007
SELECT oid::regtype::text, typtype, typcategory, typrelid, typelem, typbasetype FROM pg_catalog.pg_type WHERE oid = $1;
-- params declared oid:19
SELECT oid::regtype::text, typtype, typcategory, typrelid, typelem, typbasetype FROM pg_catalog.pg_type WHERE oid = $1;
SELECT oid::regtype::text, typtype, typcategory, typrelid, typelem, typbasetype FROM pg_catalog.pg_type WHERE oid = 'vector'::regtype;
SELECT oid::regtype::text, typtype, typcategory, typrelid, typelem = 'vector'::regtype AS element, typbasetype FROM pg_catalog.pg_type WHERE oid = '_vector'::regtype;
SELECT oid::regtype::text, typtype, typcategory, typelem, typarray FROM pg_catalog.pg_type WHERE typname IN ('bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'text', 'varchar', 'bytea', 'timestamptz', 'interval', 'uuid', 'jsonb', 'oid', 'name', 'char', 'regtype', '_text', '_uuid', '_int4', '_int8', '_float8', '_bool', '_bytea', '_jsonb', 'void', 'unknown') ORDER BY oid;

-- case: regtype's input, output and comparisons
SELECT 'int4'::regtype, 'integer'::regtype, 'varchar'::regtype, 'timestamptz'::regtype, 'float8'::regtype, 'int8[]'::regtype, 'pg_catalog.text'::regtype, '"text"'::regtype, '  INT4 '::regtype;
SELECT 'character varying(10)'::regtype, 'double precision'::regtype, 'timestamp with time zone'::regtype, '_int4'::regtype, 'bool'::regtype::text;
SELECT 23::regtype, 23::oid::regtype::text, 0::regtype, 99999::regtype, '1'::regtype, 'int4'::regtype::int8;
SELECT 'int4'::regtype = 23, 'int4'::regtype = 23::oid, 'int4'::regtype < 'text'::regtype;
-- a cast's type names its column only when what it casts has no name of its own
SELECT (SELECT 1)::text, (SELECT 1 AS one)::int8, CASE WHEN true THEN 1 END::text, interval '1 day'::text, 7::int8::text, $$a$$::text::varchar;
-- expect 42601
SELECT ''::regtype;
-- expect 42601
SELECT 'int4 x'::regtype;
-- expect 42704
SELECT '"INT4"'::regtype;
-- expect 42704
SELECT 'serial'::regtype;
-- expect 22P02
SELECT 'int4'::regtype = 'integer';
