-- 'errors'='fail': the job stops at line 3 with status 1; outputs keep what was
-- routed before that row (SPEC 1, bad input).
CREATE STREAM s (k VARCHAR, n BIGINT, t DOUBLE)
  WITH ('connector' = 'file', 'path' = 'data.csv', 'errors' = 'fail');
SELECT k INTO SIDE 'hot' FROM s WHERE t > 70;
SELECT k, t FROM s;
