-- Set operations, WITH RECURSIVE, data-modifying CTEs, UPDATE … FROM and DELETE … USING
-- (issue 45): what chat stores write to archive old messages, merge recent rows from two
-- sources, walk a thread, and score memories in bulk; with PostgreSQL's type resolution,
-- its errors, and what the model refuses.

-- case: recent rows from two sources with UNION ALL, ordered and limited as a whole
CREATE TABLE messages (id int4 PRIMARY KEY, session text NOT NULL, parent_id int4, body text, created_at int8 NOT NULL);
CREATE TABLE archive (id int4 PRIMARY KEY, session text NOT NULL, parent_id int4, body text, created_at int8 NOT NULL);
INSERT INTO messages VALUES (1, 's1', NULL, 'hello', 100), (2, 's1', 1, 'hi there', 110), (3, 's1', 2, 'how are you', 120), (4, 's2', NULL, 'other', 130), (5, 's1', 3, 'fine', 140);
INSERT INTO archive VALUES (10, 's1', NULL, 'old hello', 10), (11, 's1', 10, 'old reply', 20), (12, 's2', NULL, 'old other', 30);
-- expect SELECT 4
SELECT id, body, created_at FROM messages WHERE session = 's1' UNION ALL SELECT id, body, created_at FROM archive WHERE session = 's1' ORDER BY created_at DESC LIMIT 4;
-- expect SELECT 3
SELECT id, body FROM messages WHERE session = 's1' UNION ALL SELECT id, body FROM archive WHERE session = 's1' ORDER BY 1 LIMIT 3 OFFSET 2;
SELECT session FROM messages UNION SELECT session FROM archive ORDER BY session;
SELECT session, count(*) FROM messages GROUP BY session UNION ALL SELECT session, count(*) FROM archive GROUP BY session ORDER BY session, 2;
(SELECT id, created_at FROM messages ORDER BY created_at DESC LIMIT 2) UNION ALL (SELECT id, created_at FROM archive ORDER BY created_at LIMIT 1) ORDER BY created_at;
SELECT * FROM (SELECT id, 'live' AS src FROM messages UNION ALL SELECT id, 'archived' FROM archive) s WHERE id > 3 ORDER BY id;
SELECT id AS n FROM messages UNION SELECT id FROM archive ORDER BY n DESC;
-- expect 42703
SELECT id AS n FROM messages UNION SELECT id FROM archive ORDER BY id;
(SELECT id, body FROM messages WHERE session = 's2') ORDER BY body;
(SELECT id FROM messages UNION SELECT id FROM archive) ORDER BY id DESC LIMIT 2;
-- expect 42601
(SELECT id FROM messages ORDER BY id) ORDER BY id DESC;
-- refused
(SELECT id AS n FROM messages) ORDER BY created_at;
-- expect 0A000
SELECT id FROM messages UNION SELECT id FROM archive ORDER BY id + 1;
-- expect 42P10
SELECT id FROM messages UNION SELECT id FROM archive ORDER BY 2;
-- expect 0A000
SELECT id FROM messages UNION SELECT id FROM archive FOR UPDATE;
-- expect 0A000
(SELECT id FROM messages FOR UPDATE) UNION SELECT id FROM archive;

-- case: INTERSECT binds tighter than UNION and EXCEPT; parentheses regroup
CREATE TABLE a (x int4);
CREATE TABLE b (x int4);
CREATE TABLE c (x int4);
INSERT INTO a VALUES (1), (1), (2), (3), (NULL), (NULL);
INSERT INTO b VALUES (1), (2), (2), (NULL);
INSERT INTO c VALUES (2), (3), (4);
SELECT x FROM a UNION SELECT x FROM b INTERSECT SELECT x FROM c ORDER BY 1;
SELECT x FROM a EXCEPT SELECT x FROM b INTERSECT SELECT x FROM c ORDER BY 1;
(SELECT x FROM a UNION SELECT x FROM b) INTERSECT SELECT x FROM c ORDER BY 1;
SELECT x FROM a EXCEPT (SELECT x FROM b EXCEPT SELECT x FROM c) ORDER BY 1;
SELECT x FROM c UNION ALL SELECT x FROM b EXCEPT SELECT x FROM a ORDER BY x;

-- case: duplicates and NULLs under the ALL and distinct forms
CREATE TABLE a (x int4, y text);
CREATE TABLE b (x int4, y text);
INSERT INTO a VALUES (1, 'p'), (1, 'p'), (1, 'p'), (2, NULL), (2, NULL), (NULL, NULL), (3, 'q');
INSERT INTO b VALUES (1, 'p'), (1, 'p'), (2, NULL), (NULL, NULL), (NULL, NULL), (4, 'r');
SELECT x, y FROM a UNION ALL SELECT x, y FROM b ORDER BY x, y;
SELECT x, y FROM a UNION SELECT x, y FROM b ORDER BY x, y;
SELECT x, y FROM a INTERSECT SELECT x, y FROM b ORDER BY x, y;
SELECT x, y FROM a INTERSECT ALL SELECT x, y FROM b ORDER BY x, y;
SELECT x, y FROM a EXCEPT SELECT x, y FROM b ORDER BY x, y;
SELECT x, y FROM a EXCEPT ALL SELECT x, y FROM b ORDER BY x, y;
SELECT x, y FROM b EXCEPT ALL SELECT x, y FROM a ORDER BY x NULLS FIRST, y;
SELECT x FROM a INTERSECT DISTINCT SELECT x FROM b ORDER BY x DESC;
-- expect SELECT 0
SELECT x FROM a WHERE false UNION SELECT x FROM b WHERE false;
SELECT count(*) FROM (SELECT x, y FROM a UNION SELECT x, y FROM b) u;

-- case: column types and names as PostgreSQL resolves them
CREATE TABLE t (i2 int2, i4 int4, i8 int8, n numeric, f float8, s text, v varchar(10), d date, ts timestamp, tz timestamptz, b bool, j jsonb, u uuid);
INSERT INTO t VALUES (1, 2, 3, 4.5, 6.5, 'text', 'var', '2024-01-02', '2024-01-02 03:04:05', '2024-01-02 03:04:05+00', true, '{"a": 1}', '00000000-0000-0000-0000-000000000001');
SELECT i4 FROM t UNION SELECT i8 FROM t ORDER BY 1;
SELECT i2 AS small FROM t UNION ALL SELECT i4 FROM t UNION ALL SELECT i2 FROM t ORDER BY small;
SELECT i4 FROM t UNION SELECT n FROM t ORDER BY 1;
SELECT n FROM t UNION SELECT f FROM t ORDER BY 1;
SELECT 1 UNION SELECT 2.5 ORDER BY 1;
SELECT s FROM t UNION SELECT v FROM t ORDER BY 1;
SELECT v FROM t UNION SELECT s FROM t ORDER BY 1;
SELECT d FROM t UNION SELECT ts FROM t ORDER BY 1;
SELECT ts FROM t UNION ALL SELECT tz FROM t ORDER BY 1;
SELECT 1 AS one UNION SELECT NULL ORDER BY 1;
SELECT NULL AS x UNION SELECT NULL;
SELECT 'a' AS letter UNION SELECT 'b' ORDER BY 1;
SELECT NULL UNION SELECT i8 FROM t UNION SELECT 7 ORDER BY 1;
SELECT 'x', 1 UNION ALL SELECT s, i4 FROM t ORDER BY 1;
SELECT u FROM t UNION SELECT NULL;
SELECT j FROM t UNION ALL SELECT '{"b": 2}' ORDER BY 1;
-- expect 42804
SELECT i4 FROM t UNION SELECT s FROM t;
-- expect 42804
SELECT 1 UNION SELECT 'x'::text;
-- expect 42804
SELECT b FROM t INTERSECT SELECT i4 FROM t;
-- expect 42804
SELECT d FROM t EXCEPT SELECT i8 FROM t;
-- expect 42804
SELECT u FROM t UNION SELECT s FROM t;
-- expect 22P02
SELECT 1 UNION SELECT 'a';
-- expect 42601
SELECT 1, 2 UNION SELECT 1;
-- expect 42601
SELECT i4 FROM t INTERSECT SELECT i4, i8 FROM t;
-- expect 42601
SELECT i4 FROM t EXCEPT SELECT * FROM t;
-- expect 42846
SELECT j FROM t UNION SELECT '{}'::json;
-- expect 42846
SELECT u FROM t UNION ALL SELECT j FROM t;
-- expect 42804
SELECT NULL::text UNION SELECT NULL UNION SELECT 1;

-- case: walking a thread by parent_id with WITH RECURSIVE
CREATE TABLE messages (id int4 PRIMARY KEY, parent_id int4, body text NOT NULL);
INSERT INTO messages VALUES (1, NULL, 'root'), (2, 1, 'reply a'), (3, 1, 'reply b'), (4, 2, 'reply a.1'), (5, 4, 'reply a.1.1'), (6, NULL, 'other root'), (7, 6, 'other reply');
-- expect SELECT 5
WITH RECURSIVE thread AS (SELECT id, parent_id, body, 0 AS depth FROM messages WHERE id = 1 UNION ALL SELECT m.id, m.parent_id, m.body, t.depth + 1 FROM messages m JOIN thread t ON m.parent_id = t.id) SELECT id, parent_id, body, depth FROM thread ORDER BY depth, id;
-- params int4:2
WITH RECURSIVE thread AS (SELECT id, parent_id, body FROM messages WHERE id = $1 UNION ALL SELECT m.id, m.parent_id, m.body FROM messages m JOIN thread t ON m.parent_id = t.id) SELECT id, body FROM thread ORDER BY id;
-- params int4:1 int4:2
WITH RECURSIVE thread(id, depth) AS (SELECT id, 0 FROM messages WHERE id = $1 UNION ALL SELECT m.id, t.depth + 1 FROM messages m JOIN thread t ON m.parent_id = t.id WHERE t.depth < $2) SELECT id, depth FROM thread ORDER BY id;
WITH RECURSIVE up(id, parent_id) AS (SELECT id, parent_id FROM messages WHERE id = 5 UNION SELECT m.id, m.parent_id FROM messages m, up WHERE m.id = up.parent_id) SELECT id FROM up ORDER BY id;
WITH RECURSIVE thread AS (SELECT id, body FROM messages WHERE parent_id IS NULL UNION ALL SELECT m.id, m.body FROM thread t JOIN messages m ON m.parent_id = t.id) SELECT count(*) FROM thread;
WITH RECURSIVE path(id, trail) AS (SELECT id, body FROM messages WHERE id = 1 UNION ALL SELECT m.id, p.trail || ' > ' || m.body FROM messages m JOIN path p ON m.parent_id = p.id) SELECT id, trail FROM path ORDER BY id;
WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 10) SELECT sum(n), max(n), count(*) FROM counter;
WITH RECURSIVE counter(n) AS (VALUES (1) UNION ALL SELECT n * 2 FROM counter WHERE n < 100) SELECT n FROM counter ORDER BY n;
WITH RECURSIVE s(x) AS (SELECT 'a' UNION ALL SELECT x || 'b' FROM s WHERE length(x) < 3) SELECT x FROM s ORDER BY x;
WITH RECURSIVE n(v) AS (SELECT 1.0 UNION ALL SELECT v + 1 FROM n WHERE v < 3) SELECT v FROM n ORDER BY v;
WITH RECURSIVE a(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM a WHERE x < 3), b AS (SELECT x * 10 AS y FROM a) SELECT y FROM b ORDER BY y;
WITH RECURSIVE plain AS (SELECT 1 AS one UNION ALL SELECT 2) SELECT one FROM plain ORDER BY one;
WITH RECURSIVE x AS (SELECT 1 AS x UNION ALL SELECT 2) SELECT x FROM x ORDER BY x;
-- expect SELECT 0
WITH RECURSIVE none(id) AS (SELECT id FROM messages WHERE id < 0 UNION ALL SELECT m.id FROM messages m JOIN none ON m.parent_id = none.id) SELECT id FROM none;

-- case: a cycle terminates under UNION (duplicates are dropped each round)
CREATE TABLE edges (src int4, dst int4);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 1), (3, 4);
WITH RECURSIVE reach(node) AS (SELECT 1 UNION SELECT e.dst FROM edges e JOIN reach r ON e.src = r.node) SELECT node FROM reach ORDER BY node;
WITH RECURSIVE reach(node, hops) AS (SELECT 1, 0 UNION ALL SELECT e.dst, r.hops + 1 FROM edges e JOIN reach r ON e.src = r.node WHERE r.hops < 5) SELECT node, hops FROM reach ORDER BY hops, node;

-- case: malformed recursive queries
CREATE TABLE edges (src int4, dst int4);
-- expect 42804
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1::int8 FROM t WHERE n < 3) SELECT * FROM t;
-- expect 0A000
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3 LIMIT 2) SELECT * FROM t;
-- expect 0A000
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3 ORDER BY 1) SELECT * FROM t;
-- expect 42P19
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT t1.n + 1 FROM t t1, t t2 WHERE t1.n < 3) SELECT * FROM t;
-- expect 42P19
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT count(*) FROM t) SELECT * FROM t;
-- expect 42P19
WITH RECURSIVE t(n) AS (SELECT n FROM t UNION ALL SELECT 1) SELECT * FROM t;
-- the model computes the whole CTE first, and stops at its bound
-- refused
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 2;
-- refused
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT t.n + 1 FROM t LEFT JOIN edges e ON e.src = t.n WHERE t.n < 3) SELECT * FROM t;

-- case: archive old messages with a DELETE … RETURNING CTE
CREATE TABLE messages (id int4 PRIMARY KEY, session text NOT NULL, body text, created_at int8 NOT NULL);
CREATE TABLE archive (id int4 PRIMARY KEY, session text NOT NULL, body text, created_at int8 NOT NULL);
INSERT INTO messages VALUES (1, 's1', 'a', 10), (2, 's1', 'b', 20), (3, 's2', 'c', 30), (4, 's1', 'd', 40);
-- expect INSERT 0 2
WITH moved AS (DELETE FROM messages WHERE created_at < 25 RETURNING *) INSERT INTO archive SELECT * FROM moved;
SELECT id, body FROM messages ORDER BY id;
SELECT id, session, body, created_at FROM archive ORDER BY id;
-- expect INSERT 0 1
WITH moved AS (DELETE FROM messages WHERE id = 3 RETURNING id, session, body, created_at) INSERT INTO archive (id, session, body, created_at) SELECT id, session, upper(body), created_at FROM moved RETURNING id, body;
-- expect SELECT 1
WITH gone AS (DELETE FROM messages WHERE id = 4 RETURNING id) SELECT (SELECT count(*) FROM messages) AS still_seen, (SELECT count(*) FROM gone) AS deleted;
SELECT count(*) FROM messages;
-- params int4:2
WITH moved AS (DELETE FROM archive WHERE id = $1 RETURNING *) INSERT INTO messages SELECT * FROM moved RETURNING id, body;
-- params int4:1
WITH moved AS (DELETE FROM archive WHERE id = $1 RETURNING *) INSERT INTO messages SELECT * FROM moved;
-- params int8:15
SELECT id, created_at FROM messages WHERE created_at > $1 UNION ALL SELECT id, created_at FROM archive ORDER BY 1;
SELECT id FROM messages ORDER BY id;

-- case: INSERT … RETURNING in WITH, and the main query not seeing the new rows
CREATE TABLE memories (id serial PRIMARY KEY, content text NOT NULL, score int4 NOT NULL DEFAULT 0);
INSERT INTO memories (content) VALUES ('likes tea');
-- expect SELECT 2
WITH ins AS (INSERT INTO memories (content) VALUES ('lives in Oslo'), ('has a cat') RETURNING id, content) SELECT id, content FROM ins ORDER BY id;
-- expect SELECT 1
WITH ins AS (INSERT INTO memories (content) VALUES ('plays chess') RETURNING id) SELECT count(*) AS before FROM memories;
SELECT id, content FROM memories ORDER BY id;
-- expect UPDATE 1
WITH bumped AS (UPDATE memories SET score = score + 1 WHERE id = 1 RETURNING id, score) UPDATE memories SET score = 100 WHERE id = 2;
SELECT id, score FROM memories ORDER BY id;
-- expect SELECT 1
WITH u AS (UPDATE memories SET score = 7 WHERE id = 3 RETURNING id, score) SELECT m.score AS old_score, u.score AS new_score FROM memories m JOIN u ON u.id = m.id;
-- an unread data-modifying CTE still runs, once
-- expect SELECT 1
WITH d AS (DELETE FROM memories WHERE id = 4) SELECT 1 AS done;
SELECT count(*) FROM memories;
-- expect 0A000
WITH d AS (DELETE FROM memories WHERE id = 1) SELECT * FROM d;
-- expect 0A000
SELECT * FROM (WITH d AS (DELETE FROM memories RETURNING id) SELECT id FROM d) s;
-- expect 0A000
INSERT INTO memories (content) WITH d AS (DELETE FROM memories WHERE id = 1 RETURNING content) SELECT content FROM d;
SELECT id, content, score FROM memories ORDER BY id;

-- case: a concurrent session does not see a data-modifying CTE's work before commit
CREATE TABLE messages (id int4 PRIMARY KEY, body text);
CREATE TABLE archive (id int4 PRIMARY KEY, body text);
INSERT INTO messages VALUES (1, 'a'), (2, 'b'), (3, 'c');
BEGIN;
-- expect INSERT 0 2
WITH moved AS (DELETE FROM messages WHERE id <= 2 RETURNING *) INSERT INTO archive SELECT * FROM moved;
-- conn 2
SELECT id FROM messages ORDER BY id;
SELECT count(*) FROM archive;
-- expect blocked, then UPDATE 0
UPDATE messages SET body = 'x' WHERE id = 1;
-- conn 1
COMMIT;
-- conn 2
SELECT id, body FROM messages ORDER BY id;
SELECT id, body FROM archive ORDER BY id;

-- case: UPDATE … FROM (VALUES …) scores memories in bulk
CREATE TABLE memories (id int4 PRIMARY KEY, content text NOT NULL, score float8 NOT NULL DEFAULT 0);
INSERT INTO memories VALUES (1, 'likes tea', 0), (2, 'lives in Oslo', 0), (3, 'has a cat', 0);
-- expect UPDATE 2
UPDATE memories SET score = v.score FROM (VALUES (1, 0.5), (3, 0.9)) AS v(id, score) WHERE memories.id = v.id;
SELECT id, score FROM memories ORDER BY id;
-- params text:has%
UPDATE memories SET score = v.score FROM (VALUES (3, 2.5)) AS v(id, score) WHERE memories.id = v.id AND memories.content LIKE $1 RETURNING memories.id, memories.score;
-- expect UPDATE 2
UPDATE memories m SET score = m.score + v.delta FROM (VALUES (2, 1.5), (3, 0.1)) AS v(id, delta) WHERE m.id = v.id RETURNING m.id, m.score, v.delta;
CREATE TABLE feedback (memory_id int4, vote int4);
INSERT INTO feedback VALUES (1, 1), (2, -1), (9, 1);
-- expect UPDATE 2
UPDATE memories SET content = content || ' (voted)' FROM feedback f WHERE f.memory_id = memories.id;
SELECT id, content, score FROM memories ORDER BY id;
-- expect UPDATE 0
UPDATE memories SET score = 0 FROM feedback WHERE feedback.memory_id = memories.id AND feedback.vote > 5;
-- expect UPDATE 1
UPDATE memories SET score = f.vote FROM feedback f JOIN memories m2 ON m2.id = f.memory_id WHERE memories.id = f.memory_id AND f.vote < 0 RETURNING *;
-- expect 42703
UPDATE memories SET nope = 1 FROM feedback WHERE feedback.memory_id = memories.id;
-- expect 42712
UPDATE memories SET score = 1 FROM memories WHERE memories.id = 1;

-- case: DELETE … USING removes what another table lists
CREATE TABLE messages (id int4 PRIMARY KEY, session text NOT NULL);
CREATE TABLE expired (session text PRIMARY KEY);
INSERT INTO messages VALUES (1, 's1'), (2, 's2'), (3, 's1'), (4, 's3');
INSERT INTO expired VALUES ('s1'), ('s3');
-- expect DELETE 3
DELETE FROM messages m USING expired e WHERE m.session = e.session RETURNING m.id, e.session;
SELECT id, session FROM messages ORDER BY id;
-- expect DELETE 0
DELETE FROM messages USING expired WHERE messages.session = expired.session;
-- expect DELETE 1
DELETE FROM messages USING (VALUES ('s2')) AS v(s) WHERE messages.session = v.s;

-- case: UPDATE … FROM waits for a row another transaction holds and re-checks it
CREATE TABLE memories (id int4 PRIMARY KEY, score int4 NOT NULL);
CREATE TABLE boosts (id int4, delta int4);
INSERT INTO memories VALUES (1, 0), (2, 0);
INSERT INTO boosts VALUES (1, 10), (2, 20);
BEGIN;
UPDATE memories SET score = 5 WHERE id = 1;
-- conn 2
-- expect blocked, then UPDATE 2
UPDATE memories SET score = memories.score + b.delta FROM boosts b WHERE b.id = memories.id;
-- conn 1
COMMIT;
-- conn 2
SELECT id, score FROM memories ORDER BY id;
-- conn 1
BEGIN;
UPDATE memories SET score = 100 WHERE id = 2;
-- conn 2
-- expect blocked, then DELETE 0
DELETE FROM memories USING boosts b WHERE b.id = memories.id AND memories.score < 50 AND b.delta = 20;
-- conn 1
COMMIT;
-- conn 2
SELECT id, score FROM memories ORDER BY id;

-- case: the latest messages of each session with LATERAL
CREATE TABLE sessions (id text PRIMARY KEY, title text);
CREATE TABLE messages (id int4 PRIMARY KEY, session text NOT NULL, body text, created_at int8 NOT NULL);
INSERT INTO sessions VALUES ('s1', 'first'), ('s2', 'second'), ('s3', 'empty');
INSERT INTO messages VALUES (1, 's1', 'a', 10), (2, 's1', 'b', 20), (3, 's1', 'c', 30), (4, 's2', 'd', 40), (5, 's2', 'e', 50);
-- expect SELECT 4
SELECT s.id, last.body, last.created_at FROM sessions s, LATERAL (SELECT m.body, m.created_at FROM messages m WHERE m.session = s.id ORDER BY m.created_at DESC LIMIT 2) last ORDER BY s.id, last.created_at;
SELECT s.id, last.body FROM sessions s LEFT JOIN LATERAL (SELECT body FROM messages m WHERE m.session = s.id ORDER BY created_at DESC LIMIT 1) last ON true ORDER BY s.id;
SELECT s.id, c.n FROM sessions s CROSS JOIN LATERAL (SELECT count(*) AS n FROM messages m WHERE m.session = s.id) c ORDER BY s.id;
SELECT s.id, x.doubled FROM sessions s JOIN LATERAL (SELECT created_at * 2 AS doubled FROM messages m WHERE m.session = s.id) x ON x.doubled > 50 ORDER BY s.id, x.doubled;
SELECT s.id, t.k FROM sessions s, LATERAL (SELECT s.title AS k) t WHERE s.id <> 's3' ORDER BY s.id;
-- params int4:1
SELECT s.id, last.body FROM sessions s, LATERAL (SELECT body FROM messages m WHERE m.session = s.id ORDER BY created_at DESC LIMIT $1) last ORDER BY s.id;

-- case: VALUES as an operand resolves its own column types first
VALUES (1, 'a'), (2, 'b') UNION SELECT 3, 'c' ORDER BY 1;
VALUES (NULL), (1) UNION SELECT 2 ORDER BY 1;
VALUES (NULL), (NULL) UNION SELECT 'x' ORDER BY 1;
VALUES (1), (2.5) UNION ALL SELECT 3 ORDER BY 1;
VALUES (2), (1) ORDER BY 1 DESC LIMIT 1;
-- expect 22P02
VALUES (1), ('a') UNION ALL SELECT 3;
-- expect 42804
VALUES ('a') UNION SELECT 1;
-- expect 42804
VALUES (1), (true) UNION SELECT 1;

-- case: deduplicating a table with DELETE … USING itself; CTEs feeding a data-modifying CTE
CREATE TABLE t (id int4 PRIMARY KEY, x int4);
CREATE TABLE archive (id int4 PRIMARY KEY, x int4);
INSERT INTO t VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 3);
-- expect DELETE 2
DELETE FROM t USING t t2 WHERE t.x = t2.x AND t.id > t2.id RETURNING t.id;
SELECT id FROM t ORDER BY id;
WITH src AS (SELECT id + 100 AS id, x FROM t), ins AS (INSERT INTO archive SELECT * FROM src RETURNING *) SELECT count(*) FROM ins;
WITH a AS (INSERT INTO t VALUES (10, 10) RETURNING id), b AS (DELETE FROM archive WHERE id = 101 RETURNING id) SELECT (SELECT id FROM a), (SELECT id FROM b);
SELECT id FROM t WHERE id IN (SELECT id FROM t UNION SELECT id - 100 FROM archive) ORDER BY id;
SELECT * FROM t INTERSECT SELECT id - 100, x FROM archive ORDER BY 1;
WITH RECURSIVE fib(a, b) AS (SELECT 0::int8, 1::int8 UNION ALL SELECT b, a + b FROM fib WHERE b < 100) SELECT a FROM fib ORDER BY a;

-- case: a data-modifying CTE's statement waits, and its CTE's work is redone once
CREATE TABLE m (id int4 PRIMARY KEY, body text);
CREATE TABLE archive (id int4 PRIMARY KEY, body text);
INSERT INTO m VALUES (1, 'a'), (2, 'b');
BEGIN;
INSERT INTO archive VALUES (1, 'held');
-- conn 2
-- expect blocked, then INSERT 0 1
WITH moved AS (DELETE FROM m WHERE id = 1 RETURNING *) INSERT INTO archive SELECT * FROM moved;
-- conn 1
ROLLBACK;
-- conn 2
SELECT id FROM m ORDER BY id;
SELECT id, body FROM archive ORDER BY id;
-- conn 1
BEGIN;
UPDATE m SET body = 'z' WHERE id = 2;
-- conn 2
-- expect blocked, then INSERT 0 0
WITH moved AS (DELETE FROM m WHERE body = 'b' RETURNING *) INSERT INTO archive SELECT * FROM moved;
-- conn 1
COMMIT;
-- conn 2
SELECT id, body FROM m ORDER BY id;
SELECT id, body FROM archive ORDER BY id;
