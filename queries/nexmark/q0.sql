-- Nexmark q0: pass-through (measures the cost of reading and writing the bids).
--   streamql queries/nexmark/q0.sql        (100,000 events, see ddl.sql)
-- Status: runs.
-- Differences from Flink's reference SQL (nexmark-flink queries/q0.sql):
--   - the rows go to stdout (or a file sink) instead of Flink's 'blackhole' table
--     nexmark_q0 (every query here: streamql's main output is the result).
.read ddl.sql
SELECT auction, bidder, price, `dateTime`, extra FROM bid;
