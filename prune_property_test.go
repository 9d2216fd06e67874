package streamql_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"streamql"
)

// pruneInputs writes two random csv streams for the column-pruning tests
// into dir and returns their CREATE STREAM statements: o (id, k, a, pad, c,
// ts) and p (k, x, pad, y, ts), both with a WATERMARK, keys from a small
// domain, event times a little out of order (so some rows are
// late), and wide pad columns no query needs.
func pruneInputs(t *testing.T, rng *rand.Rand, dir string) (o, p [][]string, ddl string) {
	t.Helper()
	pad := func() string { return strings.Repeat(string(rune('a'+rng.Intn(26))), 1+rng.Intn(40)) }
	key := func() string { return fmt.Sprint("k", rng.Intn(6)) }
	write := func(name string, rows [][]string) {
		var b strings.Builder
		for _, r := range rows {
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := int64(1000)
	for i := range 1 + rng.Intn(60) {
		ts += int64(rng.Intn(400)) - 100
		o = append(o, []string{fmt.Sprint(i), key(), fmt.Sprint(rng.Intn(50)), pad(), fmt.Sprint(rng.Intn(9)) + ".5", fmt.Sprint(ts)})
	}
	ts = 1000
	for range 1 + rng.Intn(60) {
		ts += int64(rng.Intn(400)) - 100
		p = append(p, []string{key(), fmt.Sprint(rng.Intn(50)), pad(), pad(), fmt.Sprint(ts)})
	}
	write("o.csv", o)
	write("p.csv", p)
	ddl = "CREATE STREAM o (id BIGINT, k VARCHAR, a BIGINT, pad VARCHAR, c DOUBLE, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');\n" +
		"CREATE STREAM p (k VARCHAR, x BIGINT, pad VARCHAR, y VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');\n" +
		"CREATE STREAM q (k VARCHAR, x BIGINT, pad VARCHAR, y VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');\n"
	return o, p, ddl
}

// runPrune runs script in a new session over dir with column pruning on or
// off (SET 'planner.prune-columns') and returns every output's rows as
// "kind output: values" lines, sorted (a regular join over inputs without
// event time joins rows as they arrive: the multiset is what is fixed).
func runPrune(t *testing.T, dir, script string, prune bool) ([]string, error) {
	t.Helper()
	return runSettings(t, dir, script, map[string]string{"planner.prune-columns": fmt.Sprint(prune)})
}

// runSettings is runPrune with the session's settings given (SET keys and
// their values).
func runSettings(t *testing.T, dir, script string, settings map[string]string) ([]string, error) {
	t.Helper()
	var lines []string
	s, err := streamql.Open(streamql.Options{BaseDir: dir, Settings: settings,
		OnRows: func(out streamql.Output, rows *streamql.Rows) error {
			for r := 0; r < rows.Len(); r++ {
				vals := make([]string, len(out.Columns))
				for c := range out.Columns {
					vals[c] = fmt.Sprint(rows.Value(c, r))
				}
				lines = append(lines, rows.Kind(r)+" "+out.Name+": "+strings.Join(vals, ", "))
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Exec(context.Background(), script)
	slices.Sort(lines)
	return lines, err
}

// randomPruneQuery returns a random query over o and p (pruneInputs) that
// reads some of their columns through a join: a kind (INNER, LEFT, RIGHT,
// FULL), an interval bound or not, an outer join's residual ON term, a
// select list of columns and expressions, a WHERE, a GROUP BY, a Top-N,
// subqueries over the join, a UNION ALL of joins, or a third relation.
func randomPruneQuery(rng *rand.Rand) string {
	cols := []string{"o.id", "o.k", "o.a", "o.pad", "o.c", "o.ts", "p.k", "p.x", "p.pad", "p.y", "p.ts", "o.a + p.x", "UPPER(p.y)", "CHAR_LENGTH(o.pad)", "CURRENT_WATERMARK(o.ts)"}
	pick := func(n int) []string {
		var out []string
		for _, i := range rng.Perm(len(cols))[:n] {
			out = append(out, fmt.Sprintf("%s AS c%d", cols[i], len(out)))
		}
		return out
	}
	kind := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}[rng.Intn(4)]
	on := "o.k = p.k"
	if rng.Intn(2) == 0 {
		on += " AND p.ts BETWEEN o.ts - 500 AND o.ts + 300"
	}
	if kind != "JOIN" && rng.Intn(3) == 0 {
		on += " AND p.x > o.a"
	}
	right := "p"
	if rng.Intn(4) == 0 {
		right = "q AS p" // (no event time: a regular or lookup join)
		on = "o.k = p.k"
	}
	from := fmt.Sprintf("o %s %s ON %s", kind, right, on)
	where := ""
	if rng.Intn(3) == 0 {
		where = " WHERE " + []string{"o.c > 3", "p.x < 30", "o.pad <> p.y", "o.a + p.x > 40"}[rng.Intn(4)]
	}
	switch rng.Intn(8) {
	case 4: // a UNION ALL of two joins, in a WITH definition
		sel := strings.Join(pick(3), ", ")
		return fmt.Sprintf("WITH u AS (SELECT %s FROM %s%s UNION ALL SELECT %s FROM o JOIN q AS p ON o.k = p.k) SELECT c2, c0 FROM u;", sel, from, where, sel)
	case 5: // a subquery in a subquery
		return fmt.Sprintf("SELECT c0 FROM (SELECT c1, c0 FROM (SELECT %s FROM %s%s) WHERE c2 IS NOT NULL);", strings.Join(pick(3), ", "), from, where)
	case 0: // GROUP BY
		return fmt.Sprintf("SELECT o.k, COUNT(*) AS n, SUM(%s) AS s, MAX(%s) AS m FROM %s%s GROUP BY o.k;",
			[]string{"p.x", "o.a", "o.c"}[rng.Intn(3)], []string{"p.y", "o.pad", "p.ts"}[rng.Intn(3)], from, where)
	case 1: // a Top-N over the join
		return fmt.Sprintf("SELECT c0, c1 FROM (SELECT %s, ROW_NUMBER() OVER (PARTITION BY o.k ORDER BY p.x DESC, o.id, p.y) AS rn FROM %s%s) WHERE rn <= 2;",
			strings.Join(pick(2), ", "), from, where)
	case 2: // a subquery reading some of the join's columns
		return fmt.Sprintf("SELECT c1 FROM (SELECT %s FROM %s%s) WHERE c0 IS NOT NULL;", strings.Join(pick(3), ", "), from, where)
	case 3: // three relations
		return fmt.Sprintf("SELECT %s, r.y AS r_y FROM o JOIN p ON o.k = p.k JOIN q AS r ON r.k = o.k%s;", strings.Join(pick(1+rng.Intn(3)), ", "), where)
	}
	return fmt.Sprintf("SELECT %s FROM %s%s;", strings.Join(pick(1+rng.Intn(4)), ", "), from, where)
}

// TestPruneColumnsProperty: random queries that read some columns of a
// join (randomPruneQuery) give the same rows on every output, late rows of
// each input included, with column pruning (planner/rule_prune_columns.go)
// and without it.
func TestPruneColumnsProperty(t *testing.T) {
	pruneBothWays(t, rand.New(rand.NewSource(26)), 150, randomPruneQuery, "random queries")
}

// pruneBothWays runs rounds random queries of gen (30 with -short) over
// new pruneInputs, with column pruning off and on, and fails at the first
// whose rows or error differ, or when more than a fifth are refused (what
// describes them in that message).
func pruneBothWays(t *testing.T, rng *rand.Rand, rounds int, gen func(*rand.Rand) string, what string) {
	t.Helper()
	if testing.Short() {
		rounds = 30
	}
	refused := 0
	for round := range rounds {
		dir := t.TempDir()
		_, _, ddl := pruneInputs(t, rng, dir)
		query := gen(rng)
		off, errOff := runPrune(t, dir, ddl+query, false)
		on, errOn := runPrune(t, dir, ddl+query, true)
		if fmt.Sprint(errOff) != fmt.Sprint(errOn) {
			t.Fatalf("round %d: %s\nwithout pruning: %v\nwith pruning: %v", round, query, errOff, errOn)
		}
		if errOff != nil { // (a query the planner refuses: refused alike)
			refused++
			t.Logf("round %d: %s: %v", round, query, errOff)
			continue
		}
		if !slices.Equal(off, on) {
			t.Fatalf("round %d: %s\nwithout pruning (%d rows):\n%s\nwith pruning (%d rows):\n%s", round, query, len(off), strings.Join(off, "\n"), len(on), strings.Join(on, "\n"))
		}
	}
	if refused > rounds/5 {
		t.Fatalf("%d of %d %s were refused by the planner", refused, rounds, what)
	}
}

// TestPruneColumnsInnerJoinReference: an INNER join reading two of its
// inputs' columns, with pruning, gives the pairs a nested loop over the
// whole inputs gives (equal keys; p read whole first, a lookup
// join, SPEC 2.7), and the late rows of o go out with every column.
func TestPruneColumnsInnerJoinReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for range 20 {
		dir := t.TempDir()
		o, p, ddl := pruneInputs(t, rng, dir)
		got, err := runPrune(t, dir, ddl+"SELECT o.id, p.x FROM o JOIN q AS p ON o.k = p.k;", true)
		if err != nil {
			t.Fatal(err)
		}
		// the reference: o's rows that are not late (ts below the largest ts
		// before them minus 1 s), each with every p row of its key
		var want []string
		maxTs := int64(-1 << 62)
		for _, r := range o {
			var ts int64
			fmt.Sscan(r[5], &ts)
			if maxTs > -1<<62 && ts < maxTs-1000 {
				want = append(want, "+I late-o: "+strings.Join(r, ", "))
				continue
			}
			maxTs = max(maxTs, ts)
			for _, q := range p {
				if r[1] == q[0] {
					want = append(want, "+I main: "+r[0]+", "+q[1])
				}
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// randomRankQuery returns a random Top-N over o (pruneInputs' stream: id,
// k, a, pad, c, ts): a subquery of every column or of some columns and
// expressions, ROW_NUMBER, RANK or DENSE_RANK by one or two keys, partitioned
// or not, N from 1 to 3 (ORDER BY ts DESC with N 1: deduplication keeping
// the last row), and an outer select list of some of the subquery's columns,
// renamed or not, with the rank or without, or every column.
func randomRankQuery(rng *rand.Rand) string {
	inner := "*"
	names := []string{"id", "k", "a", "pad", "c", "ts"}
	if rng.Intn(2) == 0 {
		exprs := []string{"id", "k", "a", "pad", "c", "ts", "a * 2 AS a2", "UPPER(pad) AS up", "100 / (a - 7) AS q"}
		inner = ""
		names = nil
		for _, i := range rng.Perm(len(exprs))[:2+rng.Intn(len(exprs)-1)] {
			if inner != "" {
				inner += ", "
			}
			inner += exprs[i]
			f := strings.Fields(exprs[i])
			names = append(names, f[len(f)-1])
		}
		for _, need := range []string{"k", "a", "ts"} { // (what the window orders and partitions by)
			if !slices.Contains(names, need) {
				inner += ", " + need
				names = append(names, need)
			}
		}
	}
	fn := []string{"ROW_NUMBER", "RANK", "DENSE_RANK"}[rng.Intn(3)]
	over := []string{"PARTITION BY k ORDER BY a DESC", "PARTITION BY k ORDER BY a, ts DESC", "ORDER BY a DESC", "PARTITION BY k, a ORDER BY ts DESC"}[rng.Intn(4)]
	n := 1 + rng.Intn(3)
	if strings.HasSuffix(over, "BY ts DESC") && rng.Intn(2) == 0 {
		fn, n = "ROW_NUMBER", 1 // (deduplication keeping the last row)
	}
	var outer []string
	switch rng.Intn(4) {
	case 0:
		outer = []string{"*"}
	default:
		for _, i := range rng.Perm(len(names))[:1+rng.Intn(len(names))] {
			c := names[i]
			if rng.Intn(3) == 0 {
				c += " AS o_" + c
			}
			outer = append(outer, c)
		}
		if rng.Intn(3) == 0 {
			outer = append(outer, "rn")
		}
	}
	return fmt.Sprintf("SELECT %s FROM (SELECT %s, %s() OVER (%s) AS rn FROM o) WHERE rn <= %d;", strings.Join(outer, ", "), inner, fn, over, n)
}

// TestPruneRankProperty: random Top-N queries (randomRankQuery) give the
// same rows, errors alike, with the Top-N's unread input columns taken out
// (planner/rule_prune_rank.go) and with every column kept (SET
// 'planner.prune-columns' = 'false').
func TestPruneRankProperty(t *testing.T) {
	pruneBothWays(t, rand.New(rand.NewSource(24)), 120, randomRankQuery, "random Top-N queries")
}

// TestPruneRankStateBudget pins what the pruning saves through the state's
// Account ('state.max-bytes', SPEC 1): a Top-10 per key of 4,000 keys
// selecting two BIGINTs of rows that also carry 300 bytes of random text holds
// about 1.6 MB pruned (some 60 bytes a row and 100 a key) and 6 MB more
// unpruned, so a budget of 2 MiB passes with the pruning and stops the job
// without it.
func TestPruneRankStateBudget(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	// (the text random, so that the Top-N's text packing, op/textpack.go,
	// finds no shared prefix or suffix and few repeated bytes: it stays near
	// its 300 bytes unpruned)
	rng := rand.New(rand.NewSource(3))
	pad := make([]byte, 300)
	for i := range 20000 {
		for j := range pad {
			pad[j] = byte('!' + rng.Intn(90))
			if pad[j] == ',' || pad[j] == '"' {
				pad[j] = 'z'
			}
		}
		fmt.Fprintf(&b, "%d,k%d,%d,%s,1.5,%d\n", i, i%4000, i%97, pad, 1000+i)
	}
	if err := os.WriteFile(filepath.Join(dir, "o.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "SET 'state.max-bytes' = '2MiB';\n" +
		"CREATE STREAM o (id BIGINT, k VARCHAR, a BIGINT, pad VARCHAR, c DOUBLE, ts BIGINT) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');\n" +
		"SELECT id, a FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY a DESC) AS rn FROM o) WHERE rn <= 5;"
	rows, err := runPrune(t, dir, script, true)
	if err != nil {
		t.Fatalf("pruned: %v", err)
	}
	if len(rows) != 20000 { // (5 rows a key, all in its top 5: the final result of the bounded input)
		t.Fatalf("pruned: %d rows, want 20000", len(rows))
	}
	if _, err := runPrune(t, dir, script, false); err == nil || !strings.Contains(err.Error(), "state.max-bytes") {
		t.Fatalf("unpruned: want the budget passed, got %v", err)
	}
}

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

// TestPushdownParallelMaxFuture: a lookup join whose left input is a file
// big enough for parallel join inputs (plan.ParallelJoinInputs), with
// 'watermark.max-future' taking some rows out before the pushed-down
// filter does (each into a batch of its own: executor/joinsource.go),
// gives the same rows, late rows and errors with the filter pushed down
// and without it.
func TestPushdownParallelMaxFuture(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(5))
	var o, p strings.Builder
	ts := int64(1000)
	for i := range 30000 {
		ts += int64(rng.Intn(40)) - 10
		t := ts
		switch rng.Intn(50) {
		case 0:
			t += 10_000_000 // (too far in the future: to errors)
		case 1:
			t -= 3000 // (late)
		}
		fmt.Fprintf(&o, "%d,k%d,%d,%s,%d\n", i, rng.Intn(20), rng.Intn(50), strings.Repeat("x", rng.Intn(30)), t)
	}
	for k := range 20 {
		fmt.Fprintf(&p, "k%d,%d\n", k, rng.Intn(50))
	}
	for name, s := range map[string]string{"o.csv": o.String(), "p.csv": p.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := "CREATE STREAM o (id BIGINT, k VARCHAR, a BIGINT, pad VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='o.csv', 'format'='csv', 'watermark.max-future'='1 h', 'errors'='side');\n" +
		"CREATE STREAM p (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');\n" +
		"SELECT o.id, p.x FROM o JOIN p ON o.k = p.k WHERE o.a > 20 AND p.x < 40;"
	off, errOff := runSettings(t, dir, script, map[string]string{"planner.push-filters": "false"})
	on, errOn := runSettings(t, dir, script, map[string]string{"planner.push-filters": "true"})
	if errOff != nil || errOn != nil {
		t.Fatal(errOff, errOn)
	}
	count := func(prefix string) int {
		return len(slices.DeleteFunc(slices.Clone(on), func(l string) bool { return !strings.HasPrefix(l, prefix) }))
	}
	if count("+I late-o") == 0 || count("+I errors") == 0 || count("+I main") == 0 {
		t.Fatalf("want rows on main, late-o and errors: %d, %d, %d", count("+I main"), count("+I late-o"), count("+I errors"))
	}
	if !slices.Equal(off, on) {
		t.Fatalf("without pushdown %d rows, with %d", len(off), len(on))
	}
	if ex, _ := runSettings(t, dir, strings.Replace(script, "SELECT", "EXPLAIN SELECT", 1), nil); !strings.Contains(strings.Join(ex, "\n"), "parallel join inputs") {
		t.Fatalf("not the parallel join inputs:\n%s", strings.Join(ex, "\n"))
	}
}
