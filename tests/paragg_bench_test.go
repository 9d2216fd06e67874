//go:build unix

package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"streamql/cmd/streamql/cli"
	"streamql/internal/sensorbench"
)

// BenchmarkTumbleVsSplitFile runs issue 11 item 7's TUMBLE job
// (sensorbench.TumbleScript: per device and minute, COUNT(*), AVG, MIN, MAX
// of temperature, watermark ts - 5 s) and the split job (the baseline:
// sensorbench.SplitScript) through cli.Run over the same generated sensor
// file, alternating them in each iteration, outputs as csv to files under
// --side-dir; it reports the median wall-time ratio TUMBLE/split (the goal:
// at most 1.2), each job's median rows/s and CPU-ns per row (user+system).
// On 2 CPUs the TUMBLE job runs on the parallel window aggregate
// (executor/paragg.go), the split job on the morsel pipeline.
//
//	go test ./tests -run XXX -bench TumbleVsSplitFile -benchtime 5x
//
// STREAMQL_BENCH_ROWS sets the rows (default 2,000,000).
func BenchmarkTumbleVsSplitFile(b *testing.B) {
	rows := envInt(b, "STREAMQL_BENCH_ROWS", 2_000_000)
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), sensorbench.CSV(rows), 0o644); err != nil {
		b.Fatal(err)
	}
	scripts := map[string]string{"split": sensorbench.SplitScript, "tumble": sensorbench.TumbleScript}
	for name, s := range scripts {
		s = strings.ReplaceAll(s, "'sensors.csv'", "'"+filepath.Join(dir, "sensors.csv")+"'")
		if err := os.WriteFile(filepath.Join(dir, name+".sql"), []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run := func(name string) (time.Duration, time.Duration) {
		side := filepath.Join(dir, "out-"+name)
		os.RemoveAll(side)
		out, err := os.Create(filepath.Join(dir, name+".out"))
		if err != nil {
			b.Fatal(err)
		}
		defer out.Close()
		var stderr bytes.Buffer
		cpu0, t0 := sensorbench.CPUTime(), time.Now()
		code := cli.Run(context.Background(), []string{"--format", "csv", "--side-dir", side, "-f", filepath.Join(dir, name+".sql")}, strings.NewReader(""), out, &stderr)
		wall, cpu := time.Since(t0), sensorbench.CPUTime()-cpu0
		if code != 0 {
			b.Fatalf("%s: exit status %d: %s", name, code, stderr.String())
		}
		return wall, cpu
	}
	var walls, cpus [2][]time.Duration
	var ratios []float64
	b.ResetTimer()
	for range b.N {
		var w [2]time.Duration
		for k, name := range []string{"split", "tumble"} {
			wall, cpu := run(name)
			w[k] = wall
			walls[k], cpus[k] = append(walls[k], wall), append(cpus[k], cpu)
		}
		ratios = append(ratios, float64(w[1])/float64(w[0]))
	}
	b.StopTimer()
	med := func(d []time.Duration) time.Duration { s := slices.Clone(d); slices.Sort(s); return s[len(s)/2] }
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "tumble/split")
	for k, name := range []string{"split", "tumble"} {
		b.ReportMetric(float64(rows)/med(walls[k]).Seconds(), name+"-rows/s")
		b.ReportMetric(float64(med(cpus[k]).Nanoseconds())/float64(rows), name+"-cpu-ns/row")
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "walls split %v tumble %v\n", walls[0], walls[1])
	}
}
