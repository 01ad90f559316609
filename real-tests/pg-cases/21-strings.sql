-- The string functions teams' chat stores send (issue 45): substr/substring, the trim
-- forms, split_part, replace, concat[_ws], left/right, lpad/rpad, starts_with, md5,
-- repeat, reverse, strpos/position, initcap, character_length. Text is UTF-8 under the C
-- collation: lengths and positions count characters.

-- case: substr and substring over literals
SELECT substr('hello world', 7), substr('hello world', 1, 5), substr('hello', 0, 3), substr('hello', -2, 4);
SELECT substr('héllo wörld', 2, 4), substr('😀ab😀', 2), substr('😀ab😀', 4, 1), length('😀ab😀');
SELECT substr('hello', 10), substr('hello', 3, 0), substr('', 1, 2), substr('hello', -10, 3), substr('hello', 2147483647, 10), substr('hello', 2, 2147483647);
SELECT substr(NULL, 1, 2), substr('abc', NULL), substr('abc', 1, NULL), substr('abc', '2');
SELECT substring('hello world' FROM 7), substring('hello world' FROM 2 FOR 3), substring('héllo' FROM 0 FOR 3), substring('hello', 2, 3), substring('hello', 3);
-- expect 22011
SELECT substr('hello', 1, -1);
-- expect 22011
SELECT substring('hello' FROM 1 FOR -2);
-- expect 42883
SELECT substr(12345, 2);
-- expect 42883
SELECT substr('hello', 1::bigint);
-- refused
SELECT substring('hello' FROM 'l+');
-- refused
SELECT substr('abc'::bytea, 2), btrim('\x0001'::bytea, '\x00'::bytea);

-- case: the trim forms
SELECT trim('  hi  ') || '|', ltrim('  hi  ') || '|', rtrim('  hi  ') || '|', btrim('  hi  ') || '|';
SELECT trim(BOTH 'x' FROM 'xxhixx'), trim(LEADING 'x' FROM 'xxhixx'), trim(TRAILING 'x' FROM 'xxhixx'), trim(LEADING FROM '  a  ') || '|';
SELECT btrim('xyhixy', 'yx'), ltrim('zzzytrim', 'xyz'), rtrim('trimxxxx', 'x'), btrim('héé', 'é'), btrim('😀a😀', '😀');
SELECT btrim('', 'x'), btrim('xxx', 'x'), btrim('abc', ''), trim(NULL), btrim('a', NULL), ltrim(E'\t a'), trim('	a	');

-- case: split_part, replace, concat, concat_ws
SELECT split_part('a,b,c', ',', 2), split_part('a,b,c', ',', -1), split_part('a,b,c', ',', 4), split_part('a,b,c', ',', -4), split_part('a,b,c', ',', -3);
SELECT split_part('', ',', 1), split_part('abc', '', 1), split_part('abc', '', -1), split_part('abc', '', 2), split_part('a::b::c', '::', 2), split_part('héllo wörld', 'ö', 1);
SELECT split_part('a,,b', ',', 2), split_part(',a', ',', 1), split_part('abc', 'x', 1), split_part(NULL, ',', 1), split_part('a', ',', NULL);
-- expect 22023
SELECT split_part('a,b', ',', 0);
SELECT replace('hello world', 'o', '0'), replace('aaaa', 'aa', 'b'), replace('abc', '', 'x'), replace('', 'a', 'b'), replace('héllo', 'é', 'e'), replace('abc', 'b', ''), replace('abc', NULL, 'x');
SELECT concat('a', NULL, 'b', 1, 2.5, true), concat(NULL), concat(NULL, NULL) IS NULL, concat('x', ARRAY[1,2]), concat('é', '😀');
SELECT concat_ws(',', 'a', NULL, 'b', 3), concat_ws(NULL, 'a', 'b'), concat_ws('', 'a', 'b'), concat_ws(', ', NULL, NULL), concat_ws('-', 1.50, false);

-- case: left, right, lpad, rpad, repeat, reverse
SELECT left('hello', 2), left('hello', -2), left('hello', 10), left('hello', -10), left('hello', 0), left('héllo', 2), left(NULL, 1), left('a', NULL);
SELECT right('hello', 2), right('hello', -2), right('hello', 10), right('hello', -10), right('hello', 0), right('wörld😀', 2);
SELECT lpad('hi', 5), lpad('hi', 5, 'xy'), lpad('hello', 3), lpad('hi', 5, ''), lpad('hi', -1), lpad('é', 3, 'ö'), lpad('', 2, '😀');
SELECT rpad('hi', 5) || '|', rpad('hi', 5, 'xy'), rpad('hello', 3, 'x'), rpad('hi', 0, 'x'), rpad('é', 4, 'ab'), rpad(NULL, 3), rpad('a', 3, NULL);
-- expect 54000
SELECT lpad('a', 2147483647);
SELECT repeat('ab', 3), repeat('é', 2), repeat('x', 0), repeat('x', -1), repeat('', 5), repeat(NULL, 2);
-- expect 54000
SELECT repeat('abcd', 1000000000);
SELECT reverse('hello'), reverse('héllo wörld'), reverse('a😀b'), reverse(''), reverse(NULL);

-- case: starts_with, strpos, position, md5, initcap, lengths
SELECT starts_with('hello', 'he'), starts_with('hello', 'lo'), starts_with('hello', ''), starts_with('', 'a'), starts_with('héllo', 'hé'), starts_with(NULL, 'a');
SELECT strpos('hello', 'l'), strpos('hello', 'z'), strpos('hello', ''), strpos('héllo', 'l'), strpos('😀😀x', 'x'), position('lo' IN 'hello'), position('ö' IN 'wörld'), position('' IN ''), position(NULL IN 'a');
SELECT md5(''), md5('hello'), md5('héllo 😀'), md5(NULL), md5('abc'::bytea);
SELECT initcap('hello world'), initcap('hELLO wORLD-foo_bar 2nd'), initcap('héllo wörld'), initcap(''), initcap(NULL);
SELECT character_length('héllo'), char_length('😀'), length(''), octet_length('é');

-- case: the functions over a table's columns, in WHERE and ORDER BY
CREATE TABLE msgs (id int PRIMARY KEY, author text, body text, tag varchar(20));
INSERT INTO msgs VALUES (1, 'alice', '  Hello, world!  ', 'a,b,c'), (2, 'bob', 'héllo wörld 😀', 'x'), (3, 'carol', '', NULL), (4, NULL, NULL, ',,z'), (5, 'dave', 'user: what is up', 'q,r');
SELECT id, substr(body, 3, 5), trim(body), length(trim(body)), split_part(tag, ',', 2), split_part(tag, ',', -1) FROM msgs ORDER BY id;
SELECT id, concat(author, ':', body), concat_ws('/', author, tag, id), left(author, 2), right(author, -1), lpad(author, 6, '*'), rpad(author, 3) FROM msgs ORDER BY id;
SELECT id, md5(body), reverse(author), replace(body, 'l', 'L'), strpos(body, 'o'), position('o' IN author), starts_with(body, 'user:'), initcap(author) FROM msgs ORDER BY id;
SELECT id FROM msgs WHERE starts_with(body, 'user:') OR left(author, 1) = 'b' ORDER BY id;
SELECT id, author FROM msgs WHERE split_part(tag, ',', 1) = '' ORDER BY id;
SELECT id FROM msgs WHERE trim(body) <> '' ORDER BY length(trim(body)) DESC, id;
SELECT author FROM msgs ORDER BY reverse(author) NULLS FIRST;
SELECT id, substring(body FROM 2 FOR 3), trim(LEADING ' ' FROM body), substring(author, 2) FROM msgs WHERE author IS NOT NULL ORDER BY substring(author FROM 2) DESC;
UPDATE msgs SET body = btrim(body), tag = upper(replace(tag, ',', ';')) WHERE id IN (1, 4) RETURNING id, body, tag;
SELECT split_part(tag, ',', 2), count(*) FROM msgs GROUP BY split_part(tag, ',', 2) ORDER BY 1 NULLS LAST;
-- expect 22011
SELECT substr(body, 1, id - 3) FROM msgs ORDER BY id;
-- expect 22023
SELECT split_part(tag, ',', id - 1) FROM msgs ORDER BY id;
CREATE TABLE nothing (s text);
-- expect 22011
SELECT substr('abc', 1, -1) FROM nothing;
-- expect 22023
SELECT split_part('a', ',', 0) FROM nothing;
-- expect 22011
SELECT substring('abc' FROM 1 FOR -1) FROM nothing;

-- case: parameters
CREATE TABLE notes (id int, body text);
INSERT INTO notes VALUES (1, 'alpha beta'), (2, 'gamma');
-- params text:alpha int4:2
SELECT substr($1, $2), split_part('a,b,c', ',', $2), left($1, $2), lpad($1, $2 + 6, '.');
-- params text:a int4:3
SELECT id, substr(body, 1, $2), starts_with(body, $1), replace(body, $1, 'A') FROM notes ORDER BY id;
-- params text:beta
SELECT id FROM notes WHERE strpos(body, $1) > 0 OR position($1 IN body) = 1;
-- params text:x int4:-1
SELECT substr($1, 1, $2);

-- case: bytea to integers (PostgreSQL 18), bytea's escape input, and no implicit text for other types (regress strings and text)
SELECT ''::bytea::int2 AS empty, '\x1234'::bytea::int2 AS two_bytes, '\x8000'::bytea::int2 AS smallest, '\x80000000'::bytea::int4 AS int4_smallest, '\x1122334455667788'::bytea::int8 AS eight_bytes;
SELECT E'De\\123dBeEf'::bytea AS octal, E'a\\\\b'::bytea AS backslash;
-- expect 22003
SELECT '\x123456'::bytea::int2;
-- expect 22P02
SELECT E'De\\678dBeEf'::bytea;
-- expect 42883
SELECT length(42);
-- expect 42883
SELECT 3 || 4.0;
SELECT 3 || 'x' AS number_text;
SELECT 'x' || 4.0 AS text_number;
SELECT length('abc'::varchar) AS varchar_length;
-- refused
SELECT concat(VARIADIC array[1, 2, 3]);
-- refused
SELECT 'abc'::bytea LIKE '_b_'::bytea;

-- case: bytea_output escape is refused, escape_string_warning is a setting
SET escape_string_warning = off;
SHOW escape_string_warning;
RESET escape_string_warning;
-- refused
SET bytea_output TO escape;
SELECT length('\xdeadbeef'::text) AS untouched;
RESET bytea_output;
SELECT '\xdeadbeef'::bytea AS back_to_hex;
