-- Nexmark q4: average price per category (of each auction's winning bid).
--   streamql queries/nexmark/q4.sql
-- Status: waits for the join (SPEC 2.7) and the aggregate over an updating input (2.8).
-- Differences from Flink's reference SQL (queries/q4.sql):
--   - AVG(Q.final) is DOUBLE (SPEC 2.4); Flink's AVG of BIGINT is a BIGINT (truncated).
--     compare-flink CASTs Flink's argument to DOUBLE.
--   - stdout instead of the blackhole table (whose columns are id, final).
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
