-- An event-time temporal join beside queries that aggregate and rank the same
-- bounded orders (SPEC 2.4, 2.7, 2.9). streamql writes each currency's total
-- and largest order once, when the file ends. `streamql export --flink` must
-- run this script in Flink's streaming mode (Flink's batch mode runs no
-- event-time temporal join), where the totals and the largest orders are
-- changelogs (+I, -U, +U, -D) ending in the same rows: the export lists each
-- as a difference, and says to export such a query in a script of its own,
-- which runs in batch mode.
CREATE STREAM orders (
  id       VARCHAR,
  currency VARCHAR,
  amount   BIGINT,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv', 'errors' = 'fail');

CREATE STREAM rates (
  currency VARCHAR,
  rate     BIGINT,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'file', 'path' = 'rates.csv', 'format' = 'csv', 'errors' = 'fail');

-- each order with the rate of its currency at its time
SELECT o.id, o.currency, o.amount * r.rate AS converted
  FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r
    ON o.currency = r.currency;

-- each currency's total and order count, once
SELECT currency, SUM(amount) AS total, COUNT(*) AS orders
  FROM orders GROUP BY currency;

-- each currency's largest order, once
SELECT currency, id, amount
  FROM (SELECT currency, id, amount,
               ROW_NUMBER() OVER (PARTITION BY currency ORDER BY amount DESC, id) AS rn
          FROM orders)
  WHERE rn = 1;
