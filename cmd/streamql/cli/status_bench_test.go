package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"streamql/internal/sensorbench"
	"streamql/parser"
)

// BenchmarkLiveStatus runs the split job (internal/sensorbench, 2,000,000
// rows, about 0.25 s, outputs discarded) through Session.RunJob twice per op,
// alternating which goes first: once with no status, once with the live status
// on a stand-in terminal that discards what is drawn, shown from the start
// (not after a second) and redrawn every 150 ms as on a terminal. It reports
// both wall times per row and their ratio, status-on / off (SPEC 4: at most
// 1.02):
//
//	go test ./cmd/streamql/cli -run XXX -bench LiveStatus -benchtime 10x
func BenchmarkLiveStatus(b *testing.B) {
	const rows = 2_000_000
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), sensorbench.CSV(rows), 0o644); err != nil {
		b.Fatal(err)
	}
	sc, err := parser.Parse("split.sql", sensorbench.SplitScript)
	if err != nil {
		b.Fatal(err)
	}
	delay := progressDelay
	defer func() { stderrTerminal, progressDelay = isTerminal, delay }()
	b.Setenv("CI", "")
	progressDelay = 0
	drawn := 0
	progressStarted = func(*progress) { drawn++ }
	defer func() { progressStarted = nil }()
	run := func(status bool) time.Duration {
		stderrTerminal = func(io.Writer) bool { return status }
		s := NewSession(io.Discard, io.Discard, nil)
		s.Format = "csv"
		start := time.Now()
		if code := s.ExecStmts(context.Background(), sc, dir); code != 0 {
			b.Fatalf("exit %d", code)
		}
		return time.Since(start)
	}
	var off, on time.Duration
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			off += run(false)
			on += run(true)
		} else {
			on += run(true)
			off += run(false)
		}
	}
	if drawn == 0 {
		b.Fatal("the status never started")
	}
	n := float64(b.N) * rows
	b.ReportMetric(float64(off.Nanoseconds())/n, "off-ns/row")
	b.ReportMetric(float64(on.Nanoseconds())/n, "on-ns/row")
	b.ReportMetric(float64(on)/float64(off), "on/off")
}
