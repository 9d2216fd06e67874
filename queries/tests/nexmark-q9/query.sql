-- Nexmark q9 (queries/nexmark/q9.sql) on 20,000 generated events. The bounded input
-- gives the updating result's final table at its end (SPEC 2.8, 2.9). The expected
-- output was written by streamql (streamql test --update) and checked against a
-- separately written reference by tests/rank_test.go (TestNexmarkRankAgainstReference).
.read ../nexmark-events.sql
.read ../../nexmark/q9.sql
