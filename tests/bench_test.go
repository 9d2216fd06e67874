//go:build unix

package tests

// Benchmarks of the main job (split a sensor CSV into the side outputs
// low-tmp and high-tmp and the main output) over a generated 1,000,000-row
// file, plus a hand-written Go baseline doing the same job, for a ratio:
//
//	go test ./tests -run XXX -bench Split -benchtime 3x -benchmem
//
// Both report MB/s (input bytes), rows/s, allocs/row and cpu-ns/row (user+system
// CPU time per row, steadier than ns/op on a busy machine).

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"streamql/cmd/streamql/cli"
	"streamql/internal/sensorbench"
)

const (
	benchRows = 1_000_000
	benchSeed = 20261129
)

// benchData is the generated input, shared by all benchmarks of one process.
type benchData struct {
	dir, csv, script string
	size             int64
	low, high, main  int // expected row counts per output
}

var (
	benchOnce sync.Once
	benchIn   benchData
	benchErr  error
)

// sensorInput generates the sensor CSV (deterministic) and returns where it
// is. The file is cached under the system temp folder across runs: it is
// rewritten only when its contents differ from what the generator produces.
func sensorInput(b *testing.B) benchData {
	b.Helper()
	benchOnce.Do(func() { benchIn, benchErr = generateSensors() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchIn
}

func generateSensors() (benchData, error) {
	var d benchData
	rng := rand.New(rand.NewSource(benchSeed))
	var buf bytes.Buffer
	buf.Grow(benchRows * 28)
	ts := int64(1610035289736)
	line := make([]byte, 0, 64)
	for i := 0; i < benchRows; i++ {
		ts += 1 + rng.Int63n(100)
		t := rng.Intn(1001) // temperature*10, uniform over 0.0..100.0
		switch {
		case t < 100:
			d.low++
		case t > 700:
			d.high++
		default:
			d.main++
		}
		line = append(line[:0], "设备"...)
		line = strconv.AppendInt(line, int64(rng.Intn(10)), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, ts, 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(t/10), 10)
		line = append(line, '.', byte('0'+t%10), '\n')
		buf.Write(line)
	}
	d.size = int64(buf.Len())
	d.dir = filepath.Join(os.TempDir(), fmt.Sprintf("streamql-bench-sensors-%d-%d", benchRows, benchSeed))
	d.csv = filepath.Join(d.dir, "sensors.csv")
	d.script = filepath.Join(d.dir, "split.sql")
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return d, err
	}
	if err := writeIfChanged(d.csv, buf.Bytes()); err != nil {
		return d, err
	}
	if err := writeIfChanged(d.script, []byte(sensorbench.SplitScript)); err != nil {
		return d, err
	}
	return d, nil
}

// writeIfChanged writes data to path (atomically, via a rename) unless the
// file already holds exactly data.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gen-*")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// dataLines counts the rows of a CSV output file with a header line. It
// streams the file through a small buffer so that checking does not show up
// in -memprofile.
func dataLines(b *testing.B, path string) int {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if n == 0 {
		b.Fatalf("%s: no header line", path)
	}
	return n - 1
}

// checkOutputs fails the benchmark when an output's row count is wrong.
func checkOutputs(b *testing.B, d benchData, mainPath, sideDir string) {
	b.Helper()
	for _, c := range []struct {
		path string
		want int
	}{
		{mainPath, d.main},
		{filepath.Join(sideDir, "low-tmp.csv"), d.low},
		{filepath.Join(sideDir, "high-tmp.csv"), d.high},
	} {
		if got := dataLines(b, c.path); got != c.want {
			b.Fatalf("%s: %d rows, want %d", c.path, got, c.want)
		}
	}
}

// cost is what the timed parts of a benchmark used.
type cost struct {
	mallocs uint64
	cpu     time.Duration // user+system CPU time of the process
}

// runMeasured runs job once with the timer on and adds its heap allocations
// and CPU time to c.
func runMeasured(b *testing.B, c *cost, job func()) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := sensorbench.CPUTime()
	b.StartTimer()
	job()
	b.StopTimer()
	c.cpu += sensorbench.CPUTime() - cpu0
	runtime.ReadMemStats(&after)
	c.mallocs += after.Mallocs - before.Mallocs
}

func reportPerRow(b *testing.B, c cost) {
	rows := float64(benchRows) * float64(b.N)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(c.mallocs)/rows, "allocs/row")
	b.ReportMetric(float64(c.cpu.Nanoseconds())/rows, "cpu-ns/row")
}

// benchSplit times job (which writes main to mainPath and the side outputs under
// sideDir) over the generated input, checks its outputs and reports the per-row
// figures. Setup and checks run outside the measured part.
func benchSplit(b *testing.B, job func(d benchData, mainPath, sideDir string) error) {
	d := sensorInput(b)
	work := b.TempDir()
	b.SetBytes(d.size)
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	var c cost
	for i := 0; i < b.N; i++ {
		sideDir := filepath.Join(work, fmt.Sprintf("sides%d", i))
		if err := os.Mkdir(sideDir, 0o755); err != nil {
			b.Fatal(err)
		}
		mainPath := filepath.Join(work, fmt.Sprintf("main%d.csv", i))
		var err error
		runMeasured(b, &c, func() { err = job(d, mainPath, sideDir) })
		if err != nil {
			b.Fatal(err)
		}
		checkOutputs(b, d, mainPath, sideDir)
		os.RemoveAll(sideDir)
		os.Remove(mainPath)
	}
	reportPerRow(b, c)
}

// BenchmarkSplitJob runs the main job in-process through cli.Run, main
// output to a file, side outputs under --side-dir.
func BenchmarkSplitJob(b *testing.B) {
	benchSplit(b, func(d benchData, mainPath, sideDir string) error {
		out, err := os.Create(mainPath)
		if err != nil {
			return err
		}
		defer out.Close()
		var stderr bytes.Buffer
		code := cli.Run(context.Background(),
			[]string{"--format", "csv", "--side-dir", sideDir, "-f", d.script},
			strings.NewReader(""), out, &stderr)
		if code != 0 {
			return fmt.Errorf("exit status %d, stderr:\n%s", code, stderr.String())
		}
		return out.Close()
	})
}

// BenchmarkSplitBaseline does the same job with a hand-written Go loop: a
// bufio.Scanner over the file, fields split on commas, ts and temperature
// parsed with strconv, rows written to three buffered files.
func BenchmarkSplitBaseline(b *testing.B) {
	benchSplit(b, func(d benchData, mainPath, sideDir string) error {
		return baselineSplit(d.csv, mainPath, sideDir)
	})
}

func baselineSplit(in, mainPath, sideDir string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	type output struct {
		f *os.File
		w *bufio.Writer
	}
	var outs [3]output // main, low-tmp, high-tmp
	for i, p := range []string{mainPath, filepath.Join(sideDir, "low-tmp.csv"), filepath.Join(sideDir, "high-tmp.csv")} {
		o, err := os.Create(p)
		if err != nil {
			return err
		}
		defer o.Close()
		outs[i] = output{o, bufio.NewWriterSize(o, 64<<10)}
	}
	outs[0].w.WriteString("deviceNo,ts,temperature\n")
	outs[1].w.WriteString("deviceNo,temperature\n")
	outs[2].w.WriteString("deviceNo,temperature\n")

	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := make([]byte, 0, 64)
	n := 0
	for sc.Scan() {
		n++
		row := sc.Bytes()
		c1 := bytes.IndexByte(row, ',')
		if c1 < 0 {
			return fmt.Errorf("%s:%d: want 3 fields", in, n)
		}
		c2 := bytes.IndexByte(row[c1+1:], ',')
		if c2 < 0 {
			return fmt.Errorf("%s:%d: want 3 fields", in, n)
		}
		c2 += c1 + 1
		dev, tsText, tempText := row[:c1], row[c1+1:c2], row[c2+1:]
		ts, err := strconv.ParseInt(string(tsText), 10, 64)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", in, n, err)
		}
		temp, err := strconv.ParseFloat(string(tempText), 64)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", in, n, err)
		}
		line = append(line[:0], dev...)
		line = append(line, ',')
		var w *bufio.Writer
		switch {
		case temp < 10:
			w = outs[1].w
		case temp > 70:
			w = outs[2].w
		default:
			w = outs[0].w
			line = strconv.AppendInt(line, ts, 10)
			line = append(line, ',')
		}
		line = appendDouble(line, temp)
		line = append(line, '\n')
		w.Write(line)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, o := range outs {
		if err := o.w.Flush(); err != nil {
			return err
		}
		if err := o.f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// appendDouble formats v in plain notation with at least one decimal, as
// Java's Double.toString does for the values of this data (10.0, 38.8).
func appendDouble(dst []byte, v float64) []byte {
	start := len(dst)
	dst = strconv.AppendFloat(dst, v, 'f', -1, 64)
	if bytes.IndexByte(dst[start:], '.') < 0 {
		dst = append(dst, '.', '0')
	}
	return dst
}
