-- Nexmark q11: user sessions (bids per bidder per session of 10 s inactivity).
--   streamql queries/nexmark/q11.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q11.sql):
--   - the SESSION window table-valued function (SPEC 2.4) instead of Flink's legacy
--     group window GROUP BY SESSION(...) with SESSION_START / SESSION_END: the same
--     windows (window_start, window_end) and counts; streamql has only the TVF form.
--   - stdout instead of the blackhole table.
.read ddl.sql
SELECT
    B.bidder,
    count(*) AS bid_count,
    window_start AS starttime,
    window_end AS endtime
FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) B
GROUP BY B.bidder, window_start, window_end;
