package tests

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// TestWindowSemantics: SPEC 2.4 rules checked by hand, one script each, csv
// without --side-dir (every output's lines in output order, prefixed by their
// output when the job has side outputs; the default 'late' output on stderr).
func TestWindowSemantics(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ev := write("ev.csv", "a,1000\nx,2000\na,11000\nx,12000\na,25000\n")
	num := write("num.csv", "a,1000,1.0\nb,,2.0\na,2500,NaN\nb,3000,-0.0\na,4000,0.0\nc,5000,NaN\n")
	ddlEv := "CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='" + ev + "');\n"
	ev2 := write("ev2.csv", "a,100,50\nb,200,5\nc,300,60\na,400,1\nd,2500,2\ne,4100,70\n")
	ddlEv2 := "CREATE STREAM s (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='" + ev2 + "');\n"
	ddlNum := "CREATE STREAM p (k VARCHAR, ts BIGINT, x DOUBLE) WITH ('connector'='file', 'path'='" + num + "');\n"
	cases := []struct {
		name, script, stdout, stderr string
	}{
		{"a LIMIT reached by a firing ends the job there",
			ddlEv + "SELECT k, ts INTO SIDE 'xs' FROM s WHERE k = 'x';\nSELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end LIMIT 1;",
			// [0,10000) fires after a@11000, giving main its one row: x@12000 is not read
			"output,k,ts\nxs,x,2000\noutput,window_start,n\nmain,0,1\n", ""},
		{"a LIMIT on the main query: an aggregating side branch emits nothing",
			ddlEv + "SELECT COUNT(*) AS n INTO SIDE 'cnt' FROM s WHERE k = 'x';\nSELECT k FROM s LIMIT 1;",
			"output,k\nmain,a\n", ""},
		// SPEC 2.4: windows fired by one step in window_end, window_start,
		// then first-row order, across the job's aggregates: at d@2500 both
		// aggregates' [0,2000) fire, their groups by first row (x's a@100,
		// main's b@200, x's c@300, main's a@400)
		{"one step's windows of two aggregates: query by query, each in first-row order",
			ddlEv2 + "SELECT window_start, k, COUNT(*) AS n INTO SIDE 'x' FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND)) WHERE v > 40 GROUP BY window_start, window_end, k;\n" +
				"SELECT window_start, k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, k;",
			"output,window_start,k,n\nx,0,a,1\nx,0,c,1\noutput,window_start,k,n\nmain,0,b,1\nmain,0,a,1\nmain,2000,d,1\nx,4000,e,1\n", ""},
		{"two GROUP BY aggregates at the stream's end: query by query, each in first-row order",
			ddlEv2 + "SELECT k, COUNT(*) AS n INTO SIDE 'g' FROM s WHERE v > 40 GROUP BY k;\nSELECT k, COUNT(*) AS n FROM s GROUP BY k;",
			"output,k,n\ng,a,1\ng,c,1\ng,e,1\noutput,k,n\nmain,b,1\nmain,a,1\nmain,d,1\n", ""},
		{"an aggregating side branch at the stream's end",
			ddlEv + "SELECT COUNT(*) AS n INTO SIDE 'cnt' FROM s WHERE k = 'x';\nSELECT k FROM s WHERE ts > 20000;",
			"output,k\nmain,a\noutput,n\ncnt,2\n", ""},
		{"a global aggregate over no rows gives one row, which HAVING may remove",
			ddlEv + "SELECT COUNT(*) AS n, SUM(ts) AS s, MAX(k) AS m FROM s WHERE ts < 0;\nSELECT COUNT(*) AS n FROM s WHERE ts < 0 HAVING n > 0;",
			"n,s,m\n0,,\nn\n", ""},
		{"DOUBLE keys group as Double.equals, NULL keys one group",
			ddlNum + "SELECT x, COUNT(*) AS n FROM p GROUP BY x;\nSELECT ts IS NULL AS nt, COUNT(*) AS n FROM p GROUP BY ts IS NULL;",
			"x,n\n1.0,1\n2.0,1\nNaN,2\n-0.0,1\n0.0,1\nnt,n\nfalse,5\ntrue,1\n", ""},
		{"a window TVF without aggregation: each row once per window, a NULL t late",
			ddlNum + "SELECT k, ts, window_start, window_end FROM TABLE(HOP(TABLE p, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND)) WHERE k = 'b';",
			"k,ts,window_start,window_end\nb,3000,0,4000\nb,3000,2000,6000\n", "late> b,,2.0\n"},
		{"MIN and MAX of DOUBLE in Double.compare order; VAR_SAMP of one value",
			ddlNum + "SELECT k, MIN(x) AS mn, MAX(x) AS mx, VAR_SAMP(x) AS v, VAR_POP(x) AS vp, FIRST_VALUE(x) AS f, LAST_VALUE(x) AS l FROM p GROUP BY k;",
			"k,mn,mx,v,vp,f,l\na,0.0,NaN,NaN,NaN,1.0,0.0\nb,-0.0,2.0,2.0,1.0,2.0,-0.0\nc,NaN,NaN,,NaN,NaN,NaN\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"--format", "csv", "-e", c.script}, strings.NewReader(""), &out, &errb)
			if code != 0 || out.String() != c.stdout || !strings.Contains(errb.String(), c.stderr) {
				t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant it to hold %q", code, out.String(), c.stdout, errb.String(), c.stderr)
			}
		})
	}
}

// TestWindowStateBudget: window state counts against 'state.max-bytes' (SPEC 1,
// 2.4): the job stops with exit 1 and a message naming the operator and what grew.
func TestWindowStateBudget(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 5000; i++ {
		sb.WriteString("k")
		sb.WriteString(strings.Repeat("x", i%7))
		sb.WriteString(",")
		sb.WriteString(strings.Repeat("1", 1+i%5))
		sb.WriteString(",1\n")
	}
	for i := 0; i < 5000; i++ { // many distinct keys in one open window
		sb.WriteString("key" + strings.Repeat("y", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26)) + ",5,1\n")
	}
	p := filepath.Join(t.TempDir(), "many.csv")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "SET 'state.max-bytes' = '64KiB';\nCREATE STREAM m (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='" + p + "');\n" +
		"SELECT window_start, k, COUNT(*) FROM TABLE(TUMBLE(TABLE m, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end, k;"
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"--format", "csv", "-e", script}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "'state.max-bytes'") || !strings.Contains(errb.String(), "the aggregate of SELECT window_start, k") || !strings.Contains(errb.String(), "open windows × groups") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestWindowLimitStdin: a LIMIT reached by a firing ends the job after the row
// that fired it, and the next job reading stdin starts right after that row
// (SPEC 1: no byte is lost; SPEC 2.4).
func TestWindowLimitStdin(t *testing.T) {
	script := "CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='stdin', 'format'='csv');\n" +
		"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end LIMIT 1;\n" +
		"SELECT * FROM s;"
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"--format", "csv", "-e", script}, strings.NewReader("a,1000\nb,2000\na,11000\nb,12000\na,25000\n"), &out, &errb)
	if want := "window_start,n\n0,2\nk,ts\nb,12000\na,25000\n"; code != 0 || out.String() != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr: %s", code, out.String(), want, errb.String())
	}
}

// TestWindowOverEventTimeJoin: a window over a semi join with an unbounded
// right side (SPEC 2.2's event-time strategy): the join decides which rows are
// windowed, lateness is decided after it, and windows fire by the left stream's
// watermark in the order of the released left rows (SPEC 2.4).
func TestWindowOverEventTimeJoin(t *testing.T) {
	port := serveText(t, "a,0\nb,1500\nc,10000\nz,30000\n")
	sql := fmt.Sprintf(`CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d');
SELECT window_start, COUNT(*) AS n, LISTAGG(l.k) AS ks FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND)) SEMI JOIN r ON l.k = r.k
  GROUP BY window_start, window_end;
`, port)
	// d@3000 has no match; a@4000 matches but comes after [0,10000) fired (the
	// left watermark was 12000): it is late
	out, errs, code := runSQL(t, map[string]string{"l.csv": "a,1000\nb,2000\nd,3000\na,5000\nc,11000\na,12000\na,4000\nb,25000\n"}, sql, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "window_start,n,ks\n0,3,\"a,b,a\"\n10000,2,\"c,a\"\n20000,1,b\n"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if !strings.Contains(errs, "late> a,4000") {
		t.Errorf("stderr %q lacks the late row", errs)
	}
}

// lateNotice is the stderr notice of the late rows sent to 'wlate' (SPEC 2.4).
var lateNotice = regexp.MustCompile(`(\d+) late row\(s\) of the query .* sent to 'wlate'`)

// TestLimitCutsAfterTheNthRow checks SPEC 2.4's LIMIT rule for every n over
// random event-time inputs: when the main query's n-th row ends the job,
// nothing after that row is emitted, not even the windows its own watermark
// step fires (SPEC 2.3: they fire right after the row). So the output with
// LIMIT n is the output without a LIMIT up to and including its n-th main
// row (csv without --side-dir: one stream in output order). The job has a
// late-row branch, a windowed side aggregate and a plain side branch.
func TestLimitCutsAfterTheNthRow(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	dir := t.TempDir()
	for round := 0; round < 12; round++ {
		var sb strings.Builder
		ts := int64(0)
		for i := 0; i < 30; i++ {
			ts += int64(rng.Intn(1500))
			at := ts
			if rng.Intn(5) == 0 {
				at -= int64(rng.Intn(5000)) // out of order, sometimes late
			}
			fmt.Fprintf(&sb, "%c,%d,%d\n", 'a'+rng.Intn(3), at, rng.Intn(100))
		}
		path := filepath.Join(dir, fmt.Sprintf("in%d.csv", round))
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		fn := []string{"TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND)", "HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)"}[round%2]
		script := func(limit string) string {
			return "CREATE STREAM s (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='" + path + "');\n" +
				"SELECT k, ts INTO SIDE 'tardy' FROM s WHERE ts < CURRENT_WATERMARK(ts) AND v < 30;\n" +
				"SELECT window_end, k, COUNT(*) AS n INTO SIDE 'w' FROM TABLE(" + fn + ") WHERE v > 50 GROUP BY window_start, window_end, k LATE INTO SIDE 'wlate';\n" +
				"SELECT k, v INTO SIDE 'low' FROM s WHERE v < 10;\n" +
				"SELECT k, ts FROM s" + limit + ";"
		}
		run := func(sql string) string {
			out, errs, code := runSQL(t, nil, sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("%s\nexit %d: %s", sql, code, errs)
			}
			// the late notice counts the late rows written (SPEC 2.4)
			late := strings.Count(out, "\nwlate,")
			if m := lateNotice.FindStringSubmatch(errs); (m != nil) != (late > 0) || m != nil && m[1] != strconv.Itoa(late) {
				t.Fatalf("%s\nwrote %d late rows to 'wlate'; stderr says %q", sql, late, errs)
			}
			return out
		}
		full := strings.SplitAfter(run(script("")), "\n")
		mains := 0
		for n := 1; ; n++ {
			// the full output up to its n-th main row
			var want strings.Builder
			seen, i := 0, 0
			for ; i < len(full) && seen < n; i++ {
				want.WriteString(full[i])
				if strings.HasPrefix(full[i], "main,") {
					seen++
				}
			}
			if seen < n {
				break
			}
			mains = n
			if got := run(script(fmt.Sprintf(" LIMIT %d", n))); got != want.String() {
				t.Fatalf("%s\nwith LIMIT %d got\n%swant (the output without LIMIT up to its %d-th main row)\n%s", script(""), n, got, n, want.String())
			}
		}
		if mains == 0 {
			t.Fatalf("round %d: no main rows", round)
		}
	}
}

// TestManyWindowsPerRow: a row of a HOP or CUMULATE with more windows than a
// batch holds (SPEC 2.4): without aggregation it gives one row per window, all
// of them, in window-start order; with aggregation its windows' groups count
// against 'state.max-bytes' as they are made, so a HOP of 86,400,000 windows
// per row stops at the limit (SPEC 1) instead of making them all first.
func TestManyWindowsPerRow(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='one.csv');\n"
	run := func(sql string) (string, string, int) {
		return runSQL(t, map[string]string{"one.csv": "a,3600000\nb,3600500\n"}, sql, "--format", "csv")
	}
	out, errs, code := run(ddl + "SELECT k, window_start, window_end FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '1' HOUR));")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var want strings.Builder
	want.WriteString("k,window_start,window_end\n")
	for _, r := range []struct {
		k  string
		ts int64
	}{{"a", 3600000}, {"b", 3600500}} {
		for s := (r.ts/1000 - 3599) * 1000; s <= r.ts; s += 1000 { // every start s with s <= ts < s + 1 h
			fmt.Fprintf(&want, "%s,%d,%d\n", r.k, s, s+3600000)
		}
	}
	if out != want.String() {
		t.Errorf("HOP of 3600 windows per row: got %d lines, want %d", strings.Count(out, "\n"), strings.Count(want.String(), "\n"))
	}
	out, errs, code = run(ddl + "SELECT window_end, COUNT(*) AS n FROM TABLE(CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' HOUR)) GROUP BY window_start, window_end;")
	if code != 0 || strings.Count(out, "\n") != 1+3600 || !strings.HasPrefix(out, "window_end,n\n3601000,2\n") || !strings.HasSuffix(out, "7200000,2\n") {
		t.Errorf("CUMULATE of 3600 windows per row: exit %d, %d lines, ends %q: %s", code, strings.Count(out, "\n"), out[max(0, len(out)-40):], errs)
	}
	// The limit stops the job after a few MiB of windows: the 86,400,000
	// windows (16 bytes each) are never made first.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, errs, code = run("SET 'state.max-bytes' = '16MiB';\n" + ddl + "SELECT window_start, COUNT(*) AS n FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '0.001' SECOND, INTERVAL '1' DAY)) GROUP BY window_start, window_end;")
	runtime.ReadMemStats(&after)
	if code != 1 || !strings.Contains(errs, "state.max-bytes") {
		t.Errorf("HOP of 86,400,000 windows per row under 16MiB: exit %d, stderr %q; want exit 1 and the state limit's message", code, errs)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
		t.Errorf("the job allocated %d MiB before the 16MiB state limit stopped it: the windows were made before they were counted", got>>20)
	}
}

// heapWriter discards what it is given and records the most heap in use
// (bytes, runtime.MemStats.HeapAlloc) at any write, the lines written and
// the last bytes.
type heapWriter struct {
	most, lines uint64
	tail        []byte
}

func (w *heapWriter) Write(p []byte) (int, error) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.most = max(w.most, m.HeapAlloc)
	w.lines += uint64(bytes.Count(p, []byte("\n")))
	w.tail = append(w.tail, p[max(0, len(p)-32):]...)
	w.tail = w.tail[max(0, len(w.tail)-32):]
	return len(p), nil
}

// TestWindowTVFEmitsAsItGoes (issue 30 item 1): a window TVF without
// aggregation emits each row's windows in bounded chunks as they are made,
// so the heap does not grow with how many windows one input row has (HOP,
// CUMULATE: 3,000,000 per row here, over 200 MB if held) and the rows come out
// whole and in order, after the side rows of the rows before them.
func TestWindowTVFEmitsAsItGoes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte("a,5\nb,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const per = 3_000_000
	for _, tvf := range []string{
		fmt.Sprintf("HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '1' MILLISECOND, INTERVAL '%d' MILLISECOND)", per),
		fmt.Sprintf("CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' MILLISECOND, INTERVAL '%d' MILLISECOND)", per+5),
	} {
		sql := "CREATE STREAM s (k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='s.csv');\n" +
			"SELECT k INTO SIDE 'b' FROM s WHERE k = 'b';\n" +
			"SELECT k, window_end FROM TABLE(" + tvf + ");\n"
		if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		out := &heapWriter{}
		var errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", "csv", "-f", filepath.Join(dir, "q.sql")}, strings.NewReader(""), out, &errb)
		if code != 0 {
			t.Fatalf("%s: exit %d %s", tvf, code, errb.String())
		}
		// a's windows, then b's side row (b is the side branch's: no windows)
		if out.lines != 1+per+2 || !bytes.HasSuffix(out.tail, []byte("\noutput,k\nb,b\n")) {
			t.Errorf("%s: %d lines ending %q, want a's %d windows then b's side row", tvf, out.lines, out.tail, per)
		}
		if grew := int64(out.most) - int64(base.HeapAlloc); grew > 64<<20 {
			t.Errorf("%s: the heap grew by %d MiB while one row's windows were emitted; want them emitted as they are made (under 64 MiB)", tvf, grew>>20)
		}
	}
}
