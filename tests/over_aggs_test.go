package tests

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestOverListAggCountDistinctAgainstReference: OVER aggregation takes the
// aggregates of SPEC 2.4 (SPEC 2.9), LISTAGG (with and without a
// separator) and COUNT(DISTINCT x) among them, which Flink computes over
// ROWS and RANGE frames too. Over random inputs out of order (late rows
// left out), each on-time row gets, in event-time order, the values of its
// frame computed by a reference written apart from the engine: the rows of
// its key sorted by time (ties in arrival order); a ROWS frame is the row
// and the n before it, a RANGE frame the rows whose time is within the
// interval, the current row's peers included.
func TestOverListAggCountDistinctAgainstReference(t *testing.T) {
	const delay = 500
	for seed := range 10 {
		r := rand.New(rand.NewPCG(uint64(seed), 43))
		rows := randRRows(r, 10+r.IntN(80), 3, 6)
		files := map[string]string{"r.csv": rrowFile(rows)}
		ddl := `CREATE STREAM e (k VARCHAR, x BIGINT, ts BIGINT, id BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
		onTime, _ := onTimeRows(rows, delay)
		byTime := slices.Clone(onTime)
		slices.SortStableFunc(byTime, func(a, b rrow) int { return cmp.Compare(a.ts, b.ts) })
		n, ms := r.IntN(4), 100*r.Int64N(8)
		for _, frame := range []string{fmt.Sprintf("ROWS BETWEEN %d PRECEDING AND CURRENT ROW", n), fmt.Sprintf("RANGE BETWEEN INTERVAL '%d' MILLISECOND PRECEDING AND CURRENT ROW", ms)} {
			q := "SELECT k, x, ts, id, LISTAGG(CAST(x AS VARCHAR)) OVER w AS l, LISTAGG(CAST(id AS VARCHAR), '|') OVER w AS ids, COUNT(DISTINCT x) OVER w AS d FROM e WINDOW w AS (PARTITION BY k ORDER BY ts " + frame + ");\n"
			out, errs, code := runSQL(t, files, ddl+q, "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			var want []string
			for i, x := range byTime {
				var in []rrow // the frame, in (time, arrival) order
				for j, y := range byTime {
					switch {
					case y.k != x.k:
					case strings.HasPrefix(frame, "ROWS") && j <= i:
						in = append(in, y)
					case strings.HasPrefix(frame, "RANGE") && y.ts >= x.ts-ms && y.ts <= x.ts:
						in = append(in, y)
					}
				}
				if strings.HasPrefix(frame, "ROWS") {
					in = in[max(0, len(in)-n-1):]
				}
				var xs, ids []string
				distinct := map[int64]bool{}
				for _, y := range in {
					xs = append(xs, fmt.Sprint(y.x))
					ids = append(ids, fmt.Sprint(y.id))
					distinct[y.x] = true
				}
				l := strings.Join(xs, ",")
				if len(xs) > 1 {
					l = `"` + l + `"` // (csv quotes a field holding its delimiter)
				}
				want = append(want, x.text(l, strings.Join(ids, "|"), len(distinct)))
			}
			if got := csvRows(out); !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s\n got %q\nwant %q", seed, q, got, want)
			}
		}
	}
}
