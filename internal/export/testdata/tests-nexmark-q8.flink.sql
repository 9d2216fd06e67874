-- Flink SQL (Flink 2.x), written by `streamql export --flink` from queries/tests/nexmark-events.sql, queries/nexmark/q8.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   queries/tests/nexmark-events.sql:9: stream person: connector 'nexmark' has no Flink connector; the table reads the file 'person.csv' instead: replace it by your source
--   queries/tests/nexmark-events.sql:14: stream auction: connector 'nexmark' has no Flink connector; the table reads the file 'auction.csv' instead: replace it by your source
--   queries/tests/nexmark-events.sql:19: stream bid: connector 'nexmark' has no Flink connector; the table reads the file 'bid.csv' instead: replace it by your source
--   queries/nexmark/q8.sql:10: a window's late rows, in a subquery, go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)
--   queries/nexmark/q8.sql:18: a window's late rows, in a subquery, go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).
SET 'execution.runtime-mode' = 'batch';

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
  `id` BIGINT,
  `name` STRING,
  `starttime` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `P`.`id`, `P`.`name`, `P`.`starttime`
  FROM (SELECT `person`.`id`, `person`.`name`, `person`.`window_start` AS `starttime`, `person`.`window_end` AS `endtime` FROM TABLE(TUMBLE(TABLE `person`, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) AS `person` GROUP BY `person`.`id`, `person`.`name`, `person`.`window_start`, `person`.`window_end`) AS `P` JOIN (SELECT `auction`.`seller`, `auction`.`window_start` AS `starttime`, `auction`.`window_end` AS `endtime` FROM TABLE(TUMBLE(TABLE `auction`, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) AS `auction` GROUP BY `auction`.`seller`, `auction`.`window_start`, `auction`.`window_end`) AS `A` ON (((`P`.`id`) = (`A`.`seller`)) AND ((`P`.`starttime`) = (`A`.`starttime`))) AND ((`P`.`endtime`) = (`A`.`endtime`));
END;
