-- Flink SQL (Flink 2.x), written by `streamql export --flink` from queries/nexmark/ddl.sql, q9.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   queries/nexmark/ddl.sql:26: stream person: connector 'nexmark' has no Flink connector; the table reads the file 'person.csv' instead: replace it by your source
--   queries/nexmark/ddl.sql:40: stream auction: connector 'nexmark' has no Flink connector; the table reads the file 'auction.csv' instead: replace it by your source
--   queries/nexmark/ddl.sql:51: stream bid: connector 'nexmark' has no Flink connector; the table reads the file 'bid.csv' instead: replace it by your source
--   q9.sql:14: ROW_NUMBER over rows that tie on its ORDER BY: streamql numbers them in arrival order, Flink in an order of its parallel instances, so the rows kept among ties may differ; add a column to ORDER BY that breaks ties
--   q9.sql:14: the join's rows of A that are late (below its watermark, SPEC 2.7) go to the side output 'late-A'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them

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
  `itemName` STRING,
  `description` STRING,
  `initialBid` BIGINT,
  `reserve` BIGINT,
  `dateTime` TIMESTAMP(3),
  `expires` TIMESTAMP(3),
  `seller` BIGINT,
  `category` BIGINT,
  `extra` STRING,
  `auction` BIGINT,
  `bidder` BIGINT,
  `price` BIGINT,
  `bid_dateTime` TIMESTAMP(3),
  `bid_extra` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `id`, `itemName`, `description`, `initialBid`, `reserve`, `dateTime`, `expires`, `seller`, `category`, `extra`, `auction`, `bidder`, `price`, `bid_dateTime`, `bid_extra`
  FROM (SELECT `A`.`id`, `A`.`itemName`, `A`.`description`, `A`.`initialBid`, `A`.`reserve`, `A`.`dateTime`, `A`.`expires`, `A`.`seller`, `A`.`category`, `A`.`extra`, `B`.`auction`, `B`.`bidder`, `B`.`price`, `B`.`dateTime` AS `bid_dateTime`, `B`.`extra` AS `bid_extra`, ROW_NUMBER() OVER (PARTITION BY `A`.`id` ORDER BY `B`.`price` DESC, `B`.`dateTime`) AS `rownum` FROM `auction` AS `A` CROSS JOIN `bid` AS `B` WHERE (((`A`.`id`) = (`B`.`auction`)) AND ((`B`.`dateTime`) BETWEEN (`A`.`dateTime`) AND (`A`.`expires`))))
  WHERE (`rownum`) <= (1);
END;
