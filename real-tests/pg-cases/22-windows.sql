-- Window functions and the aggregates chat stores write (issue 45): row_number, rank,
-- dense_rank, percent_rank, cume_dist, ntile, lag/lead, first/last/nth_value, aggregates
-- OVER a partition and a frame, named windows; DISTINCT, ORDER BY and FILTER inside
-- aggregates; string_agg, json_agg, jsonb_agg, json[b]_object_agg, every. Order-sensitive
-- results avoid ties: PostgreSQL's sort does not promise an order among them.

-- case: the last N messages of each conversation
CREATE TABLE messages (id int PRIMARY KEY, conversation_id int, seq int NOT NULL, role text NOT NULL, content text, created_at timestamptz);
INSERT INTO messages VALUES
  (1, 1, 1, 'user', 'hi', '2024-01-01 10:00:00+00'),
  (2, 1, 2, 'assistant', 'hello!', '2024-01-01 10:00:05+00'),
  (3, 1, 3, 'user', 'how are you?', '2024-01-01 10:01:00+00'),
  (4, 1, 4, 'assistant', 'fine', '2024-01-01 10:01:30+00'),
  (5, 2, 1, 'system', 'be brief', '2024-01-02 09:00:00+00'),
  (6, 2, 2, 'user', 'weather?', '2024-01-02 09:00:10+00'),
  (7, 2, 3, 'assistant', NULL, NULL),
  (8, 3, 1, 'user', 'lonely', '2024-01-03 00:00:00+00'),
  (9, NULL, 1, 'user', 'orphan a', '2024-01-04 00:00:00+00'),
  (10, NULL, 2, 'assistant', 'orphan b', '2024-01-04 00:00:01+00');
SELECT conversation_id, seq, content FROM (SELECT conversation_id, seq, content, row_number() OVER (PARTITION BY conversation_id ORDER BY seq DESC) AS rn FROM messages) recent WHERE rn <= 2 ORDER BY conversation_id NULLS FIRST, seq;
SELECT id, row_number() OVER (PARTITION BY conversation_id ORDER BY seq) AS n FROM messages ORDER BY id;
SELECT id, row_number() OVER (ORDER BY created_at NULLS FIRST, id) FROM messages ORDER BY 2;
SELECT id, row_number() OVER () FROM messages WHERE conversation_id = 3;
SELECT count(*) OVER (), id FROM messages WHERE conversation_id = 2 ORDER BY id;
SELECT id, seq, count(*) OVER (PARTITION BY conversation_id) AS in_conversation, max(seq) OVER (PARTITION BY conversation_id) AS last_seq FROM messages ORDER BY id;

-- case: lag and lead: gaps between messages, the previous speaker
CREATE TABLE messages (id int PRIMARY KEY, conversation_id int, seq int NOT NULL, role text NOT NULL, content text, created_at timestamptz);
INSERT INTO messages VALUES
  (1, 1, 1, 'user', 'hi', '2024-01-01 10:00:00+00'),
  (2, 1, 2, 'assistant', 'hello!', '2024-01-01 10:00:05+00'),
  (3, 1, 3, 'user', 'how are you?', '2024-01-01 10:01:00+00'),
  (4, 1, 4, 'assistant', 'fine', '2024-01-01 10:01:30+00'),
  (5, 2, 1, 'system', 'be brief', '2024-01-02 09:00:00+00'),
  (6, 2, 2, 'user', 'weather?', '2024-01-02 09:00:10+00'),
  (7, 2, 3, 'assistant', NULL, NULL);
SELECT id, created_at - lag(created_at) OVER (PARTITION BY conversation_id ORDER BY seq) AS gap FROM messages ORDER BY id;
SELECT id, lag(role) OVER w AS previous, lead(role) OVER w AS next FROM messages WINDOW w AS (PARTITION BY conversation_id ORDER BY seq) ORDER BY id;
SELECT id, lag(content, 1, '(start)') OVER (PARTITION BY conversation_id ORDER BY seq), lead(seq, 2, -1) OVER (PARTITION BY conversation_id ORDER BY seq) FROM messages ORDER BY id;
SELECT id, lag(seq, 0) OVER (ORDER BY id), lag(seq, -1) OVER (ORDER BY id), lead(seq, 10) OVER (ORDER BY id), lag(seq, NULL) OVER (ORDER BY id) FROM messages ORDER BY id;
SELECT id, lag(seq, 1, 1.5) OVER (ORDER BY id), lead(id, 1, id * 100) OVER (ORDER BY id) FROM messages ORDER BY id;
-- expect 22P02
SELECT lag(seq, 1, 'x') OVER (ORDER BY id) FROM messages;

-- case: running sums, moving windows and the default frame with peers
CREATE TABLE usage (day int, tenant text, tokens int);
INSERT INTO usage VALUES (1, 'a', 10), (2, 'a', 20), (2, 'b', 5), (3, 'a', 30), (5, 'a', 40), (5, 'b', 50), (NULL, 'b', 7);
SELECT day, tenant, sum(tokens) OVER (ORDER BY day) AS running FROM usage ORDER BY day, tenant;
SELECT day, tenant, sum(tokens) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running FROM usage ORDER BY day, tenant;
SELECT day, tenant, sum(tokens) OVER (PARTITION BY tenant ORDER BY day ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS moving FROM usage ORDER BY tenant, day;
SELECT day, tenant, avg(tokens) OVER (PARTITION BY tenant ORDER BY day ROWS 1 PRECEDING) AS smooth FROM usage ORDER BY tenant, day;
SELECT day, tenant, count(*) OVER (ORDER BY day RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS near FROM usage WHERE day IS NOT NULL ORDER BY day, tenant;
SELECT day, tenant, sum(tokens) OVER (ORDER BY day DESC RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING) AS ahead FROM usage WHERE day IS NOT NULL ORDER BY day, tenant;
SELECT day, tenant, sum(tokens) OVER (ORDER BY day GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) AS two_days FROM usage ORDER BY day, tenant;
SELECT day, tenant, sum(tokens) OVER (ORDER BY day, tenant ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING) AS rest, count(tokens) OVER (ORDER BY day, tenant ROWS BETWEEN 5 PRECEDING AND 3 PRECEDING) AS before FROM usage ORDER BY day, tenant;
SELECT tenant, sum(tokens) OVER (PARTITION BY tenant) AS total, min(day) OVER (PARTITION BY tenant), max(tokens) OVER () FROM usage ORDER BY tenant, day;
SELECT day, tenant, sum(tokens) FILTER (WHERE tenant = 'a') OVER (ORDER BY day, tenant) AS a_running FROM usage ORDER BY day, tenant;
SELECT day, tenant, first_value(tokens) OVER w, last_value(tokens) OVER w, nth_value(tokens, 2) OVER w FROM usage WINDOW w AS (PARTITION BY tenant ORDER BY day) ORDER BY tenant, day;
SELECT day, tenant, last_value(tokens) OVER (PARTITION BY tenant ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS latest FROM usage ORDER BY tenant, day;
SELECT day, tenant, nth_value(tenant, 3) OVER (ORDER BY day NULLS FIRST, tenant ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM usage ORDER BY day NULLS FIRST, tenant;

-- case: rank, dense_rank and their kin over ties
CREATE TABLE scores (name text, score int);
INSERT INTO scores VALUES ('a', 10), ('b', 20), ('c', 20), ('d', 30), ('e', NULL), ('f', 10);
SELECT name, rank() OVER (ORDER BY score DESC), dense_rank() OVER (ORDER BY score DESC), percent_rank() OVER (ORDER BY score DESC), cume_dist() OVER (ORDER BY score DESC) FROM scores ORDER BY name;
SELECT name, rank() OVER (ORDER BY score NULLS FIRST), dense_rank() OVER (ORDER BY score) FROM scores ORDER BY name;
SELECT name, ntile(4) OVER (ORDER BY name), ntile(2) OVER (ORDER BY name), ntile(10) OVER (ORDER BY name) FROM scores ORDER BY name;
SELECT name, rank() OVER (), dense_rank() OVER (), percent_rank() OVER (), cume_dist() OVER () FROM scores ORDER BY name;
SELECT name, score, rank() OVER (PARTITION BY score > 15 ORDER BY score) FROM scores ORDER BY name;
SELECT name FROM scores ORDER BY rank() OVER (ORDER BY score DESC NULLS LAST), name;
SELECT DISTINCT dense_rank() OVER (ORDER BY score) AS place FROM scores ORDER BY place;
SELECT name, score FROM (SELECT name, score, dense_rank() OVER (ORDER BY score DESC NULLS LAST) AS place FROM scores) ranked WHERE place = 2 ORDER BY name;
-- expect 22014
SELECT ntile(0) OVER (ORDER BY name) FROM scores;
-- expect 22016
SELECT nth_value(name, 0) OVER (ORDER BY name) FROM scores;
SELECT name, ntile(NULL) OVER (ORDER BY name) FROM scores ORDER BY name;

-- case: windows over a grouped query
CREATE TABLE messages (conversation_id int, role text, content text);
INSERT INTO messages VALUES (1, 'user', 'a'), (1, 'assistant', 'b'), (1, 'user', 'c'), (2, 'user', 'd'), (3, 'assistant', 'e'), (3, 'assistant', 'f'), (3, 'user', 'g');
SELECT conversation_id, count(*) AS n, rank() OVER (ORDER BY count(*) DESC) AS busiest, sum(count(*)) OVER () AS everything FROM messages GROUP BY conversation_id ORDER BY conversation_id;
SELECT role, count(*), sum(count(*)) OVER (ORDER BY role) AS running FROM messages GROUP BY role ORDER BY role;
SELECT conversation_id, count(*) FROM messages GROUP BY conversation_id ORDER BY count(*) DESC, conversation_id;
SELECT conversation_id, count(*) FILTER (WHERE role = 'user') AS asked, count(*) FILTER (WHERE role = 'assistant') AS answered FROM messages GROUP BY conversation_id HAVING count(*) FILTER (WHERE role = 'user') > 0 ORDER BY conversation_id;
-- expect 42803
SELECT conversation_id + 0, row_number() OVER (ORDER BY content) FROM messages GROUP BY conversation_id + 0;

-- case: string_agg, array_agg and the JSON aggregates with ORDER BY and DISTINCT
CREATE TABLE messages (conversation_id int, seq int, role text, content text, tokens int);
INSERT INTO messages VALUES (1, 2, 'assistant', 'hello', 5), (1, 1, 'user', 'hi', 2), (1, 3, 'user', 'bye', NULL), (2, 1, 'user', 'yo', 3), (2, 2, 'assistant', NULL, 4);
SELECT conversation_id, string_agg(content, E'\n' ORDER BY seq) AS transcript FROM messages GROUP BY conversation_id ORDER BY conversation_id;
SELECT conversation_id, string_agg(role || ': ' || content, ' | ' ORDER BY seq DESC) FROM messages GROUP BY conversation_id ORDER BY 1;
SELECT string_agg(content, ', ' ORDER BY content), string_agg(DISTINCT role, ',' ORDER BY role DESC), string_agg(content, NULL ORDER BY seq, conversation_id) FROM messages;
SELECT string_agg(content, ',') FROM messages WHERE false;
SELECT array_agg(seq ORDER BY seq DESC), array_agg(DISTINCT role), array_agg(DISTINCT tokens ORDER BY tokens DESC NULLS LAST), count(DISTINCT role), count(DISTINCT tokens) FROM messages;
SELECT conversation_id, json_agg(content ORDER BY seq), jsonb_agg(tokens ORDER BY seq DESC) FROM messages GROUP BY conversation_id ORDER BY conversation_id;
SELECT json_agg(json_build_object('role', role, 'content', content) ORDER BY conversation_id, seq) FROM messages;
SELECT jsonb_agg(jsonb_build_object('role', role, 'n', seq) ORDER BY conversation_id, seq) FILTER (WHERE role = 'user') FROM messages;
SELECT conversation_id, json_object_agg(seq, content ORDER BY seq), jsonb_object_agg(role, seq ORDER BY seq) FROM messages GROUP BY conversation_id ORDER BY conversation_id;
SELECT json_agg(content), jsonb_agg(content), json_object_agg(role, tokens), jsonb_object_agg(role, tokens) FROM messages WHERE conversation_id = 9;
SELECT json_agg(x ORDER BY x), jsonb_agg(x ORDER BY x) FROM (VALUES (1.5::float8), (NULL), ('NaN')) v(x);
SELECT json_agg(a ORDER BY a), jsonb_agg(b ORDER BY b), json_agg(a ORDER BY a DESC NULLS FIRST) FROM (VALUES (ARRAY[1, 2], true), (ARRAY[3], false), (NULL, NULL)) v(a, b);
SELECT every(tokens > 1), bool_and(tokens > 2), bool_or(tokens > 4), every(tokens > 100) FILTER (WHERE tokens IS NULL) FROM messages;
SELECT count(*) FILTER (WHERE role = 'user'), count(content) FILTER (WHERE seq > 1), sum(tokens) FILTER (WHERE role = 'assistant'), max(content) FILTER (WHERE tokens IS NULL), array_agg(seq ORDER BY seq) FILTER (WHERE false) FROM messages;
-- expect 42P10
SELECT string_agg(DISTINCT content, ',' ORDER BY seq) FROM messages;
-- expect 42883
SELECT string_agg(seq, ',') FROM messages;
-- expect 22004
SELECT json_object_agg(content, seq) FROM messages;
-- expect 42804
SELECT count(*) FILTER (WHERE seq) FROM messages;

-- case: presorted aggregates: an unordered aggregate sees the order another one asked for
CREATE TABLE t (x int, y int);
INSERT INTO t VALUES (1, 3), (2, 1), (3, 2);
SELECT array_agg(x ORDER BY y), array_agg(y) FROM t;
SELECT count(DISTINCT y), array_agg(x) FROM t;
SELECT array_agg(x ORDER BY y), array_agg(x ORDER BY x DESC), array_agg(x ORDER BY x DESC, y), array_agg(y) FROM t;
SELECT string_agg(x::text, ',' ORDER BY y DESC), json_agg(y) FROM t;

-- case: empty input, NULL partition keys, peers and DISTINCT over window results
CREATE TABLE e (g int, v int);
SELECT g, row_number() OVER (PARTITION BY g ORDER BY v), sum(v) OVER () FROM e;
SELECT count(*) OVER (), string_agg('x', ',') FROM e;
INSERT INTO e VALUES (NULL, 1), (NULL, 2), (1, 3), (1, 3), (2, NULL);
SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v), sum(v) OVER (PARTITION BY g ORDER BY v) FROM e ORDER BY g NULLS FIRST, v;
SELECT g, v, count(*) OVER (PARTITION BY g) FROM e ORDER BY g, v;
SELECT g, v, sum(v) OVER (ORDER BY v) AS peers_included, sum(v) OVER (ORDER BY v ROWS UNBOUNDED PRECEDING) - v AS before_me FROM e WHERE g = 1;
SELECT DISTINCT g, count(*) OVER (PARTITION BY g) FROM e ORDER BY g;
SELECT g, first_value(v) OVER (PARTITION BY g ORDER BY v DESC NULLS LAST) FROM e ORDER BY g, v;
SELECT v, row_number() OVER (ORDER BY v DESC NULLS FIRST) FROM e WHERE g IS NOT NULL ORDER BY 2 LIMIT 2;
SELECT v, (SELECT max(v) FROM e) AS top, row_number() OVER (ORDER BY v NULLS FIRST) AS n, (SELECT count(*) FROM e) AS rows FROM e WHERE g IS NOT NULL ORDER BY n;
SELECT g, (SELECT count(*) FROM e) AS rows, count(*) AS here, sum(count(*)) OVER (ORDER BY g) FROM e GROUP BY g ORDER BY g NULLS FIRST;
SELECT v, sum(v) OVER w, count(*) OVER w FROM e WHERE g = 1 OR g IS NULL WINDOW w AS (ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY v;
SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS n FROM e) numbered WHERE n = 1 ORDER BY g NULLS LAST;
WITH ranked AS (SELECT g, v, rank() OVER (ORDER BY v DESC NULLS LAST) AS r FROM e) SELECT r, count(*) FROM ranked GROUP BY r ORDER BY r;
CREATE TABLE nothing (s text, n int);
-- expect 0A000
SELECT count(*) OVER (ORDER BY s RANGE 1 PRECEDING) FROM nothing;
SELECT percent_rank() OVER (ORDER BY n), cume_dist() OVER (ORDER BY n), string_agg(s, ',') OVER () FROM nothing;

-- case: what PostgreSQL refuses, and what the model refuses
CREATE TABLE w (x int, s text, t timestamptz);
INSERT INTO w VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-01-02');
-- expect 42P20
SELECT x FROM w WHERE row_number() OVER () > 1;
-- expect 42P20
SELECT x FROM w GROUP BY x HAVING rank() OVER () > 0;
-- expect 42803
SELECT sum(row_number() OVER ()) FROM w;
-- expect 42P20
SELECT sum(row_number() OVER ()) OVER () FROM w;
-- expect 42P20
SELECT count(*) FILTER (WHERE rank() OVER () = 1) FROM w;
-- expect 42809
SELECT row_number() FROM w;
-- expect 42809
SELECT upper(s) OVER () FROM w;
-- expect 42883
SELECT row_number(x) OVER () FROM w;
-- expect 42P20
SELECT sum(x) OVER (ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM w;
-- expect 42P20
SELECT sum(x) OVER (ROWS UNBOUNDED FOLLOWING) FROM w;
-- expect 42P20
SELECT sum(x) OVER (GROUPS 1 PRECEDING) FROM w;
-- expect 42P20
SELECT sum(x) OVER (RANGE 1 PRECEDING) FROM w;
-- expect 22013
SELECT sum(x) OVER (ROWS -1 PRECEDING) FROM w;
-- expect 0A000
SELECT sum(x) OVER (ORDER BY s RANGE 1 PRECEDING) FROM w;
-- expect 0A000
SELECT count(DISTINCT x) OVER () FROM w;
-- expect 0A000
SELECT array_agg(x ORDER BY x) OVER () FROM w;
-- expect 42704
SELECT sum(x) OVER nowhere FROM w;
-- expect 0A000
SELECT x, row_number() OVER (ORDER BY x) FROM w FOR UPDATE;
-- expect 42P20
SELECT sum(x) OVER (base ORDER BY x) FROM w WINDOW base AS (ORDER BY s);
SELECT x, sum(x) OVER (base ORDER BY x DESC) FROM w WINDOW base AS (PARTITION BY s) ORDER BY x;
-- refused
SELECT x, count(*) OVER (ORDER BY t RANGE BETWEEN '1 day' PRECEDING AND CURRENT ROW) FROM w ORDER BY x;
-- refused
SELECT x, sum(x) OVER (ORDER BY x::float8 RANGE 1 PRECEDING) FROM w ORDER BY x;
-- refused
SELECT stddev(x) OVER () FROM w;
-- refused
SELECT string_agg(x::bytea, ','::bytea) FROM w;
-- refused
SELECT json_agg(w ORDER BY x) FROM w;
-- refused
SELECT x, to_jsonb(w) FROM w ORDER BY x;
