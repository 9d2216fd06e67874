package streamql_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql"
)

// TestInsertOnlySinksRefuseUpdating: every kind of updating query (SPEC
// 2.8: an unbounded GROUP BY, a Top-N, a regular outer join, a CDC stream's
// changes passed on, an updating subquery's or UNION ALL's passed on)
// written to every kind of sink that accepts only inserts (a csv or json
// file without op, a plain kafka topic; by INSERT INTO and by INTO STREAM)
// is refused at planning, naming what updates, and EXPLAIN of it gives the
// same planning error as running it (Flink's rule); nothing is written.
func TestInsertOnlySinksRefuseUpdating(t *testing.T) {
	dir := t.TempDir()
	cdc := filepath.Join(dir, "cdc.json")
	if err := os.WriteFile(cdc, []byte(`{"before":null,"after":{"k":1,"v":2},"op":"c"}`+"\n"+`{"before":{"k":1,"v":2},"after":{"k":1,"v":3},"op":"u"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	streams := `CREATE STREAM s (k BIGINT, v BIGINT) WITH ('connector'='datagen', 'fields.k.min'='1', 'fields.k.max'='3', 'rows-per-second'='10');
CREATE STREAM t (k BIGINT, v BIGINT) WITH ('connector'='datagen', 'fields.k.min'='1', 'fields.k.max'='3', 'rows-per-second'='10');
CREATE STREAM cdc (k BIGINT, v BIGINT) WITH ('connector'='file', 'path'='` + cdc + `', 'format'='debezium-json');
`
	sinks := map[string]string{
		"csv file":   "CREATE STREAM o (k BIGINT, c BIGINT) WITH ('connector'='file', 'path'='" + filepath.Join(dir, "o.csv") + "', 'format'='csv');",
		"json file":  "CREATE STREAM o (k BIGINT, c BIGINT) WITH ('connector'='file', 'path'='" + filepath.Join(dir, "o.json") + "', 'format'='json');",
		"kafka json": "CREATE STREAM o (k BIGINT, c BIGINT) WITH ('connector'='kafka', 'topic'='o', 'properties.bootstrap.servers'='127.0.0.1:9', 'format'='json');",
		"kafka csv":  "CREATE STREAM o (k BIGINT, c BIGINT) WITH ('connector'='kafka', 'topic'='o', 'properties.bootstrap.servers'='127.0.0.1:9', 'format'='csv');",
	}
	queries := []struct{ name, insert, side, what string }{
		{"GROUP BY", "INSERT INTO o SELECT k, COUNT(*) AS c FROM s GROUP BY k;",
			"SELECT k, COUNT(*) AS c INTO STREAM o FROM s GROUP BY k;", "the GROUP BY without a window over the unbounded stream s"},
		{"Top-N", "INSERT INTO o SELECT k, c FROM (SELECT k, v AS c, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM s) WHERE rn <= 1;",
			"", "the Top-N over the unbounded stream s"},
		{"outer join", "INSERT INTO o SELECT s.k, t.v AS c FROM s LEFT JOIN t ON s.k = t.k;", "", "the regular LEFT JOIN"},
		{"CDC stream", "INSERT INTO o SELECT k, v AS c FROM cdc;",
			"SELECT k, v AS c INTO STREAM o FROM cdc;", "stream cdc, which the query reads (updating: format 'debezium-json'), emits -U/+U/-D changes"},
		{"subquery", "INSERT INTO o SELECT k, c FROM (SELECT k, COUNT(*) AS c FROM s GROUP BY k) WHERE c > 0;",
			"", "the subquery, which the query reads (updating: its GROUP BY without a window emits -U/+U changes), emits"},
		{"view", "CREATE VIEW w AS SELECT k, COUNT(*) AS c FROM s GROUP BY k;\nINSERT INTO o SELECT k, c FROM w;",
			"", "view w, which the query reads (updating: its GROUP BY without a window emits -U/+U changes), emits"},
		{"UNION ALL", "INSERT INTO o SELECT k, c FROM (SELECT k, COUNT(*) AS c FROM s GROUP BY k UNION ALL SELECT k, v AS c FROM t);",
			"", "which the query reads (updating: its GROUP BY without a window emits -U/+U changes), emits"},
	}
	for sink, ddl := range sinks {
		for _, q := range queries {
			for _, form := range []string{q.insert, q.side} {
				if form == "" {
					continue
				}
				t.Run(sink+"/"+q.name, func(t *testing.T) {
					var lines []string
					s := open(t, streamql.Options{OnRows: collect(&lines)})
					if err := s.Exec(context.Background(), streams+ddl); err != nil {
						t.Fatal(err)
					}
					run := form
					if strings.HasPrefix(form, "SELECT") { // a side branch: the main query runs it
						run += "\nSELECT * FROM " + map[bool]string{true: "cdc", false: "s"}[strings.Contains(form, "FROM cdc")] + ";"
					}
					i := strings.LastIndex(form, "\n") + 1 // (a view first)
					explain := form[:i] + "EXPLAIN " + form[i:]
					// (a watchdog, not a timing: a job that is not refused, a
					// failure, would read its unbounded stream for ever)
					ctx, cancel := context.WithCancel(context.Background())
					defer time.AfterFunc(10*time.Second, cancel).Stop()
					runErr := s.Exec(ctx, run)
					s2 := open(t, streamql.Options{OnRows: collect(new([]string))})
					if err := s2.Exec(context.Background(), streams+ddl); err != nil {
						t.Fatal(err)
					}
					explainErr := s2.Exec(context.Background(), explain)
					var re, ee *streamql.Error
					if !errors.As(runErr, &re) || re.Kind != streamql.KindPlanning || !strings.Contains(re.Msg, "accepts only inserts") || !strings.Contains(re.Msg, q.what) {
						t.Fatalf("running: %v, want a planning error naming %q", runErr, q.what)
					}
					if !errors.As(explainErr, &ee) || ee.Msg != re.Msg || ee.Kind != re.Kind {
						t.Errorf("EXPLAIN: %v\nwant the same error as running: %v", explainErr, runErr)
					}
					if len(lines) > 0 {
						t.Errorf("rows written: %q", lines)
					}
				})
			}
		}
	}
}
