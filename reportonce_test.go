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
					var got []string
					var log strings.Builder
					s := open(t, streamql.Options{Stdin: strings.NewReader(text.String()), Log: &log, OnRows: func(out streamql.Output, rows *streamql.Rows) error {
						if out.Kind == streamql.OutputErrors {
							for r := range rows.Len() {
								got = append(got, fmt.Sprint(rows.Value(2, r))) // (stream, position, raw, error)
							}
						}
						return nil
					}})
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // (a hang fails, it does not time anything)
					defer cancel()
					q := fmt.Sprintf("CREATE STREAM s (k VARCHAR, v INT, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH (%s,'errors'='%s');\nCREATE VIEW sv AS SELECT k, v FROM s;\n%s;", c.with, policy, strings.Replace(sh.sql, "^", "", 1))
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
				})
			}
		}
	}
}
