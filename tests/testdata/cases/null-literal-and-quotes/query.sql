-- csv.delimiter, csv.null-literal, a BOM, CRLF, a blank line, doubled quotes and a
-- quoted newline (SPEC 1); PostgreSQL-style quoting and Java DOUBLE printing (SPEC 4).
CREATE STREAM s (k VARCHAR, n BIGINT, t DOUBLE)
  WITH ('connector' = 'file', 'path' = 'data.csv', 'csv.delimiter' = ';', 'csv.null-literal' = 'NULL');
SELECT k, n, t, n IS NULL AS no_n FROM s;
