-- Nexmark q21: add channel id (the channel's id from a hot channel's name or the
-- url's channel_id parameter).
--   streamql queries/nexmark/q21.sql
-- Status: runs.
-- Differences from Flink's reference SQL (queries/q21.sql):
--   - stdout instead of the blackhole table.
.read ddl.sql
SELECT
    auction, bidder, price, channel,
    CASE
        WHEN lower(channel) = 'apple' THEN '0'
        WHEN lower(channel) = 'google' THEN '1'
        WHEN lower(channel) = 'facebook' THEN '2'
        WHEN lower(channel) = 'baidu' THEN '3'
        ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
        END
    AS channel_id FROM bid
    WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL OR
          lower(channel) IN ('apple', 'google', 'facebook', 'baidu');
