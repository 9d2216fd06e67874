-- Nexmark q16 (queries/nexmark/q16.sql) on 20,000 generated events. The expected
-- output was written by streamql (streamql test --update); it is not yet checked
-- against Flink 2.3 by bench/nexmark/compare-flink (Flink was not run for it). q15's
-- rank-2 counts were checked against a separate query with WHERE instead of FILTER.
.read ../nexmark-events.sql
.read ../../nexmark/q16.sql
