-- Nexmark q16: channel statistics report (q15 per channel and day, with the last
-- minute seen).
--   streamql queries/nexmark/q16.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q16.sql):
--   - bounded input: each group emitted once at the end (SPEC 2.4; see q15).
--   - stdout instead of the blackhole table.
--   - FILTER (WHERE c) is computed as the aggregate of CASE WHEN c THEN x END
--     (every aggregate but COUNT(*) skips NULLs, SPEC 2.4): the same values.
.read ddl.sql
SELECT
    channel,
    DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') AS `day`,
    max(DATE_FORMAT(`dateTime`, 'HH:mm')) AS `minute`,
     count(*) AS total_bids,
     count(*) FILTER (WHERE price < 10000) AS rank1_bids,
     count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
     count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
    count(DISTINCT bidder) AS total_bidders,
    count(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders,
    count(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bidders,
    count(DISTINCT bidder) FILTER (WHERE price >= 1000000) AS rank3_bidders,
    count(DISTINCT auction) AS total_auctions,
    count(DISTINCT auction) FILTER (WHERE price < 10000) AS rank1_auctions,
    count(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_auctions,
    count(DISTINCT auction) FILTER (WHERE price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY channel, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
