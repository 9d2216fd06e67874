-- Nexmark q19: auction Top-N (the 10 highest bids of each auction).
--   streamql queries/nexmark/q19.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q19.sql):
--   - stdout instead of the blackhole table.
--   - Top-N is updating (SPEC 2.8); until streamql's outputs print changelogs, the
--     bounded input gives the final table at its end (each auction's rows by rank).
--     Over an unbounded bid stream it is a planning error. Ties in price are broken by arrival
--     order (SPEC 2.9); Flink's order among equal prices is not specified, so
--     compare-flink compares the final table's (auction, price, rank) multiset.
.read ddl.sql
SELECT * FROM
(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid)
WHERE rank_number <= 10;
