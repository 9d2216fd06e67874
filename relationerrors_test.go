package streamql_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql"
)

// TestRelationErrorsNameTheStream: a row that the reader of a derived
// relation (SPEC 2.6: a view, subquery or join input) refuses or fails on
// goes to the errors output under the declared stream its rows come from
// (plan.ErrorsStream, whose 'errors' options it goes by: SPEC 1), with a
// position naming the relation ("v row 2"); the end-of-job notice counts it
// for that stream, and with 'errors'='fail' the job's error names it so.
// For every way a relation's reader refuses or fails a row: a window whose
// time does not fit in a BIGINT over a view of a join and over a subquery
// computing the time, a user function failing over a view of a join, and a
// user function in a join's key over a subquery input.
func TestRelationErrorsNameTheStream(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"ev.csv": "1,1000\n5,9223372036854775806\n", "r.csv": "1,1000\n5,9223372036854775806\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ddl := func(policy string) string {
		return "CREATE STREAM ev (id BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file','path'='ev.csv','format'='csv','errors'='" + policy + "');\n" +
			"CREATE STREAM r (id BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file','path'='r.csv','format'='csv');\n" +
			"CREATE VIEW v AS SELECT a.id, a.ts FROM ev a JOIN r b ON a.id = b.id AND a.ts BETWEEN b.ts - 1000 AND b.ts + 1000;\n"
	}
	const tumble = "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;"
	for _, c := range []struct{ name, query, relation string }{
		{"window over a view of a join", fmt.Sprintf(tumble, "v"), "v row 2"},
		{"window over a subquery's computed time", fmt.Sprintf(tumble, "(SELECT id, ts + 1 AS ts FROM ev)"), "subquery row 2"},
		{"function over a view of a join", "SELECT id, bad(id) AS x FROM v;", "v row 2"},
		{"function in a join key over a subquery", "SELECT a.id FROM (SELECT id + 0 AS id, ts FROM ev) a JOIN r b ON bad(a.id) = b.id AND a.ts BETWEEN b.ts - 1000 AND b.ts + 1000;", "subquery row 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rows []string
			var log strings.Builder
			open := func() *streamql.Session {
				s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&rows), Log: &log})
				if err := s.RegisterFunc("bad", func(x int64) (int64, error) {
					if x == 5 {
						return 0, errors.New("five")
					}
					return x, nil
				}); err != nil {
					t.Fatal(err)
				}
				return s
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := open().Exec(ctx, ddl("side")+c.query); err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, r := range rows {
				if strings.HasPrefix(r, "errors errors: ") {
					errs = append(errs, r)
				}
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0], "errors errors: ev, ") || !strings.Contains(errs[0], c.relation) {
				t.Errorf("errors rows %q, want one of stream ev at %q", errs, c.relation)
			}
			if l := log.String(); !strings.Contains(l, "stream ev: 1 malformed row(s) sent to side output 'errors'") || strings.Contains(l, "stream v") || strings.Contains(l, "stream subquery") {
				t.Errorf("notices %q, want the row counted for stream ev", l)
			}
			err := open().Exec(ctx, ddl("fail")+c.query)
			var e *streamql.Error
			if c.name == "function over a view of a join" || c.name == "function in a join key over a subquery" {
				return // (a user function's error sends its row to errors whatever the policy: SPEC 2.10)
			}
			if !errors.As(err, &e) || !strings.Contains(e.Error(), "stream ev") || !strings.Contains(e.Error(), c.relation) {
				t.Errorf("with 'errors'='fail': %v, want the job's error to name stream ev at %q", err, c.relation)
			}
		})
	}
}
