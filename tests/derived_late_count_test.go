package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDerivedLateRowsCountedAsPrinted: the end-of-job notice counts every
// late row a job prints, and no other, also of the windows inside the
// relations it reads (SPEC 2.4, 2.6, 2.7), when a LIMIT cuts the job while
// the relations' parts still run: a window join of two subquery
// aggregates or of one and a view, a query over a subquery, a UNION ALL,
// a filter over a view. For each output, the rows printed on stderr
// ("late> …", "late-r> …") are counted and compared with the notices'
// counts for it. (The parts' counts came with their end, which a job cut
// by its LIMIT never took: it printed late rows the notice did not count,
// or gave no notice at all.) Without a LIMIT each late row of the input
// is printed once.
func TestDerivedLateRowsCountedAsPrinted(t *testing.T) {
	var o, p strings.Builder
	lateO, lateP := 0, 0
	for i := 0; i < 400; i++ {
		ts := 1000 + i*700
		fmt.Fprintf(&o, "%d,k%d,%d\n", i, i%3, ts)
		fmt.Fprintf(&p, "%d,k%d,%d,n%d\n", i, i%3, ts+100, i)
		if i%9 == 5 { // a row 6 s behind: late for its 5 s window
			fmt.Fprintf(&o, "%d,k%d,%d\n", 1000+i, i%3, ts-6000)
			lateO++
		}
		if i%7 == 3 {
			fmt.Fprintf(&p, "%d,k%d,%d,late\n", 2000+i, i%3, ts-6000)
			lateP++
		}
	}
	files := map[string]string{"o.csv": o.String(), "p.csv": p.String()}
	ddl := lateNamesDDL
	const (
		wo = lateWinO
		wp = lateWinP
		on = ` ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end`
	)
	shapes := []struct{ what, query string }{
		{"window join of two subquery aggregates", `SELECT l.k, l.n, r.m FROM ` + wo + ` l JOIN ` + wp + ` r` + on},
		{"window join of a subquery aggregate and a view", `SELECT l.k, l.n, r.m FROM ` + wo + ` l JOIN pv r` + on},
		{"a query over a subquery aggregate", `SELECT k, n FROM ` + wo + ` q`},
		{"a UNION ALL of two aggregates", `SELECT k FROM (SELECT window_start, window_end, k FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k UNION ALL SELECT window_start, window_end, k FROM pv) u`},
		{"a filter over a view", `SELECT k, m FROM pv WHERE m > 0`},
	}
	printed := regexp.MustCompile(`(?m)^(late[^>\s]*)> `)
	notice := regexp.MustCompile(`(?m)^(\d+) late row\(s\) of the query .* sent to '([^']+)'$`)
	stdinDDL := strings.Replace(ddl, "'connector'='file', 'path'='o.csv'", "'connector'='stdin'", 1)
	for _, sh := range shapes {
		for _, limit := range []string{"", " LIMIT 1", " LIMIT 3", " LIMIT 20", " LIMIT 90"} {
			for _, stdin := range []bool{false, true} {
				what := sh.what + limit
				var out, errs string
				var code int
				if stdin { // (o read from stdin: the parts over it are gated, and cut at the LIMIT, drainCut)
					what += " (o from stdin)"
					dir := t.TempDir()
					for name, text := range files {
						if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					out, errs, code = runStdinCSV(t, dir, stdinDDL+sh.query+limit+";\n", files["o.csv"])
				} else {
					out, errs, code = runSQL(t, files, ddl+sh.query+limit+";\n", "--format", "csv")
				}
				if code != 0 {
					t.Errorf("%s: exit %d, stderr:\n%s", what, code, errs)
					continue
				}
				got := map[string]int{}
				for _, m := range printed.FindAllStringSubmatch(errs, -1) {
					got[m[1]]++
				}
				counted := map[string]int{}
				for _, m := range notice.FindAllStringSubmatch(errs, -1) {
					n, _ := strconv.Atoi(m[1])
					counted[m[2]] += n
				}
				if fmt.Sprint(got) != fmt.Sprint(counted) {
					t.Errorf("%s: late rows printed per output %v, counted by the end-of-job notices %v; stdout %d lines, stderr:\n%s", what, got, counted, strings.Count(out, "\n"), tail(errs, 12))
				}
				if limit == "" {
					total := 0
					for _, n := range got {
						total += n
					}
					want := 0
					if strings.Contains(sh.query, "TABLE o") {
						want += lateO
					}
					if strings.Contains(sh.query, "TABLE p") || strings.Contains(sh.query, "pv") {
						want += lateP
					}
					if total != want {
						t.Errorf("%s: %d late rows printed, the input has %d", what, total, want)
					}
				}
			}
		}
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
