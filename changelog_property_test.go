package streamql_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"streamql"
)

// changelog applies an updating output's rows as SPEC 2.8 says: +I and +U
// add a row, -U and -D take back one equal row. It checks that each
// retraction takes back a row that is there.
//
// When the output reports an upsert key (Output.UpsertKey, SPEC 2.8: what
// EXPLAIN shows), it also applies the rows by that key, as the
// upsert-kafka sink writes them (+I and +U put the row under its key, -D
// deletes the key, a -U deletes it unless the next row is the +U of its
// key), and final checks that both give the same table and that no two of
// its rows share a key: the reported key is really a key, in every
// property test that applies a changelog.
type changelog struct {
	t    *testing.T
	rows map[string]int
	out  string

	// expires: 'table.exec.state.ttl' forgets keys, whose last rows then
	// stay in the changelog (Flink's TTL), so a key may hold two rows and
	// the rows are not applied by key
	expires bool
	key     []int             // the output's upsert key, nil: none
	keyed   map[string]string // the rows applied by key: key -> row
	pending *string           // the key of a -U waiting for the +U of its key
}

func (c *changelog) on(out streamql.Output, rows *streamql.Rows) error {
	if out.Name != c.out {
		return nil
	}
	if !out.Updating {
		c.t.Errorf("output %s is not marked updating", out.Name)
	}
	if out.UpsertKey != nil && c.keyed == nil && !c.expires {
		c.key, c.keyed = out.UpsertKey, map[string]string{}
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
		if c.keyed != nil {
			c.byKey(rows.Kind(r), vals, key)
		}
	}
	return nil
}

// byKey applies one row of kind kind (vals its values, row them joined) by
// the output's upsert key, as an upsert sink does (changelog).
func (c *changelog) byKey(kind string, vals []string, row string) {
	var kv []string
	for _, k := range c.key {
		kv = append(kv, vals[k])
	}
	key := strings.Join(kv, "|")
	if c.pending != nil {
		if kind != "+U" || *c.pending != key {
			delete(c.keyed, *c.pending)
		}
		c.pending = nil
	}
	switch kind {
	case "-U":
		c.pending = &key
	case "-D":
		delete(c.keyed, key)
	default:
		c.keyed[key] = row
	}
}

func (c *changelog) final() []string {
	var out []string
	for k, n := range c.rows {
		for ; n > 0; n-- {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	if c.keyed != nil {
		if c.pending != nil {
			delete(c.keyed, *c.pending)
			c.pending = nil
		}
		var keyed []string
		for _, row := range c.keyed {
			keyed = append(keyed, row)
		}
		slices.Sort(keyed)
		if !slices.Equal(keyed, out) {
			c.t.Errorf("output %s's upsert key (columns %v) is no key: its changelog applied by the key gives\n%v\napplied as retractions\n%v", c.out, c.key, keyed, out)
		}
	}
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
		pushed := make([][]any, len(in))
		for i, r := range in {
			pushed[i] = []any{r.k, r.v}
		}
		for _, mini := range []string{"false", "true"} {
			got := pushedChangelog(t, `CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector' = 'go'); SET 'table.exec.mini-batch.enabled' = '`+mini+`';`,
				`SELECT k, COUNT(*) AS n, SUM(v) AS s FROM ev GROUP BY k HAVING COUNT(*) > 1;`, pushed)
			ctx := context.Background()
			if !slices.Equal(got, want) {
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
			c := &changelog{t: t, rows: map[string]int{}, out: "main"}
			s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: c.on})
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
// joins of two bounded files (SPEC 2.7, 2.8), and of a COUNT/SUM/MIN/MAX
// over a FULL join (an aggregate that retracts), applied in order, gives what a
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
			// and MIN, MAX keep their values (SPEC 2.8)
			cnt, sum := map[string]int64{}, map[string]int64{}
			mins, maxs := map[string]int64{}, map[string]int64{}
			for _, w := range want {
				f := strings.Split(w, "|")
				cnt[f[0]]++
				if f[3] != nul {
					var x int64
					fmt.Sscan(f[3], &x)
					sum[f[0]] += x
					if m, ok := mins[f[0]]; !ok || x < m {
						mins[f[0]] = x
					}
					if m, ok := maxs[f[0]]; !ok || x > m {
						maxs[f[0]] = x
					}
				}
			}
			var wantAgg []string
			for k := range cnt {
				mn, mx := nul, nul
				if m, ok := mins[k]; ok {
					mn, mx = fmt.Sprint(m), fmt.Sprint(maxs[k])
				}
				wantAgg = append(wantAgg, fmt.Sprintf("%s|%d|%d|%s|%s", k, cnt[k], sum[k], mn, mx))
			}
			slices.Sort(wantAgg)
			gotAgg := runJoinChangelog(t, dir, "SELECT l.id, COUNT(*) AS n, COALESCE(SUM(r.v), 0) AS s, MIN(r.v) AS mn, MAX(r.v) AS mx FROM l FULL JOIN r ON l.id = r.id GROUP BY l.id;")
			if !slices.Equal(gotAgg, wantAgg) {
				t.Fatalf("round %d aggregate over FULL JOIN: the changelog applied gives\n%v\nthe reference\n%v", round, gotAgg, wantAgg)
			}
		}
	}
}

// pushedChangelog runs query in a session where setup declared the 'go'
// stream ev, pushes rows into ev from Go (batch sizes follow the pushes'
// timing), ends it, and returns the main output's changelog applied.
func pushedChangelog(t *testing.T, setup, query string, rows [][]any) []string {
	t.Helper()
	table, _ := keyedChangelog(t, setup, "ev", query, rows)
	return table
}

// pushedChangelogTo is pushedChangelog into the 'go' stream named stream.
func pushedChangelogTo(t *testing.T, setup, stream, query string, rows [][]any) []string {
	t.Helper()
	table, _ := keyedChangelog(t, setup, stream, query, rows)
	return table
}

// keyedChangelog is pushedChangelogTo that also returns the names of the
// main output's upsert key (nil: none), by which the changelog applier
// checks the rows apply as they do as retractions (changelog).
func keyedChangelog(t *testing.T, setup, stream, query string, rows [][]any) (table, key []string) {
	t.Helper()
	c := &changelog{t: t, rows: map[string]int{}, out: "main", expires: strings.Contains(setup, "table.exec.state.ttl")}
	on := func(out streamql.Output, r *streamql.Rows) error {
		if out.Name == "main" && key == nil {
			for _, k := range out.UpsertKey {
				key = append(key, out.Columns[k].Name)
			}
		}
		return c.on(out, r)
	}
	runPushed(t, on, setup, stream, query, rows)
	return c.final(), key
}

// runPushed runs query in a session whose rows go to on, where setup
// declared the 'go' stream named stream: it pushes rows into the stream
// from Go (batch sizes follow the pushes' timing), ends it, and waits for
// the query. Any error fails the test.
func runPushed(t *testing.T, on func(streamql.Output, *streamql.Rows) error, setup, stream, query string, rows [][]any) {
	t.Helper()
	s, err := streamql.Open(streamql.Options{OnRows: on})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Exec(ctx, setup); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Exec(ctx, query) }()
	for _, r := range rows {
		if err := s.Push(ctx, stream, r...); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CloseStream(stream); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// keyedCDC returns a Debezium change log (one JSON envelope a line, the
// columns k, the table's key, and v) of n random changes, the ith to the
// key key() gives with the value val(i): a create when the key has no row,
// else a delete (one in four) or an update; and the table it leaves.
func keyedCDC(rng *rand.Rand, n int, key func() string, val func(i int) int64) (string, map[string]int64) {
	live := map[string]int64{}
	var sb strings.Builder
	for i := range n {
		k, v := key(), val(i)
		old, ok := live[k]
		switch {
		case !ok:
			fmt.Fprintf(&sb, `{"before":null,"after":{"k":%q,"v":%d},"op":"c"}`+"\n", k, v)
			live[k] = v
		case rng.Intn(4) == 0:
			fmt.Fprintf(&sb, `{"before":{"k":%q,"v":%d},"after":null,"op":"d"}`+"\n", k, old)
			delete(live, k)
		default:
			fmt.Fprintf(&sb, `{"before":{"k":%q,"v":%d},"after":{"k":%q,"v":%d},"op":"u"}`+"\n", k, old, k, v)
			live[k] = v
		}
	}
	return sb.String(), live
}

// cdcRow is one row of randomCDC's table (besides its id): a group or key
// k and a value v.
type cdcRow struct {
	k string
	v int64
}

// randomCDC returns a Debezium change log (one JSON envelope a line, the
// columns id, k and v) of n random changes to a table keyed by id: half
// the changes (and every change while the table is empty) create a row
// row() gives, three in ten update a random live row to row()'s value,
// keeping its k unless move() says to take row()'s, and the others delete
// a random live row. Each change also goes to apply, before nil for a
// create and after nil for a delete, for a test's reference.
func randomCDC(rng *rand.Rand, n int, row func() cdcRow, move func() bool, apply func(before, after *cdcRow)) string {
	table := map[int]cdcRow{}
	var ids []int
	var sb strings.Builder
	next := 0
	for ; n > 0; n-- {
		r := row()
		switch op := rng.Intn(10); {
		case op < 5 || len(ids) == 0:
			next++
			table[next] = r
			ids = append(ids, next)
			fmt.Fprintf(&sb, `{"before":null,"after":{"id":%d,"k":"%s","v":%d},"op":"c"}`+"\n", next, r.k, r.v)
			apply(nil, &r)
		case op < 8:
			id := ids[rng.Intn(len(ids))]
			old := table[id]
			if !move() {
				r.k = old.k
			}
			table[id] = r
			fmt.Fprintf(&sb, `{"before":{"id":%d,"k":"%s","v":%d},"after":{"id":%d,"k":"%s","v":%d},"op":"u"}`+"\n", id, old.k, old.v, id, r.k, r.v)
			apply(&old, &r)
		default:
			at := rng.Intn(len(ids))
			id := ids[at]
			ids = slices.Delete(ids, at, at+1)
			old := table[id]
			delete(table, id)
			fmt.Fprintf(&sb, `{"before":{"id":%d,"k":"%s","v":%d},"after":null,"op":"d"}`+"\n", id, old.k, old.v)
			apply(&old, nil)
		}
	}
	return sb.String()
}

func runJoinChangelog(t *testing.T, dir, query string) []string {
	t.Helper()
	return dirChangelog(t, dir, `
CREATE STREAM l (id BIGINT, v BIGINT) WITH ('connector' = 'file', 'path' = 'l.csv', 'format' = 'csv');
CREATE STREAM r (id BIGINT, v BIGINT) WITH ('connector' = 'file', 'path' = 'r.csv', 'format' = 'csv');
`+query)
}

// dirChangelog runs script in a session over the files of dir and returns
// the table its main output's changelog leaves (changelog.final).
func dirChangelog(t *testing.T, dir, script string) []string {
	t.Helper()
	table, _ := dirKeyedChangelog(t, dir, script)
	return table
}

// dirKeyedChangelog is dirChangelog that also returns the main output's
// upsert key (Output.UpsertKey, nil: none), by which the changelog applier
// checks the rows apply as they do as retractions (changelog).
func dirKeyedChangelog(t *testing.T, dir, script string) (table []string, key []int) {
	t.Helper()
	c := &changelog{t: t, rows: map[string]int{}, out: "main"}
	s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: func(out streamql.Output, rows *streamql.Rows) error {
		if out.Name == "main" {
			key = out.UpsertKey
		}
		return c.on(out, rows)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(context.Background(), script); err != nil {
		t.Fatal(err)
	}
	return c.final(), key
}

// TestChangelogKeptValuesProperty: MIN, MAX, FIRST_VALUE, LAST_VALUE,
// LISTAGG and COUNT(DISTINCT) over an updating input (SPEC 2.8: they keep
// the values they need), a Debezium change log of random inserts, updates
// (which may move a row to another group) and deletes, with and without
// mini-batch: the output's changelog applied gives what a separately
// written reference gives. The reference replays the input's changes into a
// list of values per group (an insert or an update's new row appends its
// value, a delete or an update's old row removes the earliest equal value,
// as Flink's retracting FIRST_VALUE, LAST_VALUE and LISTAGG do) and
// computes each group's result from its list at the end.
func TestChangelogKeptValuesProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	dir := t.TempDir()
	for round := 0; round < 16; round++ {
		lists := map[string][]int64{} // the reference's lists
		keys, vals := 1+rng.Intn(6), 1+rng.Intn(20)
		log := randomCDC(rng, rng.Intn(400),
			func() cdcRow { return cdcRow{fmt.Sprintf("k%d", rng.Intn(keys)), rng.Int63n(int64(vals)) - 5} },
			func() bool { return rng.Intn(3) == 0 }, // (most updates stay in their group)
			func(before, after *cdcRow) {
				if before != nil {
					l := lists[before.k]
					if at := slices.Index(l, before.v); at >= 0 {
						lists[before.k] = slices.Delete(l, at, at+1)
					}
				}
				if after != nil {
					lists[after.k] = append(lists[after.k], after.v)
				}
			})
		var want []string
		for k, l := range lists {
			if len(l) == 0 {
				continue
			}
			s := slices.Clone(l)
			slices.Sort(s)
			var text []string
			for _, v := range l {
				text = append(text, fmt.Sprint(v))
			}
			mn, mx := s[0], s[len(s)-1]
			distinct := len(slices.Compact(s))
			want = append(want, fmt.Sprintf("%s|%d|%d|%d|%d|%s|%d|%d", k, mn, mx, l[0], l[len(l)-1], strings.Join(text, ";"), distinct, len(l)))
		}
		slices.Sort(want)
		if err := os.WriteFile(filepath.Join(dir, "p.json"), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mini := range []string{"false", "true"} {
			got := dirChangelog(t, dir, `SET 'table.exec.mini-batch.enabled' = '`+mini+`';
CREATE STREAM p (id BIGINT, k VARCHAR, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'file', 'path' = 'p.json', 'format' = 'debezium-json');
SELECT k, MIN(v) AS mn, MAX(v) AS mx, FIRST_VALUE(v) AS f, LAST_VALUE(v) AS l, LISTAGG(CAST(v AS VARCHAR), ';') AS la,
       COUNT(DISTINCT v) AS d, COUNT(*) AS n FROM p GROUP BY k;`)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d (mini-batch %s): the changelog applied gives\n%v\nthe reference\n%v\ninput:\n%s", round, mini, got, want, log)
			}
		}
	}
}

// TestChangelogOrderByLimitProperty: ORDER BY x [DESC] LIMIT n over an
// unbounded stream is a Top-N over the whole stream (SPEC 2.9), updating:
// its changelog applied gives the first n rows of a stable sort of the
// whole input (ties in arrival order), over random inputs pushed from Go.
func TestChangelogOrderByLimitProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(29))
	for round := 0; round < 10; round++ {
		type row struct {
			k string
			v int64
		}
		in := make([]row, rng.Intn(2000))
		for i := range in {
			in[i] = row{fmt.Sprintf("r%d", i), rng.Int63n(int64(1 + rng.Intn(200)))}
		}
		limit := rng.Intn(12)
		desc := rng.Intn(2) == 0
		sorted := slices.Clone(in)
		slices.SortStableFunc(sorted, func(a, b row) int {
			if desc {
				return int(b.v - a.v)
			}
			return int(a.v - b.v)
		})
		var want []string
		for _, r := range sorted[:min(limit, len(sorted))] {
			want = append(want, fmt.Sprintf("%s|%d", r.k, r.v))
		}
		slices.Sort(want)
		order := "v"
		if desc {
			order = "v DESC"
		}
		pushed := make([][]any, len(in))
		for i, r := range in {
			pushed[i] = []any{r.k, r.v}
		}
		got := pushedChangelog(t, `CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector' = 'go');`, fmt.Sprintf(`SELECT k, v FROM ev ORDER BY %s LIMIT %d;`, order, limit), pushed)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (ORDER BY %s LIMIT %d, %d rows): the changelog applied gives\n%v\nthe sorted input's first rows\n%v", round, order, limit, len(in), got, want)
		}
	}
}

// TestChangelogStateTTLProperty: 'table.exec.state.ttl' on an unbounded
// GROUP BY over a stream with event time (SPEC 2.8; the watermark is the
// clock): the changelog applied gives what a reference gives that replays
// the rows with SPEC 2.3's watermark (before each row: the largest ts -
// delay of the rows before it) and drops a key's count when the watermark
// before its row is the TTL past the watermark of the key's last change
// (for rows before the first watermark, the first watermark), as Flink's
// TTL drops state without a change: the key's old row stays in the
// changelog and its new count starts with +I. Random inputs, with and
// without mini-batch.
func TestChangelogStateTTLProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	const delay = 10
	for round := 0; round < 12; round++ {
		ttl := int64(20 + rng.Intn(200))
		type row struct {
			k  string
			ts int64
		}
		in := make([]row, 1+rng.Intn(1500))
		ts := int64(1000)
		for i := range in {
			ts += rng.Int63n(6)
			in[i] = row{fmt.Sprintf("k%d", rng.Intn(1+rng.Intn(30))), ts - rng.Int63n(15)}
		}
		// the reference
		type grp struct{ n, touched int64 }
		live := map[string]*grp{}
		var done []string // the final rows of expired keys
		wm, wmSet := int64(0), false
		first, firstSet := int64(0), false
		for _, r := range in {
			stamp := wm
			if wmSet && !firstSet {
				first, firstSet = wm, true
			}
			g := live[r.k]
			if g != nil && wmSet {
				touched := g.touched
				if touched == math.MinInt64 {
					touched = first
				}
				if wm-touched >= ttl {
					done = append(done, fmt.Sprintf("%s|%d", r.k, g.n))
					g = nil
				}
			}
			if g == nil {
				g = &grp{}
				live[r.k] = g
			}
			g.n++
			g.touched = stamp
			if !wmSet {
				g.touched = math.MinInt64
			}
			if w := r.ts - delay; !wmSet || w > wm {
				wm, wmSet = w, true
			}
		}
		want := done
		for k, g := range live {
			want = append(want, fmt.Sprintf("%s|%d", k, g.n))
		}
		slices.Sort(want)
		pushed := make([][]any, len(in))
		for i, r := range in {
			pushed[i] = []any{r.k, r.ts}
		}
		// the same keys as BIGINTs (k7 as 7: the typed index of an integer key)
		wantInt := make([]string, len(want))
		for i, w := range want {
			wantInt[i] = strings.TrimPrefix(w, "k")
		}
		slices.Sort(wantInt)
		for run := 0; run < 4; run++ {
			mini := []string{"false", "true"}[run%2]
			query, want := `SELECT k, COUNT(*) AS n FROM ev GROUP BY k;`, want
			if run >= 2 {
				query, want = `SELECT CAST(SUBSTRING(k, 2) AS BIGINT) AS k, COUNT(*) AS n FROM ev GROUP BY CAST(SUBSTRING(k, 2) AS BIGINT);`, wantInt
			}
			got := pushedChangelog(t, fmt.Sprintf(`CREATE STREAM ev (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.010' SECOND) WITH ('connector' = 'go');
SET 'table.exec.mini-batch.enabled' = '%s'; SET 'table.exec.state.ttl' = '%d ms';`, mini, ttl), query, pushed)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d (TTL %d ms, mini-batch %s, %d rows, %s): the changelog applied gives\n%v\nthe reference\n%v", round, ttl, mini, len(in), query, got, want)
			}
		}
	}
}

// TestChangelogFileSinksRoundTrip: a file sink of an updating query holds
// its changelog (SPEC 2.8): a csv or json stream whose first column is op
// gets each row's kind there, a debezium-json stream Debezium's envelope.
// Each file, written by the job and read back by another (the op files as
// plain rows applied by their op, the Debezium file as a changelog), gives
// the table a separately written GROUP BY of the whole input gives, over
// random inputs; an append-only query into an op sink writes +I rows.
func TestChangelogFileSinksRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	dir := t.TempDir()
	for round := 0; round < 8; round++ {
		var sb strings.Builder
		cnt, sum := map[string]int64{}, map[string]int64{}
		for n := 1 + rng.Intn(500); n > 0; n-- {
			k, v := fmt.Sprintf("k%d", rng.Intn(1+rng.Intn(20))), rng.Int63n(100)-20
			fmt.Fprintf(&sb, "%s,%d\n", k, v)
			cnt[k]++
			sum[k] += v
		}
		var want []string
		for k := range cnt {
			want = append(want, fmt.Sprintf("%s|%d|%d", k, cnt[k], sum[k]))
		}
		slices.Sort(want)
		if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: func(streamql.Output, *streamql.Rows) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Exec(ctx, `SET 'execution.runtime-mode' = 'streaming';
CREATE STREAM s (k VARCHAR, v BIGINT) WITH ('connector' = 'file', 'path' = 's.csv', 'format' = 'csv');
CREATE STREAM oc (op VARCHAR, k VARCHAR, n BIGINT, total BIGINT) WITH ('connector' = 'file', 'path' = 'o.csv', 'format' = 'csv');
CREATE STREAM oj (op VARCHAR, k VARCHAR, n BIGINT, total BIGINT) WITH ('connector' = 'file', 'path' = 'o.json', 'format' = 'json');
CREATE STREAM od (k VARCHAR, n BIGINT, total BIGINT) WITH ('connector' = 'file', 'path' = 'od.json', 'format' = 'debezium-json');
CREATE STREAM oa (op VARCHAR, k VARCHAR, v BIGINT) WITH ('connector' = 'file', 'path' = 'oa.csv', 'format' = 'csv');
INSERT INTO oc SELECT k, COUNT(*), SUM(v) FROM s GROUP BY k;
INSERT INTO oj SELECT k, COUNT(*), SUM(v) FROM s GROUP BY k;
INSERT INTO od SELECT k, COUNT(*), SUM(v) FROM s GROUP BY k;
INSERT INTO oa SELECT k, v FROM s;`)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"o.csv", "o.json"} {
			format := strings.TrimPrefix(filepath.Ext(f), ".")
			c := &changelog{t: t, rows: map[string]int{}, out: "main"}
			var ops []string
			r, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: func(out streamql.Output, rows *streamql.Rows) error {
				for i := 0; i < rows.Len(); i++ {
					key := fmt.Sprintf("%v|%v|%v", rows.Value(1, i), rows.Value(2, i), rows.Value(3, i))
					op := fmt.Sprint(rows.Value(0, i))
					ops = append(ops, op)
					switch op {
					case "+I", "+U":
						c.rows[key]++
					case "-U", "-D":
						if c.rows[key]--; c.rows[key] == 0 {
							delete(c.rows, key)
						}
					default:
						t.Errorf("%s: op %q", f, op)
					}
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Exec(ctx, `CREATE STREAM back (op VARCHAR, k VARCHAR, n BIGINT, total BIGINT) WITH ('connector' = 'file', 'path' = '`+f+`', 'format' = '`+format+`'`+map[bool]string{true: ", 'csv.header' = 'true'"}[format == "csv"]+`);
SELECT * FROM back;`); err != nil {
				t.Fatal(err)
			}
			if got := c.final(); !slices.Equal(got, want) {
				t.Fatalf("round %d: %s read back and applied gives\n%v\nthe reference\n%v", round, f, got, want)
			}
			if !slices.Contains(ops, "-U") && slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(w, "|1|") }) {
				t.Fatalf("round %d: %s holds no -U", round, f)
			}
		}
		c := &changelog{t: t, rows: map[string]int{}, out: "main"}
		r, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: c.on})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Exec(ctx, `CREATE STREAM back (k VARCHAR, n BIGINT, total BIGINT) WITH ('connector' = 'file', 'path' = 'od.json', 'format' = 'debezium-json');
SELECT * FROM back;`); err != nil {
			t.Fatal(err)
		}
		if got := c.final(); !slices.Equal(got, want) {
			t.Fatalf("round %d: od.json (debezium-json) read back gives\n%v\nthe reference\n%v", round, got, want)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "oa.csv"))
		if err != nil {
			t.Fatal(err)
		}
		wantA := "op,k,v\n" + regexp.MustCompile(`(?m)^`).ReplaceAllString(strings.TrimSuffix(sb.String(), "\n"), "+I,") + "\n"
		if string(raw) != wantA {
			t.Fatalf("round %d: an append-only query into an op sink wrote\n%s\nwant\n%s", round, raw, wantA)
		}
	}
}

// TestChangelogTopNOverGroupByProperty (SPEC 2.8, 2.9): a Top-N over an
// unbounded GROUP BY, whose input's -U and -D rows take rows back
// (op.RetractTopN), with and without PARTITION BY and the rank column, in
// both directions (an ascending count's group leaves the top as it grows),
// over random inputs pushed from Go: its changelog applied in order gives
// the table a separately written batch computation gives (count each group
// over the whole input, rank the groups, keep the top ones).
func TestChangelogTopNOverGroupByProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := 0; round < 16; round++ {
		n, keys, top := 1+rng.Intn(2000), 1+rng.Intn(30), 1+rng.Intn(4)
		desc, parted, rankCol := rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0
		in := make([][]any, n)
		cnt, seen := map[string]int64{}, map[string]int{}
		for i := range in {
			k := fmt.Sprintf("k%d", rng.Intn(keys))
			in[i] = []any{k, int64(i)}
			cnt[k]++
			seen[k] = i // (the group's last change: ties go in the order of those)
		}
		// the reference: group, then rank each partition's groups (by the
		// count, ties in the order of the groups' last changes; the
		// partition is the key's length)
		byPart := map[int][]string{}
		for k := range cnt {
			p := 0
			if parted {
				p = len(k)
			}
			byPart[p] = append(byPart[p], k)
		}
		var want []string
		for _, ks := range byPart {
			slices.SortFunc(ks, func(a, b string) int {
				c := cmp.Compare(cnt[a], cnt[b])
				if desc {
					c = -c
				}
				if c != 0 {
					return c
				}
				return cmp.Compare(seen[a], seen[b])
			})
			for j, k := range ks[:min(top, len(ks))] {
				row := fmt.Sprintf("%s|%d", k, cnt[k])
				if rankCol {
					row += fmt.Sprintf("|%d", j+1)
				}
				want = append(want, row)
			}
		}
		slices.Sort(want)
		dir, part, rn := "ASC", "", ""
		if desc {
			dir = "DESC"
		}
		if parted {
			part = "PARTITION BY CHAR_LENGTH(k) "
		}
		if rankCol {
			rn = ", rn"
		}
		q := fmt.Sprintf("SELECT k, c%s FROM (SELECT k, c, ROW_NUMBER() OVER (%sORDER BY c %s) AS rn FROM (SELECT k, COUNT(*) AS c FROM ev GROUP BY k)) WHERE rn <= %d;", rn, part, dir, top)
		got := pushedChangelog(t, `CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector' = 'go');`, q, in)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (%d rows, %d keys): %s\nthe changelog applied gives\n%v\nthe batch reference\n%v", round, n, keys, q, got, want)
		}
	}
}

// TestTopNOverUpdatingInputExplainsTTL: EXPLAIN of a Top-N over an
// unbounded GROUP BY (op.RetractTopN) with 'table.exec.state.ttl' says its
// partitions are dropped after the TTL, as the Top-N over an append-only
// input's does (it said the TTL did not apply to it, before the operator
// honoured it), and says nothing of a TTL without one.
func TestTopNOverUpdatingInputExplainsTTL(t *testing.T) {
	const query = `CREATE STREAM g (k BIGINT, v BIGINT) WITH ('connector'='datagen');
EXPLAIN SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn FROM (SELECT k, COUNT(*) AS n FROM g GROUP BY k)) WHERE rn <= 3;`
	text := strings.Join(runSQL(t, "SET 'table.exec.state.ttl' = '1 h';\n"+query), "\n")
	if !strings.Contains(text, "every live row of its input") || !strings.Contains(text, "dropped 1 h after its key's last change ('table.exec.state.ttl')") || strings.Contains(text, "does not apply") {
		t.Errorf("EXPLAIN with a TTL:\n%s", text)
	}
	if text := strings.Join(runSQL(t, query), "\n"); strings.Contains(text, "table.exec.state.ttl") {
		t.Errorf("EXPLAIN without a TTL mentions it:\n%s", text)
	}
}

// TestChangelogTopNOverCDCFileProperty (SPEC 2.8, 2.9): a Top-N over a
// Debezium file (rows created, updated and deleted) gives, read whole
// (the final result at its end) and in 'execution.runtime-mode' =
// 'streaming' (its changelog applied), the top rows of the table the file
// leaves, by a batch computation over it. (Read whole, the deletes and the
// old rows of updates were ranked as inserts.)
func TestChangelogTopNOverCDCFileProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for round := 0; round < 10; round++ {
		vals := rng.Perm(100000) // (distinct values: no ties)
		log, live := keyedCDC(rng, 1+rng.Intn(300), func() string { return fmt.Sprintf("k%d", rng.Intn(20)) }, func(i int) int64 { return int64(vals[i]) })
		n := 1 + rng.Intn(4)
		var ks []string
		for k := range live {
			ks = append(ks, k)
		}
		slices.SortFunc(ks, func(a, b string) int { return cmp.Compare(live[b], live[a]) })
		var want []string
		for _, k := range ks[:min(n, len(ks))] {
			want = append(want, fmt.Sprintf("%s|%d", k, live[k]))
		}
		slices.Sort(want)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"batch", "streaming"} {
			got := dirChangelog(t, dir, fmt.Sprintf(`SET 'execution.runtime-mode' = '%s';
CREATE STREAM c (k VARCHAR, v BIGINT) WITH ('connector' = 'file', 'path' = 'c.json', 'format' = 'debezium-json');
SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (ORDER BY v DESC) AS rn FROM c) WHERE rn <= %d;`, mode, n))
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, %s: the result\n%v\nthe table the file leaves, ranked\n%v", round, mode, got, want)
			}
		}
	}
}
