-- Nexmark q5 (queries/nexmark/q5.sql) on 20,000 generated events. The expected
-- output was written by streamql (streamql test --update) and checked against
-- Flink 2.3's final table by bench/nexmark/compare-flink (bench/nexmark/RESULTS.md).
.read ../nexmark-events.sql
.read ../../nexmark/q5.sql
