-- Flink's reference SQL of Nexmark q0 (nexmark-flink queries/q0.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT auction, bidder, price, `dateTime`, extra FROM bid;
