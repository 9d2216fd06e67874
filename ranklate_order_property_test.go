package streamql_test

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"streamql"
)

// TestTimedRankOutputOrderProperty: an event-time operator that the
// watermark releases (ORDER BY the event time over an unbounded input,
// first-row deduplication, OVER aggregation; SPEC 2.9), in the main query or
// a side branch, emits each row right after the input
// row that moved the watermark past it, so the one ordered output (SPEC 4:
// the line formats' order, the library's OnRows calls) interleaves its rows
// with the same batch's side-branch rows and late rows in input order,
// whatever the batch sizes. Over random rows pushed from Go, the sequence of
// (output, row) equals a separately written row-at-a-time reference's.
func TestTimedRankOutputOrderProperty(t *testing.T) {
	for seed := int64(0); seed < 80; seed++ {
		rng := rand.New(rand.NewSource(seed))
		delay := int64(rng.Intn(3))
		dedup, over, inSide := seed%4 == 1 || seed%4 == 3, seed%4 == 2, seed%4 == 3
		taken, ranked := "side", "main" // (the side branch takes v % 5 = 4 first; or the branch is the operator's)
		type row struct{ k, t, v int64 }
		var rows []row
		for i := 0; i < 1+rng.Intn(60); i++ {
			rows = append(rows, row{int64(rng.Intn(3)), int64(rng.Intn(20)) * 500, int64(i)})
		}
		setup := fmt.Sprintf("CREATE STREAM ev (k BIGINT, t BIGINT, v BIGINT, WATERMARK FOR t AS t - INTERVAL '%d' SECOND) WITH ('connector'='go'); SELECT k, t, v INTO SIDE 'side' FROM ev WHERE v %% 5 = 4", delay)
		query := "SELECT k, t, v FROM ev ORDER BY t"
		switch {
		case inSide: // the operator in a side branch (SPEC 2.1 with 2.9), main the rows it does not take
			setup = fmt.Sprintf("CREATE STREAM ev (k BIGINT, t BIGINT, v BIGINT, WATERMARK FOR t AS t - INTERVAL '%d' SECOND) WITH ('connector'='go'); SELECT k, t, v INTO SIDE 'd' FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY t) AS rn FROM ev WHERE v %% 5 <> 4) WHERE rn = 1", delay)
			query, taken, ranked = "SELECT k, t, v FROM ev", "main", "d"
		case dedup:
			query = "SELECT k, t, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY t) AS rn FROM ev) WHERE rn = 1"
		case over:
			query = "SELECT k, t, v, COUNT(*) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c FROM ev"
		}
		// the reference, row at a time (t is epoch ms: the delay is delay*1000)
		var want []string
		show := func(out string, r row) { want = append(want, fmt.Sprintf("%s|%d|%d|%d", out, r.k, r.t, r.v)) }
		count := map[int64]int{} // OVER: each key's rows released so far
		type held struct {
			r   row
			seq int
		}
		var hold []held
		first := map[int64]int{} // dedup: key -> index in hold of its held row, -1 once emitted
		wm, set := int64(0), false
		release := func(upTo int64, all bool) {
			sort.Slice(hold, func(a, b int) bool { // (time, arrival) order
				return hold[a].r.t < hold[b].r.t || hold[a].r.t == hold[b].r.t && hold[a].seq < hold[b].seq
			})
			n := 0
			for n < len(hold) && (all || hold[n].r.t < upTo) {
				show(ranked, hold[n].r)
				if over {
					count[hold[n].r.k]++
					want[len(want)-1] += fmt.Sprintf("|%d", count[hold[n].r.k])
				}
				if dedup {
					first[hold[n].r.k] = -1
				}
				n++
			}
			hold = hold[n:]
		}
		for i, r := range rows {
			if r.v%5 == 4 { // the side branch takes it first (or main: what the operator's branch leaves)
				show(taken, r)
			} else if set && r.t < wm {
				show("late", r)
			} else if !dedup {
				hold = append(hold, held{r, i})
			} else if x, ok := first[r.k]; !ok {
				first[r.k] = 1
				hold = append(hold, held{r, i})
			} else if x >= 0 {
				for j := range hold { // a smaller time replaces the key's held row
					if hold[j].r.k == r.k && r.t < hold[j].r.t {
						hold[j] = held{r, i}
					}
				}
			}
			if nw := r.t - delay*1000; !set || nw > wm {
				wm, set = nw, true
				release(wm, false)
			}
		}
		release(0, true)
		var got []string
		var push [][]any
		for _, r := range rows {
			push = append(push, []any{r.k, r.t, r.v})
		}
		runPushed(t, func(out streamql.Output, r *streamql.Rows) error {
			for i := 0; i < r.Len(); i++ {
				line := fmt.Sprintf("%s|%d|%d|%d", out.Name, r.Int64(0, i), r.Int64(1, i), r.Int64(2, i))
				if len(out.Columns) == 4 {
					line += fmt.Sprintf("|%d", r.Int64(3, i))
				}
				got = append(got, line)
			}
			return nil
		}, setup, "ev", query, push)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: %s (delay %d s)\nover %v\ngot  %s\nwant %s", seed, query, delay, rows, strings.Join(got, " "), strings.Join(want, " "))
		}
	}
}
