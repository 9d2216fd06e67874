-- An event-time temporal join with another ON term (SPEC 2.7; Flink's
-- TemporalRowTimeJoinOperator): each order finds the rate of its currency
-- valid at its time, and joins it only when that rate is above 100. The
-- term is tested on the valid version, not used to look for an older one:
-- o3 (10:03) finds EUR's 98 of 10:02, which fails it, so the LEFT JOIN pads
-- o3 rather than joining the 114 of 09:59. o4's GBP has no rate until
-- 10:05, and o6's CHF has none at all: both padded. The INNER
-- join of the side branch drops what the LEFT join pads.
CREATE STREAM orders (
  id       VARCHAR,
  currency VARCHAR,
  amount   BIGINT,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv');

CREATE STREAM rates (
  currency VARCHAR,
  rate     BIGINT,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'file', 'path' = 'rates.csv', 'format' = 'csv');

SELECT o.id, o.amount * r.rate AS converted INTO SIDE 'inner'
  FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r
    ON o.currency = r.currency AND r.rate > 100;

SELECT o.id, o.currency, r.rate
  FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r
    ON o.currency = r.currency AND r.rate > 100;
