-- Equality joins large enough to be joined by hash (exec/hash_join.rs): the hash only
-- chooses candidates, the ON condition still judges each, so every answer is the nested
-- loop's: NULL keys never meet, mixed integer widths meet, text meets varchar, an
-- inexact type (numeric, float) and a non-column key keep the nested loop.

-- case: inner and left joins by integer keys, with NULLs and duplicates
CREATE TABLE hj_a (id int, grp int8, name text, score numeric, f float8);
CREATE TABLE hj_b (a_id int8, grp int2, label varchar(20), score numeric, f float8);
INSERT INTO hj_a SELECT g, g % 7, 'n' || (g % 13), g % 5, (g % 4)::float8 / 2 FROM generate_series(1, 100) g;
INSERT INTO hj_a VALUES (NULL, NULL, NULL, NULL, NULL), (101, 1, 'n1', 1.0, -0.0);
INSERT INTO hj_b SELECT g % 110, g % 9, 'n' || (g % 11), (g % 5)::numeric(4,2), (g % 4)::float8 / 2 FROM generate_series(1, 120) g;
INSERT INTO hj_b VALUES (NULL, NULL, NULL, NULL, NULL), (101, 1, 'n1', 1.00, 0.0);
SELECT count(*) FROM hj_a a JOIN hj_b b ON a.id = b.a_id;
SELECT count(*), sum(a.id), sum(b.a_id) FROM hj_a a JOIN hj_b b ON b.a_id = a.id AND a.grp = b.grp;
SELECT a.id, b.a_id, b.label FROM hj_a a LEFT JOIN hj_b b ON a.id = b.a_id ORDER BY a.id NULLS FIRST, b.label LIMIT 12;
SELECT count(*) FILTER (WHERE b.a_id IS NULL) FROM hj_a a LEFT JOIN hj_b b ON a.id = b.a_id;
SELECT a.id, count(b.a_id) FROM hj_a a LEFT JOIN hj_b b ON a.id = b.a_id AND b.grp > 4 GROUP BY a.id ORDER BY a.id DESC NULLS LAST LIMIT 6;
SELECT count(*) FROM hj_a a JOIN hj_b b ON (a.id = b.a_id) AND (a.name = b.label);
SELECT count(*) FROM hj_a a JOIN hj_b b ON a.name = b.label;
SELECT count(*) FROM hj_a a JOIN hj_b b ON a.score = b.score;
SELECT count(*) FROM hj_a a JOIN hj_b b ON a.f = b.f;
SELECT count(*) FROM hj_a a JOIN hj_b b ON a.id = b.a_id + 0;
SELECT count(*) FROM hj_a a JOIN hj_b b ON a.id = b.a_id OR a.grp = b.grp;
SELECT count(*) FROM hj_a a JOIN hj_b b ON a.id = b.a_id JOIN hj_a c ON c.id = b.a_id;

-- case: a self join of 2,000 rows (PostgreSQL's join.sql tt3 has 10,000): 4 million pairs by nested loop
CREATE TEMP TABLE hj_tt3 (f1 int, f2 text);
INSERT INTO hj_tt3 SELECT x, repeat('xyzzy', 100) FROM generate_series(1, 2000) x;
CREATE TEMP TABLE hj_tt4 (f1 int);
INSERT INTO hj_tt4 VALUES (0), (1), (1999);
SELECT a.f1 FROM hj_tt4 a LEFT JOIN (SELECT b.f1 FROM hj_tt3 b LEFT JOIN hj_tt3 c ON (b.f1 = c.f1) WHERE c.f1 IS NULL) AS d ON (a.f1 = d.f1) WHERE d.f1 IS NULL ORDER BY 1;
SELECT count(*) FROM hj_tt3 b JOIN hj_tt3 c ON b.f1 = c.f1 AND b.f2 = c.f2;

-- case: uuid, date and timestamp keys; a key type pair across families is refused as PostgreSQL refuses it
CREATE TABLE hj_u (u uuid, d date, t timestamp, tz timestamptz);
INSERT INTO hj_u SELECT ('00000000-0000-0000-0000-' || lpad((g % 40)::text, 12, '0'))::uuid, date '2024-01-01' + g % 30, timestamp '2024-01-01' + g * interval '1 hour', timestamptz '2024-01-01 00:00+00' + g * interval '1 hour' FROM generate_series(1, 100) g;
SELECT count(*) FROM hj_u x JOIN hj_u y ON x.u = y.u;
SELECT count(*) FROM hj_u x JOIN hj_u y ON x.d = y.d AND x.u = y.u;
SELECT count(*) FROM hj_u x JOIN hj_u y ON x.t = y.t;
SELECT count(*) FROM hj_u x JOIN hj_u y ON x.tz = y.tz;
SELECT count(*) FROM hj_u x JOIN hj_u y ON x.d = y.t;
SELECT count(*) FROM hj_u x JOIN hj_a y ON x.u = y.id;
