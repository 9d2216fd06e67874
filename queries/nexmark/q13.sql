-- Nexmark q13: bounded side input join (each bid with the side input's value for
-- its auction mod 10,000).
--   streamql queries/nexmark/q13.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q13.sql):
--   - the side input is a bounded 'file' stream (side_input.csv, 10,000 rows
--     key,value as Nexmark's side_input_gen.sh writes) joined as SPEC 2.7's lookup
--     join, instead of Flink's processing-time temporal join FOR SYSTEM_TIME AS OF
--     B.p_time against a legacy 'connector.type' = 'filesystem' table: the same
--     rows, since the side input never changes. side_input.csv is what Nexmark's
--     SideInputGenerator writes for --num 10000: lines i,i for i = 0 .. 9999.
--   - `key` quoted: KEY is a reserved word in streamql (Flink accepts it bare).
--   - stdout instead of the blackhole table.
.read ddl.sql
CREATE STREAM side_input (
  `key`   BIGINT,
  `value` VARCHAR
) WITH ('connector' = 'file', 'path' = 'side_input.csv', 'format' = 'csv');
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.`dateTime`,
    S.`value`
FROM bid B
JOIN side_input S
ON MOD(B.auction, 10000) = S.`key`;
