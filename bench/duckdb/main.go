//go:build unix

// Command duckbench times, in one run, streamql's windowed aggregate of issue 11
// item 7 (TUMBLE of 1 minute by deviceNo: COUNT(*), AVG, MIN and MAX of
// temperature, SPEC 2.4), streamql's split job (SPEC 2.1) and DuckDB running the
// same aggregation (GROUP BY deviceNo, time_bucket over read_csv) on the same
// generated sensor file, and prints the medians: wall seconds, rows/s, peak RSS,
// the ratio of each to the split job's wall time, and TUMBLE's rows/s over
// DuckDB's.
//
//	cd bench/duckdb && go run . -bin STREAMQL -csv SENSORS.csv [-runs K] [-threads N]
//
// The file is ../shared/bench/gen's output (deviceNo,ts,temperature lines, no
// header). Each job runs in its own process (DuckDB as this command started
// again with -duck), so getrusage gives each one's peak RSS; after one warm-up
// round, not counted, the three run alternately K times. On the warm-up round
// the TUMBLE job's rows are checked against DuckDB's: the same (window, device)
// groups with the same COUNT, MIN and MAX, and AVG within 1e-12 relative
// (streamql rounds the exact sum once; DuckDB's double sum depends on order).
//
// This module is separate from streamql's (cgo, DuckDB's static library): the
// main module stays pure Go and CI does not build it.
package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

// tumbleSQL is streamql's TUMBLE job (internal/sensorbench.TumbleScript) over
// the file %s.
const tumbleSQL = `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'file', 'path' = '%s', 'format' = 'csv');
SELECT window_start, window_end, deviceNo, COUNT(*) AS n, AVG(temperature) AS avg_t,
  MIN(temperature) AS min_t, MAX(temperature) AS max_t
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, deviceNo;
`

// splitSQL is the split job (internal/sensorbench.SplitScript) over the file %s.
const splitSQL = `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = '%s', 'format' = 'csv');
SELECT deviceNo, temperature INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10;
SELECT deviceNo, temperature INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;
`

// duckSQL is the same aggregation in DuckDB over the file %s: windows as
// epoch milliseconds, as streamql prints a BIGINT time column's windows.
const duckSQL = `SELECT epoch_ms(time_bucket(INTERVAL '1 minute', epoch_ms(ts))) AS window_start,
  deviceNo, count(*) AS n, avg(temperature) AS avg_t, min(temperature) AS min_t, max(temperature) AS max_t
FROM read_csv('%s', header = false, delim = ',', quote = '',
  columns = {'deviceNo': 'VARCHAR', 'ts': 'BIGINT', 'temperature': 'DOUBLE'})
GROUP BY deviceNo, time_bucket(INTERVAL '1 minute', epoch_ms(ts))
ORDER BY window_start, deviceNo`

// result is one timed run: wall time and peak RSS in KiB.
type result struct {
	wall time.Duration
	rss  int64
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "-duck" {
		if err := duck(os.Args[2], os.Args[3]); err != nil {
			die(err)
		}
		return
	}
	bin := flag.String("bin", "", "the streamql binary (go build -o BIN ./cmd/streamql at the repository's root)")
	csv := flag.String("csv", "", "the sensor CSV (../shared/bench/gen -rows 10000000 -o FILE)")
	runs := flag.Int("runs", 5, "timed runs of each job, alternating (after one warm-up round)")
	threads := flag.Int("threads", 0, "DuckDB's threads (0: its default, every core)")
	base := flag.String("base", "", "another streamql binary whose TUMBLE job is timed too, as 'tumble (base)' (a before/after comparison)")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "duckbench"), "folder for the scripts and outputs")
	flag.Parse()
	if *bin == "" || *csv == "" {
		flag.Usage()
		os.Exit(2)
	}
	abs, err := filepath.Abs(*csv)
	if err != nil {
		die(err)
	}
	rows, err := countLines(abs)
	if err != nil {
		die(err)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		die(err)
	}
	scripts := map[string]string{"tumble": tumbleSQL, "split": splitSQL}
	for name, s := range scripts {
		if err := os.WriteFile(filepath.Join(*dir, name+".sql"), fmt.Appendf(nil, s, abs), 0o644); err != nil {
			die(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		die(err)
	}
	names := []string{"split", "tumble", "duckdb"}
	cmds := map[string][]string{
		"split":  {*bin, "--format", "csv", "--side-dir", "OUT", "-f", filepath.Join(*dir, "split.sql")},
		"tumble": {*bin, "--format", "csv", "--side-dir", "OUT", "-f", filepath.Join(*dir, "tumble.sql")},
		"duckdb": {self, "-duck", abs, strconv.Itoa(*threads)},
	}
	if *base != "" {
		names = append(names, "tumble (base)")
		cmds["tumble (base)"] = append([]string{*base}, cmds["tumble"][1:]...)
	}
	res := map[string][]result{}
	for round := 0; round <= *runs; round++ {
		for _, n := range names {
			out := filepath.Join(*dir, "out-"+strings.NewReplacer(" ", "", "(", "-", ")", "").Replace(n))
			r := timed(out, cmds[n])
			if round > 0 {
				res[n] = append(res[n], r)
			}
		}
		if round == 0 {
			if err := sameGroups(filepath.Join(*dir, "out-tumble", "stdout"), filepath.Join(*dir, "out-duckdb", "stdout")); err != nil {
				die(err)
			}
		}
	}
	fmt.Printf("input: %s, %d rows; %d alternating runs each after a warm-up, medians; DuckDB threads: %s\n\n", abs, rows, *runs, threadsText(*threads))
	fmt.Println("| job | wall | rows/s | peak RSS | wall / split |")
	fmt.Println("|---|---:|---:|---:|---:|")
	walls := map[string]float64{}
	for _, n := range names {
		w, rss := medians(res[n])
		walls[n] = w.Seconds()
		fmt.Printf("| %s | %.2f s | %.2f M | %d MiB | %.2f |\n", n, w.Seconds(), float64(rows)/w.Seconds()/1e6, rss/1024, w.Seconds()/walls["split"])
	}
	if *base != "" {
		fmt.Printf("\ntumble / tumble (base) wall %.2f", walls["tumble"]/walls["tumble (base)"])
	}
	fmt.Printf("\ntumble/split wall %.2f (goal <= 1.2); tumble rows/s / duckdb rows/s %.2f (goal >= 2)\n", walls["tumble"]/walls["split"], walls["duckdb"]/walls["tumble"])
}

func threadsText(n int) string {
	if n == 0 {
		return "default"
	}
	return strconv.Itoa(n)
}

// duck runs duckSQL over the file in and writes the rows to stdout as CSV
// (DuckDB with threads threads, "0" its default).
func duck(in, threads string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	if threads != "0" {
		if _, err := db.Exec("SET threads = " + threads); err != nil {
			return err
		}
	}
	rows, err := db.Query(fmt.Sprintf(duckSQL, strings.ReplaceAll(in, "'", "''")))
	if err != nil {
		return err
	}
	defer rows.Close()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	w.WriteString("window_start,deviceNo,n,avg_t,min_t,max_t\n")
	var ws, n int64
	var dev string
	var avg, lo, hi float64
	var line []byte
	for rows.Next() {
		if err := rows.Scan(&ws, &dev, &n, &avg, &lo, &hi); err != nil {
			return err
		}
		line = strconv.AppendInt(line[:0], ws, 10)
		line = append(append(line, ','), dev...)
		line = strconv.AppendInt(append(line, ','), n, 10)
		for _, x := range []float64{avg, lo, hi} {
			line = strconv.AppendFloat(append(line, ','), x, 'g', -1, 64)
		}
		w.Write(append(line, '\n'))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return w.Flush()
}

// group is one (window_start, deviceNo) row of either output.
type group struct {
	n             int64
	avg, min, max float64
}

// sameGroups checks that streamql's TUMBLE output (window_start, window_end,
// deviceNo, n, avg_t, min_t, max_t, with a header) and DuckDB's
// (window_start, deviceNo, n, avg_t, min_t, max_t) hold the same groups.
func sameGroups(streamqlOut, duckOut string) error {
	a, err := readGroups(streamqlOut, 0, 2, 3)
	if err != nil {
		return err
	}
	b, err := readGroups(duckOut, 0, 1, 2)
	if err != nil {
		return err
	}
	if len(a) != len(b) {
		return fmt.Errorf("streamql gave %d groups (%s), DuckDB %d (%s)", len(a), streamqlOut, len(b), duckOut)
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok || x.n != y.n || x.min != y.min || x.max != y.max || math.Abs(x.avg-y.avg) > 1e-12*math.Abs(y.avg) {
			return fmt.Errorf("group %s: streamql %+v, DuckDB %+v", k, x, y)
		}
	}
	return nil
}

// readGroups reads a CSV output with a header: the window start at column
// wc, the device at dc, then n, avg, min and max from column nc on.
func readGroups(path string, wc, dc, nc int) (map[string]group, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	m := map[string]group{}
	for ln, l := range lines[1:] {
		f := strings.Split(string(l), ",")
		if len(f) < nc+4 {
			return nil, fmt.Errorf("%s:%d: %d columns, want %d", path, ln+2, len(f), nc+4)
		}
		var g group
		var errs [4]error
		g.n, errs[0] = strconv.ParseInt(f[nc], 10, 64)
		g.avg, errs[1] = strconv.ParseFloat(f[nc+1], 64)
		g.min, errs[2] = strconv.ParseFloat(f[nc+2], 64)
		g.max, errs[3] = strconv.ParseFloat(f[nc+3], 64)
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, ln+2, e)
			}
		}
		m[f[wc]+","+f[dc]] = g
	}
	return m, nil
}

// timed runs cmd in a fresh folder out (an argument "OUT…" is under it),
// stdout to out/stdout, and returns its wall time and peak RSS.
func timed(out string, cmd []string) result {
	if err := os.RemoveAll(out); err != nil {
		die(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		die(err)
	}
	args := slices.Clone(cmd[1:])
	for i, a := range args {
		if rest, ok := strings.CutPrefix(a, "OUT"); ok {
			args[i] = out + rest
		}
	}
	so, err := os.Create(filepath.Join(out, "stdout"))
	if err != nil {
		die(err)
	}
	defer so.Close()
	var stderr bytes.Buffer
	c := exec.Command(cmd[0], args...)
	c.Stdout, c.Stderr = so, &stderr
	t0 := time.Now()
	err = c.Run()
	wall := time.Since(t0)
	if err != nil {
		die(fmt.Errorf("%s %v: %v\n%s", cmd[0], args, err, stderr.Bytes()))
	}
	var rss int64
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss)
	}
	return result{wall, rss}
}

func medians(rs []result) (time.Duration, int64) {
	w := make([]time.Duration, len(rs))
	m := make([]int64, len(rs))
	for i, r := range rs {
		w[i], m[i] = r.wall, r.rss
	}
	slices.Sort(w)
	slices.Sort(m)
	return w[len(w)/2], m[len(m)/2]
}

func countLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		k, err := f.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err != nil {
			return n, nil
		}
	}
}

func die(err error) {
	fmt.Fprintln(os.Stderr, "duckbench:", err)
	os.Exit(1)
}
