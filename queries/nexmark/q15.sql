-- Nexmark q15: bidding statistics report (per day: bids, bidders and auctions in
-- three price ranges).
--   streamql queries/nexmark/q15.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q15.sql):
--   - on a bounded bid stream (events.num) the GROUP BY emits each group once, at the
--     end (SPEC 2.4); on an unbounded one it is an updating result (2.8) as in Flink:
--     its final table is the same.
--   - stdout instead of the blackhole table.
--   - FILTER (WHERE c) is computed as the aggregate of CASE WHEN c THEN x END
--     (every aggregate but COUNT(*) skips NULLs, SPEC 2.4): the same values.
.read ddl.sql
SELECT
     DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') AS `day`,
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
GROUP BY DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
