package executor

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"streamql/catalog/textconv"
)

// TestWindowAggregatesOverPaddedColumns (SPEC 2.4: NULL arguments are
// skipped, and over no non-NULL value COUNT gives 0 and the others NULL;
// SPEC 2.7: an outer join pads the missing side with NULL): MAX, MIN, SUM,
// AVG, COUNT, FIRST_VALUE and LAST_VALUE of the padded column of a relation
// (a WITH relation, read as a job of its own) that is a LEFT interval, LEFT
// temporal or LEFT lookup join of two streams, per TUMBLE, HOP and SESSION
// window and in an updating GROUP BY (its final table, SPEC 2.8), of a
// RIGHT interval join (whose output keeps the right side's time, SPEC 2.6)
// likewise, and of a FULL interval join in an updating GROUP BY (its
// output has no event time for a window, SPEC 2.7), give, over random inputs in two
// partitions and random batches, the groups a reference computes apart: a
// nested-loop join over the whole inputs, then the windows and groups over
// all joined rows. A group whose rows are all padded gives NULL, not 0 nor
// another group's value: the test sink prints the NULL flag, not the value
// behind it (orderSink; replay11's "MAX = 4621 in one job, 0 read apart"
// over a LEFT temporal join was that value, which differs from plan to
// plan, both NULL). 15 seeds per query (4 with -short).
func TestWindowAggregatesOverPaddedColumns(t *testing.T) {
	const aggs = pnAggs
	windows := append(pnWindows[:len(pnWindows):len(pnWindows)], pnTVF{"", pnWindow{kind: "none"}}) // (an updating GROUP BY k: its final table, SPEC 2.8)
	seeds := int64(15)
	if testing.Short() {
		seeds = 4
	}
	for _, j := range pnJoins {
		for _, w := range windows {
			if w.w.kind != "none" && j.kind == pnFullInterval {
				continue // (no event time: a FULL interval join's padded rows have none on one side, SPEC 2.7)
			}
			q := "WITH j AS (" + j.rel + ") SELECT window_start, window_end, k, " + aggs +
				" FROM TABLE(" + w.tvf + ") GROUP BY window_start, window_end, k"
			if w.w.kind == "none" {
				q = "WITH j AS (" + j.rel + ") SELECT k, " + aggs + " FROM j GROUP BY k"
			}
			padded := 0
			for seed := int64(1); seed <= seeds; seed++ {
				padded += pnCheck(t, j.name, q, j.kind, w.w, seed, false)
			}
			if padded == 0 {
				t.Errorf("%s, %s: no group had only padded rows: the test checks nothing of them", j.name, w.w.kind)
			}
		}
	}
}

// TestGroupByPaddedColumn (SPEC 2.4: NULL keys form one group; SPEC 2.7's
// padding): grouping by the padded column of an outer join (a WITH
// relation read as a job of its own), per TUMBLE window for the LEFT
// joins and in an updating GROUP BY (its final table) for every join of
// TestWindowAggregatesOverPaddedColumns, puts every padded row in one
// NULL group per window (the RIGHT join's windows too), whatever values the vectors hold behind the
// NULL flags: the counts equal a nested-loop reference's over the whole
// inputs. 15 seeds per query (4 with -short).
func TestGroupByPaddedColumn(t *testing.T) {
	seeds := int64(15)
	if testing.Short() {
		seeds = 4
	}
	for _, j := range pnJoins {
		for _, w := range []pnWindow{{kind: "tumble", size: 2000}, {kind: "none"}} {
			q := "WITH j AS (" + j.rel + ") SELECT p AS k, COUNT(*) AS n FROM j GROUP BY p"
			if w.kind == "tumble" {
				if j.kind == pnFullInterval {
					continue // (no event time)
				}
				q = "WITH j AS (" + j.rel + ") SELECT window_start, window_end, p AS k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(t), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, p"
			}
			nulls := 0
			for seed := int64(1); seed <= seeds; seed++ {
				nulls += pnCheck(t, j.name, q, j.kind, w, seed, true)
			}
			if nulls == 0 {
				t.Errorf("%s, %s: no NULL group: the test checks nothing of them", j.name, w.kind)
			}
		}
	}
}

// pnAggs are the aggregates of the padded column p that
// TestWindowAggregatesOverPaddedColumns and TestWindowOverRightIntervalJoin
// compute per window (pnReference's columns).
const pnAggs = "COUNT(*) AS n, COUNT(p) AS c, MAX(p) AS mx, MIN(p) AS mn, SUM(p) AS s, AVG(p) AS a, FIRST_VALUE(p) AS f, LAST_VALUE(p) AS la"

// pnTVF is a window TVF over relation j's time t, as SQL and as the
// reference's window.
type pnTVF struct {
	tvf string
	w   pnWindow
}

// pnWindows are the windows of those tests: TUMBLE, HOP and SESSION.
var pnWindows = []pnTVF{
	{"TUMBLE(TABLE j, DESCRIPTOR(t), INTERVAL '2' SECOND)", pnWindow{kind: "tumble", size: 2000}},
	{"HOP(TABLE j, DESCRIPTOR(t), INTERVAL '1' SECOND, INTERVAL '3' SECOND)", pnWindow{kind: "hop", size: 3000, slide: 1000}},
	{"SESSION(TABLE j PARTITION BY k, DESCRIPTOR(t), INTERVAL '2' SECOND)", pnWindow{kind: "session", size: 2000}},
}

// pnWithin is the interval of pnJoins' interval joins (pnJoin's within).
const pnWithin = "l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts + INTERVAL '1' SECOND"

// pnJoins are the relations of TestWindowAggregatesOverPaddedColumns: a
// key k, a time t (the left side's, the right side's for RIGHT, none for FULL) and
// the padded column p.
var pnJoins = []struct {
	name, rel string
	kind      pnKind
}{
	{"left interval", "SELECT l.k AS k, l.ts AS t, r.ts AS p FROM l LEFT JOIN r ON " + pnWithin, pnLeftInterval},
	{"right interval", "SELECT r.k AS k, r.ts AS t, l.ts AS p FROM l RIGHT JOIN r ON " + pnWithin, pnRightInterval},
	{"full interval", "SELECT COALESCE(l.k, r.k) AS k, r.ts AS p FROM l FULL JOIN r ON " + pnWithin, pnFullInterval},
	{"left temporal", "SELECT l.k AS k, l.ts AS t, r.ts AS p FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k", pnLeftTemporal},
	{"left lookup", "SELECT l.k AS k, l.ts AS t, r.ts AS p FROM l LEFT JOIN r ON l.k = r.k", pnLeftLookup},
}

// pnKind is the join of a TestWindowAggregatesOverPaddedColumns relation.
type pnKind int

const (
	pnLeftInterval pnKind = iota
	pnRightInterval
	pnFullInterval
	pnLeftTemporal
	pnLeftLookup
)

// pnWindow is a window TVF of the reference: tumble (size), hop (size,
// slide) or session (gap = size, per k), sizes in milliseconds; or none
// (one group per key over the whole input).
type pnWindow struct {
	kind        string
	size, slide int64
}

// pnJoined is a row of the reference's joined relation: the key, the time
// (the window's column) and the padded column p (pNull when padded).
type pnJoined struct {
	k     string
	t, p  int64
	pNull bool
}

// pnInput returns random rows of one input in two partitions (key ki in
// partition i mod 2), times rising by up to 1.5 s per partition and never
// going back (no row is late for the join or the window, so the reference
// needs no watermark), unique over both inputs (used), keys from keys.
func pnInput(rng *rand.Rand, n int, keys []int, used map[int64]bool) [][]replayRow {
	parts := make([][]replayRow, 2)
	ts := [2]int64{int64(rng.Intn(3000)), int64(rng.Intn(3000))}
	for range n {
		k := keys[rng.Intn(len(keys))]
		p := k % 2
		ts[p] += 1 + int64(rng.Intn(1500))
		for used[ts[p]] {
			ts[p]++
		}
		used[ts[p]] = true
		parts[p] = append(parts[p], replayRow{int32(p), int64(len(parts[p])), fmt.Sprint("k", k), ts[p]})
	}
	return parts
}

// pnCheck runs q over the random inputs of seed and compares its main rows
// with pnReference's (pnByPadded's when byP: q groups by p); it returns how
// many groups had only padded rows (byP: how many NULL groups).
func pnCheck(t *testing.T, name, q string, kind pnKind, w pnWindow, seed int64, byP bool) int {
	t.Helper()
	return pnCheckWith(t, name, q, kind, func(l, r []replayRow) []pnJoined { return pnJoin(kind, l, r) }, w, seed, byP)
}

// pnCheckWith is pnCheck with the reference join ref (the joined rows of
// whole inputs l and r) in place of pnJoin's.
func pnCheckWith(t *testing.T, name, q string, kind pnKind, ref func(l, r []replayRow) []pnJoined, w pnWindow, seed int64, byP bool) int {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	used := map[int64]bool{}
	var parts [2][][]replayRow
	parts[0] = pnInput(rng, 20+rng.Intn(40), []int{0, 1, 2, 3}, used) // (k3 has no partner: padded on the left)
	parts[1] = pnInput(rng, 10+rng.Intn(30), []int{0, 1, 2, 4}, used) // (k4 has none: padded on the right)
	var l, r []replayRow
	for _, p := range parts[0] {
		l = append(l, p...)
	}
	for _, p := range parts[1] {
		r = append(r, p...)
	}

	rddl, viaJa := "", []string{"l", "r"}
	if kind == pnLeftLookup { // (a bounded right side: a file, read whole first)
		var sb strings.Builder
		for _, x := range r {
			fmt.Fprintf(&sb, "%s,%d\n", x.k, x.ts)
		}
		path := filepath.Join(t.TempDir(), "r.csv")
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		rddl, viaJa = `CREATE STREAM r (k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='`+path+`', 'format'='csv');`, viaJa[:1]
	}
	cat := jaApartCatalog(t, rddl)
	if kind == pnLeftTemporal {
		cat.Lookup("r").PrimaryKey = []string{"k"} // (the versioned side: SPEC 2.7)
	}
	out := jaRunWhole(t, q, cat, planWith(t, cat, q), parts, rand.New(rand.NewSource(seed)), w.kind == "none", viaJa...)
	var got, late []string
	table := map[string]string{} // (an updating query's final table by k: its changelog applied)
	for _, row := range out {
		v, ok := strings.CutPrefix(row, "main: ")
		switch {
		case !ok:
			late = append(late, row)
		case w.kind != "none":
			got = append(got, v)
		default:
			kind, vals, _ := strings.Cut(v, " ")
			k, _, _ := strings.Cut(vals, ",")
			if kind == "+I" || kind == "+U" {
				table[k] = vals
			} else {
				delete(table, k)
			}
		}
	}
	for _, v := range table {
		got = append(got, v)
	}
	want, allPadded := pnReference(ref(l, r), w)
	if byP {
		want, allPadded = pnByPadded(ref(l, r), w)
	}
	if len(late) != 0 {
		t.Errorf("%s, seed %d: late rows, none expected (no input row is late): %q", name, seed, late)
	}
	sort.Strings(got)
	if len(got) != len(want) {
		t.Fatalf("%s, seed %d: %s\n%d windows, want %d\ngot:\n%s\nwant:\n%s", name, seed, q, len(got), len(want), strings.Join(got, "\n"), pnShow(want))
	}
	for i, g := range got {
		if !want[i].matches(g) {
			t.Fatalf("%s, seed %d: %s\nwindow %s, want %s\ngot:\n%s\nwant:\n%s", name, seed, q, g, want[i], strings.Join(got, "\n"), pnShow(want))
		}
	}
	return allPadded
}

// pnJoin is the reference join: a nested loop over the whole inputs l and
// r. It returns the joined rows (key, time, padded column; a FULL join's
// key is either side's, its time none, its padded column r.ts).
func pnJoin(kind pnKind, l, r []replayRow) []pnJoined {
	within := func(a, b replayRow) bool { return a.k == b.k && a.ts >= b.ts-2000 && a.ts <= b.ts+1000 }
	var out []pnJoined
	switch kind {
	case pnLeftInterval, pnFullInterval, pnLeftLookup:
		for _, a := range l {
			n := 0
			for _, b := range r {
				if (kind == pnLeftLookup && a.k == b.k) || (kind != pnLeftLookup && within(a, b)) {
					out = append(out, pnJoined{k: a.k, t: a.ts, p: b.ts})
					n++
				}
			}
			if n == 0 {
				out = append(out, pnJoined{k: a.k, t: a.ts, pNull: true})
			}
		}
		if kind == pnFullInterval {
			for _, b := range r {
				if !slices.ContainsFunc(l, func(a replayRow) bool { return within(a, b) }) {
					out = append(out, pnJoined{k: b.k, p: b.ts})
				}
			}
		}
	case pnRightInterval:
		for _, b := range r {
			n := 0
			for _, a := range l {
				if within(a, b) {
					out = append(out, pnJoined{k: b.k, t: b.ts, p: a.ts})
					n++
				}
			}
			if n == 0 {
				out = append(out, pnJoined{k: b.k, t: b.ts, pNull: true})
			}
		}
	case pnLeftTemporal: // the version of r's key valid at l's time: the latest with r.ts <= l.ts
		for _, a := range l {
			v := pnJoined{k: a.k, t: a.ts, pNull: true}
			best := int64(-1 << 62)
			for _, b := range r {
				if b.k == a.k && b.ts <= a.ts && b.ts > best {
					best, v.p, v.pNull = b.ts, b.ts, false
				}
			}
			out = append(out, v)
		}
	}
	return out
}

// pnWant is a reference window: its printed columns up to AVG (fixed),
// and the values FIRST_VALUE and LAST_VALUE may take (the non-NULL values
// of the window: which is first in arrival order depends on when the join
// emits each row, which the reference does not model), or NULL.
type pnWant struct {
	fixed  string
	values map[string]bool // nil: FIRST_VALUE and LAST_VALUE are NULL
	bare   bool            // no FIRST_VALUE and LAST_VALUE: fixed is the row (pnByPadded)
}

func (w pnWant) String() string {
	if w.bare {
		return w.fixed
	}
	if w.values == nil {
		return w.fixed + ",NULL,NULL"
	}
	var vs []string
	for v := range w.values {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	return w.fixed + ",{" + strings.Join(vs, " ") + "}x2"
}

// matches reports whether an output row (printed by orderSink) is w.
func (w pnWant) matches(got string) bool {
	if w.bare {
		return got == w.fixed
	}
	f := strings.Split(got, ",")
	if len(f) < 2 || strings.Join(f[:len(f)-2], ",") != w.fixed {
		return false
	}
	for _, v := range f[len(f)-2:] {
		if w.values == nil && v != "NULL" || w.values != nil && !w.values[v] {
			return false
		}
	}
	return true
}

func pnShow(ws []pnWant) string {
	var s []string
	for _, w := range ws {
		s = append(s, w.String())
	}
	return strings.Join(s, "\n")
}

// pnReference assigns the joined rows to windows w over all rows at once
// and aggregates each (window, key) group as SPEC 2.4 says: NULLs skipped,
// COUNT 0 and the others NULL over no value, AVG the exact sum / count
// rounded once. It returns the groups sorted as printed, and how many of
// them hold only padded rows.
func pnReference(rows []pnJoined, w pnWindow) ([]pnWant, int) {
	type group struct {
		start, end int64
		k          string
	}
	members := map[group][]pnJoined{}
	floor := func(a, b int64) int64 {
		q := a / b
		if a%b != 0 && a < 0 {
			q--
		}
		return q * b
	}
	switch w.kind {
	case "none":
		for _, x := range rows {
			members[group{k: x.k}] = append(members[group{k: x.k}], x)
		}
	case "tumble":
		for _, x := range rows {
			s := floor(x.t, w.size)
			g := group{s, s + w.size, x.k}
			members[g] = append(members[g], x)
		}
	case "hop":
		for _, x := range rows {
			for s := floor(x.t, w.slide); s > x.t-w.size; s -= w.slide {
				g := group{s, s + w.size, x.k}
				members[g] = append(members[g], x)
			}
		}
	case "session": // per key: rows whose [t, t + gap) overlap or touch merge
		byKey := map[string][]pnJoined{}
		for _, x := range rows {
			byKey[x.k] = append(byKey[x.k], x)
		}
		for k, xs := range byKey {
			sort.SliceStable(xs, func(i, j int) bool { return xs[i].t < xs[j].t })
			for i := 0; i < len(xs); {
				start, end := xs[i].t, xs[i].t+w.size
				j := i
				for j < len(xs) && xs[j].t <= end {
					end = max(end, xs[j].t+w.size)
					j++
				}
				members[group{start, end, k}] = xs[i:j]
				i = j
			}
		}
	}
	var out []pnWant
	allPadded := 0
	for g, xs := range members {
		var c, sum int64
		mx, mn := int64(-1<<63), int64(1<<63-1)
		values := map[string]bool{}
		for _, x := range xs {
			if x.pNull {
				continue
			}
			c++
			sum += x.p
			mx, mn = max(mx, x.p), min(mn, x.p)
			values[strconv.FormatInt(x.p, 10)] = true
		}
		cols := []string{strconv.FormatInt(g.start, 10), strconv.FormatInt(g.end, 10), g.k, strconv.Itoa(len(xs)), strconv.FormatInt(c, 10)}
		if w.kind == "none" {
			cols = cols[2:]
		}
		if c == 0 {
			allPadded++
			cols = append(cols, "NULL", "NULL", "NULL", "NULL")
			values = nil
		} else {
			cols = append(cols, strconv.FormatInt(mx, 10), strconv.FormatInt(mn, 10), strconv.FormatInt(sum, 10),
				string(textconv.AppendDouble(nil, float64(sum)/float64(c))))
		}
		out = append(out, pnWant{fixed: strings.Join(cols, ","), values: values})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, allPadded
}

// pnByPadded is the reference of TestGroupByPaddedColumn: COUNT(*) per
// window w (tumble or none) and value of the padded column p, the padded
// rows one NULL group. It returns the groups sorted as printed, and how
// many are NULL groups.
func pnByPadded(rows []pnJoined, w pnWindow) ([]pnWant, int) {
	counts := map[string]int{}
	for _, x := range rows {
		key := "NULL"
		if !x.pNull {
			key = strconv.FormatInt(x.p, 10)
		}
		if w.kind == "tumble" {
			s := x.t - x.t%w.size // (times are positive: pnInput)
			key = fmt.Sprintf("%d,%d,%s", s, s+w.size, key)
		}
		counts[key]++
	}
	var out []pnWant
	nulls := 0
	for key, n := range counts {
		if strings.HasSuffix(key, "NULL") {
			nulls++
		}
		out = append(out, pnWant{fixed: key + "," + strconv.Itoa(n), bare: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].fixed < out[j].fixed })
	return out, nulls
}
