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
	rng := rand.New(rand.NewSource(24))
	refused := 0
	rounds := 120
	if testing.Short() {
		rounds = 25
	}
	for round := range rounds {
		dir := t.TempDir()
		_, _, ddl := pruneInputs(t, rng, dir)
		query := randomRankQuery(rng)
		off, errOff := runPrune(t, dir, ddl+query, false)
		on, errOn := runPrune(t, dir, ddl+query, true)
		if fmt.Sprint(errOff) != fmt.Sprint(errOn) {
			t.Fatalf("round %d: %s\nwithout pruning: %v\nwith pruning: %v", round, query, errOff, errOn)
		}
		if errOff != nil {
			refused++
			t.Logf("round %d: %s: %v", round, query, errOff)
		}
		if !slices.Equal(off, on) {
			t.Fatalf("round %d: %s\nwithout pruning (%d rows):\n%s\nwith pruning (%d rows):\n%s", round, query, len(off), strings.Join(off, "\n"), len(on), strings.Join(on, "\n"))
		}
	}
	if refused > rounds/5 {
		t.Fatalf("%d of %d random Top-N queries were refused: the test ranks too few", refused, rounds)
	}
}

// TestPruneRankStateBudget pins what the pruning saves through the state's
// Account ('state.max-bytes', SPEC 1): a Top-10 per key of 4,000 keys
// selecting two BIGINTs of rows that also carry 300 bytes of text holds
// about 1.6 MB pruned (some 60 bytes a row and 100 a key) and 6 MB more
// unpruned, so a budget of 2 MiB passes with the pruning and stops the job
// without it.
func TestPruneRankStateBudget(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	pad := strings.Repeat("x", 300)
	for i := range 20000 {
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
