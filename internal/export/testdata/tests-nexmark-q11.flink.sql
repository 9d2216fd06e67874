-- Flink SQL (Flink 2.x), written by `streamql export --flink` from queries/tests/nexmark-events.sql, queries/nexmark/q11.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   queries/tests/nexmark-events.sql:9: stream person: connector 'nexmark' has no Flink connector; the table reads the file 'person.csv' instead: replace it by your source
--   queries/tests/nexmark-events.sql:14: stream auction: connector 'nexmark' has no Flink connector; the table reads the file 'auction.csv' instead: replace it by your source
--   queries/tests/nexmark-events.sql:19: stream bid: connector 'nexmark' has no Flink connector; the table reads the file 'bid.csv' instead: replace it by your source
--   queries/nexmark/q11.sql:10: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `person` (
  `id` BIGINT,
  `name` STRING,
  `emailAddress` STRING,
  `creditCard` STRING,
  `city` STRING,
  `state` STRING,
  `dateTime` TIMESTAMP(3),
  `extra` STRING,
  WATERMARK FOR `dateTime` AS (`dateTime`) - INTERVAL '4' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'person.csv'
);

CREATE TABLE `auction` (
  `id` BIGINT,
  `itemName` STRING,
  `description` STRING,
  `initialBid` BIGINT,
  `reserve` BIGINT,
  `dateTime` TIMESTAMP(3),
  `expires` TIMESTAMP(3),
  `seller` BIGINT,
  `category` BIGINT,
  `extra` STRING,
  WATERMARK FOR `dateTime` AS (`dateTime`) - INTERVAL '4' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'auction.csv'
);

CREATE TABLE `bid` (
  `auction` BIGINT,
  `bidder` BIGINT,
  `price` BIGINT,
  `channel` STRING,
  `url` STRING,
  `dateTime` TIMESTAMP(3),
  `extra` STRING,
  WATERMARK FOR `dateTime` AS (`dateTime`) - INTERVAL '4' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'bid.csv'
);

CREATE TABLE `main` (
  `bidder` BIGINT,
  `bid_count` BIGINT,
  `starttime` TIMESTAMP(3),
  `endtime` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `B`.`bidder`, COUNT(*) AS `bid_count`, `B`.`window_start` AS `starttime`, `B`.`window_end` AS `endtime`
  FROM TABLE(SESSION(TABLE `bid` PARTITION BY `bidder`, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) AS `B`
  GROUP BY `B`.`bidder`, `B`.`window_start`, `B`.`window_end`;
END;
