-- A Top-N keeping a range of ranks (SPEC 2.9; Flink's rank range): the
-- second and third places of each subject. The condition on the rank may
-- bound it from below too (rn > 1 AND rn <= 3, rn BETWEEN 2 AND 3, rn = 2):
-- the Top-N keeps the top 3, and the ranks below 2 are filtered out after
-- it. RANK gives tied rows one rank: bob and dave (88) are both second,
-- and alice (71) is fourth, so math has no third; art's are hugo (2) and
-- frank (3).
CREATE STREAM scores (name VARCHAR, subject VARCHAR, score BIGINT)
  WITH ('connector' = 'file', 'path' = 'scores.csv', 'format' = 'csv');

SELECT subject, name, score, r
  FROM (SELECT *, RANK() OVER (PARTITION BY subject ORDER BY score DESC) AS r FROM scores)
  WHERE r BETWEEN 2 AND 3;
