package tests

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rrow is one input row of the ranking tests: a key, a value with ties, an
// event time out of order by up to 600 ms, and its arrival number.
type rrow struct {
	k     string
	x, ts int64
	id    int
}

func rrowFile(rows []rrow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%d,%d,%d\n", r.k, r.x, r.ts, r.id)
	}
	return b.String()
}

func (r rrow) text(extra ...any) string {
	s := fmt.Sprintf("%s,%d,%d,%d", r.k, r.x, r.ts, r.id)
	for _, e := range extra {
		s += fmt.Sprintf(",%v", e)
	}
	return s
}

// randRRows returns n random rows: keys k0 to k<keys-1>, values 0 to below
// maxX, event times 100 ms apart out of order by up to 600 ms.
func randRRows(r *rand.Rand, n, keys int, maxX int64) []rrow {
	rows := make([]rrow, n)
	for i := range rows {
		rows[i] = rrow{k: fmt.Sprintf("k%d", r.IntN(keys)), x: r.Int64N(maxX), ts: int64(i*100) + r.Int64N(1200) - 600, id: i}
	}
	return rows
}

// onTimeRows returns the rows of a stream whose WATERMARK is ts - delay
// that are on time (SPEC 2.3: not below the largest time before them minus
// delay), in arrival order, and how many are late.
func onTimeRows(rows []rrow, delay int64) (onTime []rrow, late int) {
	maxT := int64(0)
	for i, x := range rows {
		if i > 0 && x.ts < maxT-delay {
			late++
		} else {
			onTime = append(onTime, x)
		}
		if i == 0 || x.ts > maxT {
			maxT = x.ts
		}
	}
	return onTime, late
}

// csvRows returns the csv output's rows (without the header).
func csvRows(out string) []string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) <= 1 {
		return nil
	}
	return lines[1:]
}

// TestRankAgainstReference runs SPEC 2.9's shapes end to end through the
// command line over random inputs and compares them with references written
// apart from the engine (sort, group, rank over the whole input): Top-N with
// each ranking function, with and without the rank column (the final result
// of a bounded input); ORDER BY … LIMIT; deduplication keeping the first row
// by event time with its late rows; OVER aggregation with a ROWS frame.
func TestRankAgainstReference(t *testing.T) {
	const delay = 500
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 41))
		rows := randRRows(r, 20+r.IntN(120), 5, 12)
		files := map[string]string{"r.csv": rrowFile(rows)}
		ddl := `CREATE STREAM r (k VARCHAR, x BIGINT, ts BIGINT, id BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM e (k VARCHAR, x BIGINT, ts BIGINT, id BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
		run := func(q string) ([]string, string) {
			out, errs, code := runSQL(t, files, ddl+q+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			return csvRows(out), errs
		}
		// Top-N: per key, by x descending (ties in arrival order)
		for _, fn := range []string{"ROW_NUMBER", "RANK", "DENSE_RANK"} {
			n := 1 + r.IntN(3)
			got, _ := run(fmt.Sprintf("SELECT * FROM (SELECT k, x, ts, id, %s() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM r) WHERE rn <= %d", fn, n))
			want := refRank(rows, fn, n, true)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s Top-%d:\n got %q\nwant %q", seed, fn, n, got, want)
			}
			got, _ = run(fmt.Sprintf("SELECT k, x, ts, id FROM (SELECT k, x, ts, id, %s() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM r) WHERE rn < %d", fn, n+1))
			want = refRank(rows, fn, n, false)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s Top-%d without the rank column:\n got %q\nwant %q", seed, fn, n, got, want)
			}
		}
		// ORDER BY x DESC, k LIMIT n: the rows in that order (ties in arrival order)
		limit := r.IntN(30)
		got, _ := run(fmt.Sprintf("SELECT k, x, ts, id FROM r ORDER BY x DESC, k LIMIT %d", limit))
		sorted := slices.Clone(rows)
		slices.SortStableFunc(sorted, func(a, b rrow) int {
			if c := cmp.Compare(b.x, a.x); c != 0 {
				return c
			}
			return cmp.Compare(a.k, b.k)
		})
		var want []string
		for _, x := range sorted[:min(limit, len(sorted))] {
			want = append(want, x.text())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: ORDER BY LIMIT %d:\n got %q\nwant %q", seed, limit, got, want)
		}
		// the on-time rows (SPEC 2.3) of stream e
		onTime, lateRows := onTimeRows(rows, delay)
		// deduplication keeping the first row by event time
		got, errs := run("SELECT k, x, ts, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM e) WHERE rn = 1")
		first := map[string]rrow{}
		for _, x := range onTime {
			if f, ok := first[x.k]; !ok || x.ts < f.ts {
				first[x.k] = x
			}
		}
		var firsts []rrow
		for _, x := range first {
			firsts = append(firsts, x)
		}
		slices.SortFunc(firsts, func(a, b rrow) int { return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.id, b.id)) })
		want = want[:0]
		for _, x := range firsts {
			want = append(want, x.text())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: dedup:\n got %q\nwant %q", seed, got, want)
		}
		if n := strings.Count(errs, "late> "); n != lateRows {
			t.Fatalf("seed %d: dedup: %d late rows on stderr, want %d:\n%s", seed, n, lateRows, errs)
		}
		if notice := fmt.Sprintf("%d late row(s) of the query", lateRows); lateRows > 0 && !strings.Contains(errs, notice) {
			t.Fatalf("seed %d: dedup: no end-of-job notice %q:\n%s", seed, notice, errs)
		}
		// EXPLAIN ANALYZE counts the rows the main query took before its
		// operator takes them
		if out, _, _ := runSQL(t, files, ddl+"EXPLAIN ANALYZE SELECT k, x FROM r ORDER BY x LIMIT 3;\n", "--format", "csv"); !strings.Contains(out, fmt.Sprintf("took %d rows", len(rows))) {
			t.Fatalf("seed %d: EXPLAIN ANALYZE of ORDER BY does not say the main query took %d rows:\n%s", seed, len(rows), out)
		}
		// OVER: the sum of x over the row and the 2 before it of its key, in
		// event-time order
		got, _ = run("SELECT k, x, ts, id, SUM(x) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM e")
		byTime := slices.Clone(onTime)
		slices.SortStableFunc(byTime, func(a, b rrow) int { return cmp.Compare(a.ts, b.ts) })
		hist := map[string][]int64{}
		want = want[:0]
		for _, x := range byTime {
			h := append(hist[x.k], x.x)
			hist[x.k] = h
			var s int64
			for _, v := range h[max(0, len(h)-3):] {
				s += v
			}
			want = append(want, x.text(s))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: OVER:\n got %q\nwant %q", seed, got, want)
		}
	}
}

// refRank is the Top-N reference: group by key, sort each group by x
// descending (stable), rank with fn, keep the ranks up to n, as csv rows
// (with the rank last when rankCol), sorted.
func refRank(rows []rrow, fn string, n int, rankCol bool) []string {
	groups := map[string][]rrow{}
	for _, x := range rows {
		groups[x.k] = append(groups[x.k], x)
	}
	var out []string
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b rrow) int { return cmp.Compare(b.x, a.x) })
		rank, dense := 0, 0
		for j, x := range g {
			if j == 0 || g[j-1].x != x.x {
				rank, dense = j+1, dense+1
			}
			rn := map[string]int{"ROW_NUMBER": j + 1, "RANK": rank, "DENSE_RANK": dense}[fn]
			if rn > n {
				break
			}
			if rankCol {
				out = append(out, x.text(rn))
			} else {
				out = append(out, x.text())
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestRankErrors: the shapes SPEC 2.9 refuses, each a planning error (exit 2)
// that says why, at its place.
func TestRankErrors(t *testing.T) {
	files := map[string]string{"r.csv": "a,1,1\n"}
	ddl := `CREATE STREAM u (k VARCHAR, x BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'follow'='true');
`
	for _, tc := range []struct{ query, want string }{
		{"SELECT k, SUM(x) OVER (PARTITION BY k ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM u", "ordered by the event time of u, which is ts"},
		{"SELECT k FROM (SELECT k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY 1) AS rn FROM u) WHERE rn <= 2", "needs a column or an expression of the input"},
		{"SELECT k FROM u ORDER BY x", "would wait for the stream's end"},
		{"SELECT k FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM u) WHERE rn <= 2 ORDER BY x", "whose result changes as the unbounded input goes on (SPEC 2.8), would wait for the input's end, which never comes: add a LIMIT"},
		{"SELECT k, c FROM (SELECT k, COUNT(*) AS c FROM u GROUP BY k) ORDER BY c", "ORDER BY over the subquery, whose result changes"},
	} {
		_, errs, code := runSQL(t, files, ddl+tc.query+";\n")
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "^") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 with %q and a caret", tc.query, code, errs, tc.want)
		}
	}
}

// TestNexmarkRankAgainstReference: the final tables of Nexmark q9, q18 and
// q19 (queries/tests/nexmark-q9, -q18, -q19, 20,000 events) equal references
// computed here from the generated auction and bid rows: each auction's
// highest bid within its lifetime (q9), each (bidder, auction)'s last bid
// (q18) and each auction's ten highest bids, ranked (q19).
func TestNexmarkRankAgainstReference(t *testing.T) {
	events, _ := filepath.Abs(filepath.Join("..", "queries", "tests", "nexmark-events.sql"))
	read := func(q string) [][]string { return queryRecords(t, ".read "+events+"\n"+q+";\n") }
	expected := func(q string) []string {
		b, err := os.ReadFile(filepath.Join("..", "queries", "tests", "nexmark-"+q, "expected", "main.csv"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
		slices.Sort(lines)
		return lines
	}
	line := func(fields ...string) string {
		var b strings.Builder
		w := csv.NewWriter(&b)
		_ = w.Write(fields)
		w.Flush()
		return strings.TrimSuffix(b.String(), "\n")
	}
	num := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("not a number: %q", s)
		}
		return n
	}
	bids := read("SELECT auction, bidder, price, channel, url, `dateTime`, extra FROM bid")
	auctions := read("SELECT * FROM auction")
	// q19: per auction, by price descending (ties in arrival order), ranks 1-10
	byAuction := map[string][][]string{}
	for _, b := range bids {
		byAuction[b[0]] = append(byAuction[b[0]], b)
	}
	var want []string
	for _, g := range byAuction {
		g = slices.Clone(g)
		slices.SortStableFunc(g, func(a, b []string) int { return cmp.Compare(num(b[2]), num(a[2])) })
		for j, b := range g[:min(10, len(g))] {
			want = append(want, line(append(slices.Clone(b), strconv.Itoa(j+1))...))
		}
	}
	slices.Sort(want)
	if got := expected("q19"); !slices.Equal(got, want) {
		t.Errorf("q19: %d rows, the reference %d", len(got), len(want))
	}
	// q18: per (bidder, auction), the bid of the largest dateTime (ties: the later)
	last := map[[2]string][]string{}
	for _, b := range bids {
		k := [2]string{b[1], b[0]}
		if l, ok := last[k]; !ok || b[5] >= l[5] { // (timestamps print in a fixed width)
			last[k] = b
		}
	}
	want = want[:0]
	for _, b := range last {
		want = append(want, line(b...))
	}
	slices.Sort(want)
	if got := expected("q18"); !slices.Equal(got, want) {
		t.Errorf("q18: %d rows, the reference %d", len(got), len(want))
	}
	// q9: per auction, its bids within [dateTime, expires], the highest price,
	// then the earliest bid
	want = want[:0]
	for _, a := range auctions {
		var best []string
		for _, b := range byAuction[a[0]] {
			if b[5] < a[5] || b[5] > a[6] {
				continue
			}
			if best == nil || num(b[2]) > num(best[2]) || num(b[2]) == num(best[2]) && b[5] < best[5] {
				best = b
			}
		}
		if best != nil {
			want = append(want, line(append(slices.Clone(a), best[0], best[1], best[2], best[5], best[6])...))
		}
	}
	slices.Sort(want)
	if got := expected("q9"); !slices.Equal(got, want) {
		t.Errorf("q9: %d rows, the reference %d", len(got), len(want))
	}
}
