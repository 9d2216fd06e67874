-- Nexmark q7: highest bid (the bids of each 10 s window's highest price).
--   streamql queries/nexmark/q7.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q7.sql):
--   - stdout instead of the blackhole table. (Flink's SELECT lists B.price before
--     B.bidder while its sink declares bidder, price: the columns are kept in
--     Flink's SELECT order, so they print as price, bidder under the names
--     auction, price, bidder.)
.read ddl.sql
SELECT B.auction, B.price, B.bidder, B.`dateTime`, B.extra
FROM bid B
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS `dateTime`
  FROM TABLE(
          TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) B1
ON B.price = B1.maxprice
WHERE B.`dateTime` BETWEEN B1.`dateTime` - INTERVAL '10' SECOND AND B1.`dateTime`;
