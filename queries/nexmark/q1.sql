-- Nexmark q1: currency conversion (each bid's price in euros).
--   streamql queries/nexmark/q1.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q1.sql):
--   - 0.908 * price is DOUBLE (SPEC 2: DECIMAL is read as DOUBLE), printed as Java's
--     Double.toString; Flink's is DECIMAL(23, 3) (bench/nexmark/compare-flink CASTs
--     Flink's to DOUBLE to compare).
--   - stdout instead of the blackhole table.
.read ddl.sql
SELECT
    auction,
    bidder,
    0.908 * price AS price, -- convert dollar to euro
    `dateTime`,
    extra
FROM bid;
