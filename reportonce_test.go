package streamql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"streamql"
)

// TestMalformedReportedOnce: a job that reads a stream more than once
// (every shape of readOnceShapes: a self-join, a UNION ALL of two queries
// over it, a WITH name or view read twice, an IN subquery, a semi join of
// the stream with itself, ...) reports each malformed row once, in the
// errors output ('errors'='side') and in the end-of-job count, under
// 'side' and 'skip' (SPEC 1, 2.6: one reader reports it), whether the
// stream is a file, which each read opens anew, or stdin, read once and
// fanned out by a Tee. The reference is the input: the malformed lines put
// in it, each once.
func TestMalformedReportedOnce(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	var bad []string // the malformed lines, in input order
	for i := range 60 {
		fmt.Fprintf(&text, "k%d,%d,2024-01-01 00:00:%02d\n", i%7, i, i)
		if i%13 == 4 {
			l := fmt.Sprintf("bad%d,x,2024-01-01 00:00:%02d", i, i)
			bad = append(bad, l)
			fmt.Fprintln(&text, l)
		}
	}
	path := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	conns := []struct{ name, with string }{
		{"file", "'connector'='file','path'='" + path + "','format'='csv'"},
		{"stdin", "'connector'='stdin','format'='csv'"},
	}
	for _, c := range conns {
		for _, policy := range []string{"side", "skip"} {
			for _, sh := range readOnceShapes {
				t.Run(c.name+"/"+policy+"/"+sh.name, func(t *testing.T) {
					q := fmt.Sprintf("CREATE STREAM s (k VARCHAR, v INT, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH (%s,'errors'='%s');\nCREATE VIEW sv AS SELECT k, v FROM s;\n%s;", c.with, policy, strings.Replace(sh.sql, "^", "", 1))
					checkReportedOnce(t, text.String(), q, policy, bad)
				})
			}
		}
	}
}

// TestMalformedReportedOnceWhenAReadStopsAtItsLimit: a job that reads a
// file twice reports each malformed row once, also when one read stops at
// a LIMIT of its own relation (a subquery, WITH name or view with LIMIT, or
// a relation around one) before malformed rows that another read reaches
// (SPEC 1: a malformed row is never lost without a trace; 2.6). The
// reference is the input: every malformed line, once, in the errors output
// and in the end-of-job count, whichever read was opened first. (The first
// read opened reported them; when it was the one its LIMIT stopped, the
// rows only the other read reached were reported by none.) The malformed
// lines sit after more rows than one batch holds, past every LIMIT's cut.
func TestMalformedReportedOnceWhenAReadStopsAtItsLimit(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	var bad []string
	for i := range 9000 {
		fmt.Fprintf(&text, "%d,k%d\n", i, i%5)
		if i > 6000 && i%997 == 0 {
			l := fmt.Sprintf("bad%d,x", i)
			bad = append(bad, l)
			fmt.Fprintln(&text, l)
		}
	}
	path := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	shapes := []struct{ name, sql string }{
		{"UNION ALL, the limited read first", `SELECT v FROM (SELECT v FROM s LIMIT 2) a UNION ALL SELECT v FROM s`},
		{"UNION ALL, the limited read second", `SELECT v FROM s UNION ALL SELECT v FROM (SELECT v FROM s LIMIT 2) a`},
		{"a WITH name with LIMIT beside the stream", `WITH w AS (SELECT v FROM s LIMIT 3) SELECT v FROM w UNION ALL SELECT v FROM s`},
		{"a view with LIMIT joined with the stream", `SELECT l.v FROM lim l JOIN s r ON l.v = r.v`},
		{"the stream joined with a subquery with LIMIT", `SELECT l.v FROM s l JOIN (SELECT v, k FROM s LIMIT 5) r ON l.v = r.v`},
		{"a LIMIT around a relation over the stream", `SELECT v FROM (SELECT v FROM (SELECT v FROM s WHERE v >= 0) x LIMIT 2) a UNION ALL SELECT v FROM s`},
		{"an IN subquery beside a limited read", `SELECT v FROM (SELECT v FROM s LIMIT 4) a WHERE v IN (SELECT v FROM s)`},
	}
	for _, policy := range []string{"side", "skip"} {
		for _, sh := range shapes {
			t.Run(policy+"/"+sh.name, func(t *testing.T) {
				q := fmt.Sprintf("CREATE STREAM s (v BIGINT, k VARCHAR) WITH ('connector'='file','path'='%s','format'='csv','errors'='%s');\nCREATE VIEW lim AS SELECT v, k FROM s LIMIT 3;\n%s;", path, policy, sh.sql)
				checkReportedOnce(t, "", q, policy, bad)
			})
		}
	}
}

// checkReportedOnce runs q (its streams' 'errors' policy is policy) in a
// session whose stdin is stdin, and checks that the errors output holds
// the malformed lines bad, each once, in order ('side'; none for 'skip'),
// and that the end-of-job notice counts them (SPEC 1).
func checkReportedOnce(t *testing.T, stdin, q, policy string, bad []string) {
	t.Helper()
	var got []string
	var log strings.Builder
	s := open(t, streamql.Options{Stdin: strings.NewReader(stdin), Log: &log, OnRows: func(out streamql.Output, rows *streamql.Rows) error {
		if out.Kind == streamql.OutputErrors {
			for r := range rows.Len() {
				got = append(got, fmt.Sprint(rows.Value(2, r))) // (stream, position, raw, error)
			}
		}
		return nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // (a hang fails, it does not time anything)
	defer cancel()
	if err := s.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	want, notice := bad, fmt.Sprintf("stream s: %d malformed row(s) sent to side output 'errors'\n", len(bad))
	if policy == "skip" {
		want, notice = nil, fmt.Sprintf("stream s: %d malformed row(s) skipped\n", len(bad))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors output's rows:\n%q\nwant each malformed line once:\n%q", got, want)
	}
	if log.String() != notice {
		t.Errorf("notice %q, want %q", log.String(), notice)
	}
}
