-- The Nexmark benchmark's three streams (issue 26), as Flink's Nexmark declares them
-- (nexmark-flink's ddl_gen.sql and ddl_views.sql: one 'nexmark' table split into the
-- person, auction and bid views, each with WATERMARK FOR dateTime AS dateTime -
-- INTERVAL '4' SECOND). Every query file here starts with `.read ddl.sql`; IF NOT
-- EXISTS lets a script declare the streams its own way first (queries/tests/nexmark-*
-- use 20,000 events).
--
-- Differences from Flink's DDL:
--   - three streams over the 'nexmark' connector ('table' = person, auction, bid)
--     instead of one table of ROW columns and three views: streamql's connector
--     generates each kind directly, from one event sequence per set of options.
--   - 'events.num' = 100000 so that a query ends (Flink's suite runs 100,000,000 events
--     at 10,000,000/s); 'first-event.rate' is absent, so the streams run as fast as
--     they can with Flink's default event-time spacing (10,000 events/s).
--   - CREATE STREAM IF NOT EXISTS (Flink's CREATE TABLE; see above).
CREATE STREAM IF NOT EXISTS person (
  id           BIGINT,
  name         VARCHAR,
  emailAddress VARCHAR,
  creditCard   VARCHAR,
  city         VARCHAR,
  state        VARCHAR,
  `dateTime`   TIMESTAMP(3),
  extra        VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'person', 'events.num' = '100000');

CREATE STREAM IF NOT EXISTS auction (
  id           BIGINT,
  itemName     VARCHAR,
  description  VARCHAR,
  initialBid   BIGINT,
  reserve      BIGINT,
  `dateTime`   TIMESTAMP(3),
  expires      TIMESTAMP(3),
  seller       BIGINT,
  category     BIGINT,
  extra        VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'auction', 'events.num' = '100000');

CREATE STREAM IF NOT EXISTS bid (
  auction      BIGINT,
  bidder       BIGINT,
  price        BIGINT,
  channel      VARCHAR,
  url          VARCHAR,
  `dateTime`   TIMESTAMP(3),
  extra        VARCHAR,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'table' = 'bid', 'events.num' = '100000');
