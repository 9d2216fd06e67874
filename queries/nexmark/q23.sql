-- Nexmark q23: bid with person and auction (each bid joined with its bidder's person
-- row and the auctions that bidder sells).
--   streamql queries/nexmark/q23.sql
-- Status: runs. Three relations in one FROM are planned as a left-deep tree of two-input
--   joins (SPEC 2.7): (B JOIN P) JOIN A; over the bounded connector both are lookup joins.
-- Differences from Flink's reference SQL (queries/q23.sql):
--   - stdout instead of the blackhole table.
--   - A.`dateTime` quoted (Flink's text writes A.dateTime).
--   Note: as in Flink's generator, a bid's bidder is a person's id + 1000 (Flink's
--   BidGenerator adds FIRST_PERSON_ID twice), so P.id = B.bidder pairs a bid with
--   another person than its bidder; kept, to give Flink's results.
.read ddl.sql
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
