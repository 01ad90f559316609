-- Issue 54's concurrency: row locks as PostgreSQL takes them (FOR UPDATE, FOR NO KEY
-- UPDATE, FOR SHARE, FOR KEY SHARE, SKIP LOCKED, NOWAIT, after LIMIT, waiters in the
-- order they came), foreign-key checks that lock and wait, SERIALIZABLE refused in every
-- spelling, and lock_timeout and statement_timeout ending a wait.

-- case: a job queue's second worker skips the row the first holds (SKIP LOCKED)
CREATE TABLE jobs (id int4 PRIMARY KEY, state text NOT NULL);
INSERT INTO jobs VALUES (1, 'new'), (2, 'new'), (3, 'new');
BEGIN;
-- expect SELECT 1
SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED;
-- conn 2
BEGIN;
-- expect SELECT 1
SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED;
-- conn 3
-- expect SELECT 1
SELECT id, state FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED;
-- expect SELECT 1
SELECT id FROM jobs ORDER BY id FOR SHARE SKIP LOCKED;
-- conn 1
UPDATE jobs SET state = 'done' WHERE id = 1;
COMMIT;
-- conn 2
UPDATE jobs SET state = 'done' WHERE id = 2;
COMMIT;
-- conn 3
SELECT id, state FROM jobs ORDER BY id;

-- case: a job queue claims with UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED)
CREATE TABLE jobs (id int4 PRIMARY KEY, state text NOT NULL);
INSERT INTO jobs VALUES (1, 'new'), (2, 'new');
BEGIN;
-- expect UPDATE 1
UPDATE jobs SET state = 'running' WHERE id = (SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id;
-- conn 2
BEGIN;
-- expect UPDATE 1
UPDATE jobs SET state = 'running' WHERE id = (SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id;
-- conn 3
-- expect UPDATE 0
UPDATE jobs SET state = 'running' WHERE id = (SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id;
-- conn 1
COMMIT;
-- conn 2
ROLLBACK;
-- conn 3
-- expect UPDATE 1
UPDATE jobs SET state = 'running' WHERE id = (SELECT id FROM jobs WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id;
SELECT id, state FROM jobs ORDER BY id;

-- case: NOWAIT fails at once on a row another transaction holds or changes
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 0), (2, 0), (3, 0);
BEGIN;
SELECT id FROM t WHERE id = 1 FOR UPDATE;
UPDATE t SET v = 1 WHERE id = 3;
-- conn 2
BEGIN;
-- expect 55P03
SELECT id FROM t WHERE id = 1 FOR UPDATE NOWAIT;
-- expect 25P02
SELECT 1;
ROLLBACK;
-- expect SELECT 1
SELECT id FROM t WHERE id = 2 FOR UPDATE NOWAIT;
-- expect SELECT 1
SELECT id FROM t WHERE id = 3 FOR KEY SHARE NOWAIT;
-- expect 55P03
SELECT id FROM t WHERE id = 3 FOR SHARE NOWAIT;
-- expect 55P03
UPDATE t SET v = 1 WHERE id = (SELECT id FROM t WHERE id = 1 FOR SHARE NOWAIT);
-- expect SELECT 1
SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED;
-- conn 1
COMMIT;
-- conn 2
-- expect SELECT 3
SELECT id, v FROM t ORDER BY id FOR UPDATE NOWAIT;

-- case: FOR SHARE shares with FOR SHARE and FOR KEY SHARE, and an update waits for both
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 0);
BEGIN;
SELECT id FROM t WHERE id = 1 FOR SHARE;
-- conn 2
BEGIN;
-- expect SELECT 1
SELECT id FROM t WHERE id = 1 FOR SHARE;
-- expect SELECT 1
SELECT id FROM t WHERE id = 1 FOR KEY SHARE;
-- conn 3
-- expect 55P03
SELECT id FROM t WHERE id = 1 FOR NO KEY UPDATE NOWAIT;
-- expect SELECT 1
SELECT id FROM t WHERE id = 1 FOR SHARE NOWAIT;
-- expect blocked, then UPDATE 1
UPDATE t SET v = v + 1 WHERE id = 1;
-- conn 1
COMMIT;
-- conn 2
COMMIT;
-- conn 1
SELECT id, v FROM t;

-- case: FOR KEY SHARE lets an update of other columns pass and blocks a change of the key
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 0);
BEGIN;
SELECT id FROM t WHERE id = 1 FOR KEY SHARE;
-- conn 2
-- expect UPDATE 1
UPDATE t SET v = 5 WHERE id = 1;
-- expect SELECT 1
SELECT id FROM t WHERE id = 1 FOR NO KEY UPDATE NOWAIT;
-- expect 55P03
SELECT id FROM t WHERE id = 1 FOR UPDATE NOWAIT;
-- expect 55P03
DELETE FROM t WHERE id = (SELECT id FROM t WHERE id = 1 FOR UPDATE OF t NOWAIT);
-- expect blocked, then UPDATE 1
UPDATE t SET id = 2 WHERE id = 1;
-- conn 1
COMMIT;
-- conn 3
SELECT id, v FROM t;

-- case: FOR NO KEY UPDATE and FOR UPDATE conflict with each other and with FOR SHARE
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 0);
BEGIN;
SELECT id FROM t WHERE id = 1 FOR NO KEY UPDATE OF t;
-- conn 2
-- expect SELECT 1
SELECT id FROM t WHERE id = 1 FOR KEY SHARE NOWAIT;
-- expect 55P03
SELECT id FROM t WHERE id = 1 FOR SHARE NOWAIT;
-- expect 55P03
SELECT id FROM t WHERE id = 1 FOR NO KEY UPDATE NOWAIT;
-- expect blocked, then SELECT 1
SELECT id, v FROM t WHERE id = 1 FOR UPDATE;
-- conn 1
UPDATE t SET v = 7 WHERE id = 1;
COMMIT;
-- conn 3
SELECT id, v FROM t;

-- case: LIMIT 1 FOR UPDATE locks one row, OFFSET's rows are locked too
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 0), (2, 0), (3, 0), (4, 0);
BEGIN;
-- expect SELECT 1
SELECT id FROM t ORDER BY id LIMIT 1 FOR UPDATE;
-- conn 2
-- expect UPDATE 1
UPDATE t SET v = 1 WHERE id = 2;
-- expect SELECT 2
SELECT id FROM t ORDER BY id DESC LIMIT 2 FOR UPDATE NOWAIT;
-- expect 55P03
SELECT id FROM t ORDER BY id LIMIT 1 FOR UPDATE NOWAIT;
-- expect SELECT 1
SELECT id FROM t ORDER BY id LIMIT 1 OFFSET 1 FOR UPDATE SKIP LOCKED;
-- conn 3
BEGIN;
-- expect blocked, then SELECT 1
SELECT id FROM t ORDER BY id LIMIT 1 OFFSET 1 FOR UPDATE;
-- conn 2
-- expect SELECT 1
SELECT id FROM t WHERE id > 1 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED;
-- conn 1
COMMIT;
-- conn 3
COMMIT;

-- case: a row updated while FOR UPDATE waited is returned as it is now, or dropped
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 0), (2, 0), (3, 0);
BEGIN;
UPDATE t SET v = 10 WHERE id = 1;
DELETE FROM t WHERE id = 2;
-- conn 2
-- expect blocked, then SELECT 1
SELECT id, v FROM t WHERE v < 5 ORDER BY id LIMIT 2 FOR UPDATE;
-- conn 1
COMMIT;

-- case: FOR UPDATE with an aggregate, GROUP BY or DISTINCT is an error
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 0);
-- expect 0A000
SELECT count(*) FROM t FOR UPDATE;
-- expect 0A000
SELECT v FROM t GROUP BY v FOR SHARE;
-- expect 0A000
SELECT DISTINCT v FROM t FOR KEY SHARE;
-- expect SELECT 1
SELECT id FROM t FOR NO KEY UPDATE;

-- case: waiters for a row take it in the order they came
-- (the holder only locks it: when the holder updates it, PostgreSQL's waiters race for
-- the new version and the order is not kept)
CREATE TABLE t (id int4 PRIMARY KEY, v text NOT NULL);
INSERT INTO t VALUES (1, 'a');
BEGIN;
SELECT v FROM t WHERE id = 1 FOR UPDATE;
-- conn 2
-- expect blocked, then UPDATE 1
UPDATE t SET v = v || 'b' WHERE id = 1;
-- conn 3
-- expect blocked, then UPDATE 1
UPDATE t SET v = v || 'c' WHERE id = 1;
-- conn 1
COMMIT;
SELECT v FROM t;

-- case: waiters in transactions take the row in the order they came
CREATE TABLE t (id int4 PRIMARY KEY, v text NOT NULL);
INSERT INTO t VALUES (1, '');
BEGIN;
SELECT v FROM t WHERE id = 1 FOR UPDATE;
-- conn 3
BEGIN;
-- expect blocked, then SELECT 1
SELECT v FROM t WHERE id = 1 FOR UPDATE;
-- conn 2
-- expect blocked, then UPDATE 1
UPDATE t SET v = v || 'b' WHERE id = 1;
-- conn 1
COMMIT;
-- conn 3
UPDATE t SET v = v || 'c' WHERE id = 1;
COMMIT;
-- conn 1
SELECT v FROM t;

-- case: children inserted while their parents' delete is open wait, and go in when it rolls back
CREATE TABLE parent (id int4 PRIMARY KEY);
CREATE TABLE child (id int4 PRIMARY KEY, parent_id int4 REFERENCES parent (id));
INSERT INTO parent VALUES (1), (2);
BEGIN;
DELETE FROM parent WHERE id = 1;
DELETE FROM parent WHERE id = 2;
-- conn 2
-- expect blocked, then INSERT 0 1
INSERT INTO child VALUES (10, 1);
-- conn 3
-- expect blocked, then INSERT 0 1
INSERT INTO child VALUES (20, 2);
-- conn 1
ROLLBACK;
-- expect 23503
DELETE FROM parent WHERE id = 1;
SELECT id, parent_id FROM child ORDER BY id;

-- case: a child inserted while its parent's delete is open fails once the delete commits
CREATE TABLE parent (id int4 PRIMARY KEY);
CREATE TABLE child (id int4 PRIMARY KEY, parent_id int4 REFERENCES parent (id));
INSERT INTO parent VALUES (1);
BEGIN;
DELETE FROM parent WHERE id = 1;
-- conn 2
-- expect blocked, then 23503
INSERT INTO child VALUES (10, 1);
-- conn 1
COMMIT;
-- conn 3
SELECT id FROM child;
SELECT id FROM parent;

-- case: a parent's delete waits for a child's open insert, then fails
CREATE TABLE parent (id int4 PRIMARY KEY, name text);
CREATE TABLE child (id int4 PRIMARY KEY, parent_id int4 REFERENCES parent (id));
INSERT INTO parent VALUES (1, 'a'), (2, 'b');
BEGIN;
INSERT INTO child VALUES (10, 1), (20, 2);
-- conn 2
-- expect UPDATE 1
UPDATE parent SET name = 'x' WHERE id = 1;
-- expect blocked, then 23503
DELETE FROM parent WHERE id = 1;
-- conn 3
-- expect blocked, then DELETE 1
DELETE FROM parent WHERE id = 2;
-- conn 1
DELETE FROM child WHERE id = 20;
COMMIT;
-- conn 3
SELECT id, name FROM parent ORDER BY id;
SELECT id, parent_id FROM child ORDER BY id;

-- case: an update that keeps the parent's key lets a child in; one that changes it does not
CREATE TABLE parent (id int4 PRIMARY KEY, name text);
CREATE TABLE child (id int4 PRIMARY KEY, parent_id int4 REFERENCES parent (id));
INSERT INTO parent VALUES (1, 'a'), (2, 'b');
BEGIN;
UPDATE parent SET name = 'x' WHERE id = 1;
UPDATE parent SET id = 3 WHERE id = 2;
-- conn 2
-- expect INSERT 0 1
INSERT INTO child VALUES (10, 1);
-- expect blocked, then 23503
INSERT INTO child VALUES (20, 2);
-- conn 1
COMMIT;
-- conn 3
SELECT id, parent_id FROM child ORDER BY id;
SELECT id, name FROM parent ORDER BY id;

-- case: SERIALIZABLE is refused in every spelling, and a level that is none is invalid
-- refused
BEGIN ISOLATION LEVEL SERIALIZABLE;
ROLLBACK;
-- refused
START TRANSACTION ISOLATION LEVEL SERIALIZABLE;
ROLLBACK;
BEGIN;
-- refused
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
ROLLBACK;
BEGIN;
-- refused
SET transaction_isolation = 'serializable';
ROLLBACK;
-- refused
SET default_transaction_isolation = 'serializable';
RESET default_transaction_isolation;
-- refused
SET default_transaction_isolation = 'SERIALIZABLE';
RESET default_transaction_isolation;
-- refused
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE;
RESET default_transaction_isolation;
SHOW default_transaction_isolation;
-- expect 22023
SET default_transaction_isolation = 'no such level';
-- expect 22023
SET default_transaction_isolation = 'repeatable';
-- expect SET
SET default_transaction_isolation = 'Repeatable Read';
SHOW default_transaction_isolation;
BEGIN;
SHOW transaction_isolation;
COMMIT;
-- expect SET
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED;
SHOW default_transaction_isolation;
BEGIN ISOLATION LEVEL READ UNCOMMITTED;
SHOW transaction_isolation;
COMMIT;
BEGIN;
SET transaction_isolation = 'repeatable read';
SHOW transaction_isolation;
SELECT 1;
-- expect 25001
SET transaction_isolation = 'read committed';
ROLLBACK;

-- case: lock_timeout and statement_timeout end a wait
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
INSERT INTO t VALUES (1, 0);
BEGIN;
UPDATE t SET v = 1 WHERE id = 1;
-- conn 2
-- expect SET
SET lock_timeout = '100ms';
SHOW lock_timeout;
-- expect 55P03
UPDATE t SET v = 2 WHERE id = 1;
RESET lock_timeout;
SET statement_timeout = 100;
SHOW statement_timeout;
-- expect 57014
SELECT id FROM t WHERE id = 1 FOR SHARE;
RESET statement_timeout;
BEGIN;
SET LOCAL lock_timeout = '50ms';
-- expect 55P03
SELECT id FROM t FOR UPDATE;
-- expect 25P02
SELECT 1;
ROLLBACK;
SHOW lock_timeout;
-- conn 1
COMMIT;
-- conn 2
SELECT id, v FROM t;

-- case: the time settings read their units and print the largest that divides
SET lock_timeout = '1s';
SHOW lock_timeout;
SET lock_timeout = '1500ms';
SHOW lock_timeout;
SET lock_timeout = 60000;
SHOW lock_timeout;
SET statement_timeout = '2min';
SHOW statement_timeout;
SET idle_in_transaction_session_timeout = '1h';
SHOW idle_in_transaction_session_timeout;
-- expect 22023
SET lock_timeout = -1;
-- expect 22023
SET lock_timeout = '5 weeks';
-- expect 22023
SET statement_timeout = 'soon';
SET lock_timeout = 0;
SHOW lock_timeout;

-- case: DROP TABLE waits for an open reader, and a reader after it waits behind it
CREATE TABLE t (id int4 PRIMARY KEY);
INSERT INTO t VALUES (1);
BEGIN;
SELECT id FROM t;
-- conn 2
-- expect blocked, then DROP TABLE
DROP TABLE t;
-- conn 3
-- expect blocked, then 42P01
SELECT id FROM t;
-- conn 1
-- expect SELECT 1
SELECT id FROM t;
COMMIT;

-- case: DROP TABLE waits for an open writer
CREATE TABLE t (id int4 PRIMARY KEY);
BEGIN;
INSERT INTO t VALUES (1);
-- conn 2
-- expect blocked, then DROP TABLE
DROP TABLE t;
-- conn 1
-- expect INSERT 0 1
INSERT INTO t VALUES (2);
ROLLBACK;
-- conn 3
-- expect 42P01
SELECT id FROM t;

-- case: CREATE INDEX waits for an open writer; a reader passes it, a writer waits behind it
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
BEGIN;
INSERT INTO t VALUES (1, 1);
-- conn 2
-- expect blocked, then CREATE INDEX
CREATE INDEX t_v ON t (v);
-- conn 3
-- expect SELECT 0
SELECT id FROM t;
-- expect blocked, then INSERT 0 1
INSERT INTO t VALUES (2, 2);
-- conn 1
COMMIT;
-- conn 3
SELECT id FROM t ORDER BY id;

-- case: DROP INDEX waits for an open reader of its table
CREATE TABLE t (id int4 PRIMARY KEY, v int4);
CREATE INDEX t_v ON t (v);
BEGIN;
SELECT id FROM t;
-- conn 2
-- expect blocked, then DROP INDEX
DROP INDEX t_v;
-- conn 1
COMMIT;

-- case: an INSERT without a column list and fewer values fills the first columns
CREATE TABLE t (a int4 PRIMARY KEY, b text, c int4 DEFAULT 7);
-- expect INSERT 0 1
INSERT INTO t VALUES (1);
-- expect INSERT 0 1
INSERT INTO t VALUES (2, 'two');
-- expect INSERT 0 1
INSERT INTO t SELECT 3;
-- expect 42601
INSERT INTO t VALUES (4, 'four', 4, 4);
-- expect 42601
INSERT INTO t (a, b) VALUES (5);
SELECT a, b, c FROM t ORDER BY a;

-- case: deadlock_timeout is a time setting the deadlock check waits
SET deadlock_timeout = '100ms';
SHOW deadlock_timeout;
-- expect 22023
SET deadlock_timeout = 0;
RESET deadlock_timeout;
SHOW deadlock_timeout;

-- case: LOCK TABLE holds a table lock until the transaction ends
CREATE TABLE t (id int4 PRIMARY KEY);
-- expect 25P01
LOCK TABLE t;
BEGIN;
-- expect LOCK TABLE
LOCK TABLE t IN SHARE MODE;
-- conn 2
-- expect SELECT 0
SELECT id FROM t;
BEGIN;
-- expect 55P03
LOCK TABLE t IN ROW EXCLUSIVE MODE NOWAIT;
ROLLBACK;
-- expect blocked, then INSERT 0 1
INSERT INTO t VALUES (1);
-- conn 3
BEGIN;
-- expect LOCK TABLE
LOCK TABLE t IN ACCESS SHARE MODE NOWAIT;
-- expect 42P01
LOCK TABLE nowhere;
ROLLBACK;
-- conn 1
COMMIT;

-- case: a key share lock that waited on a transaction which changed the key re-checks the newest version (isolation spec lock-update-delete)
CREATE TABLE foo (key int PRIMARY KEY, value int);
INSERT INTO foo VALUES (1, 1);
-- conn 2
SELECT pg_advisory_lock(0);
BEGIN;
-- conn 1
-- expect blocked, then SELECT 0
SELECT * FROM foo WHERE pg_advisory_xact_lock(0) IS NOT NULL AND key = 1 FOR KEY SHARE;
-- conn 2
UPDATE foo SET value = 2 WHERE key = 1;
UPDATE foo SET key = 2 WHERE key = 1;
SELECT pg_advisory_unlock(0);
COMMIT;
-- conn 1
SELECT * FROM foo ORDER BY key;
