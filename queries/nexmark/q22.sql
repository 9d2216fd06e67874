-- Nexmark q22: get URL directories (the first three path parts of each bid's url).
--   streamql queries/nexmark/q22.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q22.sql):
--   - stdout instead of the blackhole table.
.read ddl.sql
SELECT
    auction, bidder, price, channel,
    SPLIT_INDEX(url, '/', 3) AS dir1,
    SPLIT_INDEX(url, '/', 4) AS dir2,
    SPLIT_INDEX(url, '/', 5) AS dir3 FROM bid;
