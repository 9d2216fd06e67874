-- Nexmark q10: log to file system (each bid with its day and hour:minute).
--   streamql queries/nexmark/q10.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q10.sql):
--   - stdout (or any file sink: INSERT INTO a 'file' stream) instead of Flink's
--     filesystem table PARTITIONED BY (dt, hm) with partition commits and rolling
--     files: streamql's file sink writes one file, unpartitioned; dt and hm are
--     columns of it.
.read ddl.sql
SELECT auction, bidder, price, `dateTime`, extra,
       DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') AS dt, DATE_FORMAT(`dateTime`, 'HH:mm') AS hm
FROM bid;
