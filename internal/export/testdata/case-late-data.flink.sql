-- Flink SQL (Flink 2.x), written by `streamql export --flink` from query.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   query.sql:1: stream words: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   query.sql:4: CURRENT_WATERMARK is the watermark before each row in streamql (SPEC 2.3); in Flink it is the last watermark the source's periodic generator emitted ('pipeline.auto-watermark-interval'), so rows streamql finds late may be on time in Flink

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `words` (
  `word` STRING,
  `ts` BIGINT,
  `ts_rowtime` AS TO_TIMESTAMP_LTZ(`ts`, 3),
  WATERMARK FOR `ts_rowtime` AS TO_TIMESTAMP_LTZ((`ts`) - 1, 3)
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/words.csv',
  'format' = 'csv'
);

CREATE TABLE `late-element` (
  `msg` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'late-element');

CREATE TABLE `main` (
  `msg` STRING
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `late-element`
  SELECT CONCAT('迟到元素发送到侧输出流：(', `words`.`word`, ',', CAST(`words`.`ts` AS STRING), ')') AS `msg`
  FROM `words` AS `words`
  WHERE ((TO_TIMESTAMP_LTZ(`words`.`ts`, 3)) < (CURRENT_WATERMARK(`words`.`ts_rowtime`))) IS TRUE;
INSERT INTO `main`
  SELECT CONCAT('正常到达的元素：(', `words`.`word`, ',', CAST(`words`.`ts` AS STRING), ')') AS `msg`
  FROM `words` AS `words`
  WHERE ((TO_TIMESTAMP_LTZ(`words`.`ts`, 3)) < (CURRENT_WATERMARK(`words`.`ts_rowtime`))) IS NOT TRUE;
END;
