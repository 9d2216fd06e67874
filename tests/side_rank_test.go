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

// srRow is a row of the stream s (k, v, ts) in the reference below.
type srRow struct {
	k     string
	v, ts int64
}

// srOperator is an operator of SPEC 2.9 a side branch ends with: its
// query (INTO … standing for the branch's INTO clause, WHERE … for its
// routing condition over s's rows) and the reference of its output over
// the rows the branch took, in arrival (ts) order, as csv lines without
// the output's name; ordered says the lines' order counts.
type srOperator struct {
	name    string
	sql     string
	ref     func(took []srRow) []string
	ordered bool
	sinks   bool // append-only: an INTO STREAM file sink takes its rows (in order when ordered)
}

var srOperators = []srOperator{
	{"OVER", "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS v INTO … FROM s WHERE …", func(took []srRow) []string {
		var out []string
		last := map[string][]int64{}
		for _, r := range took {
			w := append(last[r.k], r.v)
			if len(w) > 2 {
				w = w[len(w)-2:]
			}
			last[r.k] = w
			sum := int64(0)
			for _, x := range w {
				sum += x
			}
			out = append(out, fmt.Sprintf("%s,%d", r.k, sum))
		}
		return out
	}, false, true},
	{"dedup first", "SELECT k, v INTO … FROM (SELECT k, v, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM s WHERE …) WHERE rn = 1", func(took []srRow) []string {
		seen := map[string]bool{}
		var out []string
		for _, r := range took {
			if !seen[r.k] {
				seen[r.k] = true
				out = append(out, fmt.Sprintf("%s,%d", r.k, r.v))
			}
		}
		return out
	}, false, true},
	{"dedup last", "SELECT k, v INTO … FROM (SELECT k, v, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM s WHERE …) WHERE rn = 1", func(took []srRow) []string {
		last := map[string]int64{}
		for _, r := range took {
			last[r.k] = r.v
		}
		var out []string
		for k, v := range last {
			out = append(out, fmt.Sprintf("%s,%d", k, v))
		}
		return out
	}, false, false},
	{"Top-2", "SELECT k, v INTO … FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM s WHERE …) WHERE rn <= 2", func(took []srRow) []string {
		by := map[string][]int64{}
		for _, r := range took {
			by[r.k] = append(by[r.k], r.v)
		}
		var out []string
		for k, vs := range by {
			slices.SortFunc(vs, func(a, b int64) int { return int(b - a) })
			for _, v := range vs[:min(2, len(vs))] {
				out = append(out, fmt.Sprintf("%s,%d", k, v))
			}
		}
		return out
	}, false, false},
	{"ORDER BY", "SELECT v, k INTO … FROM s WHERE … ORDER BY v", func(took []srRow) []string {
		var out []string
		for _, r := range took {
			out = append(out, fmt.Sprintf("%d,%s", r.v, r.k))
		}
		slices.SortStableFunc(out, func(a, b string) int {
			var x, y int64
			fmt.Sscan(strings.Split(a, ",")[0], &x)
			fmt.Sscan(strings.Split(b, ",")[0], &y)
			return int(x - y)
		})
		return out
	}, true, true},
}

// TestSideBranchOperatorsAgainstReference: a side branch that ends with an
// operator of SPEC 2.9 (OVER aggregation, deduplication keeping the first
// or last row, Top-N, ORDER BY) between two plain branches and before the
// main query takes its rows by first match (SPEC 2.1: its WHERE over the
// stream's rows, none an earlier branch took), then its operator runs over
// them: each output equals a reference computed over the rows the
// branch's predicate takes, the later branch and the main query get the
// rows neither took. An append-only one INTO STREAM a csv file sink writes
// the same rows there (SPEC 2.5).
func TestSideBranchOperatorsAgainstReference(t *testing.T) {
	for seed := range 40 {
		r := rand.New(rand.NewPCG(uint64(seed), 53))
		op := srOperators[seed%len(srOperators)]
		var rows []srRow
		var sb strings.Builder
		for i := range 5 + r.IntN(20) {
			row := srRow{fmt.Sprintf("k%d", r.IntN(3)), int64(r.IntN(10)), int64(i*10 + r.IntN(5))}
			rows = append(rows, row)
			fmt.Fprintf(&sb, "%s,%d,%d\n", row.k, row.v, row.ts)
		}
		c1, c2, c3 := int64(r.IntN(4)), int64(2+r.IntN(8)), int64(r.IntN(10))
		var first, took, third, rest []srRow // (first match: p, the operator's, q, main)
		for _, x := range rows {
			switch {
			case x.v < c1:
				first = append(first, x)
			case x.v < c2:
				took = append(took, x)
			case x.v > c3:
				third = append(third, x)
			default:
				rest = append(rest, x)
			}
		}
		lines := func(prefix string, rs []srRow) []string {
			var out []string
			for _, x := range rs {
				out = append(out, fmt.Sprintf("%s%s,%d", prefix, x.k, x.v))
			}
			return out
		}
		want := map[string][]string{"p": lines("", first), "o": op.ref(took), "q": lines("", third), "main": lines("", rest)}
		ddl := "CREATE STREAM s (k VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
			"CREATE STREAM dst (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='dst.csv', 'format'='csv');\n" +
			"CREATE STREAM dstvk (v BIGINT, k VARCHAR) WITH ('connector'='file', 'path'='dst.csv', 'format'='csv');\n"
		branch := func(into string) string {
			return strings.NewReplacer("INTO …", into, "WHERE …", fmt.Sprintf("WHERE v < %d", c2)).Replace(op.sql)
		}
		script := func(into string) string {
			return ddl + fmt.Sprintf("SELECT k, v INTO SIDE 'p' FROM s WHERE v < %d;\n", c1) + branch(into) + ";\n" +
				fmt.Sprintf("SELECT k, v INTO SIDE 'q' FROM s WHERE v > %d;\nSELECT k, v FROM s;\n", c3)
		}
		files := map[string]string{"s.csv": sb.String()}
		out, errs, code := runSQL(t, files, script("INTO SIDE 'o'"), "--format", "csv")
		if code != 0 {
			t.Fatalf("seed %d (%s): exit %d: %s\n%s", seed, op.name, code, errs, script("INTO SIDE 'o'"))
		}
		got := map[string][]string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if name, row, ok := strings.Cut(l, ","); ok && name != "output" {
				got[name] = append(got[name], row)
			}
		}
		for name, w := range want {
			g := got[name]
			if name != "o" || !op.ordered {
				g, w = slices.Sorted(slices.Values(g)), slices.Sorted(slices.Values(w))
			}
			if !slices.Equal(g, w) {
				t.Fatalf("seed %d (%s), output %s:\n got %q\nwant %q\n%s", seed, op.name, name, g, w, script("INTO SIDE 'o'"))
			}
		}
		if !op.sinks {
			continue
		}
		dir := t.TempDir()
		sink := "dst"
		if op.ordered {
			sink = "dstvk" // (ORDER BY's rows are v, k)
		}
		if _, errs, code := runSQLIn(t, dir, files, script("INTO STREAM "+sink)); code != 0 {
			t.Fatalf("seed %d (%s) INTO STREAM %s: exit %d: %s", seed, op.name, sink, code, errs)
		}
		data, err := os.ReadFile(filepath.Join(dir, "dst.csv"))
		if err != nil {
			t.Fatal(err)
		}
		g, w := strings.Split(strings.TrimSpace(string(data)), "\n")[1:], want["o"] // (the header)
		if !op.ordered {
			g, w = slices.Sorted(slices.Values(g)), slices.Sorted(slices.Values(w))
		}
		if !slices.Equal(g, w) {
			t.Fatalf("seed %d (%s) INTO STREAM %s: the file holds %q, want %q", seed, op.name, sink, g, w)
		}
	}
}
