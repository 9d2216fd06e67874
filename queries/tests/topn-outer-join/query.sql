-- The two highest bids of each user (SPEC 2.9's Top-N) read through an outer
-- join, its bound in the outer WHERE (issue 23 item 2). users LEFT JOIN the
-- ranked bids pads a user without bids (carol) with a NULL rank, and WHERE
-- t.rn <= 2 drops that row: the LEFT JOIN gives the rows of an INNER one,
-- which Flink's outer-join simplification plans (a NULL-rejecting WHERE on
-- the padded side's column), and the bound becomes the Top-N's. The second
-- query is a FULL JOIN whose ranked side the bound rejects: a LEFT JOIN of
-- the Top-N, so d's bid keeps its row with no user. A condition that a NULL
-- rank passes (t.rn <= 2 OR t.rn IS NULL) stays a planning error.
CREATE STREAM bids (k VARCHAR, p BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'file', 'path' = 'bids.csv', 'format' = 'csv');
CREATE STREAM users (k VARCHAR, name VARCHAR) WITH ('connector' = 'file', 'path' = 'users.csv', 'format' = 'csv');

SELECT u.name, t.p, t.rn
  FROM users u
  LEFT JOIN (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM bids) t ON u.k = t.k
  WHERE t.rn <= 2;

SELECT t.k, t.p, u.name
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM bids) t
  FULL JOIN users u ON t.k = u.k
  WHERE t.rn <= 2;
