-- Nexmark q12: processing-time windows (bids per bidder per 10 s of processing time).
--   streamql queries/nexmark/q12.sql
-- Status: waits for PROCTIME() and windows over a processing-time column (SPEC 2.10).
-- Differences from Flink's reference SQL (queries/q12.sql):
--   - none in the text; its result depends on the machine's speed in both engines
--     (processing time), so compare-flink does not compare it row for row.
--   - stdout instead of the blackhole table.
.read ddl.sql
CREATE VIEW B AS SELECT *, PROCTIME() AS p_time FROM bid;
SELECT
    bidder,
    count(*) AS bid_count,
    window_start AS starttime,
    window_end AS endtime
FROM TABLE(
        TUMBLE(TABLE B, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
