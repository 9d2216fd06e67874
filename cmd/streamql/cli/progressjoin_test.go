package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql/parser"
)

// TestLiveStatusJoinHeld: the live status of a job whose stream is a join
// of two streams (SPEC 2.7) shows the rows the join holds, each input's
// and their bytes, and each input's watermark, as it shows an event-time
// semi join's held rows (SPEC 4, Progress). l (stdin) sends n rows while
// r (a followed file) has sent one row far behind them: each l row waits
// for r's watermark, so the join holds all n; the status says "held n
// rows (l n, r …)" with the bytes the join's state is charged.
func TestLiveStatusJoinHeld(t *testing.T) {
	for _, join := range []string{
		"l JOIN r ON l.k = r.k AND r.ts BETWEEN l.ts - 1000 AND l.ts", // interval
		"l LEFT JOIN r ON l.k = r.k AND r.ts BETWEEN l.ts - 1000 AND l.ts",
		"l JOIN r ON l.k = r.k", // regular, event time on both: held for the watermarks too
	} {
		t.Run(join, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "r.csv"), []byte("a,0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			captured := make(chan *progress, 1)
			stderrTerminal = func(io.Writer) bool { return true }
			progressStarted = func(p *progress) { captured <- p }
			defer func() { stderrTerminal, progressStarted = isTerminal, nil }()
			t.Setenv("CI", "")
			pr, pw := io.Pipe()
			var out, errOut fakeTerminal
			s := NewSession(&out, &errOut, pr)
			sql := "CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='stdin', 'format'='csv');\n" +
				"CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'follow'='true');\n" +
				"SELECT l.k, l.ts, r.ts AS rts FROM " + join + ";"
			sc, err := parser.Parse("t", sql)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			go func() { done <- s.ExecStmts(ctx, sc, dir) }()
			const n = 50
			go func() { // (one write: the rows come in one batch)
				var rows strings.Builder
				for i := range n {
					fmt.Fprintf(&rows, "a,%d\n", 10000+i)
				}
				io.WriteString(pw, rows.String())
			}()
			p := <-captured
			if !p.held {
				t.Error("the status of a join of two streams shows no held rows")
			}
			deadline := time.Now().Add(time.Minute) // (a hang fails; nothing is timed)
			for {
				snap := p.snap()
				var wms []string
				for _, w := range snap.Watermarks {
					wms = append(wms, w.Stream+" "+w.Text)
				}
				// (r's one row may come after l's: both watermarks are
				// waited for, l's rows are held either way)
				wantWms := fmt.Sprintf("l %d, r 0", 10000+n-1)
				if len(snap.HeldInputs) == 2 && snap.HeldInputs[0].Rows == n && strings.Join(wms, ", ") == wantWms {
					text := heldText(snap)
					if want := fmt.Sprintf("held %d rows (l %d, r %d) ", snap.HeldRows, n, snap.HeldInputs[1].Rows); !strings.HasPrefix(text, want) ||
						snap.HeldRows != n+snap.HeldInputs[1].Rows || snap.HeldBytes <= 0 {
						t.Errorf("status %q (%+v), want it to start %q, with bytes", text, snap, want)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the status never showed %d held rows of l with each input's watermark (%s): %+v, watermarks %q", n, wantWms, snap, strings.Join(wms, ", "))
				}
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
			pw.Close()
			<-done
		})
	}
}
