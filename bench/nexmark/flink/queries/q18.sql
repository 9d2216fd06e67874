-- Flink's reference SQL of Nexmark q18 (nexmark-flink queries/q18.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT auction, bidder, price, channel, url, `dateTime`, extra
 FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY `dateTime` DESC) AS rank_number
       FROM bid)
 WHERE rank_number <= 1;
