-- generate_series in FROM (exec/series.rs), CREATE TABLE … AS (exec/create_as.rs) and
-- CREATE TABLE rolled back with its transaction (storage/schema.rs): what seed data,
-- backfills and migrations write.

-- case: generate_series over integers, numerics and timestamps
SELECT * FROM generate_series(1, 3);
SELECT g FROM generate_series(1, 3) g;
SELECT x.g FROM generate_series(1, 10, 4) AS x(g);
SELECT * FROM generate_series(10, 1, -4) WITH ORDINALITY;
SELECT * FROM generate_series(10, 1, -4) WITH ORDINALITY AS t(v, n);
SELECT * FROM generate_series(3, 1);
SELECT * FROM generate_series(1, NULL);
SELECT * FROM generate_series(1, 3, 0);
SELECT * FROM generate_series(2147483646, 2147483647);
SELECT * FROM generate_series(9223372036854775806, 9223372036854775807);
SELECT * FROM generate_series(1::int8, 3);
SELECT * FROM generate_series(1.5, 3);
SELECT * FROM generate_series(0.1, 0.35, 0.1);
SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-02', '12 hours');
SELECT * FROM generate_series('2024-01-03'::timestamp, '2024-01-01', '-1 day'::interval);
SELECT * FROM generate_series('2024-01-01'::timestamptz, '2024-01-02'::timestamptz, interval '8 hours');
SELECT * FROM generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day');
SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-02', '0 days');
SELECT * FROM generate_series(1, 'a');
SELECT count(*), sum(g) FROM generate_series(1, 1000) g;
SELECT * FROM generate_series(0::numeric, 'nan'::numeric, 10::numeric);
SELECT * FROM generate_series('nan'::numeric, 1, 10);
SELECT * FROM generate_series(0::numeric, 10, 'infinity');
SELECT * FROM generate_series(0::numeric, '-infinity', 1);

-- case: generate_series beside tables: joins, INSERT … SELECT, a subquery
CREATE TABLE t (id int4 PRIMARY KEY, v text);
INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 5) g;
SELECT t.v, s.n FROM generate_series(2, 4) AS s(n) JOIN t ON t.id = s.n ORDER BY s.n;
SELECT id FROM t WHERE id IN (SELECT * FROM generate_series(1, 5, 2)) ORDER BY id;
SELECT count(*) FROM t, generate_series(1, 3);

-- case: CREATE TABLE … AS: columns, types, rows, tags
CREATE TABLE t (id int4 PRIMARY KEY, v text, at timestamptz);
INSERT INTO t VALUES (1, 'a', '2024-01-01 00:00:00+00'), (2, 'b', NULL), (3, 'c', '2024-03-01 00:00:00+00');
CREATE TABLE copy AS SELECT id, v, 'lit' AS l, id * 2 AS twice FROM t WHERE id > 1;
SELECT * FROM copy ORDER BY id;
CREATE TABLE copy AS SELECT 1;
CREATE TABLE IF NOT EXISTS copy AS SELECT 1;
CREATE TABLE empty AS SELECT * FROM t WHERE false;
SELECT count(*) FROM empty;
INSERT INTO copy VALUES (9, 'z', 'y', 18);
SELECT count(*) FROM copy;
CREATE TABLE series AS SELECT g AS n FROM generate_series(1, 4) g;
SELECT sum(n) FROM series;

-- case: CREATE TABLE and CREATE TABLE … AS go with their transaction
CREATE TABLE t (id int4);
BEGIN;
CREATE TABLE made (a int4);
CREATE TABLE copied AS SELECT * FROM t;
ROLLBACK;
SELECT * FROM made;
SELECT * FROM copied;
BEGIN;
CREATE TABLE kept (a int4);
SAVEPOINT s;
CREATE TABLE dropped (a int4);
ROLLBACK TO s;
COMMIT;
SELECT * FROM kept;
SELECT * FROM dropped;
CREATE TABLE failed AS SELECT 1 / 0 AS x;
SELECT * FROM failed;
BEGIN;
CREATE TABLE renamed (a int4);
ALTER TABLE renamed RENAME TO renamed2;
ROLLBACK;
SELECT * FROM renamed2;
SELECT * FROM renamed;

-- case: an index created without a name is named as PostgreSQL names it (table, columns, idx, numbered when taken), which a migration's later DROP INDEX names
CREATE TABLE ix_names (id int, body text, score int);
CREATE INDEX ON ix_names (body);
CREATE INDEX ON ix_names (body);
CREATE UNIQUE INDEX ON ix_names (id, score);
CREATE INDEX ON ix_names ((lower(body)), (score + 1));
CREATE INDEX ON ix_names (score, score);
DROP INDEX ix_names_body_idx1;
DROP INDEX ix_names_body_idx;
DROP INDEX ix_names_id_score_idx;
DROP INDEX ix_names_lower_expr_idx;
DROP INDEX ix_names_score_score1_idx;
CREATE INDEX ix_names ON ix_names (score);
CREATE TABLE ix_names_with_a_rather_long_name_that_fills_most_of_the_limit (a_column_with_a_long_name int);
CREATE INDEX ON ix_names_with_a_rather_long_name_that_fills_most_of_the_limit (a_column_with_a_long_name);
DROP INDEX ix_names_with_a_rather_long_name__a_column_with_a_long_name_idx;
