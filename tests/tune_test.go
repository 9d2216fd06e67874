package tests

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tuneReport is the part of `streamql tune --format json` the tests read.
type tuneReport struct {
	Stream    string `json:"stream"`
	Rows      int    `json:"rows"`
	Histogram []struct {
		UpTo int64 `json:"up_to_ms"`
		Rows int   `json:"rows"`
	} `json:"lateness"`
	Delays []struct {
		DelayMs int64 `json:"delay_ms"`
		Late    int   `json:"late_rows"`
		Windows []struct {
			Late int `json:"late_rows"`
		} `json:"windows"`
	} `json:"delays"`
	SuggestedMs int64  `json:"suggested_delay_ms"`
	Watermark   string `json:"watermark"`
	FarAhead    []struct {
		Position string `json:"position"`
	} `json:"far_ahead"`
	MaxFuture string `json:"max_future"`
	For       string `json:"suggested_for"`
	Script    *struct {
		DelayMs int64 `json:"delay_ms"`
		Late    int   `json:"late_rows"`
		Windows []struct {
			Late int `json:"late_rows"`
		} `json:"windows"`
	} `json:"script_delay"`
	ScriptMeetsTarget bool `json:"script_meets_target"`
}

// TestTuneSuggestsDelay: rows up to 3 s out of order and one stamped a day
// ahead: tune counts the late rows per delay (none from 5 s on, for SPEC 2.3
// and for the window query), suggests 5 s as a WATERMARK clause, names the
// row far ahead by its position and suggests 'watermark.max-future'; the
// suggestion, put in the script, leaves no row late (SPEC 4 "Finding out why").
func TestTuneSuggestsDelay(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	base := int64(1_700_000_000_000)
	for i := 0; i < 2000; i++ {
		ts := base + int64(i)*100
		if rng.IntN(10) == 0 {
			ts -= int64(1 + rng.IntN(3000))
		}
		if i == 700 {
			ts = base + 24*3600*1000
		}
		fmt.Fprintf(&sb, "e%d,%d\n", i, ts)
	}
	os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(sb.String()), 0o644)
	script := func(delay string) string {
		return `CREATE STREAM ev (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL ` + delay + `)
  WITH ('connector'='file', 'path'='ev.csv', 'watermark.max-future'='1 h');
SELECT id INTO SIDE 'behind' FROM ev WHERE ts < CURRENT_WATERMARK(ts);
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
`
	}
	os.WriteFile(filepath.Join(dir, "q.sql"), []byte(script("'0' SECOND")), 0o644)
	r := inProcess(t, dir, []string{"tune", "--format", "json", filepath.Join(dir, "q.sql")})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var reps []tuneReport
	if err := json.Unmarshal([]byte(r.stdout), &reps); err != nil || len(reps) != 1 {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	rep := reps[0]
	if rep.Rows != 2000 || rep.SuggestedMs != 5000 || rep.Watermark != "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND" {
		t.Errorf("rows %d, suggested %d ms %q; want 2000 rows, 5000 ms", rep.Rows, rep.SuggestedMs, rep.Watermark)
	}
	byDelay := map[int64]int{}
	for _, d := range rep.Delays {
		byDelay[d.DelayMs] = d.Late
		if len(d.Windows) != 1 || d.Windows[0].Late > d.Late {
			t.Errorf("delay %d: windows %+v (late for SPEC 2.3: %d)", d.DelayMs, d.Windows, d.Late)
		}
	}
	if byDelay[0] < 100 || byDelay[1000] >= byDelay[0] || byDelay[5000] != 0 {
		t.Errorf("late rows per delay %v: want many at 0, fewer at 1 s, none at 5 s", byDelay)
	}
	if len(rep.FarAhead) != 1 || rep.FarAhead[0].Position != "ev.csv:701" || !strings.Contains(rep.MaxFuture, "'watermark.max-future' = '1 h'") {
		t.Errorf("far ahead %+v, %q", rep.FarAhead, rep.MaxFuture)
	}
	total := 0
	for _, b := range rep.Histogram {
		total += b.Rows
	}
	if total != 2000 {
		t.Errorf("histogram holds %d rows, want 2000", total)
	}
	// the suggested delay, run: no row late
	os.WriteFile(filepath.Join(dir, "q.sql"), []byte(script("'5' SECOND")), 0o644)
	side := t.TempDir()
	r = inProcess(t, dir, []string{"--format", "csv", "--side-dir", side, filepath.Join(dir, "q.sql")})
	if r.code != 0 || countLines(t, filepath.Join(side, "behind.csv")) != 1 {
		t.Errorf("with the suggestion: exit %d, %d lines in behind.csv: %s", r.code, countLines(t, filepath.Join(side, "behind.csv")), r.stderr)
	}
	// the table
	r = inProcess(t, dir, []string{"tune", filepath.Join(dir, "q.sql")})
	for _, want := range []string{"stream ev, event time ts: 2000 rows", "late for TUMBLE line 4", "suggested (late rows at most 0.1%): WATERMARK FOR ts AS ts - INTERVAL '5' SECOND", "ev.csv:701"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestTuneQueries: tune runs on every script of queries/ (their .read
// scripts, views and functions included) and, for every stream whose delay is
// written ts - INTERVAL, says what the script's own delay gives and whether
// it meets the target (0.1%). The decision for issue 28's "tune suggests the
// delays those scripts use, within one step" (README, "Finding out why"):
// the suggestion answers the target (SPEC 4), so it is checked against the
// scripts whose delay meets the target: there it is never above the script's
// delay and, but for the Nexmark scripts (whose 4 s is the benchmark's fixed
// delay, not fitted to the data: their 20,000 events come in order per
// stream, so tune says 0), within one step of it on the delay list (0, 1 s,
// 5 s, 30 s, 1 min, 5 min). A script whose delay leaves more rows late keeps
// them late on purpose, to show its late output
// (TestTuneExplainsScriptDelays): there the suggestion is larger.
func TestTuneQueries(t *testing.T) {
	var scripts []string
	for _, pattern := range []string{"../queries/*.sql", "../queries/tests/*/query.sql", "../queries/nexmark/q*.sql"} {
		m, _ := filepath.Glob(pattern)
		scripts = append(scripts, m...)
	}
	steps := []int64{0, 1000, 5000, 30000, 60000, 300000}
	// oneStep reports whether s is at most one step of steps from d: between
	// the list's values below and above d (d's neighbours when d is on it)
	oneStep := func(s, d int64) bool {
		lo, hi := steps[0], steps[len(steps)-1]
		for _, v := range steps {
			if v < d {
				lo = v
			}
		}
		for k := len(steps) - 1; k >= 0; k-- {
			if steps[k] > d {
				hi = steps[k]
			}
		}
		return s >= lo && s <= hi
	}
	checked, late := 0, 0
	for _, script := range scripts {
		switch filepath.Base(script) {
		case "q12.sql", "q23.sql": // (the engine does not run them yet: README, Nexmark)
			continue
		}
		r := inProcess(t, ".", []string{"tune", "--format", "json", script})
		var reps []tuneReport
		if err := json.Unmarshal([]byte(r.stdout), &reps); err != nil || r.code != 0 {
			t.Errorf("%s: exit %d, %v: %.300s%s", script, r.code, err, r.stdout, r.stderr)
			continue
		}
		for _, rep := range reps {
			if rep.Script == nil {
				continue
			}
			d, got := rep.Script.DelayMs, rep.SuggestedMs
			switch {
			case !rep.ScriptMeetsTarget:
				late++
				if got <= d {
					t.Errorf("%s, stream %s: the script's delay %d ms is above the target, yet tune suggests %d ms", script, rep.Stream, d, got)
				}
			case got > d:
				t.Errorf("%s, stream %s: the script's delay %d ms meets the target, tune suggests more, %d ms", script, rep.Stream, d, got)
			case !strings.Contains(script, "nexmark") && !oneStep(got, d):
				t.Errorf("%s, stream %s: suggested %d ms, not within one step of the script's %d ms", script, rep.Stream, got, d)
			default:
				checked++
			}
		}
	}
	if checked < 40 || late < 4 {
		t.Errorf("%d streams checked within the target, %d above it: the scripts of queries/ were not all read", checked, late)
	}
	if !(oneStep(1000, 2000) && oneStep(5000, 2000) && !oneStep(0, 2000) && oneStep(0, 1) && oneStep(1000, 1) && oneStep(1000, 5000) && oneStep(30000, 5000) && !oneStep(60000, 5000)) {
		t.Error("oneStep does not measure steps of the delay list")
	}
	for _, args := range [][]string{{"tune"}, {"tune", "--target", "5", "x.sql"}, {"tune", "--format", "csv", "x.sql"}, {"tune", "missing.sql"}} {
		if r := inProcess(t, ".", args); r.code != 2 || !strings.Contains(r.stderr, "error") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// TestTuneExplainsScriptDelays: the examples whose delays tune does not
// suggest (click-sessions uses 10 s, orders-payments-join 1 min) keep rows
// late on purpose, to show their late outputs: the rows late with the
// script's own delay, as tune counts them (for the window, or for SPEC 2.3
// when a join reads the stream), are the rows of the case's expected late
// output, and no smaller share can be had under a 0.1% target on so few
// rows, so tune says the target is below one row.
func TestTuneExplainsScriptDelays(t *testing.T) {
	for _, c := range []struct {
		dir, stream, late string
	}{
		{"click-sessions", "clicks", "late.csv"},
		{"sensor-minute-stats", "sensors", "late-sensors.csv"},
		{"split-late", "sensors", "late.csv"},
		{"orders-payments-join", "orders", "late-orders.csv"},
	} {
		dir := filepath.Join("..", "queries", "tests", c.dir)
		r := inProcess(t, ".", []string{"tune", "--format", "json", filepath.Join(dir, "query.sql")})
		var reps []tuneReport
		if err := json.Unmarshal([]byte(r.stdout), &reps); err != nil {
			t.Fatalf("%s: exit %d, %v: %s%s", c.dir, r.code, err, r.stdout, r.stderr)
		}
		var rep *tuneReport
		for k := range reps {
			if reps[k].Stream == c.stream {
				rep = &reps[k]
			}
		}
		if rep == nil || rep.Script == nil {
			t.Fatalf("%s: no report with the script's delay for %s: %s", c.dir, c.stream, r.stdout)
		}
		late := rep.Script.Late
		if rep.For == "windows" {
			late = rep.Script.Windows[0].Late
		}
		want := countLines(t, filepath.Join(dir, "expected", c.late)) - 1 // (the header)
		if late != want || want < 1 {
			t.Errorf("%s: the script's delay %d ms leaves %d rows late for tune, the case's %s holds %d", c.dir, rep.Script.DelayMs, late, c.late, want)
		}
		table := inProcess(t, ".", []string{"tune", filepath.Join(dir, "query.sql")})
		if !strings.Contains(table.stdout, "of the script's delay") && !strings.Contains(table.stdout, "the script's delay ") || !strings.Contains(table.stdout, "is less than one row") {
			t.Errorf("%s: the table does not compare the script's delay or note the target:\n%s", c.dir, table.stdout)
		}
	}
}

// TestTuneWindowSuggestionHolds: for a stream only window queries read, tune
// suggests the smallest round delay with no row late for any of them
// (SPEC 2.4), which the engine confirms: run with it, the windows' late
// outputs are empty; run with the round delay below it, they are not.
func TestTuneWindowSuggestionHolds(t *testing.T) {
	rounds := []int64{0, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000}
	for seed := range 6 {
		rng := rand.New(rand.NewPCG(uint64(seed), 9))
		dir := t.TempDir()
		var sb strings.Builder
		base := int64(1_700_000_000_000)
		for i := 0; i < 400; i++ {
			ts := base + int64(i)*250
			if rng.IntN(8) == 0 {
				ts -= rng.Int64N(int64(1+seed) * 4000)
			}
			fmt.Fprintf(&sb, "e%d,%d\n", i, ts)
		}
		os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(sb.String()), 0o644)
		script := func(ms int64) string {
			return fmt.Sprintf(`CREATE STREAM ev (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%d.%03d' SECOND)
  WITH ('connector'='file', 'path'='ev.csv');
SELECT window_start, COUNT(*) AS n INTO SIDE 'tumble' FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY window_start, window_end LATE INTO SIDE 'late1';
SELECT window_start, COUNT(*) AS n FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end LATE INTO SIDE 'late2';
`, ms/1000, ms%1000)
		}
		q := filepath.Join(dir, "q.sql")
		os.WriteFile(q, []byte(script(0)), 0o644)
		r := inProcess(t, dir, []string{"tune", "--format", "json", q})
		var reps []tuneReport
		if err := json.Unmarshal([]byte(r.stdout), &reps); err != nil || len(reps) != 1 {
			t.Fatalf("seed %d: exit %d, %v: %s%s", seed, r.code, err, r.stdout, r.stderr)
		}
		got := reps[0].SuggestedMs
		if reps[0].For != "windows" {
			t.Fatalf("seed %d: suggested for %q, want windows", seed, reps[0].For)
		}
		lateWith := func(ms int64) int {
			os.WriteFile(q, []byte(script(ms)), 0o644)
			side := t.TempDir()
			r := inProcess(t, dir, []string{"--format", "csv", "--side-dir", side, q})
			if r.code != 0 {
				t.Fatalf("seed %d: delay %d ms: exit %d: %s", seed, ms, r.code, r.stderr)
			}
			n := 0
			for _, f := range []string{"late1.csv", "late2.csv"} {
				if c := countLines(t, filepath.Join(side, f)); c > 0 {
					n += c - 1
				}
			}
			return n
		}
		t.Logf("seed %d: suggested %d ms", seed, got)
		if n := lateWith(got); n != 0 {
			t.Errorf("seed %d: with the suggested %d ms, %d rows late for the windows", seed, got, n)
		}
		k := slices.Index(rounds, got)
		if k < 0 {
			t.Fatalf("seed %d: suggested %d ms, not a round delay", seed, got)
		}
		if k > 0 {
			if n := lateWith(rounds[k-1]); n == 0 {
				t.Errorf("seed %d: %d ms (below the suggested %d) leaves no row late: not the smallest", seed, rounds[k-1], got)
			}
		}
	}
}
