package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestOverThenOrderByLimit: an OVER aggregation's query may end with LIMIT
// and ORDER BY (SPEC 2.9: they apply to the query's rows, as Flink's Sort
// and Limit over its OverAggregate): LIMIT n gives the first n rows of the
// aggregation's output, and ORDER BY ... LIMIT n over a bounded input the
// first n of its rows sorted, computed here from the full output.
func TestOverThenOrderByLimit(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n"
	over := "SELECT k, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS sv FROM s"
	for seed := range 5 {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		var in strings.Builder
		for i := range 20 + r.IntN(60) {
			fmt.Fprintf(&in, "k%d,%d,%d\n", r.IntN(4), i*100+r.IntN(300), r.IntN(50))
		}
		files := map[string]string{"s.csv": in.String()}
		run := func(q string) []string {
			out, errs, code := runSQL(t, files, ddl+q+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			return strings.Split(strings.TrimSpace(out), "\n")[1:]
		}
		full := run(over)
		n := 1 + r.IntN(len(full))
		if got := run(over + fmt.Sprintf(" LIMIT %d", n)); !slices.Equal(got, full[:n]) {
			t.Fatalf("seed %d: LIMIT %d gave %q, want the first rows %q", seed, n, got, full[:n])
		}
		sorted := slices.Clone(full)
		field := func(line string, i int) string { return strings.Split(line, ",")[i] }
		num := func(line string, i int) int { x, _ := strconv.Atoi(field(line, i)); return x }
		slices.SortStableFunc(sorted, func(a, b string) int {
			if d := num(b, 2) - num(a, 2); d != 0 { // sv DESC
				return d
			}
			if c := strings.Compare(field(a, 0), field(b, 0)); c != 0 {
				return c
			}
			return num(a, 1) - num(b, 1)
		})
		if got := run(over + fmt.Sprintf(" ORDER BY sv DESC, k, ts LIMIT %d", n)); !slices.Equal(got, sorted[:n]) {
			t.Fatalf("seed %d: ORDER BY sv DESC LIMIT %d gave %q, want %q", seed, n, got, sorted[:n])
		}
	}
}
