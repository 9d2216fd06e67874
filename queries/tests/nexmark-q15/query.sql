-- Nexmark q15 (queries/nexmark/q15.sql) on 20,000 generated events. The expected
-- output was written by streamql (streamql test --update); it is not yet checked
-- against Flink 2.3 by bench/nexmark/compare-flink (Flink was not run for it). It is
-- checked against a separately written reference by nexmark_stats_property_test.go
-- (TestNexmarkStatsAgainstReference), which also runs the query at other event counts
-- and seeds.
.read ../nexmark-events.sql
.read ../../nexmark/q15.sql
