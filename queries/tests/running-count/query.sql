-- A running count per device (queries/running_count.sql) over the 100
-- readings of queries/sensors.csv: the changelog of an updating GROUP BY (SPEC
-- 2.8), op first. Applying it (+I and +U add a row, -U takes it back) gives
-- the last count and maximum per device.
.read ../../running_count.sql
