-- Nexmark q12: processing-time windows (bids per bidder per 10 s of processing time).
--   streamql queries/nexmark/q12.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q12.sql):
--   - none in the text; its result depends on when each bid is read (processing
--     time), in both engines, so compare-flink does not compare it row for row and
--     it has no golden: tests/nexmark_test.go (TestNexmarkQ12) checks its structure
--     (each bidder's counts summed over the windows are its bids; 10 s windows
--     aligned to 10 s).
--   - when windows fire (SPEC 2.10): p_time is the clock as the view reads each bid,
--     and a window over it fires once a bid read after its end passes, or at the
--     input's end; Flink fires it on a timer when the clock passes its end, even
--     with no bid arriving.
--   - PROCTIME() is a TIMESTAMP(3) in UTC (Flink's is a TIMESTAMP_LTZ(3), shown in
--     the session's time zone).
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
