-- Issue 45's DDL and migrations: CHECK constraints, ALTER TABLE (columns, defaults,
-- NOT NULL, constraints, types), TRUNCATE, CREATE INDEX CONCURRENTLY and what a failed
-- one leaves behind, VACUUM and ANALYZE; DDL rolled back with its transaction, and a
-- reader waiting for an ALTER TABLE's ACCESS EXCLUSIVE lock.

-- case: the seeds' memory_blocks and a migration: ADD COLUMN with a default, a backfill, CREATE INDEX CONCURRENTLY
CREATE TABLE memory_blocks (id TEXT PRIMARY KEY, user_id TEXT, content TEXT, created_at timestamptz DEFAULT now());
INSERT INTO memory_blocks (id, user_id, content) VALUES ('a', 'u1', 'likes tea'), ('b', 'u1', 'has a cat'), ('c', 'u2', 'lives in Oslo');
-- expect ALTER TABLE
ALTER TABLE memory_blocks ADD COLUMN importance int NOT NULL DEFAULT 0;
SELECT id, user_id, content, importance, created_at IS NOT NULL AS dated FROM memory_blocks ORDER BY id;
-- expect UPDATE 2
UPDATE memory_blocks SET importance = length(content) WHERE user_id = 'u1';
-- expect CREATE INDEX
CREATE INDEX CONCURRENTLY memory_blocks_importance ON memory_blocks (user_id, importance);
-- expect CREATE INDEX
CREATE INDEX CONCURRENTLY IF NOT EXISTS memory_blocks_importance ON memory_blocks (importance);
INSERT INTO memory_blocks (id, user_id, content) VALUES ('d', 'u2', 'new');
-- expect 23502
INSERT INTO memory_blocks (id, user_id, content, importance) VALUES ('e', 'u2', 'x', NULL);
SELECT id, importance FROM memory_blocks WHERE user_id = 'u2' ORDER BY importance DESC, id;

-- case: a CHECK on a role column, on INSERT, UPDATE and ON CONFLICT DO UPDATE; NULL passes
CREATE TABLE messages (id int4 PRIMARY KEY, role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')), tokens int4 CHECK (tokens >= 0));
-- expect INSERT 0 2
INSERT INTO messages VALUES (1, 'user', 5), (2, 'assistant', NULL);
-- expect 23514
INSERT INTO messages VALUES (3, 'robot', 1);
-- expect 23514
INSERT INTO messages VALUES (3, 'user', -1);
-- expect 23502
INSERT INTO messages VALUES (3, NULL, 1);
-- expect 23514
UPDATE messages SET role = 'tool' WHERE id = 1;
-- expect 23514
INSERT INTO messages VALUES (1, 'user', 1) ON CONFLICT (id) DO UPDATE SET tokens = -5;
-- expect INSERT 0 1
INSERT INTO messages VALUES (1, 'user', 1) ON CONFLICT (id) DO UPDATE SET tokens = excluded.tokens + 1;
SELECT id, role, tokens FROM messages ORDER BY id;

-- case: table CHECKs, named and unnamed, over one column and over two
CREATE TABLE spans (id int4, lo int4, hi int4, CHECK (lo <= hi), CONSTRAINT lo_positive CHECK (lo > 0), CHECK (hi < 100));
-- expect INSERT 0 1
INSERT INTO spans VALUES (1, 1, 2);
-- expect 23514
INSERT INTO spans VALUES (2, 5, 2);
-- expect 23514
INSERT INTO spans VALUES (3, 0, 2);
-- expect 23514
INSERT INTO spans VALUES (4, 1, 200);
-- expect INSERT 0 1
INSERT INTO spans VALUES (5, NULL, NULL);
-- expect ALTER TABLE
ALTER TABLE spans DROP CONSTRAINT lo_positive;
-- expect ALTER TABLE
ALTER TABLE spans DROP CONSTRAINT spans_hi_check;
-- expect ALTER TABLE
ALTER TABLE spans DROP CONSTRAINT spans_check;
-- expect 42704
ALTER TABLE spans DROP CONSTRAINT spans_lo_check;
-- expect ALTER TABLE
ALTER TABLE spans DROP CONSTRAINT IF EXISTS spans_lo_check;
-- expect INSERT 0 1
INSERT INTO spans VALUES (6, -5, -9);
SELECT id, lo, hi FROM spans ORDER BY id;

-- case: a CHECK that is not a boolean, or names a column the table lacks
-- expect 42804
CREATE TABLE bad (n int4 CHECK (n + 1));
-- expect 42703
CREATE TABLE bad (n int4 CHECK (m > 0));
-- expect CREATE TABLE
CREATE TABLE good (n int4 CONSTRAINT n_small CHECK (n < 10));
-- expect 23514
INSERT INTO good VALUES (10);

-- case: ALTER TABLE's errors: unknown and duplicate columns, a missing table
CREATE TABLE t (id int4 PRIMARY KEY, name text);
INSERT INTO t VALUES (1, 'one'), (2, NULL);
-- expect 42701
ALTER TABLE t ADD COLUMN name text;
-- expect ALTER TABLE
ALTER TABLE t ADD COLUMN IF NOT EXISTS name int8;
-- expect 42703
ALTER TABLE t DROP COLUMN nope;
-- expect ALTER TABLE
ALTER TABLE t DROP COLUMN IF EXISTS nope;
-- expect 42703
ALTER TABLE t RENAME COLUMN nope TO other;
-- expect 42701
ALTER TABLE t RENAME COLUMN name TO id;
-- expect 42703
ALTER TABLE t ALTER COLUMN nope SET DEFAULT 1;
-- expect 42P01
ALTER TABLE nosuch ADD COLUMN x int4;
-- expect ALTER TABLE
ALTER TABLE IF EXISTS nosuch ADD COLUMN x int4;
-- expect 23502
ALTER TABLE t ADD COLUMN score int4 NOT NULL;
-- expect 23502
ALTER TABLE t ALTER COLUMN name SET NOT NULL;
-- expect 42P16
ALTER TABLE t ALTER COLUMN id DROP NOT NULL;
SELECT id, name FROM t ORDER BY id;

-- case: ADD COLUMN with and without defaults, SET and DROP DEFAULT, SET and DROP NOT NULL
CREATE TABLE notes (id int4 PRIMARY KEY, body text);
INSERT INTO notes VALUES (1, 'a'), (2, 'b');
ALTER TABLE notes ADD COLUMN tag text;
ALTER TABLE notes ADD COLUMN weight int8 DEFAULT 7, ADD COLUMN pinned bool NOT NULL DEFAULT false;
SELECT * FROM notes ORDER BY id;
-- expect ALTER TABLE
ALTER TABLE notes ALTER COLUMN tag SET DEFAULT 'misc';
INSERT INTO notes (id, body) VALUES (3, 'c');
-- expect ALTER TABLE
ALTER TABLE notes ALTER COLUMN weight DROP DEFAULT;
INSERT INTO notes (id, body) VALUES (4, 'd');
UPDATE notes SET tag = 'x' WHERE tag IS NULL;
-- expect ALTER TABLE
ALTER TABLE notes ALTER COLUMN tag SET NOT NULL;
-- expect 23502
INSERT INTO notes (id, body, tag) VALUES (5, 'e', NULL);
-- expect ALTER TABLE
ALTER TABLE notes ALTER COLUMN tag DROP NOT NULL;
INSERT INTO notes (id, body, tag) VALUES (5, 'e', NULL);
SELECT * FROM notes ORDER BY id;

-- case: DROP COLUMN takes its unique constraint, index and CHECK with it; RENAME COLUMN keeps its CHECK
CREATE TABLE docs (id int4 PRIMARY KEY, slug text UNIQUE, title text, score int4 CHECK (score > 0));
CREATE INDEX docs_title ON docs (title);
INSERT INTO docs VALUES (1, 's', 'T', 1);
-- expect ALTER TABLE
ALTER TABLE docs DROP COLUMN slug;
-- expect 42704
DROP INDEX docs_slug_key;
-- expect ALTER TABLE
ALTER TABLE docs DROP COLUMN title;
-- expect 42704
DROP INDEX docs_title;
-- expect ALTER TABLE
ALTER TABLE docs RENAME COLUMN score TO points;
-- expect 23514
INSERT INTO docs VALUES (2, 0);
-- expect INSERT 0 1
INSERT INTO docs (id, points) VALUES (2, 5);
SELECT * FROM docs ORDER BY id;
-- expect ALTER TABLE
ALTER TABLE docs DROP COLUMN points;
-- expect INSERT 0 1
INSERT INTO docs VALUES (3);
SELECT * FROM docs ORDER BY id;

-- case: ADD CONSTRAINT checked against the rows: CHECK, UNIQUE, PRIMARY KEY, FOREIGN KEY
CREATE TABLE users (id int4, email text);
INSERT INTO users VALUES (1, 'a@x'), (2, 'a@x'), (NULL, 'c@x');
-- expect 23514
ALTER TABLE users ADD CONSTRAINT email_at CHECK (email LIKE '%@y');
-- expect ALTER TABLE
ALTER TABLE users ADD CONSTRAINT email_at CHECK (email LIKE '%@%');
-- expect 23505
ALTER TABLE users ADD CONSTRAINT users_email_key UNIQUE (email);
-- expect 23502
ALTER TABLE users ADD PRIMARY KEY (id);
DELETE FROM users WHERE id IS NULL;
-- expect ALTER TABLE
ALTER TABLE users ADD PRIMARY KEY (id);
-- expect 42P16
ALTER TABLE users ADD PRIMARY KEY (email);
CREATE TABLE posts (id int4 PRIMARY KEY, user_id int4);
INSERT INTO posts VALUES (10, 1), (11, 3);
-- expect 23503
ALTER TABLE posts ADD CONSTRAINT posts_user_fk FOREIGN KEY (user_id) REFERENCES users (id);
DELETE FROM posts WHERE id = 11;
-- expect ALTER TABLE
ALTER TABLE posts ADD CONSTRAINT posts_user_fk FOREIGN KEY (user_id) REFERENCES users (id);
-- expect 23503
INSERT INTO posts VALUES (12, 9);
-- expect 2BP01
ALTER TABLE users DROP CONSTRAINT users_pkey;
-- expect 2BP01
ALTER TABLE users DROP COLUMN id;
-- expect 23514
INSERT INTO users VALUES (5, 'nope');
-- expect ALTER TABLE
ALTER TABLE posts DROP CONSTRAINT posts_user_fk;
-- expect INSERT 0 1
INSERT INTO posts VALUES (12, 9);
SELECT id, user_id FROM posts ORDER BY id;

-- case: ALTER COLUMN TYPE where the values stay, and a length the rows exceed
CREATE TABLE items (id int4 PRIMARY KEY, code varchar(5), n int4);
INSERT INTO items VALUES (1, 'abcde', 2147483647);
-- expect ALTER TABLE
ALTER TABLE items ALTER COLUMN code TYPE text;
-- expect ALTER TABLE
ALTER TABLE items ALTER COLUMN n TYPE int8;
UPDATE items SET n = n + 1, code = code || 'fgh';
-- expect 22001
ALTER TABLE items ALTER COLUMN code TYPE varchar(4);
-- expect ALTER TABLE
ALTER TABLE items ALTER COLUMN code TYPE varchar(20);
-- expect 22001
INSERT INTO items VALUES (2, 'abcdefghijklmnopqrstuvwxyz', 1);
SELECT id, code, n FROM items;

-- case: DDL is transactional: a rolled-back ALTER TABLE, TRUNCATE and a savepoint's
CREATE TABLE t (id int4 PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
BEGIN;
ALTER TABLE t ADD COLUMN extra int4 DEFAULT 5;
ALTER TABLE t DROP COLUMN v;
SELECT * FROM t ORDER BY id;
ROLLBACK;
SELECT * FROM t ORDER BY id;
BEGIN;
TRUNCATE t;
-- expect SELECT 0
SELECT * FROM t;
ROLLBACK;
-- expect SELECT 2
SELECT * FROM t ORDER BY id;
BEGIN;
ALTER TABLE t RENAME COLUMN v TO w;
SAVEPOINT s;
ALTER TABLE t DROP COLUMN w;
INSERT INTO t VALUES (3);
ROLLBACK TO SAVEPOINT s;
INSERT INTO t VALUES (3, 'c');
COMMIT;
SELECT id, w FROM t ORDER BY id;
BEGIN;
-- expect 23502
ALTER TABLE t ADD COLUMN must int4 NOT NULL;
ROLLBACK;
SELECT * FROM t ORDER BY id;

-- case: a reader waits for ALTER TABLE's ACCESS EXCLUSIVE lock and then sees the new column
CREATE TABLE t (id int4 PRIMARY KEY);
INSERT INTO t VALUES (1), (2);
BEGIN;
-- expect ALTER TABLE
ALTER TABLE t ADD COLUMN flag bool DEFAULT true;
-- conn 2
-- expect blocked, then SELECT 2
SELECT * FROM t ORDER BY id;
-- conn 1
COMMIT;
-- conn 2
SELECT * FROM t ORDER BY id;

-- case: a writer waits for ALTER TABLE, which rolls back
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 1);
BEGIN;
ALTER TABLE t DROP COLUMN v;
-- conn 2
-- expect blocked, then UPDATE 1
UPDATE t SET v = 2 WHERE id = 1;
-- conn 1
ROLLBACK;
-- conn 2
SELECT id, v FROM t;

-- case: TRUNCATE, RESTART IDENTITY, and a referenced table without and with CASCADE
CREATE TABLE parent (id bigserial PRIMARY KEY, name text);
CREATE TABLE child (id int4 PRIMARY KEY, parent_id int8 REFERENCES parent (id));
CREATE TABLE other (id int4);
INSERT INTO parent (name) VALUES ('a'), ('b');
INSERT INTO child VALUES (1, 1);
INSERT INTO other VALUES (1), (2);
-- expect 0A000
TRUNCATE parent;
-- expect TRUNCATE TABLE
TRUNCATE TABLE other;
-- expect SELECT 0
SELECT * FROM other;
-- expect TRUNCATE TABLE
TRUNCATE parent, child RESTART IDENTITY;
INSERT INTO parent (name) VALUES ('c') RETURNING id;
INSERT INTO child VALUES (2, 1);
-- expect TRUNCATE TABLE
TRUNCATE parent CASCADE;
-- expect SELECT 0
SELECT * FROM child;
INSERT INTO parent (name) VALUES ('d') RETURNING id;
-- expect 42P01
TRUNCATE nosuch;

-- case: TRUNCATE waits for a reader's transaction
CREATE TABLE t (id int4);
INSERT INTO t VALUES (1);
BEGIN;
SELECT * FROM t;
-- conn 2
-- expect blocked, then TRUNCATE TABLE
TRUNCATE t;
-- conn 1
SELECT * FROM t;
COMMIT;
-- conn 2
-- expect SELECT 0
SELECT * FROM t;

-- case: CREATE INDEX CONCURRENTLY inside a transaction block fails the block
CREATE TABLE t (id int4, v int4);
BEGIN;
-- expect 25001
CREATE INDEX CONCURRENTLY t_v ON t (v);
-- expect 25P02
SELECT 1;
ROLLBACK;
-- expect CREATE INDEX
CREATE INDEX CONCURRENTLY t_v ON t (v);

-- case: a unique CREATE INDEX CONCURRENTLY over duplicates fails and leaves an invalid index
CREATE TABLE accounts (id int4, email text);
INSERT INTO accounts VALUES (1, 'a'), (2, 'a'), (3, 'b');
-- expect 23505
CREATE UNIQUE INDEX CONCURRENTLY accounts_email ON accounts (email);
-- expect 42P07
CREATE UNIQUE INDEX CONCURRENTLY accounts_email ON accounts (email);
-- expect CREATE INDEX
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS accounts_email ON accounts (email);
-- expect INSERT 0 1
INSERT INTO accounts VALUES (4, 'b');
-- expect 23505
CREATE UNIQUE INDEX accounts_email2 ON accounts (email);
-- expect DROP INDEX
DROP INDEX accounts_email;
DELETE FROM accounts WHERE id IN (2, 4);
-- expect CREATE INDEX
CREATE UNIQUE INDEX CONCURRENTLY accounts_email ON accounts (email);
-- expect 23505
INSERT INTO accounts VALUES (5, 'a');
SELECT id, email FROM accounts ORDER BY id;

-- case: VACUUM and ANALYZE are accepted; VACUUM not in a transaction block
CREATE TABLE t (id int4);
INSERT INTO t VALUES (1);
-- expect VACUUM
VACUUM;
-- expect VACUUM
VACUUM t;
-- expect VACUUM
VACUUM FULL t;
-- expect ANALYZE
ANALYZE t;
-- expect ANALYZE
ANALYZE;
-- expect 42P01
VACUUM nosuch;
-- expect 42P01
ANALYZE nosuch;
BEGIN;
-- expect ANALYZE
ANALYZE t;
-- expect 25001
VACUUM t;
ROLLBACK;
SELECT * FROM t;

-- case: REINDEX makes a failed CREATE INDEX CONCURRENTLY's index valid once its duplicates are gone; DROP INDEX CONCURRENTLY
CREATE TABLE accounts (id int4 PRIMARY KEY, email text);
CREATE INDEX accounts_id ON accounts (id);
INSERT INTO accounts VALUES (1, 'a'), (2, 'a');
-- expect 23505
CREATE UNIQUE INDEX CONCURRENTLY accounts_email ON accounts (email);
-- expect 23505
REINDEX INDEX accounts_email;
-- expect 23505
REINDEX TABLE accounts;
-- expect REINDEX
REINDEX TABLE CONCURRENTLY accounts;
-- expect REINDEX
REINDEX INDEX accounts_pkey;
DELETE FROM accounts WHERE id = 2;
-- expect REINDEX
REINDEX INDEX accounts_email;
-- expect 23505
INSERT INTO accounts VALUES (3, 'a');
-- expect REINDEX
REINDEX INDEX CONCURRENTLY accounts_email;
BEGIN;
-- expect 25001
REINDEX INDEX CONCURRENTLY accounts_email;
ROLLBACK;
BEGIN;
-- expect REINDEX
REINDEX TABLE accounts;
COMMIT;
-- expect 42P01
REINDEX INDEX nosuch;
-- expect 42P01
REINDEX TABLE nosuch;
BEGIN;
-- expect 25001
DROP INDEX CONCURRENTLY IF EXISTS accounts_email;
ROLLBACK;
-- expect DROP INDEX
DROP INDEX CONCURRENTLY accounts_email;
-- expect INSERT 0 1
INSERT INTO accounts VALUES (3, 'a');
-- expect DROP INDEX
DROP INDEX CONCURRENTLY IF EXISTS accounts_email;
-- expect 42704
DROP INDEX CONCURRENTLY accounts_email;
-- refused
REINDEX SCHEMA public;
SELECT id, email FROM accounts ORDER BY id;

-- case: ALTER COLUMN TYPE the model cannot do exactly is refused
CREATE TABLE t (id int4, v int4);
INSERT INTO t VALUES (1, 2);
-- refused
ALTER TABLE t ALTER COLUMN v TYPE text;
CREATE TABLE u (v int4);
-- refused
ALTER TABLE u ALTER COLUMN v TYPE int8 USING v * 2;
-- refused
ALTER TABLE u ALTER COLUMN v TYPE int2;

-- case: a reader of a column an open ALTER TABLE dropped waits, and reads it after the rollback
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 10);
BEGIN;
ALTER TABLE t DROP COLUMN v;
-- conn 2
-- expect blocked, then SELECT 1
SELECT v FROM t;
-- conn 1
ROLLBACK;
-- conn 2
SELECT id, v FROM t ORDER BY id;

-- case: RENAME TO, committed and rolled back
CREATE TABLE t (id int4 PRIMARY KEY);
INSERT INTO t VALUES (1);
-- expect ALTER TABLE
ALTER TABLE t RENAME TO t2;
-- expect 42P01
SELECT * FROM t;
-- expect SELECT 1
SELECT * FROM t2;
CREATE TABLE t3 (id int4);
-- expect 42P07
ALTER TABLE t2 RENAME TO t3;
BEGIN;
ALTER TABLE t2 RENAME TO t4;
INSERT INTO t4 VALUES (2);
ROLLBACK;
-- expect 42P01
SELECT * FROM t4;
-- expect SELECT 1
SELECT * FROM t2;

-- case: one ALTER TABLE of several operations fails whole
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 1);
-- expect 42701
ALTER TABLE t ADD COLUMN a int4 DEFAULT 3, DROP COLUMN v, ADD COLUMN id int4;
SELECT * FROM t;
-- expect 23514
ALTER TABLE t ADD COLUMN n int4 DEFAULT -1 CHECK (n >= 0);
-- expect ALTER TABLE
ALTER TABLE t ADD COLUMN n int4 DEFAULT 1 CHECK (n >= 0);
-- expect 23514
UPDATE t SET n = -2;
-- expect ALTER TABLE
ALTER TABLE t ADD CONSTRAINT v_big CHECK (v > 5) NOT VALID;
-- expect 23514
INSERT INTO t VALUES (2, 2, 1);
-- expect INSERT 0 1
INSERT INTO t VALUES (2, 6, 1);
-- expect ALTER TABLE
ALTER TABLE t ALTER COLUMN v SET NOT NULL;
-- expect ALTER TABLE
ALTER TABLE t DROP CONSTRAINT t_v_not_null;
-- expect INSERT 0 1
INSERT INTO t (id, n) VALUES (3, 1);
SELECT * FROM t ORDER BY id;

-- case: a volatile default gives each row its own value
CREATE TABLE t (id int4 PRIMARY KEY);
INSERT INTO t VALUES (1), (2), (3);
-- expect ALTER TABLE
ALTER TABLE t ADD COLUMN u uuid NOT NULL DEFAULT gen_random_uuid();
SELECT count(*) FROM t a JOIN t b ON a.u = b.u;

-- case: a vector index survives a dropped column before it, and TRUNCATE empties it
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE mem (id int4 PRIMARY KEY, note text, embedding vector(3));
INSERT INTO mem VALUES (1, 'a', '[1,0,0]'), (2, 'b', '[0,1,0]'), (3, 'c', '[0,0,1]');
CREATE INDEX mem_hnsw ON mem USING hnsw (embedding vector_l2_ops);
-- expect ALTER TABLE
ALTER TABLE mem DROP COLUMN note;
SET enable_seqscan = off;
SELECT id FROM mem ORDER BY embedding <-> '[0.9,0.1,0]' LIMIT 2;
-- expect TRUNCATE TABLE
TRUNCATE mem;
INSERT INTO mem VALUES (4, '[0,1,0]'), (5, '[1,1,0]');
SELECT id FROM mem ORDER BY embedding <-> '[0,1,0]' LIMIT 1;

-- case: ADD COLUMN with a reference, a unique key and a named CHECK
CREATE TABLE users (id int4 PRIMARY KEY);
INSERT INTO users VALUES (1);
CREATE TABLE posts (id int4 PRIMARY KEY);
INSERT INTO posts VALUES (10), (11);
-- expect ALTER TABLE
ALTER TABLE posts ADD COLUMN user_id int4 REFERENCES users (id);
-- expect 23503
UPDATE posts SET user_id = 2 WHERE id = 10;
-- expect 23503
ALTER TABLE posts ADD COLUMN owner int4 DEFAULT 5 REFERENCES users (id);
-- expect ALTER TABLE
ALTER TABLE posts ADD COLUMN slug text UNIQUE;
-- expect 23505
ALTER TABLE posts ADD COLUMN kind text DEFAULT 'x' UNIQUE;
-- expect ALTER TABLE
ALTER TABLE posts ADD COLUMN rank int4 CONSTRAINT rank_small CHECK (rank < 10);
-- expect 23514
INSERT INTO posts (id, rank) VALUES (12, 10);
-- expect 23505
UPDATE posts SET slug = 'a';
-- expect 2BP01
ALTER TABLE users DROP CONSTRAINT users_pkey;
SELECT * FROM posts ORDER BY id;

-- case: a REPEATABLE READ snapshot from before a rewrite or a TRUNCATE sees the table empty, before a plain ADD COLUMN its default
CREATE TABLE a (id int4 PRIMARY KEY, n int4, s varchar(5));
CREATE TABLE b (id int4 PRIMARY KEY, n int4);
CREATE TABLE c (id int4 PRIMARY KEY);
CREATE TABLE d (id int4 PRIMARY KEY, s varchar(5));
INSERT INTO a VALUES (1, 1, 'x');
INSERT INTO b VALUES (1, 1);
INSERT INTO c VALUES (1);
INSERT INTO d VALUES (1, 'x');
-- conn 2
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT 1;
-- conn 1
-- expect ALTER TABLE
ALTER TABLE a ALTER COLUMN n TYPE int8;
-- expect TRUNCATE TABLE
TRUNCATE b;
-- expect ALTER TABLE
ALTER TABLE c ADD COLUMN k int4 DEFAULT 4;
-- expect ALTER TABLE
ALTER TABLE d ALTER COLUMN s TYPE text;
-- conn 2
-- expect SELECT 0
SELECT * FROM a;
-- expect SELECT 0
SELECT * FROM b;
-- expect SELECT 1
SELECT * FROM c;
-- expect SELECT 1
SELECT * FROM d;
COMMIT;
-- expect SELECT 1
SELECT * FROM a;

-- case: a default that is no value of the column's type fails ADD COLUMN on an empty table
CREATE TABLE e (id int4);
-- expect 22P02
ALTER TABLE e ADD COLUMN n int4 DEFAULT 'abc';
