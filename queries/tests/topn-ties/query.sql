-- Ties in a Top-N over an updating GROUP BY (SPEC 2.8, 2.9), in streaming mode.
-- Run it with: streamql test queries/tests
-- Ties rank in arrival order, and a group's +U row arrives when it is added:
-- after the rows already there with its count. Over k = a, b, a, c, b, c the
-- top 2 by count is [a 1, b 1], then [a 2, b 1]; c's first row ties with b 1
-- and came later, so nothing changes; b's -U lets c 1 in, b's +U (2, after
-- a 2) takes its place back; c's second row ties with a 2 and b 2, later.
SET 'execution.runtime-mode' = 'streaming';

CREATE STREAM ks (k VARCHAR)
  WITH ('connector' = 'file', 'path' = 'keys.csv', 'format' = 'csv', 'errors' = 'fail');

SELECT k, c FROM (SELECT k, COUNT(*) AS c FROM ks GROUP BY k) ORDER BY c DESC LIMIT 2;

SELECT k, COUNT(*) AS c FROM ks GROUP BY k ORDER BY c DESC LIMIT 2;

SELECT k, c, rn
  FROM (SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rn
          FROM (SELECT k, COUNT(*) AS c FROM ks GROUP BY k))
  WHERE rn <= 2;
