-- Flink's reference SQL of Nexmark q10 (nexmark-flink queries/q10.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT auction, bidder, price, `dateTime`, extra, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'), DATE_FORMAT(`dateTime`, 'HH:mm')
FROM bid;
