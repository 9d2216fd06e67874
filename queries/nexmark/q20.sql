-- Nexmark q20: expand bid with auction (bids on category-10 auctions, with the
-- auction's columns).
--   streamql queries/nexmark/q20.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q20.sql):
--   - stdout instead of the blackhole table (whose column names are bid_dateTime,
--     bid_extra, auction_dateTime, auction_extra: given here as aliases).
.read ddl.sql
SELECT
    auction, bidder, price, channel, url, B.`dateTime` AS bid_dateTime, B.extra AS bid_extra,
    itemName, description, initialBid, reserve, A.`dateTime` AS auction_dateTime, expires,
    seller, category, A.extra AS auction_extra
FROM
    bid AS B INNER JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10;
