-- Nexmark q18: find last bid (each bidder's last bid on each auction).
--   streamql queries/nexmark/q18.sql
-- Status: waits for deduplication (ROW_NUMBER ... ORDER BY dateTime DESC, rn <= 1,
--   SPEC 2.9).
-- Differences from Flink's reference SQL (queries/q18.sql):
--   - stdout instead of the blackhole table.
.read ddl.sql
SELECT auction, bidder, price, channel, url, `dateTime`, extra
 FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY `dateTime` DESC) AS rank_number
       FROM bid)
 WHERE rank_number <= 1;
