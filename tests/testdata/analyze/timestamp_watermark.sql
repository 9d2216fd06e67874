-- formats: tsv
-- SPEC 3 and SPEC 4: the final watermark of a TIMESTAMP event time prints as
-- a TIMESTAMP (12:48:31.000 - 1 s), the late branch took the third row.
CREATE STREAM events (kind VARCHAR, at TIMESTAMP, WATERMARK FOR at AS at - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='events.csv');
SELECT kind, at INTO SIDE 'late' FROM events WHERE at < CURRENT_WATERMARK(at);
EXPLAIN ANALYZE SELECT kind FROM events;
-- EXPLAIN ANALYZE of a side branch runs it with the stream's pending branches
-- (here 'views', used up), as RUN would: 2 clicks, 1 view, no main output.
SELECT kind INTO SIDE 'views' FROM events WHERE kind = 'view';
EXPLAIN ANALYZE SELECT at INTO SIDE 'clicks' FROM events WHERE kind = 'click';
SHOW SIDES;
