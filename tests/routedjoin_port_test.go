package tests

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestJoinInputBranchesAsTheStreamsJob: the side branches a join input
// routes in its port stage (executor/joinroute.go; SPEC 2.1, 2.7) write
// what they write in a job that reads the stream alone: each side file
// byte for byte, over random rows of o with malformed lines, rows out of
// order (late by o's watermark), and branches that filter, take the late
// rows, keep a Top-2 per key (SPEC 2.9) or compute OVER; the errors
// output has each malformed row once, and the summary counts it once;
// the join's late output of o gets the late rows no branch took. The job
// reading o alone is the same branches with SELECT * FROM o as its main
// query.
func TestJoinInputBranchesAsTheStreamsJob(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 19))
		var o, p strings.Builder
		var lateAtJoin []string // o's rows the reference says reach the join late: below o's watermark, taken by no branch
		wm, set := int64(0), false
		for i := range 40 + r.IntN(80) {
			if r.IntN(15) == 0 {
				o.WriteString("oops,not-a-number,x\n")
				continue
			}
			t := int64(i)*1000 + r.Int64N(3000) - 1500
			if r.IntN(8) == 0 {
				t -= 20000 // (late)
			}
			k := fmt.Sprintf("k%d", r.IntN(3))
			fmt.Fprintf(&o, "%s,%d,%d\n", k, t, i)
			late := set && t < wm
			taken := i%5 == 0 || late && seed%2 == 0 || k == "k2" && t > 30000 || k == "k0"
			if late && !taken {
				lateAtJoin = append(lateAtJoin, fmt.Sprintf("%s,%d,%d", k, t, i))
			}
			if w := t - 2000; !set || w > wm {
				wm, set = w, true
			}
		}
		for i := range 60 {
			fmt.Fprintf(&p, "k%d,%d,%d\n", r.IntN(3), int64(i)*1500, i)
		}
		ddl := `CREATE STREAM o (k VARCHAR, t BIGINT, id BIGINT, WATERMARK FOR t AS t - INTERVAL '2' SECOND) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM p (k VARCHAR, t BIGINT, v BIGINT, WATERMARK FOR t AS t - INTERVAL '2' SECOND) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
`
		branches := "SELECT id, k INTO SIDE 'fifth' FROM o WHERE id % 5 = 0;\n"
		if seed%2 == 0 {
			branches += "SELECT id, t INTO SIDE 'late' FROM o WHERE t < CURRENT_WATERMARK(t);\n"
		}
		branches += `SELECT k, id INTO SIDE 'top2' FROM (SELECT k, id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id DESC) AS rn FROM o WHERE k = 'k2' AND t > 30000) WHERE rn <= 2;
SELECT k, t, id, COUNT(*) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n INTO SIDE 'over' FROM o WHERE k = 'k0';
`
		files := map[string]string{"o.csv": o.String(), "p.csv": p.String()}
		run := func(main string) (map[string]string, string, string) {
			dir := t.TempDir()
			out, errs, code := runSQLIn(t, dir, files, ddl+branches+main, "--format", "csv", "--side-dir", filepath.Join(dir, "out"))
			if code != 0 {
				t.Fatalf("seed %d: exit %d: %s", seed, code, errs)
			}
			sides := map[string]string{}
			entries, _ := os.ReadDir(filepath.Join(dir, "out"))
			for _, e := range entries {
				sides[e.Name()] = readFile(t, filepath.Join(dir, "out", e.Name()))
			}
			return sides, out, errs
		}
		alone, _, errsAlone := run("SELECT * FROM o;\n")
		joined, _, errsJoined := run("SELECT o.id, p.v FROM o JOIN p ON o.k = p.k AND o.t BETWEEN p.t - INTERVAL '3' SECOND AND p.t + INTERVAL '3' SECOND;\n")
		lateO := joined["late-o.csv"]
		delete(joined, "late-o.csv")
		delete(joined, "late-p.csv")
		for name, want := range alone {
			if joined[name] != want {
				t.Errorf("seed %d: side output %s of the join's input\n%s\nwant (the stream's own job)\n%s", seed, name, joined[name], want)
			}
		}
		for name := range joined {
			if _, ok := alone[name]; !ok {
				t.Errorf("seed %d: side output %s only with the join", seed, name)
			}
		}
		if n := strings.Count(joined["errors.csv"], "\n") - 1; n != strings.Count(o.String(), "not-a-number") {
			t.Errorf("seed %d: %d malformed rows in the errors output, want each once", seed, n)
		}
		summary := func(errs string) []string {
			var out []string
			for _, l := range strings.Split(errs, "\n") {
				if strings.Contains(l, "malformed") {
					out = append(out, l)
				}
			}
			return out
		}
		if a, j := summary(errsAlone), summary(errsJoined); !slices.Equal(a, j) {
			t.Errorf("seed %d: the summary's malformed rows %q, want the stream's job's %q", seed, j, a)
		}
		gotLate := strings.Split(strings.TrimSpace(lateO), "\n")[1:]
		if !slices.Equal(gotLate, lateAtJoin) {
			t.Errorf("seed %d: the join's late rows of o\n%q\nwant\n%q", seed, gotLate, lateAtJoin)
		}
	}
}
