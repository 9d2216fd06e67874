-- Nexmark q4: average price per category (of each auction's winning bid).
--   streamql queries/nexmark/q4.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q4.sql):
--   - AVG(Q.final) is DOUBLE (SPEC 2.4); Flink's AVG of BIGINT is a BIGINT (truncated).
--     compare-flink CASTs Flink's argument to DOUBLE.
--   - stdout instead of the blackhole table (whose columns are id, final).
--   - over bounded streams (events.num) the inner GROUP BY emits its rows at their end
--     (SPEC 2.4), so the outer AVG reads an append-only relation; Flink's is updating
--     (SPEC 2.8), with the same final table.
.read ddl.sql
SELECT
    Q.category,
    AVG(Q.final)
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category;
