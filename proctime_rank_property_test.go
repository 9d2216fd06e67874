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

// TestRankByProcTimeIsArrivalOrderProperty: a ROW_NUMBER ordered by a
// processing-time attribute (a column declared AS PROCTIME(), or PROCTIME()
// itself) ranks rows in arrival order, as Flink's proctime deduplication
// and Top-N do (SPEC 2.9, 2.10): ASC keeps each key's first rows, DESC its
// last ones, also when rows read in one millisecond tie on PROCTIME(). Over
// random rows pushed from Go, the changelog applied gives the table a
// separately written reference gives: per key, the rows in the order they
// were pushed (reversed for DESC), the first N, with their ranks.
func TestRankByProcTimeIsArrivalOrderProperty(t *testing.T) {
	const setup = "CREATE STREAM ev (k BIGINT, v BIGINT, pt AS PROCTIME()) WITH ('connector'='go')"
	for seed := int64(0); seed < 48; seed++ { // (each of the 24 shapes twice)
		rng := rand.New(rand.NewSource(seed))
		keys, n := 1+rng.Intn(4), 1+seed/8%3
		desc, rankCol, call := seed&1 != 0, seed&2 != 0, seed&4 != 0
		var rows [][]any
		for i := 0; i < 1+rng.Intn(40); i++ {
			rows = append(rows, []any{int64(rng.Intn(keys)), int64(i)})
		}
		order := "pt"
		if call {
			order = "PROCTIME()"
		}
		if desc {
			order += " DESC"
		}
		sel := "k, v"
		if rankCol {
			sel += ", rn"
		}
		query := fmt.Sprintf("SELECT %s FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY %s) AS rn FROM ev) WHERE rn <= %d", sel, order, n)
		// the reference: each key's rows in arrival order
		byKey := map[int64][]int64{}
		for _, r := range rows {
			k := r[0].(int64)
			byKey[k] = append(byKey[k], r[1].(int64))
		}
		var want []string
		for k, vs := range byKey {
			if desc {
				slices.Reverse(vs)
			}
			for i, v := range vs[:min(int64(len(vs)), n)] {
				row := fmt.Sprintf("%d|%d", k, v)
				if rankCol {
					row += fmt.Sprintf("|%d", i+1)
				}
				want = append(want, row)
			}
		}
		slices.Sort(want)
		var got []string
		if firstRow := !desc && n == 1 && !rankCol; firstRow {
			// each key's first row never changes: insert-only, as Flink's
			// proctime deduplication keeping the first row
			got = pushedInserts(t, setup, query, rows)
		} else {
			got = pushedChangelog(t, setup, query, rows)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: %s\nover %v\ngot  %v\nwant %v", seed, query, rows, got, want)
		}
	}
}

// pushedInserts runs query in a session where setup declared the 'go'
// stream ev, pushes rows into ev, ends it, and returns the main output's
// rows (values joined by |), sorted; it fails the test when the output is
// marked updating or a row is not an insert.
func pushedInserts(t *testing.T, setup, query string, rows [][]any) []string {
	t.Helper()
	var got []string
	runPushed(t, func(out streamql.Output, r *streamql.Rows) error {
		if out.Name != "main" {
			return nil
		}
		if out.Updating {
			t.Errorf("%s: output main is marked updating", query)
		}
		for i := 0; i < r.Len(); i++ {
			if k := r.Kind(i); k != "+I" {
				t.Errorf("%s: a %s row in an insert-only output", query, k)
			}
			vals := make([]string, len(out.Columns))
			for c := range out.Columns {
				vals[c] = fmt.Sprint(r.Value(c, i))
			}
			got = append(got, strings.Join(vals, "|"))
		}
		return nil
	}, setup, "ev", query, rows)
	slices.Sort(got)
	return got
}

// TestOrderByProcTimeIsArrivalOrderProperty: the final ORDER BY of a query
// over a bounded stream (SPEC 2.9, sorted at its end) with a processing-time
// key orders rows equal in the keys before it in arrival order (reversed
// for DESC), and the keys after it never decide, as the rows arrive one
// after another; with LIMIT n the first n. Over random csv files, the rows
// in the order they come out equal a separately written reference's: a
// stable sort of the file's rows by the keys before the processing time.
func TestOrderByProcTimeIsArrivalOrderProperty(t *testing.T) {
	dir := t.TempDir()
	for seed := int64(0); seed < 32; seed++ {
		rng := rand.New(rand.NewSource(seed))
		type row struct{ k, v int64 }
		var rows []row
		var csv strings.Builder
		for i := 0; i < rng.Intn(30); i++ {
			r := row{int64(rng.Intn(3)), int64(i)}
			rows = append(rows, r)
			fmt.Fprintf(&csv, "%d,%d\n", r.k, r.v)
		}
		if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(csv.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		byK, kDesc, desc := seed&1 != 0, seed&2 != 0, seed&4 != 0
		limit := -1
		if seed&8 != 0 {
			limit = rng.Intn(5)
		}
		var keys []string
		if byK {
			keys = append(keys, map[bool]string{false: "k", true: "k DESC"}[kDesc])
		}
		keys = append(keys, map[bool]string{false: "pt", true: "pt DESC"}[desc], "v DESC")
		query := "SELECT k, v FROM s ORDER BY " + strings.Join(keys, ", ")
		if limit >= 0 {
			query += fmt.Sprintf(" LIMIT %d", limit)
		}
		// the reference: arrival order (reversed for DESC), stably sorted by k
		want := slices.Clone(rows)
		if desc {
			slices.Reverse(want)
		}
		if byK {
			slices.SortStableFunc(want, func(a, b row) int {
				if kDesc {
					return int(b.k - a.k)
				}
				return int(a.k - b.k)
			})
		}
		if limit >= 0 && limit < len(want) {
			want = want[:limit]
		}
		var got []row
		s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: func(out streamql.Output, r *streamql.Rows) error {
			for i := 0; i < r.Len(); i++ {
				got = append(got, row{r.Int64(0, i), r.Int64(1, i)})
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Exec(context.Background(), "CREATE STREAM s (k BIGINT, v BIGINT, pt AS PROCTIME()) WITH ('connector'='file', 'path'='s.csv', 'format'='csv'); "+query); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: %s\nover %v\ngot  %v\nwant %v", seed, query, rows, got, want)
		}
	}
}

// TestOverByProcTimeIsArrivalOrderProperty: an OVER aggregation ordered by a
// processing-time attribute (a column AS PROCTIME(), or PROCTIME() itself)
// handles each row as it arrives, as Flink's proctime OVER
// (ProcTimeRowsBoundedPrecedingFunction, ProcTimeUnboundedPrecedingFunction):
// its frame is the row and the n rows of its partition before it in arrival
// order (ROWS BETWEEN n PRECEDING), or every one before it (UNBOUNDED
// PRECEDING, ROWS or RANGE, and the default frame). Over random rows pushed
// from Go one by one, the insert-only output equals a separately
// written reference's: per row, COUNT, SUM, MIN and MAX over the last n+1
// values of its key in the order they were pushed.
func TestOverByProcTimeIsArrivalOrderProperty(t *testing.T) {
	const setup = "CREATE STREAM ev (k BIGINT, v BIGINT, pt AS PROCTIME()) WITH ('connector'='go')"
	for seed := int64(0); seed < 32; seed++ {
		rng := rand.New(rand.NewSource(seed))
		keys := 1 + rng.Intn(3)
		var rows [][]any
		for i := 0; i < 1+rng.Intn(40); i++ {
			rows = append(rows, []any{int64(rng.Intn(keys)), int64(rng.Intn(100) - 50)})
		}
		order := "pt"
		if seed&1 != 0 {
			order = "PROCTIME()"
		}
		n, frame := -1, "" // (-1: unbounded)
		switch seed / 2 % 4 {
		case 1:
			frame = " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
		case 2:
			frame = " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
		case 3:
			n = rng.Intn(4)
			frame = fmt.Sprintf(" ROWS BETWEEN %d PRECEDING AND CURRENT ROW", n)
		}
		part := "PARTITION BY k "
		if seed&8 != 0 {
			part = ""
		}
		query := fmt.Sprintf("SELECT k, v, COUNT(*) OVER w AS c, SUM(v) OVER w AS s, MIN(v) OVER w AS lo, MAX(v) OVER w AS hi FROM ev WINDOW w AS (%sORDER BY %s%s)", part, order, frame)
		// the reference: each partition's values in the order pushed
		seen := map[int64][]int64{}
		var want []string
		for _, r := range rows {
			k, v := r[0].(int64), r[1].(int64)
			pk := k
			if part == "" {
				pk = 0
			}
			seen[pk] = append(seen[pk], v)
			fr := seen[pk]
			if n >= 0 && len(fr) > n+1 {
				fr = fr[len(fr)-n-1:]
			}
			sum, lo, hi := int64(0), fr[0], fr[0]
			for _, x := range fr {
				sum += x
				lo, hi = min(lo, x), max(hi, x)
			}
			want = append(want, fmt.Sprintf("%d|%d|%d|%d|%d|%d", k, v, len(fr), sum, lo, hi))
		}
		slices.Sort(want)
		if got := pushedInserts(t, setup, query, rows); !slices.Equal(got, want) {
			t.Fatalf("seed %d: %s\nover %v\ngot  %v\nwant %v", seed, query, rows, got, want)
		}
	}
}
