package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// nsrow is a row of the null-safe key tests' inputs: two key parts, id
// ("" is NULL: the files set 'csv.null-literal' to ”) and g (-1 is NULL),
// an event time in ms and a value that names the row.
type nsrow struct {
	id string
	g  int
	ts int64
	v  int
}

// nsFile renders rows as csv, NULLs as empty fields.
func nsFile(rows []nsrow) string {
	var sb strings.Builder
	for _, r := range rows {
		g := ""
		if r.g >= 0 {
			g = fmt.Sprint(r.g)
		}
		fmt.Fprintf(&sb, "%s,%s,%d,%d\n", r.id, g, r.ts, r.v)
	}
	return sb.String()
}

// nsGen returns n random rows whose key parts are NULL one time in four.
func nsGen(r *rand.Rand, n int) []nsrow {
	rows := make([]nsrow, n)
	for i := range rows {
		x := nsrow{id: fmt.Sprintf("k%d", r.IntN(3)), g: r.IntN(2), ts: int64(i*100) + r.Int64N(400), v: i}
		if r.IntN(4) == 0 {
			x.id = ""
		}
		if r.IntN(4) == 0 {
			x.g = -1
		}
		rows[i] = x
	}
	return rows
}

// nsPart reports whether key parts x and y (NULL when null) match: by =
// (SQL: a NULL matches nothing), or, when safe, by IS NOT DISTINCT FROM
// (NULL matches NULL only).
func nsPart(x, y string, xnull, ynull, safe bool) bool {
	if xnull || ynull {
		return safe && xnull && ynull
	}
	return x == y
}

// Key part modes of nsMatch: not a key part, compared by =, or by IS NOT
// DISTINCT FROM.
const (
	nsNone = iota
	nsEq
	nsSafe
)

// nsMatch is a join condition on the two key parts: mode[0] for id,
// mode[1] for g.
func nsMatch(mode [2]int) func(a, b nsrow) bool {
	return func(a, b nsrow) bool {
		if mode[0] != nsNone && !nsPart(a.id, b.id, a.id == "", b.id == "", mode[0] == nsSafe) {
			return false
		}
		return mode[1] == nsNone || nsPart(fmt.Sprint(a.g), fmt.Sprint(b.g), a.g < 0, b.g < 0, mode[1] == nsSafe)
	}
}

// nsReference is the join of l and r by nested loops over the whole inputs:
// the pairs match accepts (and, when interval, with b.ts - a.ts in
// [-300, 200]), then the outer sides' rows without a pair padded; as csv
// lines "a.v,b.v", sorted.
func nsReference(l, r []nsrow, kind string, interval bool, match func(a, b nsrow) bool) []string {
	var out []string
	lm, rm := make([]bool, len(l)), make([]bool, len(r))
	for i, a := range l {
		for k, b := range r {
			if !match(a, b) || interval && (b.ts-a.ts < -300 || b.ts-a.ts > 200) {
				continue
			}
			lm[i], rm[k] = true, true
			out = append(out, fmt.Sprintf("%d,%d", a.v, b.v))
		}
	}
	for i, a := range l {
		if !lm[i] && (kind == "LEFT" || kind == "FULL") {
			out = append(out, fmt.Sprintf("%d,", a.v))
		}
	}
	for k, b := range r {
		if !rm[k] && (kind == "RIGHT" || kind == "FULL") {
			out = append(out, fmt.Sprintf(",%d", b.v))
		}
	}
	slices.Sort(out)
	return out
}

const nsDDL = `CREATE STREAM l (id VARCHAR, g BIGINT, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv', 'csv.null-literal'='');
CREATE STREAM r (id VARCHAR, g BIGINT, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'csv.null-literal'='');
CREATE STREAM lb (id VARCHAR, g BIGINT, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='l.csv', 'format'='csv', 'csv.null-literal'='');
CREATE STREAM rb (id VARCHAR, g BIGINT, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'csv.null-literal'='');
`

// nsRun runs query over files and returns its rows (an updating result's
// final table), sorted.
func nsRun(t *testing.T, files map[string]string, query string) []string {
	t.Helper()
	out, errs, code := runSQL(t, files, nsDDL+query+";\n", "--format", "csv")
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", query, code, errs)
	}
	return finalRows(t, out)
}

// TestJoinNullSafeKeysAgainstReference: a key written a.k IS NOT DISTINCT
// FROM b.k (or a.k <=> b.k) joins NULL with NULL, as Flink's null-safe join
// key, while an = key's NULL matches nothing (SPEC 2.7), in every join kind
// with an equi-key (lookup, interval, regular; window and temporal below),
// every outer type, with one key or both kinds mixed, on a VARCHAR and a
// BIGINT key (whose hash is its value: a NULL must not join the value its
// mark hashes as), on random inputs with NULLs against a nested-loop
// reference.
func TestJoinNullSafeKeysAgainstReference(t *testing.T) {
	const bounds = " AND b.ts BETWEEN a.ts - 300 AND a.ts + 200"
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 16))
		l, rr := nsGen(r, 5+r.IntN(40)), nsGen(r, 5+r.IntN(40))
		files := map[string]string{"l.csv": nsFile(l), "r.csv": nsFile(rr)}
		for _, tc := range []struct {
			from     string // FROM ... ON, then the key condition
			on       string
			kind     string
			interval bool
			mode     [2]int // (nsMatch)
		}{
			// lookup (a bounded right side): both kinds mixed, one null-safe key of each type
			{"l a JOIN rb b ON ", "a.id IS NOT DISTINCT FROM b.id AND a.g = b.g", "INNER", false, [2]int{nsSafe, nsEq}},
			{"l a LEFT JOIN rb b ON ", "a.id = b.id AND a.g IS NOT DISTINCT FROM b.g", "LEFT", false, [2]int{nsEq, nsSafe}},
			{"lb a LEFT JOIN rb b ON ", "a.id <=> b.id", "LEFT", false, [2]int{nsSafe, nsNone}},
			{"lb a LEFT JOIN rb b ON ", "b.g <=> a.g", "LEFT", false, [2]int{nsNone, nsSafe}},
			{"lb a, rb b WHERE ", "a.id IS NOT DISTINCT FROM b.id AND a.g IS NOT DISTINCT FROM b.g", "INNER", false, [2]int{nsSafe, nsSafe}},
			// interval
			{"l a JOIN r b ON ", "a.id IS NOT DISTINCT FROM b.id AND a.g = b.g" + bounds, "INNER", true, [2]int{nsSafe, nsEq}},
			{"l a LEFT JOIN r b ON ", "a.g IS NOT DISTINCT FROM b.g" + bounds, "LEFT", true, [2]int{nsNone, nsSafe}},
			{"l a RIGHT JOIN r b ON ", "a.id = b.id AND a.g <=> b.g" + bounds, "RIGHT", true, [2]int{nsEq, nsSafe}},
			{"l a FULL JOIN r b ON ", "a.id <=> b.id AND a.g <=> b.g" + bounds, "FULL", true, [2]int{nsSafe, nsSafe}},
			// regular (updating when outer: the final table)
			{"lb a FULL JOIN rb b ON ", "a.id <=> b.id AND a.g = b.g", "FULL", false, [2]int{nsSafe, nsEq}},
			{"lb a RIGHT JOIN rb b ON ", "a.g IS NOT DISTINCT FROM b.g", "RIGHT", false, [2]int{nsNone, nsSafe}},
			{"l a LEFT JOIN r b ON ", "a.id IS NOT DISTINCT FROM b.id AND a.g IS NOT DISTINCT FROM b.g", "LEFT", false, [2]int{nsSafe, nsSafe}},
			{"l a FULL JOIN r b ON ", "a.id IS NOT DISTINCT FROM b.id", "FULL", false, [2]int{nsSafe, nsNone}},
		} {
			q := "SELECT a.v, b.v FROM " + tc.from + tc.on
			got := nsRun(t, files, q)
			want := nsReference(l, rr, tc.kind, tc.interval, nsMatch(tc.mode))
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, q, got, want)
			}
		}
	}
}

// TestWindowJoinNullSafeKeyAgainstReference: a window join (SPEC 2.7) of two
// TUMBLE aggregates grouped by key parts with NULLs (a GROUP BY's NULLs are
// one group) joins the NULL groups with each other on an IS NOT DISTINCT
// FROM key and not on an = key, for INNER, LEFT and FULL, mixed keys, against
// a reference that aggregates and joins the windows itself.
func TestWindowJoinNullSafeKeyAgainstReference(t *testing.T) {
	type grp struct {
		id string
		g  int
		ws int64
	}
	agg := func(rows []nsrow, sum bool) map[grp]int {
		m := map[grp]int{}
		for _, x := range rows {
			k := grp{x.id, x.g, x.ts / 1000 * 1000}
			if sum {
				m[k] += x.v
			} else {
				m[k]++
			}
		}
		return m
	}
	show := func(s string, null bool) string {
		if null {
			return ""
		}
		return s
	}
	for seed := range 10 {
		r := rand.New(rand.NewPCG(uint64(seed), 61))
		l, rr := nsGen(r, 5+r.IntN(50)), nsGen(r, 5+r.IntN(50))
		files := map[string]string{"l.csv": nsFile(l), "r.csv": nsFile(rr)}
		ca, sb := agg(l, false), agg(rr, true)
		for _, tc := range []struct {
			kind string
			on   string
			safe [2]bool
		}{
			{"INNER", "x.id IS NOT DISTINCT FROM y.id AND x.g = y.g", [2]bool{true, false}},
			{"LEFT", "x.id <=> y.id AND x.g <=> y.g", [2]bool{true, true}},
			{"FULL", "x.id = y.id AND x.g IS NOT DISTINCT FROM y.g", [2]bool{false, true}},
		} {
			match := func(a, b grp) bool {
				return a.ws == b.ws && nsPart(a.id, b.id, a.id == "", b.id == "", tc.safe[0]) && nsPart(fmt.Sprint(a.g), fmt.Sprint(b.g), a.g < 0, b.g < 0, tc.safe[1])
			}
			var want []string
			line := func(a grp, c int, hasA bool, b grp, s int, hasB bool) string {
				left, right := ",,,", ""
				if hasA {
					left = fmt.Sprintf("%s,%s,%d,%d", show(a.id, a.id == ""), show(fmt.Sprint(a.g), a.g < 0), a.ws, c)
				}
				if hasB {
					right = fmt.Sprint(s)
				}
				return left + "," + right
			}
			usedB := map[grp]bool{}
			for a, c := range ca {
				found := false
				for b, s := range sb {
					if match(a, b) {
						found, usedB[b] = true, true
						want = append(want, line(a, c, true, b, s, true))
					}
				}
				if !found && tc.kind != "INNER" {
					want = append(want, line(a, c, true, grp{}, 0, false))
				}
			}
			if tc.kind == "FULL" {
				for b, s := range sb {
					if !usedB[b] {
						want = append(want, line(grp{}, 0, false, b, s, true))
					}
				}
			}
			slices.Sort(want)
			q := fmt.Sprintf(`SELECT x.id, x.g, x.window_start, x.c, y.s FROM
  (SELECT id, g, COUNT(*) AS c, window_start, window_end FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY id, g, window_start, window_end) x
  %s JOIN
  (SELECT id, g, SUM(v) AS s, window_start, window_end FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY id, g, window_start, window_end) y
  ON %s AND x.window_start = y.window_start AND x.window_end = y.window_end`, tc.kind, tc.on)
			got := nsRun(t, files, q)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s window join ON %s:\n got %q\nwant %q", seed, tc.kind, tc.on, got, want)
			}
		}
	}
}

// TestTemporalJoinNullSafeKeyAgainstReference: a temporal join (SPEC 2.7)
// on o.id IS NOT DISTINCT FROM x.id gives an order whose id is NULL the
// version of the NULL key valid at its time, where o.id = x.id gives it
// none; the others as =; a two-column PRIMARY KEY mixes both kinds.
// Against a reference over the whole inputs (no row is late: the
// watermark delay is above the disorder).
func TestTemporalJoinNullSafeKeyAgainstReference(t *testing.T) {
	for seed := range 10 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		orders, rates := nsGen(r, 1+r.IntN(50)), nsGen(r, 1+r.IntN(30))
		files := map[string]string{"l.csv": nsFile(orders), "r.csv": nsFile(rates)}
		for _, kind := range []string{"JOIN", "LEFT JOIN"} {
			for _, k := range []struct {
				pk, on string
				mode   [2]int
			}{
				{"id", "o.id IS NOT DISTINCT FROM x.id", [2]int{nsSafe, nsNone}},
				{"id", "o.id = x.id", [2]int{nsEq, nsNone}},
				{"id, g", "o.id = x.id AND o.g <=> x.g", [2]int{nsEq, nsSafe}},
				{"id, g", "o.id <=> x.id AND o.g = x.g", [2]int{nsSafe, nsEq}},
			} {
				match := nsMatch(k.mode)
				var want []string
				for _, o := range orders {
					valid := -1
					for i, x := range rates {
						if match(o, x) && x.ts <= o.ts && (valid < 0 || x.ts >= rates[valid].ts) {
							valid = i
						}
					}
					switch {
					case valid >= 0:
						want = append(want, fmt.Sprintf("%d,%d", o.v, rates[valid].v))
					case kind == "LEFT JOIN":
						want = append(want, fmt.Sprintf("%d,", o.v))
					}
				}
				slices.Sort(want)
				q := fmt.Sprintf(`CREATE STREAM rates (id VARCHAR, g BIGINT, ts BIGINT, v BIGINT, PRIMARY KEY (%s) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'csv.null-literal'='');
SELECT o.v, x.v FROM l o %s rates FOR SYSTEM_TIME AS OF o.ts AS x ON %s`, k.pk, kind, k.on)
				got := nsRun(t, files, q)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d: %s ON %s:\n got %q\nwant %q", seed, kind, k.on, got, want)
				}
			}
		}
	}
}

// TestJoinNullSafeNullIsNoValue: the NULL of a null-safe key part hashes to
// a mark (op's nullMark) that one BIGINT and one DOUBLE value hash alike; a
// NULL still joins only NULL, and that value only itself, in each join kind
// and for a key of one part (whose hash the join may take for the key) and
// of two.
func TestJoinNullSafeNullIsNoValue(t *testing.T) {
	const mark = uint64(0x6e756c6c2d6b6579) // (executor/op/keyindex.go)
	f := strconv.FormatFloat(math.Float64frombits(mark), 'g', -1, 64)
	rows := fmt.Sprintf("a,,,0,0\na,%d,%s,0,1\nb,5,0.5,0,2\n", int64(mark), f)
	files := map[string]string{"l.csv": rows, "r.csv": rows}
	ddl := `CREATE STREAM l (id VARCHAR, g BIGINT, d DOUBLE, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv', 'csv.null-literal'='');
CREATE STREAM r (id VARCHAR, g BIGINT, d DOUBLE, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'csv.null-literal'='');
CREATE STREAM lb (id VARCHAR, g BIGINT, d DOUBLE, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='l.csv', 'format'='csv', 'csv.null-literal'='');
CREATE STREAM rb (id VARCHAR, g BIGINT, d DOUBLE, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'csv.null-literal'='');
`
	want := []string{"0,0", "1,1", "2,2"}
	for _, key := range []string{"a.g <=> b.g", "a.d <=> b.d", "a.id = b.id AND a.g IS NOT DISTINCT FROM b.g", "a.d IS NOT DISTINCT FROM b.d AND a.id <=> b.id"} {
		for _, from := range []string{"l a JOIN rb b ON ", "lb a LEFT JOIN rb b ON ", "l a FULL JOIN r b ON b.ts BETWEEN a.ts - 1 AND a.ts + 1 AND ", "lb a FULL JOIN rb b ON "} {
			q := "SELECT a.v, b.v FROM " + from + key + ";\n"
			out, errs, code := runSQL(t, files, ddl+q, "--format", "csv")
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", q, code, errs)
			}
			if got := finalRows(t, out); !slices.Equal(got, want) {
				t.Errorf("%s: got %q, want %q", q, got, want)
			}
		}
	}
}

// TestSemiAntiNullSafeKeysAgainstReference: a semi or anti join (SPEC 2.2)
// whose correlated condition compares a key with IS NOT DISTINCT FROM (or
// <=>) passes a left row with a NULL there when the build side has a NULL
// there, as Flink's semi/anti join; an = key's NULL matches nothing. EXISTS,
// NOT EXISTS and SEMI/ANTI JOIN, keys mixed, over streams with and
// without event time (the build side is a file: read whole first), on
// random inputs with NULLs against a nested-loop reference.
func TestSemiAntiNullSafeKeysAgainstReference(t *testing.T) {
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 22))
		l, rr := nsGen(r, 5+r.IntN(40)), nsGen(r, 5+r.IntN(40))
		files := map[string]string{"l.csv": nsFile(l), "r.csv": nsFile(rr)}
		for _, tc := range []struct {
			query string
			anti  bool
			mode  [2]int
		}{
			{"SELECT a.v FROM l a WHERE EXISTS (SELECT 1 FROM rb b WHERE b.id IS NOT DISTINCT FROM a.id AND b.g = a.g)", false, [2]int{nsSafe, nsEq}},
			{"SELECT a.v FROM l a WHERE NOT EXISTS (SELECT 1 FROM rb b WHERE a.g <=> b.g)", true, [2]int{nsNone, nsSafe}},
			{"SELECT a.v FROM lb a WHERE NOT EXISTS (SELECT 1 FROM rb b WHERE b.id = a.id AND b.g IS NOT DISTINCT FROM a.g)", true, [2]int{nsEq, nsSafe}},
			{"SELECT a.v FROM l a SEMI JOIN rb b ON a.id <=> b.id AND a.g <=> b.g", false, [2]int{nsSafe, nsSafe}},
			{"SELECT a.v FROM l a WHERE EXISTS (SELECT 1 FROM r b WHERE b.id IS NOT DISTINCT FROM a.id)", false, [2]int{nsSafe, nsNone}},
			{"SELECT a.v FROM l a ANTI JOIN r b ON a.id IS NOT DISTINCT FROM b.id AND a.g = b.g", true, [2]int{nsSafe, nsEq}},
		} {
			match := nsMatch(tc.mode)
			var want []string
			for _, a := range l {
				found := false
				for _, b := range rr {
					if match(a, b) {
						found = true
					}
				}
				if found != tc.anti {
					want = append(want, fmt.Sprint(a.v))
				}
			}
			slices.Sort(want)
			got := nsRun(t, files, tc.query)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, tc.query, got, want)
			}
		}
	}
}
