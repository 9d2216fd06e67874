-- The latest reading per device (queries/latest_reading.sql), the file twin of
-- queries/latest_reading_upsert_kafka.sql: the changelog that script's
-- upsert-kafka sink receives, op first. Its upsert key is deviceNo: applied
-- by key (+I and +U put the row under its deviceNo, -U is dropped), as the
-- upsert topic holds it, it gives each device's reading with the largest ts
-- (tests/kafka_latest_reading_test.go checks both against the sensors file).
.read ../../latest_reading.sql
