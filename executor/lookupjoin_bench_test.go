package executor_test

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"streamql/cmd/streamql/cli"
	"streamql/executor"
	"streamql/internal/sensorbench"
	"streamql/parser"
)

// lookupJoinScript is the benchmark suite's lookup join (issue 23): clicks
// joined with a bounded file of 100,000 users, read whole first (SPEC 2.7).
const lookupJoinScript = `CREATE STREAM clicks (userId BIGINT, ts BIGINT, url VARCHAR)
  WITH ('connector' = 'file', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE STREAM users (id BIGINT, name VARCHAR, country VARCHAR)
  WITH ('connector' = 'file', 'path' = 'users.csv', 'format' = 'csv');
SELECT c.userId, c.url, u.name, u.country FROM clicks c JOIN users u ON c.userId = u.id;
`

// writeLookupInputs writes into dir what the split job and lookupJoinScript
// read: sensors.csv (sensorbench.CSV) and clicks.csv with rows rows each,
// the clicks' users drawn from 100,000, and users.csv with those users (the
// benchmark suite's shapes).
func writeLookupInputs(tb testing.TB, dir string, rows int) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), sensorbench.CSV(rows), 0o644); err != nil {
		tb.Fatal(err)
	}
	write := func(name string, n int, line func(i int, b []byte) []byte) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		var b []byte
		for i := range n {
			b = append(line(i, b[:0]), '\n')
			w.Write(b)
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	const users = 100_000
	rng := rand.New(rand.NewPCG(20261202, 23))
	write("clicks.csv", rows, func(i int, b []byte) []byte {
		b = strconv.AppendInt(b, int64(rng.IntN(users)), 10)
		b = strconv.AppendInt(append(b, ','), 1610035289736+int64(i)*10, 10)
		return strconv.AppendInt(append(b, ",/item/"...), int64(rng.IntN(5000)), 10)
	})
	countries := []string{"DE", "FR", "JP", "US", "BR", "IN"}
	write("users.csv", users, func(i int, b []byte) []byte {
		b = strconv.AppendInt(b, int64(i), 10)
		b = strconv.AppendInt(append(b, ",user"...), int64(i), 10)
		return append(append(b, ','), countries[i%len(countries)]...)
	})
}

// cpuScript runs script over the files of dir with procs CPUs (GOMAXPROCS:
// 1 takes the sequential strategy) as the command line does (csv output,
// side outputs into their own folder, both discarded or thrown away), and
// returns the process's CPU time while it ran (wall time where that cannot
// be read).
func cpuScript(b *testing.B, script, dir string, procs int) time.Duration {
	b.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	sc, err := parser.Parse("job.sql", script)
	if err != nil {
		b.Fatal(err)
	}
	s := cli.NewSession(io.Discard, io.Discard, strings.NewReader(""))
	s.Format, s.SideDir = "csv", b.TempDir()
	runtime.GC()
	t, cpu := time.Now(), sensorbench.CPUTime()
	if code := s.ExecScript(context.Background(), sc, dir); code != 0 {
		b.Fatalf("exit status %d", code)
	}
	if cpu > 0 {
		return sensorbench.CPUTime() - cpu
	}
	return time.Since(t)
}

// BenchmarkLookupJoinVsSplit runs the split job (SPEC 2.1's example) and the
// lookup join of the benchmark suite over as many input rows, end to end
// in process (decoding, join, csv encoding), in the same run, and reports
// the lookup join's rows per CPU second as a share of the split job's
// (issue 23: at least 0.7), with the join's inputs decoded in parallel
// (plan.ParallelJoinInputs, GOMAXPROCS 2) and sequentially (GOMAXPROCS 1,
// the split job's share then also taken at 1). One op is 1,024 rows of
// each input: -benchtime 1954x is 2,000,000 rows, the suite's.
//
//	go test ./executor -run XXX -bench LookupJoinVsSplit -benchtime 1954x
func BenchmarkLookupJoinVsSplit(b *testing.B) {
	dir := b.TempDir()
	writeLookupInputs(b, dir, b.N*1024)
	par0 := executor.JoinParallelInputs()
	split, lookup := cpuScript(b, sensorbench.SplitScript, dir, 2), cpuScript(b, lookupJoinScript, dir, 2)
	if b.N >= 100 && executor.JoinParallelInputs() == par0 { // (a file under two chunks is read sequentially)
		b.Fatal("the lookup join's inputs were not read in parallel with GOMAXPROCS=2")
	}
	split1, lookup1 := cpuScript(b, sensorbench.SplitScript, dir, 1), cpuScript(b, lookupJoinScript, dir, 1)
	b.ReportMetric(float64(split)/float64(lookup), "lookup/split")
	b.ReportMetric(float64(split1)/float64(lookup1), "lookup-seq/split-seq")
	b.ReportMetric(float64(lookup)/float64(lookup1), "par-cpu/seq-cpu")
	b.ReportMetric(float64(lookup.Nanoseconds())/float64(b.N*1024), "lookup-cpu-ns/row")
}
