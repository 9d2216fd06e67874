-- Flink's reference SQL of Nexmark q2 (nexmark-flink queries/q2.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;
