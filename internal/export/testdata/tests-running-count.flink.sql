-- Flink SQL (Flink 2.x), written by `streamql export --flink` from queries/running_count.sql.
-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:
--   queries/running_count.sql:10: stream sensors: malformed rows go to the side output 'errors'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)
--   queries/running_count.sql:12: GROUP BY without a window on an unbounded stream (or in streaming mode) is an updating result in both engines, but Flink's print sink shows its changelog (+I, -U, +U) and a filesystem or kafka sink refuses it

-- Window columns of BIGINT event time are epoch milliseconds in UTC.
SET 'table.local-time-zone' = 'UTC';
-- The script sets 'execution.runtime-mode' = 'streaming': updating results are changelogs in both engines (SPEC 2.8).
SET 'execution.runtime-mode' = 'streaming';

CREATE TABLE `sensors` (
  `deviceNo` STRING,
  `ts` BIGINT,
  `temperature` DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = '$REPO/queries/sensors.csv',
  'format' = 'csv'
);

CREATE TABLE `main` (
  `deviceNo` STRING,
  `readings` BIGINT,
  `max_t` DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'main');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO `main`
  SELECT `sensors`.`deviceNo`, COUNT(*) AS `readings`, MAX(`sensors`.`temperature`) AS `max_t`
  FROM `sensors` AS `sensors`
  GROUP BY `sensors`.`deviceNo`;
END;
