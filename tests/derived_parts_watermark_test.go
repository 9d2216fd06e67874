package tests

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// streamWatermarks returns the watermark before each row (SPEC 2.3: the
// greatest ts - delay over the rows before it; "" while unset).
func streamWatermarks(ts []int64, delay int64) []string {
	var out []string
	var wm int64
	set := false
	for _, t := range ts {
		w := ""
		if set {
			w = fmt.Sprint(wm)
		}
		out = append(out, w)
		if v := t - delay; !set || v > wm {
			wm, set = v, true
		}
	}
	return out
}

// TestDerivedUnnestWatermarkProperty (SPEC 2.6, 2.10): a relation that
// unnests a stream (CROSS JOIN UNNEST) and filters the elements carries its
// rows' watermark to its reader (plan.Derived.Stamps; Flink's correlate
// forwards its input's watermark): CURRENT_WATERMARK over the subquery
// equals CURRENT_WATERMARK in the same query written inline, row for row,
// and a TUMBLE over a view of it has the late rows and counts those
// watermarks give (SPEC 2.4), over random rows, arrays (empty ones too),
// delays and filters. The reader computed its watermark again over the
// rows the WHERE kept, so a row whose elements were all dropped did not
// move it.
func TestDerivedUnnestWatermarkProperty(t *testing.T) {
	filters := []string{"x % 2 = 0", "x > 5", "x <> 3 AND k <> 'b'"}
	rng := rand.New(rand.NewSource(41))
	for round := range 12 {
		delay := int64(rng.Intn(3)) * 400
		f := filters[rng.Intn(len(filters))]
		var in strings.Builder
		for range 10 + rng.Intn(25) {
			var xs []string
			for range rng.Intn(4) {
				xs = append(xs, fmt.Sprint(rng.Intn(10)))
			}
			fmt.Fprintf(&in, `{"k":"%c","ts":%d,"xs":[%s]}`+"\n", 'a'+rng.Intn(3), rng.Intn(9000), strings.Join(xs, ","))
		}
		files := map[string]string{"s.json": in.String()}
		ddl := fmt.Sprintf("CREATE STREAM s (k VARCHAR, ts BIGINT, xs ARRAY<BIGINT>, WATERMARK FOR ts AS ts - INTERVAL '%d' MILLISECOND) WITH ('connector'='file', 'path'='s.json', 'format'='json');\n", delay)
		rel := "SELECT k, ts, x FROM s CROSS JOIN UNNEST(xs) AS t (x) WHERE " + f
		run := func(sql string) string {
			out, errs, code := runSQL(t, files, ddl+sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("round %d: %s: exit %d: %s", round, sql, code, errs)
			}
			return out
		}
		inline := run("SELECT k, ts, x, CURRENT_WATERMARK(ts) AS w FROM s CROSS JOIN UNNEST(xs) AS t (x) WHERE " + f + ";\n")
		if got := run("SELECT k, ts, x, CURRENT_WATERMARK(ts) AS w FROM (" + rel + ") q;\n"); got != inline {
			t.Fatalf("round %d, delay %d, WHERE %s, input:\n%s\nover the subquery:\n%s\ninline (SPEC 2.6):\n%s", round, delay, f, in.String(), got, inline)
		}
		// the window over a view of it: late when the watermark before the
		// row is at or past its window's end (SPEC 2.4)
		var want []string
		counts := map[int64]int{}
		for _, l := range csvRows(inline) {
			c := strings.Split(l, ",")
			var ts, w int64
			fmt.Sscan(c[1], &ts)
			start := ts - ts%1000
			if c[3] != "" {
				fmt.Sscan(c[3], &w)
				if w >= start+1000 {
					want = append(want, "lt,"+c[0]+","+c[1]+","+c[2])
					continue
				}
			}
			counts[start]++
		}
		for s, n := range counts {
			want = append(want, fmt.Sprintf("main,%d,%d", s, n))
		}
		got := run("CREATE VIEW v AS " + rel + ";\nSELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end LATE INTO SIDE 'lt';\n")
		if g, w := sortedLines(outputRows(got)), sortedLines(want); g != w {
			t.Fatalf("round %d, delay %d, WHERE %s, input:\n%s\nwindow over the view:\n%s\nwant (the inline watermarks, SPEC 2.4, 2.6):\n%s", round, delay, f, in.String(), g, w)
		}
	}
}

// TestDerivedWindowTVFWatermarkProperty (SPEC 2.4, 2.6): a relation that
// is a window TVF without aggregation over a stream, filtered, has
// window_time as its event time and carries the stream's watermark
// (plan.Derived.Stamps): each windowed row's CURRENT_WATERMARK(window_time)
// is the stream's watermark before its input row, which rows the WHERE
// dropped moved too (a reference from SPEC 2.3 over every input row), for
// each of its windows (HOP: two a row, in window-start order). The reader
// computed the watermark again over the rows kept.
func TestDerivedWindowTVFWatermarkProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(43))
	for round := range 12 {
		delay := int64(rng.Intn(3)) * 500
		var in strings.Builder
		var ks []string
		var ts []int64
		for range 8 + rng.Intn(25) {
			k, v := string(rune('a'+rng.Intn(3))), int64(rng.Intn(10000))
			ks, ts = append(ks, k), append(ts, v)
			fmt.Fprintf(&in, "%s,%d\n", k, v)
		}
		wms := streamWatermarks(ts, delay)
		var want []string
		for i := range ts {
			if ks[i] == "b" {
				continue
			}
			for _, s := range []int64{ts[i] - ts[i]%1000 - 1000, ts[i] - ts[i]%1000} {
				want = append(want, fmt.Sprintf("%s,%d,%d,%s", ks[i], ts[i], s, wms[i]))
			}
		}
		ddl := fmt.Sprintf("CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%d' MILLISECOND) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n", delay)
		sql := "SELECT k, ts, window_start, CURRENT_WATERMARK(window_time) AS w FROM (SELECT * FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) WHERE k <> 'b') q;\n"
		out, errs, code := runSQL(t, map[string]string{"s.csv": in.String()}, ddl+sql, "--format", "csv")
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, errs)
		}
		if got, w := strings.Join(csvRows(out), "\n"), strings.Join(want, "\n"); got != w {
			t.Fatalf("round %d, delay %d, input:\n%s\ngot:\n%s\nwant (the stream's watermark before each windowed row's input row, SPEC 2.3, 2.6):\n%s", round, delay, in.String(), got, w)
		}
	}
}

// TestDerivedTopNWatermarkProperty (SPEC 2.6, 2.9; the decision in the
// planner's stampsOf): a relation that is a Top-1 per key (deduplication
// keeping the last row, updating) carries no watermark stamps: its changes
// of a batch are emitted together after the batch, so the row that made
// each is not known, and its reader computes its watermark over the
// changes (each one's time less the delay; Flink's rank operator forwards
// its input's watermark, which no window may read there: a window over an
// updating relation is refused, as Flink's). Over random rows with
// distinct times, the changes are a Top-1 kept here (+I or +U for each new
// largest time of a key, -U for the one it replaces) and CURRENT_WATERMARK
// over them the largest time less the delay over the changes before each
// (SPEC 2.3 over the relation's rows), whatever the batch sizes.
func TestDerivedTopNWatermarkProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(47))
	for round := range 10 {
		delay := int64(rng.Intn(3)) * 500
		n := 8 + rng.Intn(25)
		perm := rng.Perm(n * 3)
		var in strings.Builder
		var ks []string
		var ts []int64
		for i := range n {
			k, v := string(rune('a'+rng.Intn(3))), int64(perm[i]*137)
			ks, ts = append(ks, k), append(ts, v)
			fmt.Fprintf(&in, "%s,%d\n", k, v)
		}
		var ins, outs []string
		top := map[string]int64{}
		for i := range ts {
			if ks[i] == "c" {
				continue
			}
			old, ok := top[ks[i]]
			if ok && old > ts[i] {
				continue
			}
			if ok {
				outs = append(outs, fmt.Sprintf("%s,%d", ks[i], old))
			}
			top[ks[i]] = ts[i]
			ins = append(ins, fmt.Sprintf("%s,%d", ks[i], ts[i]))
		}
		ddl := fmt.Sprintf("CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%d' MILLISECOND) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n", delay)
		sql := "SET 'execution.runtime-mode' = 'streaming';\nSELECT k, ts, CURRENT_WATERMARK(ts) AS w FROM (SELECT k, ts FROM (SELECT k, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM s WHERE k <> 'c') WHERE rn = 1) q;\n"
		out, errs, code := runSQL(t, map[string]string{"s.csv": in.String()}, ddl+sql, "--format", "csv")
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, errs)
		}
		var gotIns, gotOuts []string
		var wm int64
		set := false
		for _, l := range csvRows(out) {
			c := strings.Split(l, ",")
			if len(c) != 4 {
				t.Fatalf("round %d: %q is not op,k,ts,w\n%s", round, l, out)
			}
			w := ""
			if set {
				w = fmt.Sprint(wm)
			}
			if c[3] != w {
				t.Fatalf("round %d, delay %d: change %q: CURRENT_WATERMARK %q, want %q (the greatest time less the delay over the changes before it)\n%s", round, delay, l, c[3], w, out)
			}
			var v int64
			fmt.Sscan(c[2], &v)
			if !set || v-delay > wm {
				wm, set = v-delay, true
			}
			switch c[0] {
			case "+I", "+U":
				gotIns = append(gotIns, c[1]+","+c[2])
			case "-U", "-D":
				gotOuts = append(gotOuts, c[1]+","+c[2])
			default:
				t.Fatalf("round %d: a row without its kind: %q\n%s", round, l, out)
			}
		}
		sort.Strings(outs)
		sort.Strings(gotOuts)
		if g, w := strings.Join(gotIns, "\n")+"\n--\n"+strings.Join(gotOuts, "\n"), strings.Join(ins, "\n")+"\n--\n"+strings.Join(outs, "\n"); g != w {
			t.Fatalf("round %d, input:\n%s\ngot (new rows, -- then the rows replaced):\n%s\nwant (a Top-1 per key):\n%s", round, in.String(), g, w)
		}
	}
}

// TestDerivedJoinWindowNoLateRows (SPEC 2.6, 2.7; the decision in the
// planner's joinTimeOfPart): a window over a view of an interval join,
// whose rows carry no watermark stamps, finds none of the join's rows late
// (they come in event-time order, held back by the interval) and counts
// every pair of rows on time in their own streams that the condition
// joins (a nested-loop reference over SPEC 2.3's watermarks), over random
// rows of both streams.
func TestDerivedJoinWindowNoLateRows(t *testing.T) {
	rng := rand.New(rand.NewSource(53))
	for round := range 8 {
		type row struct {
			k  string
			ts int64
		}
		gen := func() ([]row, string) {
			var rs []row
			var sb strings.Builder
			ts := int64(rng.Intn(2000))
			for range 10 + rng.Intn(30) {
				ts += int64(rng.Intn(600))
				at := ts
				if rng.Intn(5) == 0 {
					at -= int64(rng.Intn(3000))
				}
				r := row{string(rune('a' + rng.Intn(3))), at}
				rs = append(rs, r)
				fmt.Fprintf(&sb, "%s,%d\n", r.k, r.ts)
			}
			return rs, sb.String()
		}
		ls, lcsv := gen()
		rs, rcsv := gen()
		onTime := func(rows []row) []row {
			var ts []int64
			for _, r := range rows {
				ts = append(ts, r.ts)
			}
			var out []row
			for i, w := range streamWatermarks(ts, 1000) {
				var v int64
				if w != "" {
					fmt.Sscan(w, &v)
				}
				if w == "" || rows[i].ts >= v {
					out = append(out, rows[i])
				}
			}
			return out
		}
		counts := map[int64]int{}
		for _, l := range onTime(ls) {
			for _, r := range onTime(rs) {
				if l.k == r.k && l.ts >= r.ts-2000 && l.ts <= r.ts {
					counts[l.ts-l.ts%1000]++
				}
			}
		}
		var want []string
		for s, n := range counts {
			want = append(want, fmt.Sprintf("%d,%d", s, n))
		}
		ddl := "CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');\n" +
			"CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');\n" +
			"CREATE VIEW j AS SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts;\n" +
			"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end LATE INTO SIDE 'lt';\n"
		out, errs, code := runSQL(t, map[string]string{"l.csv": lcsv, "r.csv": rcsv}, ddl, "--format", "csv")
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, errs)
		}
		var got []string
		for _, l := range outputRows(out) {
			if strings.HasPrefix(l, "lt,") {
				t.Fatalf("round %d: a joined row late for the window over the join: %s\n%s", round, l, out)
			}
			if strings.HasPrefix(l, "main,") {
				got = append(got, strings.TrimPrefix(l, "main,"))
			}
		}
		if len(got) == 0 {
			got = csvRows(out)
		}
		if g, w := sortedLines(got), sortedLines(want); g != w {
			t.Fatalf("round %d:\nl:\n%s\nr:\n%s\ngot:\n%s\nwant (every pair on time joined, none late):\n%s\nstderr: %s", round, lcsv, rcsv, g, w, errs)
		}
	}
}
