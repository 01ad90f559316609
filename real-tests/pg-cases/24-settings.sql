-- PostgreSQL's settings beyond the few the model acts on (src/pg/settings/catalog.rs):
-- the planner's and memory settings a migration turns (pgvector's guide sets
-- maintenance_work_mem before building an HNSW index) are taken and shown as PostgreSQL
-- shows them; the settings an answer depends on are taken at their default only.

-- case: the settings a pgvector index build turns, shown as PostgreSQL prints them
-- expect SET
SET maintenance_work_mem = '8GB';
SHOW maintenance_work_mem;
-- expect SET
SET max_parallel_maintenance_workers = 7;
SHOW max_parallel_maintenance_workers;
-- expect SET
SET work_mem TO '1.5MB';
SHOW work_mem;
SET work_mem = 65536;
SHOW work_mem;
SET effective_cache_size = '3GB';
SHOW effective_cache_size;
SET random_page_cost = 1.1;
SHOW random_page_cost;
SET enable_hashagg = FALSE;
SHOW enable_hashagg;
SET jit = off;
SET jit_above_cost = 0;
SHOW jit_above_cost;
SET client_min_messages = WARNING;
SHOW client_min_messages;
SET constraint_exclusion = true;
SHOW constraint_exclusion;
SELECT current_setting('work_mem'), current_setting('shared_preload_libraries');
-- expect SET
SET work_mem TO DEFAULT;
SHOW work_mem;
-- expect RESET
RESET maintenance_work_mem;
SHOW maintenance_work_mem;
RESET ALL;
SHOW enable_hashagg;

-- case: a SET that sets nothing: invalid values, server settings, and rollback
-- expect 22023
SET work_mem = '63kB';
-- expect 22023
SET work_mem = 'lots';
-- expect 22023
SET statement_timeout = '5 weeks';
-- expect 22023
SET plan_cache_mode = 'always';
-- expect 55P02
SET shared_buffers = '1GB';
-- expect 55P02
SET autovacuum = off;
-- expect 42704
SET no_such_setting = 1;
BEGIN;
SET enable_nestloop = off;
SET LOCAL work_mem = '256MB';
SHOW work_mem;
ROLLBACK;
SHOW enable_nestloop;
SHOW work_mem;
SHOW block_size;
SHOW max_identifier_length;

-- case: the settings that decide how answers print, taken at the model's values
-- expect SET
SET DateStyle = 'ISO, MDY';
SHOW DateStyle;
SET datestyle = iso;
SHOW datestyle;
-- expect SET
SET extra_float_digits = 3;
SHOW extra_float_digits;
-- expect SET
SET bytea_output = 'hex';
-- expect SET
SET IntervalStyle = postgres;
-- expect SET
SET standard_conforming_strings = on;
-- expect SET
SET client_encoding = 'utf8';
SHOW client_encoding;
-- expect SET
SET search_path = public;
SHOW search_path;
SET search_path TO "$user", public;
SHOW search_path;
-- refused
SET DateStyle = 'German';
-- refused
SET bytea_output = 'escape';
-- refused
SET extra_float_digits = 0;
-- refused
SET IntervalStyle = 'iso_8601';
-- refused
SET transform_null_equals = on;
-- refused
SET search_path = nowhere;
-- expect 22023
SET IntervalStyle = 'klingon';
