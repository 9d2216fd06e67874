package streamql_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"streamql"
)

// TestUpsertKeyProperty (SPEC 2.8, issue 24 item 1): the upsert key the
// planner derives, as Flink's FlinkRelMdUpsertKeys does, is really a key:
// for a ROW_NUMBER Top-N selecting its rank (PARTITION BY k: key (k, rn),
// (k) for a Top-1; over the whole stream: key (rn)) and deduplication keeping the last row
// (key (k)), over random inputs with ties pushed from Go, the changelog
// applied by the reported key gives the table it gives applied as
// retractions (the changelog applier's check), and that table is what a
// separately written batch reference gives (rank each key's rows over the
// whole input, ties in arrival order; each key's last row).
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
		var perKey, last, global []string
		for k, rs := range byKey {
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
			got, key := keyedChangelog(t, setup, c.query, pushed)
			if !slices.Equal(key, c.key) {
				t.Fatalf("%s: upsert key %v, want %v", c.query, key, c.key)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("round %d (%d rows, %d keys): %s\nthe changelog applied gives\n%v\nthe batch reference\n%v", round, n, keys, c.query, got, c.want)
			}
		}
	}
}

// TestUpsertKeyCDCProperty (SPEC 2.8, issue 24 item 1): a Debezium file
// with PRIMARY KEY (k) NOT ENFORCED, read in 'execution.runtime-mode' =
// 'streaming' through a filter and a projection that renames the key, has
// the upsert key the key column (Flink: a source's primary key, kept by a
// Calc that selects it). Over random creates, updates (whose new row may
// fail the filter: a -U alone) and deletes, the changelog applied by that
// key gives the table applied as retractions, and the table the file
// leaves, filtered, by a separately written replay.
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
		c := &changelog{t: t, rows: map[string]int{}, out: "main"}
		var key []int
		s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: func(out streamql.Output, rows *streamql.Rows) error {
			key = out.UpsertKey
			return c.on(out, rows)
		}})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Exec(context.Background(), `SET 'execution.runtime-mode' = 'streaming';
CREATE STREAM c (k VARCHAR, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'file', 'path' = 'c.json', 'format' = 'debezium-json');
SELECT k AS id, v * 2 AS twice FROM c WHERE v >= 5;`)
		if err != nil {
			t.Fatal(err)
		}
		got := c.final()
		if !slices.Equal(key, []int{0}) {
			t.Fatalf("round %d: upsert key %v, want [0] (id)", round, key)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: the changelog applied gives\n%v\nthe file's table, filtered\n%v", round, got, want)
		}
	}
}
