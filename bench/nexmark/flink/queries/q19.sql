-- Flink's reference SQL of Nexmark q19 (nexmark-flink queries/q19.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT * FROM
(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid)
WHERE rank_number <= 10;
