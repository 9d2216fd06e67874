-- Nexmark q18: find last bid (each bidder's last bid on each auction).
--   streamql queries/nexmark/q18.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q18.sql):
--   - stdout instead of the blackhole table.
--   - deduplication keeping the last row is updating (SPEC 2.8); until streamql's
--     outputs print changelogs, the bounded input gives the final table at its end
--     (each (bidder, auction)'s last bid; equal dateTimes: the later bid, as Flink's).
--     Over an unbounded bid stream it is a planning error.
.read ddl.sql
SELECT auction, bidder, price, channel, url, `dateTime`, extra
 FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY `dateTime` DESC) AS rank_number
       FROM bid)
 WHERE rank_number <= 1;
