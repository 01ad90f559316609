-- PostgreSQL's bit(n) as pgvector's bit functions use it (issue 45): the text form and
-- B'…' literals, the typmod's length check, the order, and pgvector's hamming_distance,
-- jaccard_distance (operators <~> and <%>) and binary_quantize. varbit, the casts that
-- pad or truncate and the bit index classes are refused.

-- case: bit strings: text form, literals, typmod, order
CREATE EXTENSION IF NOT EXISTS vector;
SELECT '101'::bit(3), B'0110', 'x1F'::bit(8), 'B10'::bit(2), '1'::bit;
SELECT B'101' = '101'::bit(3), B'1' < B'10', B'011' < B'1', B'11' > B'1';
-- refused
SELECT '101'::bit(4);
-- refused
SELECT '101'::bit;
-- expect 22P02
SELECT '102'::bit(3);
-- expect 22P02
SELECT 'xG'::bit(4);
-- expect 22023
SELECT '1'::bit(0);
CREATE TABLE b (id int, v bit(3));
INSERT INTO b VALUES (1, B'000'), (2, B'110'), (3, '111'), (4, NULL), (5, B'100');
SELECT id, v FROM b ORDER BY v, id;
SELECT id, v FROM b ORDER BY v DESC, id;
-- refused
SELECT '101'::varbit;
-- refused
SELECT B'101'::bit(4);

-- case: hamming and jaccard distances, binary_quantize
CREATE EXTENSION IF NOT EXISTS vector;
SELECT hamming_distance('111', '111'), hamming_distance('111', '100'), hamming_distance('10101010101010101010', '01010101010101010101'), hamming_distance('', '');
SELECT jaccard_distance('1111', '1110'), jaccard_distance('1111', '0000'), jaccard_distance('1100', '1000'), jaccard_distance('', ''), jaccard_distance('101', '011');
SELECT B'111' <~> B'101', B'1111' <%> B'1100', hamming_distance(NULL, B'1');
SELECT binary_quantize('[1,0,-1]'::vector), binary_quantize('[0,0.1,-0.2,-0.3,0.4,0.5,0.6,-0.7,0.8,-0.9,1]'::halfvec), binary_quantize('[1,2,3,-4,5,6,-7,8,1]'::vector);
-- expect 42725
SELECT binary_quantize('[1,2]');
SELECT binary_quantize('[1,-1,1,1]'::vector) <~> binary_quantize('[1,1,1,-1]'::vector);
CREATE TABLE items (id int, e vector(3));
INSERT INTO items VALUES (1, '[1,1,1]'), (2, '[-1,1,-1]'), (3, '[1,-1,-1]');
SELECT id, binary_quantize(e) AS q, binary_quantize(e) <~> B'111' AS d FROM items ORDER BY d, id;
-- expect 22000
SELECT hamming_distance('111', '00');
-- expect 22000
SELECT B'1111' <%> B'000';
-- expect 42883
SELECT hamming_distance('[1,2]'::vector, '[1,2]'::vector);
-- refused
SELECT hamming_distance('111', '000'::varbit(4));
CREATE TABLE t (val bit(3));
-- refused
CREATE INDEX ON t USING hnsw (val bit_hamming_ops);
