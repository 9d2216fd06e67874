-- Nexmark q9: winning bids (each auction's highest bid within its lifetime).
--   streamql queries/nexmark/q9.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q9.sql):
--   - stdout instead of the blackhole table.
--   - the join is a lookup join (SPEC 2.7: the bounded bid stream is read whole
--     first), and the Top-N is updating (SPEC 2.8): until streamql's outputs print
--     changelogs, the bounded inputs give the final table at their end. Over unbounded
--     streams it is a planning error. Since only that final table is printed, the
--     planner runs the join the other way round, with the same result
--     (planner/rule_join_swap.go: the 60,000 auctions kept, the bids streamed; EXPLAIN
--     says so).
.read ddl.sql
SELECT
    id, itemName, description, initialBid, reserve, `dateTime`, expires, seller, category, extra,
    auction, bidder, price, bid_dateTime, bid_extra
FROM (
   SELECT A.*, B.auction, B.bidder, B.price, B.`dateTime` AS bid_dateTime, B.extra AS bid_extra,
     ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.`dateTime` ASC) AS rownum
   FROM auction A, bid B
   WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
)
WHERE rownum <= 1;
