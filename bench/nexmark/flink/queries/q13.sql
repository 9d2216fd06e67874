-- Flink's reference SQL of Nexmark q13 (nexmark-flink queries/q13.sql), its SELECT
-- without the blackhole sink table. Adapted: the side input is a 'filesystem' csv table
-- over queries/nexmark/side_input.csv (${SIDE_INPUT}, set by Compare/Bench) instead of
-- the legacy 'connector.type' = 'filesystem' table, which Flink 2 no longer has; as
-- that new table is no lookup source, the processing-time temporal join FOR
-- SYSTEM_TIME AS OF B.p_time becomes a regular join: the same rows, since the side
-- input never changes.
CREATE TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '${SIDE_INPUT}',
  'format' = 'csv'
);
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.`dateTime`,
    S.`value`
FROM bid B
JOIN side_input AS S
ON mod(B.auction, 10000) = S.key;
