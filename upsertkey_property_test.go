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

// TestUpsertKeyProperty (SPEC 2.8, issue 24 item 1): the upsert key the
// planner derives, as Flink's FlinkRelMdUpsertKeys does, is really a key:
// for a ROW_NUMBER Top-N selecting its rank (PARTITION BY k: key (k, rn),
// (k) for a Top-1; over the whole stream: key (rn)) and deduplication keeping the last row
// (key (k)), over random inputs with ties pushed from Go, and a regular
// inner join of two GROUP BY k subqueries on k (key (k)) over the same rows
// as a file in streaming mode, the changelog
// applied by the reported key gives the table it gives applied as
// retractions (the changelog applier's check), and that table is what a
// separately written batch reference gives (rank each key's rows over the
// whole input, ties in arrival order; each key's last row; each key's
// count and sum).
func TestUpsertKeyProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(2024))
	const setup = `CREATE STREAM ev (k VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector' = 'go');`
	for round := 0; round < 12; round++ {
		n, keys, top := 1+rng.Intn(1500), 1+rng.Intn(20), 1+rng.Intn(4)
		type row struct {
			k     string
			v, ts int64
		}
		in := make([]row, n)
		pushed := make([][]any, n)
		for i := range in {
			in[i] = row{fmt.Sprintf("k%d", rng.Intn(keys)), rng.Int63n(10), int64(i)}
			pushed[i] = []any{in[i].k, in[i].v, in[i].ts}
		}
		// the references
		rank := func(rs []row) []row { // by v descending, ties in arrival order
			rs = slices.Clone(rs)
			slices.SortStableFunc(rs, func(a, b row) int { return int(b.v - a.v) })
			return rs[:min(top, len(rs))]
		}
		byKey := map[string][]row{}
		for _, r := range in {
			byKey[r.k] = append(byKey[r.k], r)
		}
		var perKey, last, global, joined []string
		for k, rs := range byKey {
			sum := int64(0)
			for _, r := range rs {
				sum += r.v
			}
			joined = append(joined, fmt.Sprintf("%s|%d|%d", k, len(rs), sum))
			for i, r := range rank(rs) {
				perKey = append(perKey, fmt.Sprintf("%s|%d|%d", r.k, r.v, i+1))
			}
			l := rs[len(rs)-1]
			last = append(last, fmt.Sprintf("%s|%d|%d", k, l.v, l.ts))
		}
		for i, r := range rank(in) {
			global = append(global, fmt.Sprintf("%s|%d|%d", r.k, r.v, i+1))
		}
		perKeyKey, globalKey := []string{"k", "rn"}, []string{"rn"}
		if top == 1 { // (Flink: ROW_NUMBER keeping one row is keyed by its partition, none for the whole stream's: planner/rule_changelog.go's rankKey)
			perKeyKey, globalKey = []string{"k"}, nil
		}
		for _, c := range []struct {
			query string
			key   []string
			want  []string
		}{
			{fmt.Sprintf(`SELECT k, v, rn FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= %d;`, top), perKeyKey, perKey},
			{fmt.Sprintf(`SELECT k, v, rn FROM (SELECT k, v, ROW_NUMBER() OVER (ORDER BY v DESC) AS rn FROM ev) WHERE rn <= %d;`, top), globalKey, global},
			{`SELECT k, v, ts FROM (SELECT k, v, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM ev) WHERE rn = 1;`, []string{"k"}, last},
		} {
			slices.Sort(c.want)
			got, key := keyedChangelog(t, setup, "ev", c.query, pushed)
			if !slices.Equal(key, c.key) {
				t.Fatalf("%s: upsert key %v, want %v", c.query, key, c.key)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("round %d (%d rows, %d keys): %s\nthe changelog applied gives\n%v\nthe batch reference\n%v", round, n, keys, c.query, got, c.want)
			}
		}
		// a regular inner join of two GROUP BY k subqueries on k, over the
		// rows as a file in streaming mode (a Go-fed stream feeds one reader
		// of a job): a's key, a.k, selected as the b.k the condition equals
		// it to
		dir := t.TempDir()
		var sb strings.Builder
		for _, r := range in {
			fmt.Fprintf(&sb, "%s,%d,%d\n", r.k, r.v, r.ts)
		}
		if err := os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		slices.Sort(joined)
		q := `SELECT b.k, a.n, b.s FROM (SELECT k, COUNT(*) AS n FROM ev GROUP BY k) a JOIN (SELECT k, SUM(v) AS s FROM ev GROUP BY k) b ON a.k = b.k;`
		got, key := dirKeyedChangelog(t, dir, `SET 'execution.runtime-mode' = 'streaming';
CREATE STREAM ev (k VARCHAR, v BIGINT, ts BIGINT) WITH ('connector' = 'file', 'path' = 'ev.csv', 'format' = 'csv');
`+q)
		if !slices.Equal(key, []int{0}) {
			t.Fatalf("%s: upsert key %v, want [0] (k)", q, key)
		}
		if !slices.Equal(got, joined) {
			t.Fatalf("round %d: %s\nthe changelog applied gives\n%v\nthe batch reference\n%v", round, q, got, joined)
		}
	}
}

// TestUpsertKeyCDCProperty (SPEC 2.8, issue 24 item 1): a Debezium file
// with PRIMARY KEY (k) NOT ENFORCED, read in 'execution.runtime-mode' =
// 'streaming' through a filter and a projection that renames the key, has
// the upsert key the key column (Flink: a source's primary key, kept by a
// Calc that selects it); so has its regular inner join with a second such
// file on k (Flink's join rule: each side unique on the join key). Over
// random creates, updates (whose new row may fail the filter: a -U alone)
// and deletes, the changelog applied by that key gives the table applied
// as retractions, and the table the files leave, filtered or joined, by a
// separately written replay.
func TestUpsertKeyCDCProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for round := 0; round < 10; round++ {
		log, live := keyedCDC(rng, 1+rng.Intn(400), func() string { return fmt.Sprintf("k%d", rng.Intn(25)) }, func(int) int64 { return rng.Int63n(20) })
		var want []string
		for k, v := range live {
			if v >= 5 {
				want = append(want, fmt.Sprintf("%s|%d", k, v*2))
			}
		}
		slices.Sort(want)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		// a second table keyed by k, joined on it: key (k), the left's
		log2, live2 := keyedCDC(rng, 1+rng.Intn(400), func() string { return fmt.Sprintf("k%d", rng.Intn(25)) }, func(int) int64 { return rng.Int63n(20) })
		if err := os.WriteFile(filepath.Join(dir, "d.json"), []byte(log2), 0o644); err != nil {
			t.Fatal(err)
		}
		var wantJoin []string
		for k, v := range live {
			if w, ok := live2[k]; ok {
				wantJoin = append(wantJoin, fmt.Sprintf("%s|%d|%d", k, v, w))
			}
		}
		slices.Sort(wantJoin)
		const ddl = `SET 'execution.runtime-mode' = 'streaming';
CREATE STREAM c (k VARCHAR, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'file', 'path' = 'c.json', 'format' = 'debezium-json');
CREATE STREAM d (k VARCHAR, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'file', 'path' = 'd.json', 'format' = 'debezium-json');
`
		for _, q := range []struct {
			query string
			want  []string
		}{
			{"SELECT k AS id, v * 2 AS twice FROM c WHERE v >= 5;", want},
			{"SELECT c.k, c.v, d.v AS w FROM c JOIN d ON c.k = d.k;", wantJoin},
		} {
			got, key := dirKeyedChangelog(t, dir, ddl+q.query)
			if len(got) > 0 && !slices.Equal(key, []int{0}) {
				t.Fatalf("round %d: %s: upsert key %v, want [0]", round, q.query, key)
			}
			if !slices.Equal(got, q.want) {
				t.Fatalf("round %d: %s: the changelog applied gives\n%v\nthe files' table\n%v", round, q.query, got, q.want)
			}
		}
	}
}
