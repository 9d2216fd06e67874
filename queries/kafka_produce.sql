-- test: skip (needs a Kafka broker: see the README, "Kafka")
-- Writes the sensor file into the Kafka topic 'sensors', one line per record
-- value, plus two malformed lines, for kafka_split.sql. The broker creates the
-- topic on the first write (one partition). Each line is read whole as one
-- VARCHAR (a tab delimiter, which the lines do not hold) and written as a
-- one-field csv value, so the value is the line exactly.
CREATE STREAM sensor_lines (line VARCHAR)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'csv.delimiter' = '\t');
CREATE STREAM extra (line VARCHAR) WITH ('connector' = 'values');
INSERT INTO extra VALUES ('设备3,1610043600000,hot'), ('设备4;1610043700000;12.5');
CREATE STREAM sensors_topic (line VARCHAR)
  WITH ('connector' = 'kafka', 'topic' = 'sensors', 'properties.bootstrap.servers' = '127.0.0.1:9092',
        'format' = 'csv', 'csv.delimiter' = '\t');
INSERT INTO sensors_topic SELECT line FROM sensor_lines;
INSERT INTO sensors_topic SELECT line FROM extra;
