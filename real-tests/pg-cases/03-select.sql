-- SELECT: filters, order, limits, subqueries, joins, aggregates and operators.

-- case: WHERE, ORDER BY [DESC], LIMIT and OFFSET
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL, note text);
INSERT INTO kv VALUES ('a', 3, 'x'), ('b', 1, NULL), ('c', 2, 'y'), ('d', 5, 'x'), ('e', 4, NULL);
SELECT k, v FROM kv WHERE v > 1 ORDER BY v;
SELECT k, v FROM kv ORDER BY v DESC LIMIT 2;
SELECT k FROM kv ORDER BY k LIMIT 2 OFFSET 1;
SELECT k FROM kv ORDER BY k DESC OFFSET 4;
SELECT k, note FROM kv WHERE note IS NULL;
SELECT k FROM kv WHERE note = 'x' AND v < 5 OR k = 'e';
SELECT k, v FROM kv ORDER BY note, k;

-- case: a subquery in FROM, a scalar subquery and ARRAY(SELECT …)
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1), ('b', 2), ('c', 3);
SELECT s.k, s.double FROM (SELECT k, v * 2 AS double FROM kv WHERE v > 1) s ORDER BY s.k;
SELECT k, (SELECT max(v) FROM kv) AS top FROM kv ORDER BY k;
SELECT ARRAY(SELECT k FROM kv ORDER BY v DESC) AS ks;
SELECT ARRAY(SELECT v FROM kv WHERE v > 10) AS none;
-- expect 21000
SELECT (SELECT v FROM kv) AS many;

-- case: inner and left joins
CREATE TABLE users (id int8 PRIMARY KEY, name text NOT NULL);
CREATE TABLE posts (id int8 PRIMARY KEY, user_id int8, title text);
INSERT INTO users VALUES (1, 'ann'), (2, 'bob'), (3, 'cy');
INSERT INTO posts VALUES (10, 1, 'p1'), (11, 1, 'p2'), (12, 2, 'p3'), (13, 9, 'orphan');
SELECT u.name, p.title FROM users u JOIN posts p ON p.user_id = u.id ORDER BY p.id;
SELECT u.name, p.title FROM users u INNER JOIN posts p ON p.user_id = u.id WHERE u.name = 'ann';
SELECT u.name, p.title FROM users u LEFT JOIN posts p ON p.user_id = u.id ORDER BY u.id, p.id;
SELECT u.name, p.title FROM users u LEFT JOIN posts p ON p.user_id = u.id WHERE p.id IS NULL;

-- case: count(*), min, max and coalesce
CREATE TABLE kv (k text PRIMARY KEY, v int8, note text);
SELECT count(*), min(v), max(v) FROM kv;
INSERT INTO kv VALUES ('a', 3, NULL), ('b', NULL, 'n'), ('c', -2, 'm');
SELECT count(*), count(v), min(v), max(v), min(k), max(note) FROM kv;
SELECT k, coalesce(v, 0) AS v, coalesce(note, k, 'none') AS note FROM kv ORDER BY k;
SELECT count(*) FROM kv WHERE v IS NOT NULL;

-- case: IN, = ANY(ARRAY[…]) and EXISTS
CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL);
INSERT INTO kv VALUES ('a', 1), ('b', 2), ('c', 3);
SELECT k FROM kv WHERE k IN ('a', 'c', 'z');
SELECT k FROM kv WHERE v IN (1, 2) AND k IN ('b');
SELECT k FROM kv WHERE k = ANY(ARRAY['b', 'c']);
SELECT k FROM kv WHERE v = ANY(ARRAY[1, 3]::int8[]);
SELECT EXISTS (SELECT 1 FROM kv WHERE v > 2) AS yes, EXISTS (SELECT 1 FROM kv WHERE v > 9) AS no;
SELECT k FROM kv o WHERE EXISTS (SELECT 1 FROM kv i WHERE i.v = o.v + 1);
-- params text:b
SELECT k, v FROM kv WHERE k = $1;
-- params int8:2
SELECT k FROM kv WHERE v >= $1 ORDER BY k;

-- case: correlated and uncorrelated subqueries on every row (the model runs an uncorrelated one once)
CREATE TABLE a (k int4 PRIMARY KEY, n int4);
CREATE TABLE b (k int4, v int4);
CREATE INDEX b_k ON b (k);
INSERT INTO a VALUES (1, 1), (2, 3), (3, 0), (4, 2);
INSERT INTO b VALUES (1, 10), (1, 11), (2, 20), (4, 40), (4, 41), (4, 42);
SELECT k, (SELECT count(*) FROM b WHERE b.k = a.k) AS c, (SELECT max(v) FROM b) AS m FROM a ORDER BY k;
SELECT k, ARRAY(SELECT v FROM b ORDER BY v LIMIT a.n) AS first FROM a ORDER BY k;
SELECT k FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v > 15) ORDER BY k;
SELECT k FROM a WHERE n < (SELECT count(*) FROM b WHERE b.k = a.k) ORDER BY k;
SELECT k FROM a WHERE k IN (SELECT k FROM b WHERE v < (SELECT min(v) FROM b WHERE b.k = a.k) + 5) ORDER BY k;
SET LOCAL enable_seqscan = off;
SELECT k FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k) ORDER BY k;
-- expect DELETE 1
DELETE FROM a WHERE n >= (SELECT count(*) FROM b WHERE b.k = a.k) AND n > 0;
-- expect UPDATE 2
UPDATE a SET n = (SELECT coalesce(sum(v), 0) FROM b WHERE b.k = a.k) WHERE k IN (SELECT k FROM b);
SELECT k, n FROM a ORDER BY k;
