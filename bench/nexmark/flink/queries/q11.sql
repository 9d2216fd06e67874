-- Flink's reference SQL of Nexmark q11 (nexmark-flink queries/q11.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT
    B.bidder,
    count(*) as bid_count,
    SESSION_START(B.`dateTime`, INTERVAL '10' SECOND) as starttime,
    SESSION_END(B.`dateTime`, INTERVAL '10' SECOND) as endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.`dateTime`, INTERVAL '10' SECOND);
