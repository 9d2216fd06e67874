package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/tests/kafkatest"
)

// TestKafkaWindowPerPartition: a TUMBLE aggregate over a 4-partition topic
// (SPEC 2.5 with 2.4). Each partition's rows come in event-time order within
// the watermark's delay, so by its own partition's watermark no row is late,
// although the partitions' times interleave: a single watermark over the
// stream would have sent rows to 'late'. Windows fire on the minimum of the
// partitions' watermarks, so every window holds all its rows; one very old
// row at the end of each partition is late by its partition's watermark. The
// expected windows are computed here by grouping, not by streamql, and must
// come out the same, as sets, whatever the interleaving of the partitions
// (three produce interleavings).
func TestKafkaWindowPerPartition(t *testing.T) {
	const (
		base  = int64(1_700_000_000_000)
		size  = int64(10_000) // the window, ms
		delay = int64(3_000)  // the watermark's delay, ms
	)
	rng := rand.New(rand.NewSource(7))
	type row struct {
		dev  string
		ts   int64
		temp int
	}
	// 8 devices, device d on partition d%4; each partition's rows in time order
	// but for swaps within less than the delay.
	parts := make([][]row, 4)
	for p := range parts {
		ts := base + int64(rng.Intn(5000)) + int64(p)*7_000 // partitions start apart
		for range 150 {
			ts += int64(rng.Intn(900))
			d := p + 4*rng.Intn(2)
			parts[p] = append(parts[p], row{fmt.Sprintf("dev%d", d), ts, rng.Intn(100) - 20})
		}
		for i := 1; i < len(parts[p]); i++ {
			if a, b := parts[p][i-1], parts[p][i]; rng.Intn(4) == 0 && a.ts-b.ts < delay && b.ts-a.ts < delay {
				parts[p][i-1], parts[p][i] = b, a // out of order, within the delay
			}
		}
	}
	type key struct {
		start int64
		dev   string
	}
	type agg struct{ n, sum, min, max int }
	want := map[key]*agg{}
	for _, rs := range parts {
		for _, r := range rs {
			k := key{r.ts - ((r.ts%size)+size)%size, r.dev}
			a := want[k]
			if a == nil {
				a = &agg{min: r.temp, max: r.temp}
				want[k] = a
			}
			a.n++
			a.sum += r.temp
			a.min, a.max = min(a.min, r.temp), max(a.max, r.temp)
		}
	}
	var wantMain, wantLate []string
	for k, a := range want {
		wantMain = append(wantMain, fmt.Sprintf("%d,%s,%d,%d,%d,%d", k.start, k.dev, a.n, a.sum, a.min, a.max))
	}
	for p := range parts {
		late := row{fmt.Sprintf("dev%d", p), base - size, 1}
		parts[p] = append(parts[p], late)
		wantLate = append(wantLate, fmt.Sprintf("%s,%d,%d", late.dev, late.ts, late.temp))
	}
	wantMain, wantLate = sorted(wantMain), sorted(wantLate)
	if len(wantMain) < 40 {
		t.Fatalf("only %d windows: the test data tells nothing", len(wantMain))
	}
	query := "SELECT window_start, deviceNo, COUNT(*) AS n, SUM(temperature) AS s, MIN(temperature) AS lo, MAX(temperature) AS hi\n" +
		"  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND))\n" +
		"  GROUP BY window_start, window_end, deviceNo LATE INTO SIDE 'late-rows';\n"
	cols := fmt.Sprintf("deviceNo VARCHAR, ts BIGINT, temperature BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%d' SECOND", delay/1000)
	for iter := range 3 {
		in := kafkatest.CreateTopic(t, 4, nil)
		// one interleaving of the partitions' rows, each partition in its order
		var vals []string
		var ps []int32
		next := make([]int, 4)
		for left := true; left; {
			left = false
			p := rng.Intn(4)
			for k := 0; k < 4 && next[p] == len(parts[p]); k++ {
				p = (p + 1) % 4
			}
			if next[p] < len(parts[p]) {
				r := parts[p][next[p]]
				next[p]++
				vals = append(vals, fmt.Sprintf("%s,%d,%d", r.dev, r.ts, r.temp))
				ps = append(ps, int32(p))
			}
			for q := range parts {
				left = left || next[q] < len(parts[q])
			}
		}
		produceValues(t, in, vals, ps)
		dir := t.TempDir()
		sides := filepath.Join(dir, "sides")
		os.Mkdir(sides, 0o755)
		sql := kafkaStream(t, "sensors", cols, in, ", 'scan.bounded.mode'='latest-offset'") + query
		stdout, stderr, code := runSQLIn(t, dir, nil, sql, "--format", "csv", "--side-dir", sides)
		if code != 0 {
			t.Fatalf("interleaving %d: exit %d %s", iter, code, stderr)
		}
		main := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(main) == 0 || main[0] != "window_start,deviceNo,n,s,lo,hi" {
			t.Fatalf("interleaving %d: main output %q", iter, stdout)
		}
		if got := sorted(main[1:]); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", wantMain) {
			t.Errorf("interleaving %d: windows\n%q\nwant (grouped here)\n%q", iter, got, wantMain)
		}
		late := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(sides, "late-rows.csv"))), "\n")
		if got := sorted(late[1:]); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", wantLate) {
			t.Errorf("interleaving %d: late rows %q, want %q", iter, got, wantLate)
		}
	}
}
