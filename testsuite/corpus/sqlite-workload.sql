-- Deterministic workload for the sqlite3 corpus entry's run-time ratio
-- (run-corpus.sh: sqlite3 :memory: < sqlite-workload.sql).  Its output is
-- compared between the plain and the instrumented build.  It exercises the
-- parser, the VDBE, B-tree inserts and index builds, sorting, window
-- functions, recursive CTEs, JSON and application-defined collations
-- (method tables and callbacks everywhere).
PRAGMA cache_size = -65536;
CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL);
WITH RECURSIVE seq(x, s) AS (
  SELECT 1, 12345
  UNION ALL
  SELECT x + 1, (s * 1103515245 + 12345) % 2147483648 FROM seq WHERE x < 400000
)
INSERT INTO t (id, a, b, c)
  SELECT x, s % 1000, printf('k%06d-%s', s % 50000, hex(s % 4096)), (s % 9973) / 7.0 FROM seq;
CREATE INDEX t_a ON t (a);
CREATE INDEX t_b ON t (b);
SELECT count(*), sum(a), total(c), count(DISTINCT b) FROM t;
SELECT a, count(*), round(avg(c), 3) FROM t GROUP BY a ORDER BY count(*) DESC, a LIMIT 5;
SELECT b FROM t WHERE b LIKE 'k0123%' ORDER BY b LIMIT 3;
SELECT sum(r) FROM (SELECT row_number() OVER (PARTITION BY a ORDER BY c, id) AS r FROM t WHERE a < 200);
SELECT count(*) FROM t AS x JOIN t AS y ON y.id = x.a + 1 WHERE x.id % 7 = 0;
CREATE TABLE j AS SELECT id, json_object('id', id, 'a', a, 'tags', json_array(a % 3, a % 5, b)) AS doc
  FROM t WHERE id % 4 = 0;
SELECT count(*), sum(json_extract(doc, '$.a')), max(json_array_length(doc, '$.tags')) FROM j;
SELECT group_concat(v, ',') FROM (SELECT value AS v FROM json_each('[5,3,9,1,7]') ORDER BY v);
UPDATE t SET c = c * 2 WHERE a % 10 = 3;
DELETE FROM t WHERE id % 5 = 0;
SELECT count(*), sum(a), round(total(c), 2) FROM t;
SELECT upper(b) COLLATE NOCASE AS u FROM t WHERE a = 999 ORDER BY u LIMIT 3;
WITH RECURSIVE fib(n, x, y) AS (SELECT 1, 0, 1 UNION ALL SELECT n + 1, y, x + y FROM fib WHERE n < 90)
  SELECT max(y) FROM fib;
SELECT count(*) FROM (SELECT DISTINCT substr(b, 1, 4) || a FROM t);
