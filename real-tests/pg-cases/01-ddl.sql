-- The statements of the PostgreSQL model's subset, one group per statement kind and
-- error path (real-tests/pgdiff/cases.rs has the format).

-- case: CREATE TABLE with keys, defaults, bigserial and a cascading reference
CREATE TABLE users (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE, age int4 DEFAULT 7, active bool NOT NULL DEFAULT true);
-- expect CREATE TABLE
CREATE TABLE IF NOT EXISTS users (id int4);
-- expect CREATE TABLE
CREATE TABLE posts (id bigserial PRIMARY KEY, user_id int8 NOT NULL REFERENCES users (id) ON DELETE CASCADE, title varchar(40), score float8);
-- expect 42P07
CREATE TABLE users (id int4);
INSERT INTO users (name) VALUES ('ann'), ('bob') RETURNING id, name, age, active;
INSERT INTO posts (user_id, title, score) VALUES (1, 'first', 1.5), (1, 'second', 2.25), (2, 'third', -0.5) RETURNING id, user_id;
-- expect DELETE 1
DELETE FROM users WHERE name = 'ann';
SELECT id, user_id, title, score FROM posts ORDER BY id;

-- case: CREATE INDEX and IF NOT EXISTS
CREATE TABLE items (k text PRIMARY KEY, v int8, tag text);
-- expect CREATE INDEX
CREATE INDEX items_tag ON items (tag);
-- expect CREATE INDEX
CREATE INDEX IF NOT EXISTS items_tag ON items (tag);
-- expect 42P07
CREATE INDEX items_tag ON items (v);
INSERT INTO items VALUES ('a', 1, 'x'), ('b', 2, 'x');
SET LOCAL enable_seqscan = off;
SELECT k FROM items WHERE tag = 'x' ORDER BY k;

-- case: NOT NULL, DEFAULT and UNIQUE on insert
CREATE TABLE t (id int4 PRIMARY KEY, name varchar(10) NOT NULL, n int8 DEFAULT 42, flag bool DEFAULT false, UNIQUE (name));
-- expect INSERT 0 1
INSERT INTO t (id, name) VALUES (1, 'one');
-- expect 23502
INSERT INTO t (id, name) VALUES (2, NULL);
-- expect 23505
INSERT INTO t (id, name) VALUES (1, 'uno');
-- expect 23505
INSERT INTO t (id, name) VALUES (3, 'one');
SELECT id, name, n, flag FROM t;

-- case: a foreign key violation and a cascading delete
CREATE TABLE parent (id int8 PRIMARY KEY);
CREATE TABLE child (id int8 PRIMARY KEY, parent_id int8 REFERENCES parent (id) ON DELETE CASCADE);
INSERT INTO parent VALUES (1), (2);
INSERT INTO child VALUES (10, 1), (11, 1), (12, 2);
-- expect 23503
INSERT INTO child VALUES (13, 3);
-- expect DELETE 1
DELETE FROM parent WHERE id = 1;
-- expect SELECT 1
SELECT id, parent_id FROM child;
