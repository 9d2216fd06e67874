-- Flink's reference SQL of Nexmark q12 (nexmark-flink queries/q12.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
CREATE VIEW B AS SELECT *, PROCTIME() as p_time FROM bid;
SELECT
    bidder,
    count(*) as bid_count,
    window_start AS starttime,
    window_end AS endtime
FROM TABLE(
        TUMBLE(TABLE B, DESCRIPTOR(p_time), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
