package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql/parser"
)

// TestLiveStatusCountsRelationInputs: the live status of a job that reads a
// derived relation (a subquery, view, WITH name, UNION ALL, SPEC 2.6; one
// as a join's input) counts as "rows read" the rows its parts read from
// their streams, malformed rows included (as it counts a join's inputs),
// not the relation's rows, which are its parts' output: a filtering
// subquery gives fewer rows than it reads, a GROUP BY's changes are as many
// as its input rows, a UNION ALL reads both streams. The reference counts
// the files' lines; the status read when the job has ended.
func TestLiveStatusCountsRelationInputs(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&a, "k%d,%d\n", i%5, i)
		if i%50 == 7 {
			a.WriteString("bad,x\n") // (6 malformed lines: read, and counted as such)
		}
	}
	for i := range 40 {
		fmt.Fprintf(&b, "k%d,%d\n", i%3, i)
	}
	for name, text := range map[string]string{"a.csv": a.String(), "b.csv": b.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const aRows, bRows = 306, 40
	ddl := "CREATE STREAM a (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');\n" +
		"CREATE STREAM b (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');\n" +
		"CREATE VIEW av AS SELECT k, v FROM a WHERE v > 100;\n"
	for _, tc := range []struct {
		name, sql string
		rows      int
		malformed string
	}{
		{"filtering subquery", "SELECT k FROM (SELECT k FROM a WHERE v < 10)", aRows, "malformed a 6"},
		{"GROUP BY subquery", "SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM a GROUP BY k)", aRows, "malformed a 6"},
		{"view", "SELECT k FROM av", aRows, "malformed a 6"},
		{"WITH", "WITH w AS (SELECT k FROM b WHERE v < 3) SELECT k FROM w", bRows, "malformed b 0"},
		{"UNION ALL", "SELECT k FROM a UNION ALL SELECT k FROM b", aRows + bRows, "malformed a 6, b 0"},
		{"join of a subquery", "SELECT s.k, b.v FROM (SELECT k FROM a WHERE v < 4) s JOIN b ON s.k = b.k", aRows + bRows, "malformed b 0, a 6"}, // (the join's own input first, then the relation's)
	} {
		t.Run(tc.name, func(t *testing.T) {
			captured := make(chan *progress, 4)
			stderrTerminal = func(io.Writer) bool { return true }
			progressStarted = func(p *progress) { captured <- p }
			defer func() { stderrTerminal, progressStarted = isTerminal, nil }()
			t.Setenv("CI", "")
			var out, errOut fakeTerminal
			s := NewSession(&out, &errOut, nil)
			sc, err := parser.Parse("t", ddl+tc.sql+";")
			if err != nil {
				t.Fatal(err)
			}
			if code := s.ExecStmts(context.Background(), sc, dir); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			var p *progress
			select {
			case p = <-captured:
			default:
				t.Fatal("no status started")
			}
			lines := p.lines(time.Second)
			want := fmt.Sprintf(": %d rows read", tc.rows)
			if len(lines) == 0 || !strings.Contains(lines[0], want) {
				t.Errorf("status\n%s\nwant its first line to say %q", strings.Join(lines, "\n"), want)
			}
			if all := strings.Join(lines, "\n"); !strings.Contains(all, tc.malformed+" ·") && !strings.Contains(all, tc.malformed+"\n") && !strings.HasSuffix(all, tc.malformed) {
				t.Errorf("status\n%s\nwant %q", all, tc.malformed)
			}
		})
	}
}
