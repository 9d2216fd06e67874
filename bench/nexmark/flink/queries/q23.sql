-- Flink's reference SQL of Nexmark q23 (nexmark-flink queries/q23.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
-- Adaptation: `dateTime` quoted (a reserved word in Flink 2.3's parser).
SELECT bidder,
       price,
       channel,
       url,
       B.extra    AS bid_extra,

       P.id       AS person_id,
       name,
       emailAddress,
       creditCard,
       city,
       state,
       P.extra    AS person_extra,
       itemName,

       description,
       initialBid,
       reserve,
       A.`dateTime` AS auction_dateTime,
       expires,
       seller,
       category,
       A.extra    AS auction_extra
FROM bid B
         JOIN
     person P ON P.id = B.bidder
         JOIN
     auction A ON A.seller = B.bidder;
