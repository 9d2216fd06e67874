-- The latest reading per device (queries/latest_reading.sql), the file twin of
-- queries/latest_reading_upsert_kafka.sql: the bounded file gives the updating
-- result's final table at its end, each device's reading with the largest ts,
-- which is what that script's upsert topic holds read back as a table (its
-- upsert key, deviceNo, is the sink's PRIMARY KEY). tests/kafka_latest_reading_test.go
-- checks both against a reference computed from the sensors file.
.read ../../latest_reading.sql
