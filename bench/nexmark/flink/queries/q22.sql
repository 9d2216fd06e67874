-- Flink's reference SQL of Nexmark q22 (nexmark-flink queries/q22.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT
    auction, bidder, price, channel,
    SPLIT_INDEX(url, '/', 3) as dir1,
    SPLIT_INDEX(url, '/', 4) as dir2,
    SPLIT_INDEX(url, '/', 5) as dir3 FROM bid;
