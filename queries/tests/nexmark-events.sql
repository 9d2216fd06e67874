-- The Nexmark streams of the queries/tests/nexmark-* cases: queries/nexmark/ddl.sql's
-- streams over 20,000 events (its CREATE STREAM IF NOT EXISTS then keeps these).
-- tests/nexmark_test.go runs the cases; bench/nexmark/compare-flink checks their
-- queries against Flink 2.3.
CREATE STREAM person (
  id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR,
  state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'person', 'events.num' = '20000');
CREATE STREAM auction (
  id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT,
  `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'auction', 'events.num' = '20000');
CREATE STREAM bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  `dateTime` TIMESTAMP(3), extra VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'bid', 'events.num' = '20000');
