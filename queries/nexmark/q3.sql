-- Nexmark q3: local item suggestion (sellers in OR, ID or CA of category-10 auctions).
--   streamql queries/nexmark/q3.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q3.sql):
--   - stdout instead of the blackhole table.
.read ddl.sql
SELECT
    P.name, P.city, P.state, A.id
FROM
    auction AS A INNER JOIN person AS P ON A.seller = P.id
WHERE
    A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');
