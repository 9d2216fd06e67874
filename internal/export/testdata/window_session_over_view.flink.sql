-- Flink SQL (Flink 2.x), written by `streamql export --flink` from window_session_over_view.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   window_session_over_view.sql:3: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   window_session_over_view.sql:6: a window's late rows go to the side output 'late' (shown once a row reaches it); Flink drops rows late for a window (SPEC 2.4)

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `sensors` (
  `dev` STRING,
  `temp` DOUBLE,
  `et` TIMESTAMP(3),
  WATERMARK FOR `et` AS (`et`) - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '$SCRIPT_DIR/sensors.csv',
  'format' = 'csv'
);

CREATE TEMPORARY VIEW `warm` AS
  SELECT `sensors`.`dev`, `sensors`.`temp`, `sensors`.`et` FROM `sensors` AS `sensors` WHERE ((`sensors`.`temp`) >= (10));

CREATE TABLE `main` (
  `dev` STRING,
  `window_start` TIMESTAMP(3),
  `n` BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `dev`, `window_start` AS `window_start`, COUNT(*) AS `n`
  FROM TABLE(SESSION(TABLE `warm` PARTITION BY `dev`, DESCRIPTOR(`et`), INTERVAL '10' MINUTE)) AS `warm`
  GROUP BY `dev`, `window_start`, `window_end`;
END;
