-- Flink's reference SQL of Nexmark q1 (nexmark-flink queries/q1.sql), its SELECT
-- without the blackhole sink table. Adapted: 0.908 * price is DECIMAL(23, 3) in Flink and
-- DOUBLE in streamql (SPEC 2: DECIMAL reads as DOUBLE); CAST(0.908 AS DOUBLE) makes Flink
-- multiply doubles as streamql does (a CAST of the exact decimal product could differ
-- in the last bit).
SELECT
    auction,
    bidder,
    CAST(0.908 AS DOUBLE) * price as price, -- convert dollar to euro
    `dateTime`,
    extra
FROM bid;
