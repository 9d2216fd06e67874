-- Flink's reference SQL of Nexmark q3 (nexmark-flink queries/q3.sql), its SELECT
-- without the blackhole sink table; adaptations, if any, are commented below.
SELECT
    P.name, P.city, P.state, A.id
FROM
    auction AS A INNER JOIN person AS P on A.seller = P.id
WHERE
    A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');
