-- A view that ranks rows without a bound, bounded where it is read (issue 23
-- item 1): Flink inlines a view into the query that reads it, so the
-- reader's WHERE rn <= 2 reaches the ranking and the whole is a Top-N (SPEC
-- 2.9). streamql plans such a view's query where it is read, with that
-- bound: the first query gives each user's two highest bids, the second
-- joins each user with their highest one. Reading the view without a bound
-- (SELECT * FROM ranked_bids) is a planning error at its FROM.
CREATE STREAM bids (k VARCHAR, p BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'file', 'path' = 'bids.csv', 'format' = 'csv');
CREATE STREAM users (k VARCHAR, name VARCHAR) WITH ('connector' = 'file', 'path' = 'users.csv', 'format' = 'csv');

CREATE VIEW ranked_bids AS
  SELECT k, p, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM bids;

SELECT k, p, rn FROM ranked_bids WHERE rn <= 2;

SELECT u.name, b.p AS top_bid
  FROM users u JOIN ranked_bids b ON u.k = b.k
  WHERE b.rn = 1;

-- The same over a file read by its quoted name (SPEC 1): the view keeps the
-- file's stream for the readers that plan it.
CREATE VIEW cheapest AS
  SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price) AS rn FROM 'offers.csv';

SELECT item, price FROM cheapest WHERE rn = 1;
