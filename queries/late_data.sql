-- Late data to a side output (Flink: event time with a bounded-out-of-orderness
-- watermark, late elements sent to the OutputTag "late-element"). Run it with:
--   go run ./cmd/streamql queries/late_data.sql
-- The watermark after a row is ts - 1 ms (Flink's DataStream variant subtracts
-- one more millisecond), so (hellolate,1000) arriving after (helloflink,2000)
-- is below the watermark 1999: it goes to 'late-element'.
-- To try it live, type the rows yourself: run `nc -lk 1111` and replace the WITH
-- clause by ('connector' = 'socket', 'port' = '1111'), or read them from a pipe
-- with ('connector' = 'stdin'):  cat words.csv | streamql late_data.sql
CREATE STREAM words (
  word VARCHAR,
  ts   BIGINT,                                        -- event time, epoch ms
  WATERMARK FOR ts AS ts - INTERVAL '0.001' SECOND
) WITH ('connector' = 'file', 'path' = 'words.csv', 'format' = 'csv');

SELECT CONCAT('迟到元素发送到侧输出流：(', word, ',', ts, ')') AS msg INTO SIDE 'late-element'
  FROM words WHERE ts < CURRENT_WATERMARK(ts);
SELECT CONCAT('正常到达的元素：(', word, ',', ts, ')') AS msg FROM words;
