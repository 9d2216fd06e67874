package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestTemporalJoinUpdatingRightAgainstReference: a temporal join whose
// versioned side is updating (SPEC 2.7: "or is updating (2.8) with a key"),
// a debezium-json stream of rates with a PRIMARY KEY and event time, gives
// each on-time order the rate valid at its time. The reference, written
// from SPEC alone over the whole inputs: split each change into its rows
// (c: +I after; u: -U before, +U after; d: -D before), drop the rows late
// for the stream's watermark (SPEC 2.3, each row's own time), sort the rest
// by time (arrival on ties); an order at t sees every row with time <= t
// applied in that order (+I/+U set the key's version, -D removes it, -U
// changes nothing). Random changes and orders, 20 seeds, INNER and LEFT.
func TestTemporalJoinUpdatingRightAgainstReference(t *testing.T) {
	type rrow struct {
		kind, cur string
		rate      int
		t         int64
	}
	const delay = 300
	// onTimeRows returns the rows not late for WATERMARK FOR ts AS ts - delay.
	onTimeRows := func(rows []rrow) []rrow {
		return notLate(rows, func(x rrow) int64 { return x.t }, delay)
	}
	for seed := range 20 {
		r := rand.New(rand.NewPCG(uint64(seed), 41))
		live := map[string]map[string]any{}
		var cs []change
		var rows []rrow
		at := int64(0)
		for i := range 5 + r.IntN(40) {
			at += r.Int64N(150)
			cur := fmt.Sprintf("c%d", r.IntN(4))
			after := map[string]any{"cur": cur, "rate": float64(i), "ts": float64(at + r.Int64N(200) - 100)}
			row := func(kind string, m map[string]any) rrow {
				return rrow{kind, m["cur"].(string), int(m["rate"].(float64)), int64(m["ts"].(float64))}
			}
			switch before, ok := live[cur]; {
			case !ok:
				cs = append(cs, change{After: after, Op: "c"})
				rows = append(rows, row("+I", after))
				live[cur] = after
			case r.IntN(4) == 0:
				cs = append(cs, change{Before: before, Op: "d"})
				rows = append(rows, row("-D", before))
				delete(live, cur)
			default:
				cs = append(cs, change{Before: before, After: after, Op: "u"})
				rows = append(rows, row("-U", before), row("+U", after))
				live[cur] = after
			}
		}
		var orders strings.Builder
		type order struct {
			id, cur string
			t       int64
		}
		var os []order
		ot := int64(0)
		for i := range 1 + r.IntN(50) {
			ot += r.Int64N(120)
			o := order{fmt.Sprintf("o%d", i), fmt.Sprintf("c%d", r.IntN(5)), ot + r.Int64N(200) - 100}
			os = append(os, o)
			fmt.Fprintf(&orders, "%s,%s,%d\n", o.id, o.cur, o.t)
		}
		// the reference
		versions := onTimeRows(rows)
		sort.SliceStable(versions, func(i, j int) bool { return versions[i].t < versions[j].t })
		onTime := notLate(os, func(o order) int64 { return o.t }, delay)
		for _, kind := range []string{"JOIN", "LEFT JOIN"} {
			var want []string
			for _, o := range onTime {
				rate, ok := 0, false
				for _, v := range versions {
					if v.t > o.t {
						break
					}
					if v.cur != o.cur {
						continue
					}
					switch v.kind {
					case "+I", "+U":
						rate, ok = v.rate, true
					case "-D":
						ok = false
					}
				}
				switch {
				case ok:
					want = append(want, fmt.Sprintf("%s,%d", o.id, rate))
				case kind == "LEFT JOIN":
					want = append(want, o.id+",")
				}
			}
			slices.Sort(want)
			sql := fmt.Sprintf(`CREATE STREAM orders (id VARCHAR, cur VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM rates (cur VARCHAR, rate BIGINT, ts BIGINT, PRIMARY KEY (cur) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND) WITH ('connector'='file', 'path'='r.json', 'format'='debezium-json');
SELECT o.id, r.rate FROM orders o %s rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur LATE INTO SIDE 'late-o', 'late-r';
`, kind)
			out, errs, code := runSQL(t, map[string]string{"o.csv": orders.String(), "r.json": encodeChanges(t, cs)}, sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d %s: exit %d: %s", seed, kind, code, errs)
			}
			got := mainRows(out)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d %s: got\n%s\nwant\n%s\nstdout:\n%s", seed, kind, strings.Join(got, "\n"), strings.Join(want, "\n"), out)
			}
		}
	}
}

// notLate returns the rows of a stream with WATERMARK FOR t AS t - delay
// that are not late (SPEC 2.3: late when below the watermark before the
// row), t giving each row's time.
func notLate[R any](rows []R, t func(R) int64, delay int64) []R {
	var kept []R
	wm, set := int64(0), false
	for _, x := range rows {
		if set && t(x) < wm {
			continue
		}
		kept = append(kept, x)
		if !set || t(x)-delay > wm {
			wm, set = t(x)-delay, true
		}
	}
	return kept
}

// TestTemporalJoinDedupViewAgainstReference: a temporal join may version a
// view that deduplicates keeping the last row (SPEC 2.7: "or is updating
// (2.8) with a key"; the view's key is its PARTITION BY column): each
// on-time order joins the rate row of its currency with the largest time
// not above the order's, computed from the rates alone. The view replaces
// a currency's row with a -D and a +I, and the -D (half of an update) ends
// no version. Rates come in time order; orders within the watermark delay,
// some late; 20 seeds, INNER and LEFT, in streaming mode (the view's
// changes as they come).
func TestTemporalJoinDedupViewAgainstReference(t *testing.T) {
	type rate struct {
		cur string
		v   int
		t   int64
	}
	type order struct {
		id, cur string
		t       int64
	}
	for seed := range 20 {
		r := rand.New(rand.NewPCG(uint64(seed), 43))
		var rates []rate
		var rf, of strings.Builder
		at := int64(0)
		for i := range 1 + r.IntN(40) {
			at += 1 + r.Int64N(100)
			x := rate{fmt.Sprintf("c%d", r.IntN(4)), i, at}
			rates = append(rates, x)
			fmt.Fprintf(&rf, "%s,%d,%d\n", x.cur, x.v, x.t)
		}
		var orders []order
		ot := int64(0)
		for i := range 1 + r.IntN(50) {
			ot += r.Int64N(100)
			o := order{fmt.Sprintf("o%d", i), fmt.Sprintf("c%d", r.IntN(5)), ot + r.Int64N(200) - 100}
			orders = append(orders, o)
			fmt.Fprintf(&of, "%s,%s,%d\n", o.id, o.cur, o.t)
		}
		for _, kind := range []string{"JOIN", "LEFT JOIN"} {
			var want []string
			for _, o := range notLate(orders, func(o order) int64 { return o.t }, 300) {
				found := -1
				for k, x := range rates {
					if x.cur == o.cur && x.t <= o.t {
						found = k
					}
				}
				switch {
				case found >= 0:
					want = append(want, fmt.Sprintf("%s,%d", o.id, rates[found].v))
				case kind == "LEFT JOIN":
					want = append(want, o.id+",")
				}
			}
			slices.Sort(want)
			sql := fmt.Sprintf(`CREATE STREAM orders (id VARCHAR, cur VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM rates (cur VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
SET 'execution.runtime-mode' = 'streaming';
CREATE VIEW latest AS SELECT cur, v, ts FROM (SELECT cur, v, ts, ROW_NUMBER() OVER (PARTITION BY cur ORDER BY ts DESC) AS rn FROM rates) WHERE rn = 1;
SELECT o.id, r.v FROM orders o %s latest FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur LATE INTO SIDE 'late-o', 'late-r';
`, kind)
			out, errs, code := runSQL(t, map[string]string{"o.csv": of.String(), "r.csv": rf.String()}, sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d %s: exit %d: %s", seed, kind, code, errs)
			}
			got := mainRows(out)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d %s: got\n%s\nwant\n%s\nstdout:\n%s", seed, kind, strings.Join(got, "\n"), strings.Join(want, "\n"), out)
			}
		}
	}
}

// mainRows returns the main output's csv lines of out without the header:
// with rows on other outputs, each line starts with its output's name.
func mainRows(out string) []string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	prefixed := strings.HasPrefix(lines[0], "output,")
	var got []string
	for _, l := range lines[1:] {
		if !prefixed {
			got = append(got, l)
		} else if rest, ok := strings.CutPrefix(l, "main,"); ok {
			got = append(got, rest)
		}
	}
	return got
}
