package streamql_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lateInputs rewrites the csv files of pruneInputs' rows o and p in dir
// with one row in five set 1.5 to 3 s back in event time, late under the
// streams' 1 s WATERMARK delay, so that the late outputs have rows.
func lateInputs(t *testing.T, rng *rand.Rand, dir string, o, p [][]string) {
	t.Helper()
	for _, f := range []struct {
		name string
		rows [][]string
		ts   int
	}{{"o.csv", o, 5}, {"p.csv", p, 4}} {
		var b strings.Builder
		for _, r := range f.rows {
			if rng.Intn(5) == 0 {
				var ts int64
				fmt.Sscan(r[f.ts], &ts)
				r[f.ts] = fmt.Sprint(ts - 1500 - rng.Int63n(1500))
			}
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// randomPushdownQuery returns a random query over o and p (pruneInputs)
// whose WHERE or ON holds conditions on one input, on both, that a NULL
// passes (IS NULL, OR ... IS NULL, COALESCE), or that call RAND: a join
// kind (INNER, LEFT, RIGHT, FULL), an interval bound or not, a right side
// without event time (a lookup join) or not, a select list, a GROUP BY, a
// third relation, a temporal join, a window join of two window
// aggregates, or a join of a GROUP BY (updating in streaming mode).
func randomPushdownQuery(rng *rand.Rand) string {
	conds := []string{"o.c > 3", "p.x < 30", "o.a + p.x > 40", "p.x IS NULL", "o.a IS NOT NULL", "(p.x > 10 OR p.y IS NULL)",
		"COALESCE(p.x, 0) < 25", "o.k <> 'k1'", "p.k IN ('k0', 'k2', 'k3')", "RAND() < 2", "o.pad LIKE '%a%'", "CHAR_LENGTH(p.y) > 20", "(o.a = 7 OR o.c < 2)"}
	some := func(n int) string {
		var out []string
		for _, i := range rng.Perm(len(conds))[:n] {
			out = append(out, conds[i])
		}
		return strings.Join(out, " AND ")
	}
	kind := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}[rng.Intn(4)]
	on := "o.k = p.k"
	right := "p"
	switch rng.Intn(3) {
	case 0:
		on += " AND p.ts BETWEEN o.ts - 500 AND o.ts + 300"
	case 1:
		right = "q AS p" // (no event time: a lookup join for INNER and LEFT, else a regular one)
	}
	if rng.Intn(2) == 0 {
		on += " AND " + some(1+rng.Intn(2))
	}
	where := ""
	if rng.Intn(4) > 0 {
		where = " WHERE " + some(1+rng.Intn(3))
	}
	from := fmt.Sprintf("o %s %s ON %s", kind, right, on)
	switch rng.Intn(9) {
	case 6: // a temporal join (v: p's rows versioned by k)
		return fmt.Sprintf("SELECT o.id, p.x, p.y FROM o %s v FOR SYSTEM_TIME AS OF o.ts AS p ON o.k = p.k%s;", []string{"JOIN", "LEFT JOIN"}[rng.Intn(2)], where)
	case 7: // a window join of two window aggregates
		agg := func(s string) string {
			return fmt.Sprintf("(SELECT window_start, window_end, k, COUNT(*) AS n, MAX(%s) AS m FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k)",
				map[string]string{"o": "a", "p": "x"}[s], s)
		}
		return fmt.Sprintf("SELECT a.k, a.window_end, a.n, b.m FROM %s AS a %s %s AS b ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end WHERE %s;",
			agg("o"), kind, agg("p"), []string{"a.n > 1 AND b.m < 40", "a.m IS NOT NULL", "b.n = 1 OR b.m > 10", "a.n + b.n > 3"}[rng.Intn(4)])
	case 8: // a regular join of an updating input (in streaming mode: a GROUP BY that updates)
		return fmt.Sprintf("SELECT g.k, g.n, p.x FROM (SELECT k, COUNT(*) AS n, MAX(a) AS m FROM o GROUP BY k) AS g %s q AS p ON g.k = p.k WHERE g.n > 2 AND p.x < 40 AND g.m > 10;", kind)
	case 0:
		return fmt.Sprintf("SELECT o.k, COUNT(*) AS n, SUM(p.x) AS s FROM %s%s GROUP BY o.k;", from, where)
	case 1:
		return fmt.Sprintf("SELECT o.id, p.y, r.x AS r_x FROM o JOIN p ON o.k = p.k JOIN q AS r ON r.k = o.k%s;", where)
	}
	cols := []string{"o.id", "o.k", "p.x", "p.y", "o.ts", "p.ts"}
	var sel []string
	for k, i := range rng.Perm(len(cols))[:1+rng.Intn(3)] {
		sel = append(sel, fmt.Sprintf("%s AS c%d", cols[i], k))
	}
	return fmt.Sprintf("SELECT %s FROM %s%s;", strings.Join(sel, ", "), from, where)
}

// TestPushdownProperty: random join queries with conditions on one input
// (randomPushdownQuery) give the same rows on every output, each input's
// late rows included, with filter pushdown (planner/rule_pushdown.go) and
// without it (SET 'planner.push-filters' = 'false'), over random inputs
// with late rows (lateInputs), which most rounds must have, in batch or
// streaming mode.
func TestPushdownProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(20))
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	refused, late := 0, 0
	for round := range rounds {
		dir := t.TempDir()
		o, p, ddl := pruneInputs(t, rng, dir)
		lateInputs(t, rng, dir, o, p)
		query := randomPushdownQuery(rng)
		ddl += "CREATE STREAM v (k VARCHAR, x BIGINT, pad VARCHAR, y VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');\n"
		mode := []string{"batch", "streaming"}[rng.Intn(2)]
		off, errOff := runSettings(t, dir, ddl+query, map[string]string{"planner.push-filters": "false", "execution.runtime-mode": mode})
		on, errOn := runSettings(t, dir, ddl+query, map[string]string{"planner.push-filters": "true", "execution.runtime-mode": mode})
		if fmt.Sprint(errOff) != fmt.Sprint(errOn) {
			t.Fatalf("round %d: %s\nwithout pushdown: %v\nwith pushdown: %v", round, query, errOff, errOn)
		}
		if errOff != nil {
			refused++
			t.Logf("round %d: %s: %v", round, query, errOff)
			continue
		}
		if !slices.Equal(off, on) {
			t.Fatalf("round %d: %s\nwithout pushdown (%d rows):\n%s\nwith pushdown (%d rows):\n%s", round, query, len(off), strings.Join(off, "\n"), len(on), strings.Join(on, "\n"))
		}
		if slices.ContainsFunc(on, func(l string) bool { return strings.HasPrefix(l, "+I late-") }) {
			late++
		}
	}
	if late < rounds/2 {
		t.Fatalf("only %d of %d queries had late rows", late, rounds)
	}
	if refused > rounds/5 {
		t.Fatalf("%d of %d queries were refused by the planner", refused, rounds)
	}
}
