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

// changelog applies an updating output's rows as SPEC 2.8 says: +I and +U
// add a row, -U and -D take back one equal row. It checks that each
// retraction takes back a row that is there.
type changelog struct {
	t    *testing.T
	rows map[string]int
	out  string
}

func (c *changelog) on(out streamql.Output, rows *streamql.Rows) error {
	if out.Name != c.out {
		return nil
	}
	if !out.Updating {
		c.t.Errorf("output %s is not marked updating", out.Name)
	}
	for r := 0; r < rows.Len(); r++ {
		vals := make([]string, len(out.Columns))
		for col := range out.Columns {
			vals[col] = fmt.Sprint(rows.Value(col, r))
		}
		key := strings.Join(vals, "|")
		switch rows.Kind(r) {
		case "+I", "+U":
			c.rows[key]++
		case "-U", "-D":
			if c.rows[key] == 0 {
				c.t.Errorf("%s retracts %s, which the changelog does not hold", rows.Kind(r), key)
			}
			c.rows[key]--
			if c.rows[key] == 0 {
				delete(c.rows, key)
			}
		}
	}
	return nil
}

func (c *changelog) final() []string {
	var out []string
	for k, n := range c.rows {
		for ; n > 0; n-- {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestChangelogGroupByProperty: the changelog of an unbounded GROUP BY (SPEC
// 2.8), with and without mini-batch, applied in order, gives the table that
// a separately written batch computation (group the whole input, count and
// sum) gives, over random inputs pushed from Go (so batch sizes follow the
// pushes' timing). HAVING applies to both rows of each change.
func TestChangelogGroupByProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for round := 0; round < 12; round++ {
		n := 1 + rng.Intn(3000)
		keys := 1 + rng.Intn(40)
		type row struct {
			k string
			v int64
		}
		in := make([]row, n)
		for i := range in {
			in[i] = row{fmt.Sprintf("k%d", rng.Intn(keys)), rng.Int63n(100) - 30}
		}
		// the reference: group the whole input
		cnt, sum := map[string]int64{}, map[string]int64{}
		for _, r := range in {
			cnt[r.k]++
			sum[r.k] += r.v
		}
		var want []string
		for k := range cnt {
			if cnt[k] > 1 {
				want = append(want, fmt.Sprintf("%s|%d|%d", k, cnt[k], sum[k]))
			}
		}
		slices.Sort(want)
		for _, mini := range []string{"false", "true"} {
			c := &changelog{t: t, rows: map[string]int{}, out: "main"}
			s, err := streamql.Open(streamql.Options{OnRows: c.on})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := s.Exec(ctx, `CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector' = 'go'); SET 'table.exec.mini-batch.enabled' = '`+mini+`';`); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				done <- s.Exec(ctx, `SELECT k, COUNT(*) AS n, SUM(v) AS s FROM ev GROUP BY k HAVING COUNT(*) > 1;`)
			}()
			for _, r := range in {
				if err := s.Push(ctx, "ev", r.k, r.v); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.CloseStream("ev"); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got := c.final(); !slices.Equal(got, want) {
				t.Fatalf("round %d (mini-batch %s, %d rows, %d keys): the changelog applied gives\n%v\nthe batch reference\n%v", round, mini, n, keys, got, want)
			}
			// the same rows from a file in 'execution.runtime-mode' = 'streaming'
			// (the file's batches, the first one full)
			dir := t.TempDir()
			var sb strings.Builder
			for _, r := range in {
				fmt.Fprintf(&sb, "%s,%d\n", r.k, r.v)
			}
			if err := os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(sb.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			c = &changelog{t: t, rows: map[string]int{}, out: "main"}
			s, err = streamql.Open(streamql.Options{BaseDir: dir, OnRows: c.on})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Exec(ctx, `SET 'execution.runtime-mode' = 'streaming'; SET 'table.exec.mini-batch.enabled' = '`+mini+`';
CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector' = 'file', 'path' = 'ev.csv', 'format' = 'csv');
SELECT k, COUNT(*) AS n, SUM(v) AS s FROM ev GROUP BY k HAVING COUNT(*) > 1;`)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.final(); !slices.Equal(got, want) {
				t.Fatalf("round %d, a file in streaming mode (mini-batch %s, %d rows, %d keys): the changelog applied gives\n%v\nthe batch reference\n%v", round, mini, n, keys, got, want)
			}
		}
	}
}

// TestChangelogOuterJoinProperty: the changelog of regular RIGHT and FULL
// joins of two bounded files (SPEC 2.7, 2.8), and of a COUNT/SUM over
// a FULL join (an aggregate that retracts), applied in order, gives what a
// separately written nested-loop outer join over the whole inputs gives,
// over random inputs.
func TestChangelogOuterJoinProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	dir := t.TempDir()
	for round := 0; round < 20; round++ {
		type row struct{ id, v int64 }
		gen := func() []row {
			rs := make([]row, rng.Intn(60))
			for i := range rs {
				rs[i] = row{rng.Int63n(12), rng.Int63n(1000)}
			}
			return rs
		}
		l, r := gen(), gen()
		write := func(name string, rs []row) {
			var sb strings.Builder
			for _, x := range rs {
				fmt.Fprintf(&sb, "%d,%d\n", x.id, x.v)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(sb.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("l.csv", l)
		write("r.csv", r)
		nul := "<nil>"
		for _, kind := range []string{"RIGHT", "FULL"} { // (LEFT with a bounded right side is a lookup join, append-only)
			var want []string
			matchedR := make([]bool, len(r))
			for _, a := range l {
				hit := false
				for j, b := range r {
					if a.id == b.id {
						hit, matchedR[j] = true, true
						want = append(want, fmt.Sprintf("%d|%d|%d|%d", a.id, a.v, b.id, b.v))
					}
				}
				if !hit && kind != "RIGHT" {
					want = append(want, fmt.Sprintf("%d|%d|%s|%s", a.id, a.v, nul, nul))
				}
			}
			if kind != "LEFT" {
				for j, b := range r {
					if !matchedR[j] {
						want = append(want, fmt.Sprintf("%s|%s|%d|%d", nul, nul, b.id, b.v))
					}
				}
			}
			slices.Sort(want)
			got := runJoinChangelog(t, dir, fmt.Sprintf("SELECT l.id, l.v, r.id AS rid, r.v AS rv FROM l %s JOIN r ON l.id = r.id;", kind))
			if !slices.Equal(got, want) {
				t.Fatalf("round %d %s JOIN: the changelog applied gives\n%v\nthe nested-loop reference\n%v", round, kind, got, want)
			}
			if kind != "FULL" {
				continue
			}
			// an aggregate over the updating join retracts (COUNT, SUM)
			cnt, sum := map[string]int64{}, map[string]int64{}
			for _, w := range want {
				f := strings.Split(w, "|")
				cnt[f[0]]++
				if f[3] != nul {
					var x int64
					fmt.Sscan(f[3], &x)
					sum[f[0]] += x
				}
			}
			var wantAgg []string
			for k := range cnt {
				wantAgg = append(wantAgg, fmt.Sprintf("%s|%d|%d", k, cnt[k], sum[k]))
			}
			slices.Sort(wantAgg)
			gotAgg := runJoinChangelog(t, dir, "SELECT l.id, COUNT(*) AS n, COALESCE(SUM(r.v), 0) AS s FROM l FULL JOIN r ON l.id = r.id GROUP BY l.id;")
			if !slices.Equal(gotAgg, wantAgg) {
				t.Fatalf("round %d aggregate over FULL JOIN: the changelog applied gives\n%v\nthe reference\n%v", round, gotAgg, wantAgg)
			}
		}
	}
}

func runJoinChangelog(t *testing.T, dir, query string) []string {
	t.Helper()
	c := &changelog{t: t, rows: map[string]int{}, out: "main"}
	s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: c.on})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Exec(context.Background(), `
CREATE STREAM l (id BIGINT, v BIGINT) WITH ('connector' = 'file', 'path' = 'l.csv', 'format' = 'csv');
CREATE STREAM r (id BIGINT, v BIGINT) WITH ('connector' = 'file', 'path' = 'r.csv', 'format' = 'csv');
`+query)
	if err != nil {
		t.Fatal(err)
	}
	return c.final()
}
