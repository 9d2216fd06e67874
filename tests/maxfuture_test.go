package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// futureRows writes the sql-flow #358 shape: n ordered rows one second
// apart, with one row stamped a year ahead right after the first.
func futureRows(t *testing.T, dir string, n int) {
	t.Helper()
	var sb strings.Builder
	base := int64(1_700_000_000_000)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "e%d,%d\n", i, base+int64(i)*1000)
		if i == 0 {
			fmt.Fprintf(&sb, "future,%d\n", base+365*24*3600*1000)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func futureScript(opts, query string) string {
	return `CREATE STREAM ev (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector'='file', 'path'='ev.csv'` + opts + `);
SELECT id, ts INTO SIDE 'behind' FROM ev WHERE ts < CURRENT_WATERMARK(ts);
` + query
}

// TestMaxFutureKeepsWatermark: one row a year ahead makes every later row
// late (9,999 of 10k) without 'watermark.max-future', and none with it; the
// row goes to the errors output with the reason (SPEC 4, "Finding out why"),
// on every strategy the planner may choose (a plain query, a window aggregate).
func TestMaxFutureKeepsWatermark(t *testing.T) {
	dir := t.TempDir()
	futureRows(t, dir, 10000)
	queries := map[string]string{
		"rows":   "SELECT id FROM ev;",
		"window": "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;",
	}
	for name, q := range queries {
		for _, opt := range []string{"", ", 'watermark.max-future'='1 h'"} {
			script := filepath.Join(dir, "q.sql")
			if err := os.WriteFile(script, []byte(futureScript(opt, q)), 0o644); err != nil {
				t.Fatal(err)
			}
			sideDir := t.TempDir()
			r := inProcess(t, dir, []string{"--format", "csv", "--side-dir", sideDir, script})
			if r.code != 0 {
				t.Fatalf("%s %q: exit %d: %s", name, opt, r.code, r.stderr)
			}
			late := countLines(t, filepath.Join(sideDir, "behind.csv")) - 1
			errs := countLines(t, filepath.Join(sideDir, "errors.csv")) - 1
			if opt == "" {
				if late != 9999 || errs > 0 {
					t.Errorf("%s without the option: %d late rows, %d errors; want 9999 and 0", name, late, errs)
				}
				continue
			}
			if late != 0 || errs != 1 {
				t.Errorf("%s with the option: %d late rows, %d errors; want 0 and 1", name, late, errs)
			}
			b, _ := os.ReadFile(filepath.Join(sideDir, "errors.csv"))
			if !strings.Contains(string(b), "ev.csv:2,") || !strings.Contains(string(b), "event time too far ahead") || !strings.Contains(string(b), "future,1731536000000") {
				t.Errorf("%s: errors output %q lacks the row's position, text and reason", name, b)
			}
			if name == "window" && !strings.Contains(r.stdout, ",60\n") {
				t.Errorf("window counts lost the rows after the future one:\n%.300s", r.stdout)
			}
		}
	}
}

// countLines returns the number of lines of the file at path, 0 when it is
// missing.
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// TestMaxFutureErrorsPolicy: 'errors'='fail' stops the job at the row, with
// its position and the reason; 'skip' drops it; the option without WATERMARK
// FOR, or with a value that is not a duration, is an error naming the option.
func TestMaxFutureErrorsPolicy(t *testing.T) {
	dir := t.TempDir()
	futureRows(t, dir, 100)
	run := func(opts string) result {
		script := filepath.Join(dir, "q.sql")
		if err := os.WriteFile(script, []byte(futureScript(opts, "SELECT id FROM ev;")), 0o644); err != nil {
			t.Fatal(err)
		}
		return inProcess(t, dir, []string{"--format", "csv", script})
	}
	r := run(", 'watermark.max-future'='1 h', 'errors'='fail'")
	if r.code != 1 || !strings.Contains(r.stderr, "ev.csv:2") || !strings.Contains(r.stderr, "event time too far ahead") {
		t.Errorf("fail policy: exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "e0\n") || strings.Contains(r.stdout, "e1\n") {
		t.Errorf("fail policy: want the rows before the refused one only, got %q", r.stdout)
	}
	r = run(", 'watermark.max-future'='1 h', 'errors'='skip'")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "future") || !strings.Contains(r.stdout, "e99\n") || strings.Contains(r.stdout, "late") {
		t.Errorf("skip policy: exit %d, stdout %.200q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = run(", 'watermark.max-future'='soon'")
	if r.code != 2 || !strings.Contains(r.stderr, "'watermark.max-future'") || !strings.Contains(r.stderr, "not a duration") {
		t.Errorf("bad value: exit %d, stderr %q", r.code, r.stderr)
	}
	noWM := "CREATE STREAM ev (id VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='ev.csv', 'watermark.max-future'='1 h');\nSELECT id FROM ev;"
	script := filepath.Join(dir, "nowm.sql")
	if err := os.WriteFile(script, []byte(noWM), 0o644); err != nil {
		t.Fatal(err)
	}
	r = inProcess(t, dir, []string{script})
	if r.code != 2 || !strings.Contains(r.stderr, "needs an event time") {
		t.Errorf("without WATERMARK FOR: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestMaxFutureExplained: EXPLAIN shows the option on the watermark line and
// EXPLAIN ANALYZE counts the rows it refused.
func TestMaxFutureExplained(t *testing.T) {
	dir := t.TempDir()
	futureRows(t, dir, 100)
	script := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(script, []byte(futureScript(", 'watermark.max-future'='1 h'", "EXPLAIN ANALYZE SELECT id FROM ev;")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := inProcess(t, dir, []string{"--format", "tsv", script})
	if r.code != 0 || !strings.Contains(r.stdout, "AssignWatermark ts AS ts - INTERVAL '5' SECOND, max-future 1 h  (") || !strings.Contains(r.stdout, "; 1 row refused as too far ahead") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestMaxFutureOnJoinInputs: 'watermark.max-future' on an input of an
// event-time (interval) join (SPEC 2.7, SPEC 4 "Finding out why"): the
// sql-flow #358 shape on the left input makes every later left row late for
// the join without the option, and none with it; the future row goes to the
// errors output with the reason, on each errors policy, and every other row
// finds its partner.
func TestMaxFutureOnJoinInputs(t *testing.T) {
	const n = 1000
	base := int64(1_700_000_000_000)
	var l, r strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&l, "k%d,%d\n", i, base+int64(i)*1000)
		fmt.Fprintf(&r, "k%d,%d\n", i, base+int64(i)*1000+500)
		if i == 0 {
			fmt.Fprintf(&l, "future,%d\n", base+365*24*3600*1000)
		}
	}
	files := map[string]string{"l.csv": l.String(), "r.csv": r.String()}
	query := "SELECT a.id, b.ts FROM l a JOIN r b ON a.id = b.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND;\n"
	for _, tc := range []struct{ opt, errors string }{
		{"", ""},
		{", 'watermark.max-future'='1 h'", ""},
		{", 'watermark.max-future'='1 h'", ", 'errors'='skip'"},
	} {
		ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv'` + tc.opt + tc.errors + `);
CREATE STREAM r (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
		out, errs, code := runSQL(t, files, ddl+query, "--format", "csv")
		if code != 0 {
			t.Fatalf("%q%q: exit %d: %s", tc.opt, tc.errors, code, errs)
		}
		joined := strings.Count(out, "\n") - 1
		late := strings.Count(errs, "late-a> ")
		refused := strings.Count(errs, "event time too far ahead")
		switch {
		case tc.opt == "":
			if late < n-10 || refused != 0 {
				t.Errorf("without the option: %d late left rows, %d refused; want about %d and 0", late, refused, n)
			}
		case tc.errors != "":
			if late != 0 || refused != 0 || joined != n {
				t.Errorf("with the option and 'errors'='skip': %d late, %d refused, %d joined; want 0, 0, %d\n%.400s", late, refused, joined, n, errs)
			}
		default:
			if late != 0 || refused != 1 || joined != n || !strings.Contains(errs, "l.csv:2") {
				t.Errorf("with the option: %d late, %d refused, %d joined; want 0, 1 (at l.csv:2), %d\n%.400s", late, refused, joined, n, errs)
			}
		}
	}
}

// TestMaxFutureOnSemiAntiJoinInputs: 'watermark.max-future' on the inputs of
// an event-time SEMI or ANTI join (SPEC 2.2, SPEC 4 "Finding out why"), whose
// probe rows are held until the build watermark passes them: the sql-flow
// #358 shape (10k ordered rows, one stamped a year ahead) on the probe stream
// makes 9,999 rows late without the option and none with it, and on the build
// stream it makes every later build row late (so no probe row after it finds
// its key) without the option and none with it. The refused row goes to the
// errors output with its position and reason, and EXPLAIN ANALYZE counts it
// on its stream's line.
func TestMaxFutureOnSemiAntiJoinInputs(t *testing.T) {
	const n = 10000
	base := int64(1_700_000_000_000)
	year := int64(365 * 24 * 3600 * 1000)
	rows := func(future bool, off int64) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "e%d,%d\n", i, base+int64(i)*1000+off)
			if i == 0 && future {
				fmt.Fprintf(&sb, "future,%d\n", base+year)
			}
		}
		return sb.String()
	}
	const opt = ", 'watermark.max-future'='1 h'"
	for _, tc := range []struct {
		name           string
		probeOpt, bOpt string // the option on the probe, on the build stream
		futureInBuild  bool
		anti           bool
		late, joined   int // rows in 'behind' and in main
		refusedAt      string
	}{
		{name: "probe, semi, without", late: n - 1, joined: 1},
		{name: "probe, semi, with", probeOpt: opt, joined: n, refusedAt: "ev.csv:2"},
		{name: "probe, anti, without", anti: true, late: n - 1, joined: 1}, // (the future row has no key)
		{name: "probe, anti, with", probeOpt: opt, anti: true, joined: 0, refusedAt: "ev.csv:2"},
		{name: "build, semi, without", futureInBuild: true, joined: 1},
		{name: "build, semi, with", bOpt: opt, futureInBuild: true, joined: n, refusedAt: ":2,\"future"},
		{name: "build, anti, without", futureInBuild: true, anti: true, joined: n - 1},
		{name: "build, anti, with", bOpt: opt, futureInBuild: true, anti: true, joined: 0, refusedAt: ":2,\"future"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(rows(!tc.futureInBuild, 0)), 0o644); err != nil {
				t.Fatal(err)
			}
			// the build rows come half a second before their probe rows
			build := rows(tc.futureInBuild, -500)
			join := "SEMI JOIN"
			if tc.anti {
				join = "ANTI JOIN"
			}
			script := func(port int, query string) string {
				return fmt.Sprintf(`CREATE STREAM ev (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector'='file', 'path'='ev.csv'%s);
CREATE STREAM ks (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d'%s);
SELECT id, ts INTO SIDE 'behind' FROM ev WHERE ts < CURRENT_WATERMARK(ts);
%s e.id FROM ev e %s ks k ON e.id = k.id;
`, tc.probeOpt, port, tc.bOpt, query, join)
			}
			path := filepath.Join(dir, "q.sql")
			if err := os.WriteFile(path, []byte(script(serveText(t, build), "SELECT")), 0o644); err != nil {
				t.Fatal(err)
			}
			sideDir := t.TempDir()
			r := inProcess(t, dir, []string{"--format", "csv", "--side-dir", sideDir, path})
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			late := countLines(t, filepath.Join(sideDir, "behind.csv")) - 1
			joined := strings.Count(r.stdout, "\n") - 1
			errs, _ := os.ReadFile(filepath.Join(sideDir, "errors.csv"))
			if late < 0 {
				late = 0
			}
			if late != tc.late || joined != tc.joined {
				t.Errorf("%d late rows, %d joined; want %d and %d", late, joined, tc.late, tc.joined)
			}
			refused := strings.Count(string(errs), "event time too far ahead")
			switch {
			case tc.refusedAt == "" && refused != 0:
				t.Errorf("without the option %d rows refused:\n%s", refused, errs)
			case tc.refusedAt != "" && (refused != 1 || !strings.Contains(string(errs), tc.refusedAt) || !strings.Contains(string(errs), "future,1731536000000")):
				t.Errorf("errors output %q: want the future row, at %s, refused once", errs, tc.refusedAt)
			}
			if tc.refusedAt == "" {
				return
			}
			// EXPLAIN ANALYZE counts the refused row on its stream's line
			if err := os.WriteFile(path, []byte(script(serveText(t, build), "EXPLAIN ANALYZE SELECT")), 0o644); err != nil {
				t.Fatal(err)
			}
			r = inProcess(t, dir, []string{"--format", "tsv", path})
			line := "AssignWatermark"
			if tc.futureInBuild {
				line = "Scan ks"
			}
			found := false
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.Contains(l, line) && strings.Contains(l, "1 row refused as too far ahead") {
					found = true
				}
			}
			if r.code != 0 || !found {
				t.Errorf("EXPLAIN ANALYZE: exit %d, no %q line with the refused row:\n%s%s", r.code, line, r.stdout, r.stderr)
			}
		})
	}
}
