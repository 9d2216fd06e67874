-- Nexmark q2: selection (the bids of every 123rd auction).
--   streamql queries/nexmark/q2.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q2.sql):
--   - stdout instead of the blackhole table.
.read ddl.sql
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;
