-- Transactions, settings, advisory locks, isolation and lock waits on several connections.

-- case: BEGIN, COMMIT and ROLLBACK, seen from another connection
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
BEGIN;
INSERT INTO kv VALUES ('a', 1);
-- conn 2
-- expect SELECT 0
SELECT k FROM kv;
-- conn 1
COMMIT;
-- conn 2
-- expect SELECT 1
SELECT k FROM kv;
BEGIN;
DELETE FROM kv;
ROLLBACK;
-- conn 3
SELECT k, v FROM kv;
-- expect COMMIT
COMMIT;
-- expect ROLLBACK
ROLLBACK;

-- case: a statement in an aborted transaction
CREATE TABLE kv (k text PRIMARY KEY);
BEGIN;
INSERT INTO kv VALUES ('a');
-- expect 23505
INSERT INTO kv VALUES ('a');
-- expect 25P02
SELECT 1;
-- expect 25P02
INSERT INTO kv VALUES ('b');
-- expect ROLLBACK
COMMIT;
-- expect SELECT 0
SELECT k FROM kv;

-- case: SET TRANSACTION, SET LOCAL, SHOW and RESET
BEGIN;
-- expect SET
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SHOW transaction_isolation;
-- expect SET
SET LOCAL enable_seqscan = off;
SHOW enable_seqscan;
COMMIT;
SHOW enable_seqscan;
SET enable_seqscan = off;
SHOW enable_seqscan;
-- expect RESET
RESET enable_seqscan;
SHOW enable_seqscan;
-- expect SET
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- case: advisory locks: transaction and session
-- expect SELECT 1
SELECT pg_try_advisory_lock(2);
-- conn 2
SELECT pg_try_advisory_lock(2);
BEGIN;
SELECT pg_advisory_xact_lock(1);
-- conn 3
-- expect blocked, then SELECT 1
SELECT pg_advisory_xact_lock(1);
-- conn 2
COMMIT;
-- conn 1
SELECT pg_advisory_unlock(2);
SELECT pg_advisory_unlock(2);
-- conn 2
SELECT pg_try_advisory_lock(2);
SELECT pg_advisory_unlock(2);

-- case: a lock wait under READ COMMITTED re-checks the row's new version
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1), ('b', 1);
BEGIN;
-- expect UPDATE 1
UPDATE kv SET v = 2 WHERE k = 'a';
-- conn 2
-- expect blocked, then UPDATE 0
UPDATE kv SET v = 10 WHERE k = 'a' AND v = 1 RETURNING k, v;
-- conn 3
-- expect UPDATE 1
UPDATE kv SET v = 5 WHERE k = 'b';
-- conn 1
COMMIT;
-- conn 2
SELECT k, v FROM kv ORDER BY k;

-- case: a lock wait that proceeds when the holder rolls back
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1);
BEGIN;
DELETE FROM kv WHERE k = 'a';
-- conn 2
-- expect blocked, then INSERT 0 1
INSERT INTO kv VALUES ('a', 7) ON CONFLICT (k) DO UPDATE SET v = kv.v + EXCLUDED.v RETURNING v;
-- conn 1
ROLLBACK;
-- conn 3
SELECT k, v FROM kv;

-- case: an insert waits on a concurrent insert of the same key
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
BEGIN;
INSERT INTO kv VALUES ('a', 1);
-- conn 2
-- expect blocked, then 23505
INSERT INTO kv VALUES ('a', 2);
-- conn 3
-- expect blocked, then INSERT 0 0
INSERT INTO kv VALUES ('a', 3) ON CONFLICT (k) DO NOTHING;
-- conn 1
COMMIT;
SELECT k, v FROM kv;

-- case: a serialization failure under REPEATABLE READ
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1);
BEGIN ISOLATION LEVEL REPEATABLE READ;
-- expect SELECT 1
SELECT v FROM kv WHERE k = 'a';
-- conn 2
UPDATE kv SET v = 2 WHERE k = 'a';
-- conn 1
-- expect SELECT 1
SELECT v FROM kv WHERE k = 'a';
-- expect 40001
UPDATE kv SET v = v + 1 WHERE k = 'a';
-- expect 25P02
SELECT 1;
ROLLBACK;

-- case: a serialization failure after a lock wait under REPEATABLE READ
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1);
-- conn 2
BEGIN;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM kv;
-- conn 1
BEGIN;
UPDATE kv SET v = 5 WHERE k = 'a';
-- conn 2
-- expect blocked, then 40001
UPDATE kv SET v = 6 WHERE k = 'a';
-- conn 1
COMMIT;
-- conn 2
ROLLBACK;
SELECT v FROM kv;

-- case: REPEATABLE READ sees its snapshot, READ COMMITTED the latest commit
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM kv;
-- conn 2
BEGIN;
SELECT count(*) FROM kv;
-- conn 3
INSERT INTO kv VALUES ('b', 2);
-- conn 1
-- expect SELECT 1
SELECT count(*) FROM kv;
-- conn 2
SELECT count(*) FROM kv;
COMMIT;
-- conn 1
COMMIT;
