-- Nexmark q17: auction statistics report (per auction and day: bids in three price
-- ranges, min, max, average and sum of the prices).
--   streamql queries/nexmark/q17.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q17.sql):
--   - avg(price) is DOUBLE (SPEC 2.4); Flink's AVG of BIGINT is a truncated BIGINT
--     (compare-flink CASTs Flink's price to DOUBLE inside AVG).
--   - bounded input: each group emitted once at the end (SPEC 2.4; see q15).
--   - stdout instead of the blackhole table.
--   - FILTER (WHERE c) is computed as the aggregate of CASE WHEN c THEN x END
--     (every aggregate but COUNT(*) skips NULLs, SPEC 2.4): the same values.
.read ddl.sql
SELECT
     auction,
     DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') AS `day`,
     count(*) AS total_bids,
     count(*) FILTER (WHERE price < 10000) AS rank1_bids,
     count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
     count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
     min(price) AS min_price,
     max(price) AS max_price,
     avg(price) AS avg_price,
     sum(price) AS sum_price
FROM bid
GROUP BY auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
