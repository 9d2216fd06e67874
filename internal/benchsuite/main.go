//go:build unix

// Command benchsuite is the benchmark suite of issue 15: it times streamql's
// own jobs on one generated sensor input, in one run, against the
// hand-written Go floor (the split job with no engine, as
// ../shared/bench/floor), and prints one table: wall seconds, rows/s, MB/s of
// input, peak RSS, and the ratio job wall / floor wall (lower is better; 1.0
// is as fast as the hand-written loop).
//
//	go run ./internal/benchsuite [-bin STREAMQL] [-base OLDER] [-jobs TEXT,...] [-rows N] [-runs K] [-dir CACHE] [-mem-rows N1,N2]
//
// With -base, a second binary (main's build, say) runs each job in the same
// rounds, the two alternating in an order that flips every round, and gets a
// table of its own: a change is then measured against the build before it
// under the same load. -jobs keeps the split job and the jobs named.
//
// The jobs: split (the sensor split to csv side files, SPEC 2.1), late rows (a
// watermark and a late side branch, SPEC 2.3), semi join (IN a 4-row stream,
// SPEC 2.2), JSON input (the split over the same rows as json lines), table
// output (the split with --format table), and TUMBLE (the windowed aggregate of
// issue 11 item 7, SPEC 2.4; bench/duckdb compares it with DuckDB), an
// interval join of two streams of half the rows each (and the same with a
// side branch on its left stream), and a lookup join of the
// rows against a 100,000-row file (issue 23, SPEC 2.7; rows/s counts the
// input rows of both streams, and the lookup table's rows not), issue 24's
// unbounded GROUP BY count per key (without and with mini-batch,
// 'table.exec.mini-batch.enabled') and Top-10 per key over 10,000 keys
// (SPEC 2.8, 2.9: the file read as a stream, their changelogs printed), the
// Top-10 of those counts (a Top-N over an updating input), and, when
// STREAMQL_KAFKA_BROKERS names a broker, the Kafka split (topic → split →
// topics, tests/kafka_bench_test.go, issue 12 item 8). The split job's outputs
// must equal the floor's, byte for byte. Each job and the floor run
// alternately K times (after one warm-up round, not counted); the medians are
// printed, and for issue 24's goals each of its GROUP BY and Top-10 jobs'
// share of the split job's rows/s (wall) and of its rows per CPU-second, from
// the same run. Then, unless -mem-rows is "", issue 24's memory measurement
// (memoryByRows): the split, the GROUP BY and the Top-10 per key over inputs
// of each -mem-rows size (default 1,000,000 and 4,000,000 rows, the same
// 10,000 keys), their peak RSS per size and its ratio largest / smallest
// size. Without -bin it builds ./cmd/streamql first. The input (default
// 2,000,000 rows, about 54 MB; the same seed always gives the same bytes) is
// cached in -dir. Figures depend on the machine and its load: compare runs of
// the same machine only. Peak RSS is getrusage's, which on Linux is at least
// the suite's own RSS when it starts the job (about 10 MiB).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// job is one benchmark job: its script (paths relative to the cache folder)
// and streamql's flags besides -f.
type job struct {
	name   string
	input  string // the input file whose size MB/s counts
	script string
	flags  []string
}

const sensorsDDL = `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE%s)
  WITH ('connector' = 'file', 'path' = '%s', 'format' = '%s');
`

const splitSQL = `SELECT deviceNo, temperature INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10;
SELECT deviceNo, temperature INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;
`

// tumbleSQL is the windowed aggregate of issue 11 item 7 (as
// internal/sensorbench.TumbleScript): per device and per minute, COUNT(*), AVG,
// MIN and MAX of temperature.
const tumbleSQL = `SELECT window_start, window_end, deviceNo, COUNT(*) AS n, AVG(temperature) AS avg_t,
  MIN(temperature) AS min_t, MAX(temperature) AS max_t
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, deviceNo;
`

// viewTumbleSQL is tumbleSQL over a view that filters the stream (SPEC 2.6's
// composition): the view's rows carry the stream's watermark to the window
// (plan.Derived.Stamps, StreamWatermarks), so that a row the view drops still
// moves it.
const viewTumbleSQL = `CREATE VIEW warm AS SELECT deviceNo, ts, temperature FROM sensors WHERE temperature >= 10;
SELECT window_start, window_end, deviceNo, COUNT(*) AS n, AVG(temperature) AS avg_t,
  MIN(temperature) AS min_t, MAX(temperature) AS max_t
  FROM TABLE(TUMBLE(TABLE warm, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, deviceNo;
`

func jobs() []job {
	return []job{
		{"split", "sensors.csv", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + splitSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{"late rows", "sensors.csv", fmt.Sprintf(sensorsDDL, ", WATERMARK FOR ts AS ts", "sensors.csv", "csv") +
			"SELECT deviceNo, ts INTO SIDE 'late' FROM sensors WHERE ts < CURRENT_WATERMARK(ts);\nSELECT * FROM sensors;\n",
			[]string{"--format", "csv", "--side-dir", "OUT"}},
		{"semi join", "sensors.csv", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") +
			"CREATE STREAM devices (deviceNo VARCHAR) WITH ('connector' = 'file', 'path' = 'devices.csv', 'format' = 'csv');\n" +
			"SELECT * FROM sensors WHERE deviceNo IN (SELECT deviceNo FROM devices);\n",
			[]string{"--format", "csv", "--side-dir", "OUT"}},
		{"JSON input", "sensors.json", fmt.Sprintf(sensorsDDL, "", "sensors.json", "json") + splitSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{"table output", "sensors.csv", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + splitSQL, []string{"--format", "table", "--side-dir", "OUT"}},
		{"TUMBLE", "sensors.csv", fmt.Sprintf(sensorsDDL, ",\n  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND", "sensors.csv", "csv") + tumbleSQL,
			[]string{"--format", "csv", "--side-dir", "OUT"}},
		{"TUMBLE over a filtering view", "sensors.csv", fmt.Sprintf(sensorsDDL, ",\n  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND", "sensors.csv", "csv") + viewTumbleSQL,
			[]string{"--format", "csv", "--side-dir", "OUT"}},
		{"interval join", "orders.csv payments.csv", intervalJoinSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{"interval join, left side branch", "orders.csv payments.csv", intervalJoinBranchSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{"lookup join", "clicks.csv users.csv", lookupJoinSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{groupByJob, "sensors.csv", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + groupBySQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{groupByMiniJob, "sensors.csv", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + groupByMiniSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{topNJob, "sensors.csv", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + topNSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{"Top-10 of the counts (changelog)", "sensors.csv", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + topCountsSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
	}
}

// The names of issue 24's jobs, which the goals' lines after the table read.
const (
	groupByJob     = "GROUP BY count per key (changelog)"
	groupByMiniJob = "GROUP BY count per key, mini-batch (changelog)"
	topNJob        = "Top-10 per key (changelog)"
)

// groupBySQL is issue 24's running count per key (as the executor's
// BenchmarkGroupByVsSplit): an unbounded GROUP BY (SPEC 2.8) over 10,000
// keys, the file read as a stream ('execution.runtime-mode' = 'streaming'),
// so that it prints its changelog (one change per input row, csv's op
// column) instead of the final table.
const groupBySQL = `SET 'execution.runtime-mode' = 'streaming';
SELECT ts % 10000 AS k, COUNT(*) AS n FROM sensors GROUP BY ts % 10000;
`

// groupByMiniSQL is groupBySQL with Flink's mini-batch on
// ('table.exec.mini-batch.enabled', SPEC 2.8): the aggregate folds each
// batch's changes per key, so a key changed by several rows of a batch
// emits one -U/+U pair for them.
const groupByMiniSQL = `SET 'execution.runtime-mode' = 'streaming';
SET 'table.exec.mini-batch.enabled' = 'true';
SELECT ts % 10000 AS k, COUNT(*) AS n FROM sensors GROUP BY ts % 10000;
`

// topNSQL is issue 24's Top-10 per key over the same 10,000 keys (SPEC
// 2.9): each key's ten hottest readings, as a changelog (-D/+I).
const topNSQL = `SET 'execution.runtime-mode' = 'streaming';
SELECT k, ts, temperature
  FROM (SELECT ts % 10000 AS k, ts, temperature,
               ROW_NUMBER() OVER (PARTITION BY ts % 10000 ORDER BY temperature DESC) AS rn FROM sensors)
 WHERE rn <= 10;
`

// topCountsSQL is a Top-N over an updating input (issue 24 item 2, SPEC
// 2.8, 2.9: op.RetractTopN): the ten largest running counts of
// groupBySQL's 10,000 keys over the whole stream, as a changelog. Each
// input row takes back its group's old count (-U) and places the new one
// (+U) among counts that tie.
const topCountsSQL = `SET 'execution.runtime-mode' = 'streaming';
SELECT k, n
  FROM (SELECT k, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn
          FROM (SELECT ts % 10000 AS k, COUNT(*) AS n FROM sensors GROUP BY ts % 10000))
 WHERE rn <= 10;
`

// intervalJoinSQL is issue 23's interval join of two streams of half the
// input rows each (SPEC 2.7): each order's payment arrives within 0..4 s of
// it, and the condition allows 5 minutes, so the rows inside the interval
// (the join's state) are a few thousand, whatever the input's size.
const intervalJoinSQL = `CREATE STREAM orders (id BIGINT, ts BIGINT, amount DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv');
CREATE STREAM payments (orderId BIGINT, ts BIGINT, method VARCHAR, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'file', 'path' = 'payments.csv', 'format' = 'csv');
SELECT o.id, o.amount, p.method, p.ts FROM orders o JOIN payments p
  ON o.id = p.orderId AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '5' MINUTE;
`

// intervalJoinBranchSQL is intervalJoinSQL with a side branch pending on
// its left stream (SPEC 2.1, 2.7): the orders over 900.00 (about a tenth)
// go to side output 'big' by first match before the join, which joins the
// rest; the routed input's port stage (its cost against the interval join
// without the branch, in the same run).
const intervalJoinBranchSQL = `CREATE STREAM orders (id BIGINT, ts BIGINT, amount DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv');
CREATE STREAM payments (orderId BIGINT, ts BIGINT, method VARCHAR, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'file', 'path' = 'payments.csv', 'format' = 'csv');
SELECT id, amount INTO SIDE 'big' FROM orders WHERE amount > 900;
SELECT o.id, o.amount, p.method, p.ts FROM orders o JOIN payments p
  ON o.id = p.orderId AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '5' MINUTE;
`

// lookupJoinSQL is issue 23's lookup join: a stream of the input's rows
// against a bounded file of 100,000 users, read whole first (SPEC 2.7).
const lookupJoinSQL = `CREATE STREAM clicks (userId BIGINT, ts BIGINT, url VARCHAR)
  WITH ('connector' = 'file', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE STREAM users (id BIGINT, name VARCHAR, country VARCHAR)
  WITH ('connector' = 'file', 'path' = 'users.csv', 'format' = 'csv');
SELECT c.userId, c.url, u.name, u.country FROM clicks c JOIN users u ON c.userId = u.id;
`

// result is one timed run.
type result struct {
	wall time.Duration
	cpu  time.Duration // user + system time of the process
	rss  int64         // peak RSS in KiB
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "-floor" {
		floor(os.Args[2], os.Args[3])
		return
	}
	bin := flag.String("bin", "", "the streamql binary to time (default: go build ./cmd/streamql)")
	rows := flag.Int("rows", 2_000_000, "rows of the generated input")
	runs := flag.Int("runs", 3, "timed runs of each job (after one warm-up round)")
	memRows := flag.String("mem-rows", "1000000,4000000", "input sizes (rows, comma-separated) of the memory measurement of issue 24's jobs; \"\" skips it")
	base := flag.String("base", "", "a second streamql binary (an older build) timed alternately with -bin in the same rounds, each job's two runs in an order that flips every round; its table follows -bin's")
	only := flag.String("jobs", "", "run only the jobs whose names contain one of these comma-separated texts (case-insensitive; the split job always runs: the ratios are to it)")
	cacheDir, _ := os.UserCacheDir()
	dir := flag.String("dir", filepath.Join(cacheDir, "streamql-benchsuite"), "folder for the generated input")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		die(err)
	}
	if *bin == "" {
		*bin = filepath.Join(*dir, "streamql")
		build := exec.Command("go", "build", "-o", *bin, "./cmd/streamql")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			die(fmt.Errorf("go build ./cmd/streamql (run from the repository's root, or give -bin): %v", err))
		}
	}
	data := filepath.Join(*dir, "rows-"+strconv.Itoa(*rows))
	if err := generate(data, *rows, true); err != nil {
		die(err)
	}
	if err := generateJoins(data, *rows); err != nil {
		die(err)
	}
	self, err := os.Executable()
	if err != nil {
		die(err)
	}
	js := pickJobs(jobs(), *only)
	for _, j := range js {
		if err := os.WriteFile(filepath.Join(data, slug(j.name)+".sql"), []byte(j.script), 0o644); err != nil {
			die(err)
		}
	}
	out := filepath.Join(*dir, "out")
	floorRes := []result{}
	bins := []string{*bin}
	if *base != "" {
		bins = append(bins, *base)
	}
	all := make([][][]result, len(bins)) // binary, job, run
	for b := range bins {
		all[b] = make([][]result, len(js))
	}
	for round := 0; round <= *runs; round++ { // round 0 warms the page cache
		r := timed(out+"-floor", self, "-floor", filepath.Join(data, "sensors.csv"), "OUT")
		if round > 0 {
			floorRes = append(floorRes, r)
		}
		for k, j := range js {
			args := append(slices.Clone(j.flags), "-f", filepath.Join(data, slug(j.name)+".sql"))
			for n := range bins {
				b := (n + round) % len(bins) // (the order flips every round)
				r := timed(out, bins[b], args...)
				if round > 0 {
					all[b][k] = append(all[b][k], r)
				}
				if round == 0 && k == 0 {
					sameOutput(out+"-floor", out)
				}
			}
		}
	}
	fw, _, _ := medians(floorRes)
	fmt.Printf("input: %d rows, %s; %d runs each, medians; GOMAXPROCS=%s\n", *rows, sizes(data), *runs, envOr("GOMAXPROCS", "all CPUs"))
	for b := range bins {
		fmt.Printf("\n%s:\n\n", bins[b])
		table(js, all[b], floorRes, fw, data, *rows)
	}
	if *memRows != "" {
		memoryByRows(*bin, *dir, out, *memRows, *runs)
	}
	if brokers := os.Getenv("STREAMQL_KAFKA_BROKERS"); brokers != "" {
		w, _, rss := kafkaSplit(*rows, *runs)
		fmt.Printf("| Kafka split (topic → topics) | %.2f s | %.2f M | - | - | %d MiB | %.2f | - |\n", w.Seconds(), float64(*rows)/w.Seconds()/1e6, rss/1024, w.Seconds()/fw.Seconds())
	} else {
		fmt.Println("\n(the Kafka split runs too when STREAMQL_KAFKA_BROKERS names a broker: scripts/kafka-broker start DIR)")
	}
	fmt.Println("\nCPU s is user + system time; on a loaded machine its ratio to the split job's is steadier than the wall ratio.")
}

// pickJobs returns the split job (the first) and those of js whose names
// contain one of only's comma-separated texts, case-insensitive (all of
// js when only is "").
func pickJobs(js []job, only string) []job {
	if only == "" {
		return js
	}
	out := js[:1:1]
	for _, j := range js[1:] {
		for _, w := range strings.Split(only, ",") {
			if w = strings.TrimSpace(w); w != "" && strings.Contains(strings.ToLower(j.name), strings.ToLower(w)) {
				out = append(out, j)
				break
			}
		}
	}
	return out
}

// table prints one binary's medians of js (res: per job, its runs; the
// split job first) against the floor's runs (floorRes, median wall fw) over
// the input in data of rows rows, then issue 24's goal lines for the jobs
// of js that are its.
func table(js []job, res [][]result, floorRes []result, fw time.Duration, data string, rows int) {
	_, fcpu, frss := medians(floorRes)
	fmt.Println("| job | wall | rows/s | MB/s | CPU s | peak RSS | wall ratio to floor | CPU ratio to split |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	_, splitCPU, _ := medians(res[0])
	row := func(name, inputs string, wall, cpu time.Duration, rss int64) {
		var size int64
		for _, input := range strings.Fields(inputs) {
			fi, err := os.Stat(filepath.Join(data, input))
			if err != nil {
				die(err)
			}
			size += fi.Size()
		}
		s := wall.Seconds()
		cpuText, cpuRatio := "-", "-"
		if cpu > 0 {
			cpuText = fmt.Sprintf("%.2f", cpu.Seconds())
			cpuRatio = fmt.Sprintf("%.2f", cpu.Seconds()/splitCPU.Seconds())
		}
		fmt.Printf("| %s | %.2f s | %.2f M | %.0f | %s | %d MiB | %.2f | %s |\n", name, s, float64(rows)/s/1e6, float64(size)/s/1e6, cpuText, rss/1024, s/fw.Seconds(), cpuRatio)
	}
	row("floor (hand-written split)", "sensors.csv", fw, fcpu, frss)
	for k, j := range js {
		w, cpu, rss := medians(res[k])
		row(j.name, j.input, w, cpu, rss)
	}
	fmt.Println()
	index := map[string]int{}
	for k, j := range js {
		index[j.name] = k
	}
	for _, g := range []struct {
		name string
		goal float64
	}{{groupByJob, 0.6}, {groupByMiniJob, 0.6}, {topNJob, 0.4}} {
		k, ok := index[g.name]
		if !ok {
			continue
		}
		w, cpu, _ := medians(res[k])
		sw, scpu, _ := medians(res[0])
		fmt.Printf("issue 24: %s at %.2f of split's rows/s (wall) and %.2f of its rows per CPU-second (goal %.1f)\n", g.name, sw.Seconds()/w.Seconds(), scpu.Seconds()/cpu.Seconds(), g.goal)
	}
}

// memoryByRows is issue 24's "memory proportional to the keys, not the
// rows": the split job (no state, the control), the unbounded GROUP BY and
// the Top-10 per key (10,000 keys at every size: ts % 10000) over sensor
// inputs of each size of sizes (rows, comma-separated, generated as the
// suite's input into dir/mem-rows-N), runs times each, alternating, and a
// table of the median peak RSS (getrusage's maxrss of the child, KiB) and
// CPU s per size, with the ratio of the largest size's RSS to the smallest's
// (1.0: flat in the rows).
func memoryByRows(bin, dir, out, sizes string, runs int) {
	var ns []int
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			die(fmt.Errorf("-mem-rows %q: want input sizes in rows, comma-separated (as 1000000,4000000)", sizes))
		}
		ns = append(ns, n)
	}
	mjobs := []job{
		{"split", "", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + splitSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{groupByJob, "", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + groupBySQL, []string{"--format", "csv", "--side-dir", "OUT"}},
		{topNJob, "", fmt.Sprintf(sensorsDDL, "", "sensors.csv", "csv") + topNSQL, []string{"--format", "csv", "--side-dir", "OUT"}},
	}
	res := make([][][]result, len(mjobs)) // job, size, run
	for k := range mjobs {
		res[k] = make([][]result, len(ns))
	}
	for i, n := range ns {
		data := filepath.Join(dir, "mem-rows-"+strconv.Itoa(n))
		if err := generate(data, n, false); err != nil {
			die(err)
		}
		for _, j := range mjobs {
			if err := os.WriteFile(filepath.Join(data, slug(j.name)+".sql"), []byte(j.script), 0o644); err != nil {
				die(err)
			}
		}
		for round := 0; round <= runs; round++ { // round 0 warms the page cache
			for k, j := range mjobs {
				r := timed(out, bin, append(slices.Clone(j.flags), "-f", filepath.Join(data, slug(j.name)+".sql"))...)
				if round > 0 {
					res[k][i] = append(res[k][i], r)
				}
			}
		}
	}
	fmt.Printf("\nmemory by input size (10,000 keys; %d runs each, medians)\n\n| job |", runs)
	for _, n := range ns {
		fmt.Printf(" peak RSS, %.1f M rows | CPU s |", float64(n)/1e6)
	}
	fmt.Printf(" RSS ratio %.1f M / %.1f M rows |\n|---|", float64(ns[len(ns)-1])/1e6, float64(ns[0])/1e6)
	for range ns {
		fmt.Print("---:|---:|")
	}
	fmt.Println("---:|")
	for k, j := range mjobs {
		fmt.Printf("| %s |", j.name)
		var first, last int64
		for i := range ns {
			_, cpu, rss := medians(res[k][i])
			if i == 0 {
				first = rss
			}
			last = rss
			fmt.Printf(" %.1f MiB | %.2f |", float64(rss)/1024, cpu.Seconds())
		}
		fmt.Printf(" %.2f |\n", float64(last)/float64(first))
	}
}

// kafkaSplit runs tests/kafka_bench_test.go's BenchmarkKafkaSplit (the split
// from a 4-partition topic of rows sensor rows to three topics, the binary
// run end to end, issue 12 item 8) runs times through go test, against the
// broker of STREAMQL_KAFKA_BROKERS, and returns the medians of its wall time
// per run (rows / its kafka-rows/s) and its peak RSS in KiB (cpu is 0: the
// benchmark does not measure it).
func kafkaSplit(rows, runs int) (wall, cpu time.Duration, rss int64) {
	cmd := exec.Command("go", "test", "./tests", "-run", "XXX", "-bench", "KafkaSplit", "-benchtime", "1x", "-count", strconv.Itoa(runs))
	cmd.Env = append(os.Environ(), "STREAMQL_KAFKA_BENCH_ROWS="+strconv.Itoa(rows))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		die(fmt.Errorf("go test ./tests -bench KafkaSplit (run from the repository's root): %v\n%s", err, out))
	}
	var rs []result
	for _, line := range bytes.Split(out, []byte("\n")) {
		f := bytes.Fields(line)
		var r result
		for i := 1; i < len(f); i++ {
			v, err := strconv.ParseFloat(string(f[i-1]), 64)
			if err != nil {
				continue
			}
			switch string(f[i]) {
			case "kafka-rows/s":
				r.wall = time.Duration(float64(rows) / v * float64(time.Second))
			case "kafka-peak-RSS-MiB":
				r.rss = int64(v * 1024)
			}
		}
		if r.wall > 0 {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		die(fmt.Errorf("go test ./tests -bench KafkaSplit printed no kafka-rows/s:\n%s", out))
	}
	return medians(rs)
}

// timed runs name with args in a fresh out folder (an argument "OUT" is that
// folder), stdout to out/stdout, and returns its wall time and peak RSS.
func timed(out, name string, args ...string) result {
	if err := os.RemoveAll(out); err != nil {
		die(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		die(err)
	}
	args = slices.Clone(args)
	for i, a := range args {
		if a == "OUT" {
			args[i] = out
		}
	}
	so, err := os.Create(filepath.Join(out, "stdout"))
	if err != nil {
		die(err)
	}
	defer so.Close()
	var stderr bytes.Buffer
	debug.FreeOSMemory() // a child's peak RSS starts at its parent's (see sameFile)
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = so, &stderr
	t0 := time.Now()
	err = cmd.Run()
	wall := time.Since(t0)
	if err != nil {
		die(fmt.Errorf("%s %v: %v\n%s", name, args, err, stderr.Bytes()))
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss)
	}
	return result{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss}
}

// sameOutput stops the suite unless the split job wrote what the floor wrote.
func sameOutput(floorDir, dir string) {
	for _, pair := range [][2]string{{"low-tmp.csv", "low-tmp.csv"}, {"high-tmp.csv", "high-tmp.csv"}, {"main.csv", "stdout"}} {
		if !sameFile(filepath.Join(floorDir, pair[0]), filepath.Join(dir, pair[1])) {
			die(fmt.Errorf("the split job's %s differs from the floor's %s (see %s and %s)", pair[1], pair[0], dir, floorDir))
		}
	}
}

// sameFile reports whether the files at a and b hold the same bytes, reading
// them a block at a time: the suite keeps its own RSS small, since a child's
// peak RSS (getrusage) is at least its parent's at the fork.
func sameFile(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return ea == eb || (ea == io.ErrUnexpectedEOF || ea == io.EOF) && (eb == io.ErrUnexpectedEOF || eb == io.EOF)
		}
	}
}

// medians returns the median wall time, CPU time and peak RSS (KiB) of rs,
// each taken on its own.
func medians(rs []result) (wall, cpu time.Duration, rss int64) {
	w := make([]time.Duration, len(rs))
	c := make([]time.Duration, len(rs))
	m := make([]int64, len(rs))
	for i, r := range rs {
		w[i], c[i], m[i] = r.wall, r.cpu, r.rss
	}
	slices.Sort(w)
	slices.Sort(c)
	slices.Sort(m)
	return w[len(w)/2], c[len(c)/2], m[len(m)/2]
}

// generate writes, unless already there, rows sensor rows into dir as
// sensors.csv and, when json, sensors.json (shaped like ../shared/bench/gen's:
// 8 devices, timestamps 10 ms apart plus a jitter of 0..19 ms, so some rows
// are late), and devices.csv, 4 of the 8 devices.
func generate(dir string, rows int, json bool) error {
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fc, err := os.Create(filepath.Join(dir, "sensors.csv"))
	if err != nil {
		return err
	}
	defer fc.Close()
	wj := bufio.NewWriterSize(io.Discard, 1<<20)
	if json {
		fj, err := os.Create(filepath.Join(dir, "sensors.json"))
		if err != nil {
			return err
		}
		defer fj.Close()
		wj = bufio.NewWriterSize(fj, 1<<20)
	}
	wc := bufio.NewWriterSize(fc, 1<<20)
	rng := rand.New(rand.NewPCG(20210107, 15))
	var line []byte
	for i := range rows {
		dev := "设备" + strconv.Itoa(1+rng.IntN(8))
		ts := strconv.FormatInt(1610035289736+int64(i)*10+rng.Int64N(20), 10)
		t := rng.IntN(1001)
		temp := strconv.Itoa(t/10) + "." + string(rune('0'+t%10))
		line = append(append(append(append(append(line[:0], dev...), ','), ts...), ','), temp...)
		wc.Write(append(line, '\n'))
		if !json {
			continue
		}
		fmt.Fprintf(wj, "{\"deviceNo\":%q,\"ts\":%s,\"temperature\":%s}\n", dev, ts, temp)
	}
	for _, w := range []*bufio.Writer{wc, wj} {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "devices.csv"), []byte("设备1\n设备3\n设备5\n设备7\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
}

// generateJoins writes, unless already there, the join jobs' inputs into dir:
// orders.csv and payments.csv with rows/2 rows each (order i at 10 ms steps
// with a jitter of 0..19 ms; its payment 0..4 s later, so the payments file
// is in order up to that spread), clicks.csv with rows rows over 100,000
// users, and users.csv with the 100,000 users.
func generateJoins(dir string, rows int) error {
	if _, err := os.Stat(filepath.Join(dir, "joins-done")); err == nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(20261202, 23))
	write := func(name string, n int, line func(i int, b []byte) []byte) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer f.Close()
		w := bufio.NewWriterSize(f, 1<<20)
		var b []byte
		for i := range n {
			b = append(line(i, b[:0]), '\n')
			w.Write(b)
		}
		return w.Flush()
	}
	const t0 = 1610035289736
	methods := []string{"card", "cash", "transfer", "voucher"}
	if err := write("orders.csv", rows/2, func(i int, b []byte) []byte {
		b = strconv.AppendInt(b, int64(i), 10)
		b = strconv.AppendInt(append(b, ','), t0+int64(i)*10+rng.Int64N(20), 10)
		return strconv.AppendFloat(append(b, ','), float64(rng.IntN(100000))/100, 'f', 2, 64)
	}); err != nil {
		return err
	}
	if err := write("payments.csv", rows/2, func(i int, b []byte) []byte {
		b = strconv.AppendInt(b, int64(i), 10)
		b = strconv.AppendInt(append(b, ','), t0+int64(i)*10+20+rng.Int64N(4000), 10)
		return append(append(b, ','), methods[rng.IntN(len(methods))]...)
	}); err != nil {
		return err
	}
	const users = 100_000
	if err := write("clicks.csv", rows, func(i int, b []byte) []byte {
		u := rng.IntN(users)
		b = strconv.AppendInt(b, int64(u), 10)
		b = strconv.AppendInt(append(b, ','), t0+int64(i)*10, 10)
		return strconv.AppendInt(append(b, ",/item/"...), int64(rng.IntN(5000)), 10)
	}); err != nil {
		return err
	}
	countries := []string{"DE", "FR", "JP", "US", "BR", "IN"}
	if err := write("users.csv", users, func(i int, b []byte) []byte {
		b = strconv.AppendInt(b, int64(i), 10)
		b = strconv.AppendInt(append(b, ",user"...), int64(i), 10)
		return append(append(b, ','), countries[i%len(countries)]...)
	}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "joins-done"), nil, 0o644)
}

func sizes(dir string) string {
	c, _ := os.Stat(filepath.Join(dir, "sensors.csv"))
	j, _ := os.Stat(filepath.Join(dir, "sensors.json"))
	if c == nil || j == nil {
		return "?"
	}
	return fmt.Sprintf("csv %.0f MB, json %.0f MB", float64(c.Size())/1e6, float64(j.Size())/1e6)
}

func slug(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c == ' ' {
			b[i] = '-'
		}
	}
	return string(b)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func die(err error) {
	fmt.Fprintln(os.Stderr, "benchsuite:", err)
	os.Exit(1)
}

// floor is the hand-written split of ../shared/bench/floor: read lines, split
// on ',', parse ts and temperature, route temperature < 10 to low-tmp.csv, >
// 70 to high-tmp.csv, the rest to main.csv, with streamql's headers. No
// quoting, no bad rows: the floor an engine is measured against.
func floor(in, dir string) {
	f, err := os.Open(in)
	if err != nil {
		die(err)
	}
	defer f.Close()
	create := func(name, header string) (*bufio.Writer, *os.File) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			die(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString(header)
		return w, f
	}
	mainW, mainF := create("main.csv", "deviceNo,ts,temperature\n")
	lowW, lowF := create("low-tmp.csv", "deviceNo,temperature\n")
	highW, highF := create("high-tmp.csv", "deviceNo,temperature\n")
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.IndexByte(line, ',')
		j := bytes.IndexByte(line[i+1:], ',')
		if i < 0 || j < 0 {
			die(fmt.Errorf("bad line %q", line))
		}
		j += i + 1
		if _, err := strconv.ParseInt(string(line[i+1:j]), 10, 64); err != nil {
			die(err)
		}
		temp, err := strconv.ParseFloat(string(line[j+1:]), 64)
		if err != nil {
			die(err)
		}
		var w *bufio.Writer
		switch {
		case temp < 10:
			w = lowW
		case temp > 70:
			w = highW
		default:
			mainW.Write(line)
			mainW.WriteByte('\n')
			continue
		}
		w.Write(line[:i])
		w.WriteByte(',')
		w.Write(line[j+1:])
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		die(err)
	}
	for _, w := range []*bufio.Writer{mainW, lowW, highW} {
		if err := w.Flush(); err != nil {
			die(err)
		}
	}
	mainF.Close()
	lowF.Close()
	highF.Close()
}
