-- Flink's reference SQL of Nexmark q20 (nexmark-flink queries/q20.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT
    auction, bidder, price, channel, url, B.`dateTime`, B.extra,
    itemName, description, initialBid, reserve, A.`dateTime`, expires, seller, category, A.extra
FROM
    bid AS B INNER JOIN auction AS A on B.auction = A.id
WHERE A.category = 10;
