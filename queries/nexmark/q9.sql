-- Nexmark q9: winning bids (each auction's highest bid within its lifetime).
--   streamql queries/nexmark/q9.sql
-- Status: waits for the join (SPEC 2.7) and Top-N (ROW_NUMBER, SPEC 2.9).
-- Differences from Flink's reference SQL (queries/q9.sql):
--   - stdout instead of the blackhole table.
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
