-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql, queries/nexmark/q23.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:11: stream person: connector 'nexmark' has no Flink connector; the table reads the file 'person.csv' instead: replace it by your source
--   query.sql:16: stream auction: connector 'nexmark' has no Flink connector; the table reads the file 'auction.csv' instead: replace it by your source
--   query.sql:21: stream bid: connector 'nexmark' has no Flink connector; the table reads the file 'bid.csv' instead: replace it by your source
--   queries/nexmark/q23.sql:13: the join's rows of B, in the join (B JOIN P), that are late (below its watermark, SPEC 2.7) go to the side output 'late-B'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them

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
  `bidder` BIGINT,
  `price` BIGINT,
  `channel` STRING,
  `url` STRING,
  `bid_extra` STRING,
  `person_id` BIGINT,
  `name` STRING,
  `emailAddress` STRING,
  `creditCard` STRING,
  `city` STRING,
  `state` STRING,
  `person_extra` STRING,
  `itemName` STRING,
  `description` STRING,
  `initialBid` BIGINT,
  `reserve` BIGINT,
  `auction_dateTime` TIMESTAMP(3),
  `expires` TIMESTAMP(3),
  `seller` BIGINT,
  `category` BIGINT,
  `auction_extra` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `bidder`, `price`, `channel`, `url`, `B`.`extra` AS `bid_extra`, `P`.`id` AS `person_id`, `name`, `emailAddress`, `creditCard`, `city`, `state`, `P`.`extra` AS `person_extra`, `itemName`, `description`, `initialBid`, `reserve`, `A`.`dateTime` AS `auction_dateTime`, `expires`, `seller`, `category`, `A`.`extra` AS `auction_extra`
  FROM `bid` AS `B` JOIN `person` AS `P` ON (`P`.`id`) = (`B`.`bidder`) JOIN `auction` AS `A` ON (`A`.`seller`) = (`B`.`bidder`);
END;
