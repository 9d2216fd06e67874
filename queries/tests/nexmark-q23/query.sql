-- Nexmark q23 (queries/nexmark/q23.sql) on 50,000 generated events: at 20,000 no
-- bidder id (2000 and up) is yet a person's or a seller's id, so the result would be
-- empty. The expected output was written by streamql (streamql test --update) and
-- checked against a nested-loop join of the three streams' rows by
-- TestNexmarkQ23AgainstReference (tests/join3_test.go), and equal to Flink 2.3's final table
-- (bench/nexmark/compare-flink --events 50000 q23, bench/nexmark/RESULTS.md).
CREATE STREAM person (
  id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR,
  state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'person', 'events.num' = '50000');
CREATE STREAM auction (
  id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT,
  `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'auction', 'events.num' = '50000');
CREATE STREAM bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  `dateTime` TIMESTAMP(3), extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'bid', 'events.num' = '50000');
.read ../../nexmark/q23.sql
