-- Nexmark q14: calculation (euro prices, time of day and a UDF on the bids of 1M to
-- 50M euros).
--   streamql queries/nexmark/q14.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q14.sql):
--   - count_char is a WebAssembly module (queries/udf/count_char/count_char.wasm,
--     built by scripts/build-udf-wasm: counts a character in a string) instead of Flink's Java class com.github.nexmark.flink.udf.CountChar.
--   - 0.908 * price is DOUBLE (SPEC 2); Flink's DECIMAL(23, 3) (compare-flink CASTs).
--   - stdout instead of the blackhole table.
.read ddl.sql
CREATE FUNCTION count_char AS '../udf/count_char/count_char.wasm' LANGUAGE WASM;
SELECT
    auction,
    bidder,
    0.908 * price AS price,
    CASE
        WHEN HOUR(`dateTime`) >= 8 AND HOUR(`dateTime`) <= 18 THEN 'dayTime'
        WHEN HOUR(`dateTime`) <= 6 OR HOUR(`dateTime`) >= 20 THEN 'nightTime'
        ELSE 'otherTime'
    END AS bidTimeType,
    `dateTime`,
    extra,
    count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
