package streamql_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"streamql"
)

// TestWindowOverJoinFiresLive: event time flows through a join (SPEC 2.6,
// 2.7): a view over an interval join of two live streams has the join's
// output time (the left input's, a RIGHT join's right input's, held back by the interval), so a window over
// the view fires as the inputs' watermarks pass it, while both streams are
// still open, not only when they end; and no joined row is late there. The
// same holds for a lookup join's view and for a join read by another join in
// one FROM. Each case pushes rows up to t = 200 s and waits for the first
// window's row before closing the streams.
func TestWindowOverJoinFiresLive(t *testing.T) {
	const ddl = `
CREATE STREAM o (id BIGINT, amount BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'go');
CREATE STREAM p (oid BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'go');
CREATE STREAM q (oid BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'go');
`
	cases := []struct {
		name, view string
		left       bool // order 2 is never paid: a LEFT join pads it when its interval closes
	}{
		{"interval join", `CREATE VIEW paid AS SELECT o.id, o.amount, o.ts FROM o JOIN p ON o.id = p.oid AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '5' SECOND`, false},
		{"two interval joins in one FROM", `CREATE VIEW paid AS SELECT o.id, o.amount, o.ts FROM o JOIN p ON o.id = p.oid AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '5' SECOND JOIN q ON o.id = q.oid AND q.ts BETWEEN o.ts AND o.ts + INTERVAL '5' SECOND`, false},
		{"left interval join", `CREATE VIEW paid AS SELECT o.id, o.amount, o.ts FROM o LEFT JOIN p ON o.id = p.oid AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '5' SECOND`, true},
		{"right interval join", `CREATE VIEW paid AS SELECT p.oid AS id, o.amount, p.ts FROM o RIGHT JOIN p ON o.id = p.oid AND o.ts BETWEEN p.ts - INTERVAL '5' SECOND AND p.ts + INTERVAL '1' SECOND`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var mu sync.Mutex
			var got []string
			first := make(chan struct{})
			var once sync.Once
			s, err := streamql.Open(streamql.Options{OnRows: func(out streamql.Output, rows *streamql.Rows) error {
				mu.Lock()
				defer mu.Unlock()
				for r := 0; r < rows.Len(); r++ {
					var vals []string
					for c := range out.Columns {
						vals = append(vals, fmt.Sprint(rows.Value(c, r)))
					}
					got = append(got, out.Name+": "+strings.Join(vals, ", "))
					if out.Name == "main" {
						once.Do(func() { close(first) })
					}
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.ExecScript(ctx, "ddl.sql", ddl+tc.view+";", "."); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				done <- s.Exec(ctx, `SELECT window_start, COUNT(*) AS n, SUM(amount) AS total FROM TABLE(TUMBLE(TABLE paid, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end`)
			}()
			push := func(stream string, row ...any) {
				if err := s.Push(ctx, stream, row...); err != nil {
					t.Fatalf("push %s %v: %v", stream, row, err)
				}
			}
			// orders 1-3 in the first minute, 4 at 100 s, each paid (and
			// confirmed, q) within 5 s; then rows at 200 s and 300 s move every watermark (each join holds its output back by its interval)
			for i, ts := range []int64{1000, 2000, 30000, 100000, 200000, 300000} {
				id := int64(i + 1)
				push("o", id, 10*id, ts)
				if !tc.left || id != 2 {
					push("p", id, ts+500)
				}
				push("q", id, ts+700)
			}
			select {
			case <-first:
			case err := <-done:
				t.Fatalf("the job ended before its streams closed: %v", err)
			case <-ctx.Done():
				mu.Lock()
				t.Fatalf("no window fired while the streams were open (event time did not flow through the join); rows so far: %q", got)
			}
			for _, st := range []string{"o", "p", "q"} {
				if err := s.CloseStream(st); err != nil {
					t.Fatal(err)
				}
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{"main: 0, 3, 60", "main: 60000, 1, 40", "main: 180000, 1, 50", "main: 300000, 1, 60"}
			var mains []string
			for _, g := range got {
				if strings.HasPrefix(g, "main: ") {
					mains = append(mains, g)
				} else {
					t.Errorf("unexpected output row (a late joined row?): %s", g)
				}
			}
			if strings.Join(mains, "\n") != strings.Join(want, "\n") {
				t.Errorf("windows:\n%s\nwant\n%s", strings.Join(mains, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
