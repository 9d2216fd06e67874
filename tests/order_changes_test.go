package tests

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// cdcRow is a row of TestOrderByOverChanges's Debezium file.
type cdcRow struct {
	id, x int64
	k     string
}

// randCDC returns a random Debezium changelog over ids 1..keys (creates,
// updates with their before, deletes) and the final table it leaves, applied
// here apart from the engine.
func randCDC(rng *rand.Rand, n, keys int) (string, map[int64]cdcRow) {
	live := map[int64]cdcRow{}
	js := func(r cdcRow) string { return fmt.Sprintf(`{"id":%d,"k":"%s","x":%d}`, r.id, r.k, r.x) }
	var b strings.Builder
	for range n {
		id := int64(1 + rng.IntN(keys))
		r := cdcRow{id: id, k: string(rune('a' + rng.IntN(3))), x: int64(rng.IntN(20))}
		old, ok := live[id]
		switch {
		case !ok:
			fmt.Fprintf(&b, `{"before":null,"after":%s,"op":"c"}`+"\n", js(r))
			live[id] = r
		case rng.IntN(3) == 0:
			fmt.Fprintf(&b, `{"before":%s,"after":null,"op":"d"}`+"\n", js(old))
			delete(live, id)
		default:
			fmt.Fprintf(&b, `{"before":%s,"after":%s,"op":"u"}`+"\n", js(old), js(r))
			live[id] = r
		}
	}
	return b.String(), live
}

// TestOrderByOverChanges: ORDER BY [LIMIT n] at the end of a query whose
// input rows are changes (SPEC 2.8: a changelog file, an updating GROUP BY
// over one, a subquery over one) sorts the final table of a bounded input
// (SPEC 2.9), every row once, as Flink's batch mode does. Found: the sort
// sorted the changes themselves and printed each as an insert (a deleted
// row, and an updated row's old and new values, all in the output). The
// reference applies the changelog and sorts here, apart from the engine. In
// streaming mode, where the rows stay changes, ORDER BY without LIMIT is
// refused with what to do, and with LIMIT it keeps the first rows of the
// changing result (its changes applied give the same table).
func TestOrderByOverChanges(t *testing.T) {
	ddl := "CREATE STREAM c (id BIGINT, k VARCHAR, x BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='file', 'path'='c.json', 'format'='debezium-json');\n"
	for seed := range 8 {
		rng := rand.New(rand.NewPCG(uint64(seed), 13))
		file, live := randCDC(rng, 5+rng.IntN(60), 2+rng.IntN(12))
		files := map[string]string{"c.json": file}
		run := func(q string) []string {
			out, errs, code := runSQL(t, files, ddl+q+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			rows := csvRows(out)
			for i, r := range rows { // (an updating output's op column: all inserts of the final table)
				if strings.HasPrefix(out, "op,") {
					op, rest, _ := strings.Cut(r, ",")
					if op != "+I" {
						t.Fatalf("seed %d: %s: row %q is a change, not a row of the final table:\n%s", seed, q, r, out)
					}
					rows[i] = rest
				}
			}
			return rows
		}
		var table []cdcRow
		for _, r := range live {
			table = append(table, r)
		}
		limit := rng.IntN(len(table) + 2)
		// ORDER BY x DESC, id [LIMIT m], over the stream and over a subquery
		slices.SortFunc(table, func(a, b cdcRow) int { return cmp.Or(cmp.Compare(b.x, a.x), cmp.Compare(a.id, b.id)) })
		var want []string
		for _, r := range table {
			want = append(want, fmt.Sprintf("%d,%s,%d", r.id, r.k, r.x))
		}
		for _, q := range []string{"SELECT id, k, x FROM c ORDER BY x DESC, id", "SELECT id, k, x FROM (SELECT * FROM c WHERE id > 0) ORDER BY x DESC, id"} {
			if got := run(q); !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q\ninput:\n%s", seed, q, got, want, file)
			}
			if got, w := run(fmt.Sprintf("%s LIMIT %d", q, limit)), want[:min(limit, len(want))]; !slices.Equal(got, w) {
				t.Fatalf("seed %d: %s LIMIT %d:\n got %q\nwant %q\ninput:\n%s", seed, q, limit, got, w, file)
			}
		}
		// an updating GROUP BY's final table, ORDER BY its count and key
		count, sum := map[string]int64{}, map[string]int64{}
		for _, r := range table {
			count[r.k]++
			sum[r.k] += r.x
		}
		keys := make([]string, 0, len(count))
		for k := range count {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
		want = nil
		for _, k := range keys {
			want = append(want, fmt.Sprintf("%s,%d,%d", k, count[k], sum[k]))
		}
		q := "SELECT k, COUNT(*) AS n, SUM(x) AS s FROM c GROUP BY k ORDER BY n DESC, k"
		if got := run(q); !slices.Equal(got, want) {
			t.Fatalf("seed %d: %s:\n got %q\nwant %q\ninput:\n%s", seed, q, got, want, file)
		}
	}
	// streaming mode: the rows stay changes; ORDER BY alone cannot sort them
	files := map[string]string{"c.json": `{"before":null,"after":{"id":1,"k":"a","x":1},"op":"c"}` + "\n"}
	for _, q := range []string{
		"SELECT id, x FROM c ORDER BY x",
		"SELECT id, x FROM (SELECT * FROM c) ORDER BY x",
		"SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM c GROUP BY k) ORDER BY n",
		"SELECT id, x FROM (SELECT id, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM c) WHERE rn <= 2 ORDER BY x",
	} {
		out, errs, code := runSQL(t, files, ddl+"SET 'execution.runtime-mode' = 'streaming';\n"+q+";\n", "--format", "csv")
		if code != 2 || !strings.Contains(errs, "whose rows are changes (-U, +U, -D) in streaming mode") || !strings.Contains(errs, "add a LIMIT") {
			t.Errorf("streaming %s: exit %d, stdout %q, stderr %s; want exit 2 and the changes' message", q, code, out, errs)
		}
	}
}
