-- Reads through a unique key's index (`exec/keyed.rs`): a SELECT of one table whose WHERE
-- binds the leading columns of a unique key to constants or parameters takes its
-- candidates from the key's index, then judges each by the whole WHERE, in heap order.
-- The rows must be exactly a scan's: other types, NULLs, OR, outer columns, versions of
-- open transactions and locking reads.

-- case: a key prefix, the whole key, and what must still scan
CREATE TABLE m (pos int8 PRIMARY KEY, tenant text NOT NULL, session text NOT NULL, id text NOT NULL, UNIQUE (tenant, session, id));
INSERT INTO m VALUES (1, 'a', 's1', 'x'), (2, 'a', 's1', 'y'), (3, 'a', 's2', 'x'), (4, 'b', 's1', 'x'), (5, 'a', 's1', 'z');
SELECT pos, id FROM m WHERE tenant = 'a' AND session = 's1';
SELECT pos FROM m WHERE session = 's1' AND tenant = 'a' AND id = 'y';
SELECT pos FROM m t WHERE t.tenant = 'a' AND t.session = 's1' AND pos > 1 ORDER BY pos DESC LIMIT 1;
SELECT pos FROM m WHERE tenant = 'a' OR session = 's2';
SELECT pos FROM m WHERE tenant = NULL AND session = 's1';
SELECT pos FROM m WHERE tenant = 'A' AND session = 's1';
SELECT pos FROM m WHERE pos = 3;
SELECT pos FROM m WHERE pos = 3::int4;
SELECT pos FROM m WHERE pos = '3';
SELECT pos FROM m WHERE pos = 3.0;
SELECT min(pos) FROM (SELECT pos FROM m WHERE tenant = 'a' AND session = 's1' ORDER BY pos DESC LIMIT 2) newest;
SELECT o.pos, (SELECT count(*) FROM m WHERE tenant = o.tenant AND session = 's1') FROM m o WHERE o.pos < 3;
SELECT pos FROM m WHERE tenant = 'a' AND session = 's1' AND id = (SELECT id FROM m WHERE pos = 2);

-- case: versions of open transactions, seen as a scan sees them
CREATE TABLE m (pos int8 PRIMARY KEY, tenant text NOT NULL, session text NOT NULL, UNIQUE (tenant, session, pos));
INSERT INTO m VALUES (1, 'a', 's1'), (2, 'a', 's1');
BEGIN;
DELETE FROM m WHERE pos = 1;
INSERT INTO m VALUES (3, 'a', 's1');
UPDATE m SET session = 's2' WHERE pos = 2;
SELECT pos, session FROM m WHERE tenant = 'a' AND session = 's1';
SELECT pos, session FROM m WHERE tenant = 'a' AND session = 's2';
-- conn 2
SELECT pos, session FROM m WHERE tenant = 'a' AND session = 's1';
-- conn 1
COMMIT;
-- conn 2
SELECT pos, session FROM m WHERE tenant = 'a' AND session = 's1';
SELECT pos FROM m WHERE tenant = 'a' AND session = 's1' FOR UPDATE;
