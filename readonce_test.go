package streamql_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"streamql"
)

// readOnceShapes are the ways one query makes its job open a stream s more
// than once (plan.Branch.Opens; planner/rule_tee.go, rule_read_once.go),
// with a '^' before the FROM entry that reads s again (where a refusal
// points), from testdata/readonce_shapes.txt (tests/kafka_readonce_test.go
// reads them too).
// grouped marks the shapes that read a Kafka stream of a consumer group
// twice in the group (a join's two inputs); the others read it whole, every
// partition, as a build side or a relation over a group is read
// (catalog.CapReadWhole), which splits nothing.
var readOnceShapes = loadReadOnceShapes("testdata/readonce_shapes.txt")

// loadReadOnceShapes reads the shapes from path (name | grouped | SQL a line).
func loadReadOnceShapes(path string) []readOnceShape {
	text, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	var shapes []readOnceShape
	for _, l := range strings.Split(string(text), "\n") {
		if f := strings.SplitN(l, " | ", 3); len(f) == 3 && !strings.HasPrefix(l, "#") {
			shapes = append(shapes, readOnceShape{f[0], f[2], f[1] == "true"})
		}
	}
	return shapes
}

// readOnceShape is one of readOnceShapes.
type readOnceShape struct {
	name, sql string
	grouped   bool
}

// readOnceConns are the streams that can be read once per job, as declared
// (connector options) and the connector's name.
var readOnceConns = []struct{ with, name string }{
	{"'connector'='stdin','format'='csv'", "stdin"},
	{"'connector'='go'", "go"},
	{"'connector'='socket','hostname'='127.0.0.1','port'='9','format'='csv'", "socket"},
	{"'connector'='kafka','topic'='t','properties.bootstrap.servers'='127.0.0.1:9','properties.group.id'='g','format'='csv'", "kafka"},
}

// TestReadOnceFannedOrRefused: every shape of readOnceShapes over a stream
// that can be read once plans (EXPLAIN), its reads fanned out by one Tee
// (planner/rule_tee.go) for stdin, 'go' and a socket, and read whole for
// Kafka in a consumer group (catalog.CapReadWhole), but for the reads that
// would split a consumer group's partitions (a join's two inputs read in
// the group), which stay a planning error at the FROM entry that reads the
// stream again, naming the stream, its connector, why and what to do. A
// fanned-out stream is one Scan in EXPLAIN, feeding all its readers.
func TestReadOnceFannedOrRefused(t *testing.T) {
	for _, c := range readOnceConns {
		for _, sh := range readOnceShapes {
			t.Run(c.name+"/"+sh.name, func(t *testing.T) {
				var plan []string
				s := open(t, streamql.Options{OnRows: collect(&plan)})
				ctx := context.Background()
				decl := fmt.Sprintf("CREATE STREAM s (k VARCHAR, v INT, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH (%s);\nCREATE VIEW sv AS SELECT k, v FROM s;\n", c.with)
				if err := s.Exec(ctx, decl); err != nil {
					t.Fatal(err)
				}
				col := strings.Index(sh.sql, "^") + 1
				q := "EXPLAIN " + strings.Replace(sh.sql, "^", "", 1)
				err := s.Exec(ctx, q)
				if c.name != "kafka" || !sh.grouped {
					if err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					text := strings.Join(plan, "\n")
					if tee := strings.Contains(text, "Tee s: one read of stream s feeds its"); tee != (c.name != "kafka") {
						t.Errorf("%s: a Tee node %v, want %v:\n%s", q, tee, !tee, text)
					}
					// one Scan of s feeds every reader, whatever parts, views
					// and WITH names read it (issue 22 item 1, the DAG)
					if n := strings.Count(text, "Scan s ("); c.name != "kafka" && n != 1 {
						t.Errorf("%s: %d Scan nodes of s, want 1 (one read fanned out):\n%s", q, n, text)
					}
					return
				}
				var e *streamql.Error
				if !errors.As(err, &e) || e.Kind != streamql.KindPlanning {
					t.Fatalf("%s: got %v, want a planning error", q, err)
				}
				for _, want := range []string{"reads stream s ", "'connector' = 'kafka'", "read once per job", "a view or WITH name", "fanned out to both", "lost or doubled"} {
					if !strings.Contains(e.Error(), want) {
						t.Errorf("%s: error %q lacks %q", q, e.Error(), want)
					}
				}
				if e.Pos.Line != 1 || e.Pos.Column != col+len("EXPLAIN ") {
					t.Errorf("%s: error at %v, want line 1, column %d", q, e.Pos, col+len("EXPLAIN "))
				}
			})
		}
	}
}

// TestRereadShapesRun: every connector whose streams each open reads whole
// (file, followed or not, values, nexmark, datagen with a seed, and Kafka
// without a group, planned only here: its runs are tests/kafka_*) runs
// every shape of readOnceShapes; the self-join's row count equals a
// reference counted from the rows read once (the sum over keys of the
// square of each key's count).
func TestRereadShapesRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	var text strings.Builder
	for i := range 60 {
		fmt.Fprintf(&text, "k%d,%d\n", i%7, i)
	}
	if err := os.WriteFile(in, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	conns := []struct{ name, with, fill string }{
		{"file", "'connector'='file','path'='" + in + "','format'='csv'", ""},
		{"followed file", "'connector'='file','path'='" + in + "','format'='csv','follow'='true'", ""},
		{"values", "'connector'='values'", "INSERT INTO s VALUES ('a', 1), ('a', 2), ('b', 3), ('c', 4), ('a', 5);"},
		{"datagen", "'connector'='datagen','number-of-rows'='50','seed'='7','fields.k.length'='1','fields.v.min'='0','fields.v.max'='9'", ""},
		{"kafka", "'connector'='kafka','topic'='t','properties.bootstrap.servers'='127.0.0.1:9','format'='csv'", ""},
	}
	for _, c := range conns {
		t.Run(c.name, func(t *testing.T) {
			var mu = map[string][]string{}
			cur := ""
			s := open(t, streamql.Options{OnRows: func(out streamql.Output, rows *streamql.Rows) error {
				if out.Kind == streamql.OutputMain {
					for i := range rows.Len() {
						var r []string
						for c := range out.Columns {
							r = append(r, fmt.Sprint(rows.Value(c, i)))
						}
						mu[cur] = append(mu[cur], strings.Join(r, " "))
					}
				}
				return nil
			}})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // (a hang fails, it does not time anything)
			defer cancel()
			cols := "k VARCHAR, v INT"
			if c.name == "kafka" || strings.Contains(c.with, "follow") { // (unbounded: its joins need event time, SPEC 2.7)
				cols += ", t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND"
			}
			if err := s.Exec(ctx, fmt.Sprintf("CREATE STREAM s (%s) WITH (%s);\nCREATE VIEW sv AS SELECT k, v FROM s;\n%s", cols, c.with, c.fill)); err != nil {
				t.Fatal(err)
			}
			followed := strings.Contains(c.with, "follow")
			for _, sh := range readOnceShapes {
				q := strings.Replace(sh.sql, "^", "", 1)
				if c.name == "kafka" || followed {
					// (no broker here; a followed file never ends: planned only)
					if err := s.Exec(ctx, "EXPLAIN "+q); err != nil {
						t.Errorf("%s: %v", sh.name, err)
					}
					continue
				}
				cur = sh.name
				if err := s.Exec(ctx, q); err != nil {
					t.Errorf("%s: %v", sh.name, err)
				}
			}
			if c.name == "kafka" || followed {
				return
			}
			cur = "rows"
			if err := s.Exec(ctx, "SELECT k, v FROM s"); err != nil {
				t.Fatal(err)
			}
			count := map[string]int{}
			for _, r := range mu["rows"] {
				count[strings.Fields(r)[0]]++
			}
			want := 0
			for _, n := range count {
				want += n * n
			}
			if got := len(mu["self join"]); got != want || want == 0 {
				t.Errorf("self join: %d rows, want %d (%d rows read once)", got, want, len(mu["rows"]))
			}
			if got := len(mu["union all"]); got != 2*len(mu["rows"]) {
				t.Errorf("union all: %d rows, want %d", got, 2*len(mu["rows"]))
			}
			if got, want := sorted(mu["semi join"]), sorted(mu["rows"]); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("semi join of s with itself: %v, want every row %v", got, want)
			}
		})
	}
}

func sorted(x []string) []string {
	y := append([]string(nil), x...)
	sort.Strings(y)
	return y
}

// TestStdinSelfJoinDoesNotHang: the command line's self-join over stdin
// (which hung, reading standard input twice, then was refused) runs: its
// one read of stdin fanned out to the join's two inputs gives every pair,
// and the malformed line is reported once; the deadline fails the test
// instead of hanging it.
func TestStdinSelfJoinDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	bin := buildStreamql(t, dir)
	sql := filepath.Join(dir, "sj.sql")
	if err := os.WriteFile(sql, []byte("CREATE STREAM s (k VARCHAR, v INT) WITH ('connector'='stdin','format'='csv');\nSELECT a.k, a.v, b.v FROM s a JOIN s b ON a.k = b.k;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-f", sql, "--format", "csv")
	cmd.Stdin = strings.NewReader("a,1\na,2\nbad\nb,3\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("the job hung (killed at the deadline): %s", out)
	}
	if err != nil {
		t.Fatalf("exit %v: %s%s", err, out, stderr.String())
	}
	if got, want := strings.Join(sorted(strings.Split(strings.TrimSpace(string(out)), "\n")), "|"), "a,1,1|a,1,2|a,2,1|a,2,2|b,3,3|k,v,v0"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	if n := strings.Count(stderr.String(), "errors> s,stdin:3,bad"); n != 1 {
		t.Errorf("the malformed line reported %d times, want once:\n%s", n, stderr.String())
	}
}

// buildStreamql builds the command line into dir and returns its path.
func buildStreamql(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "streamql")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/streamql").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// runStdinScript runs script with the binary bin (csv output) over stdin in
// and returns its standard output; an exit status other than 0 fails t.
func runStdinScript(t *testing.T, bin, script, in string) string {
	t.Helper()
	out, _ := runStdinScriptErr(t, bin, script, in)
	return out
}

// runStdinScriptErr is runStdinScript that returns the standard error too
// (the errors output's rows and the end-of-job notices, in csv).
func runStdinScriptErr(t *testing.T, bin, script, in string) (string, string) {
	t.Helper()
	out, stderr, code := runStdinScriptExit(t, bin, script, in)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	return out, stderr
}

// runStdinScriptExit is runStdinScriptErr for a script that may fail: it
// returns the exit status too.
func runStdinScriptExit(t *testing.T, bin, script, in string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // (a hang fails, it does not time anything)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-e", script, "--format", "csv")
	cmd.Stdin = strings.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), stderr.String(), 0
	case errors.As(err, &exit) && ctx.Err() == nil:
		return string(out), stderr.String(), exit.ExitCode()
	}
	t.Fatalf("run: %v: %s%s", err, out, stderr.String())
	return "", "", 0
}

// malformedByStatement splits stderr, a two-statement script's over one
// stream s, at its end-of-job notices, into the rows v of the malformed
// lines "bad<v>,..." each statement's errors output gave (csv: "errors> "
// lines on stderr) and the count each notice says; a notice's text other
// than policy's ("sent to side output 'errors'" or "skipped") fails t.
func malformedByStatement(t *testing.T, stderr, policy string) (rows [][]int, counts []int) {
	t.Helper()
	var cur []int
	for _, line := range strings.Split(stderr, "\n") {
		switch {
		case strings.HasPrefix(line, "errors> "):
			f := strings.Split(line, ",")
			v, err := strconv.Atoi(strings.TrimPrefix(strings.Trim(f[2], `"`), "bad"))
			if err != nil {
				t.Fatalf("errors row %q", line)
			}
			cur = append(cur, v)
		case strings.HasPrefix(line, "stream s: "):
			var n int
			want := "stream s: %d malformed row(s) sent to side output 'errors'"
			if policy == "skip" {
				want = "stream s: %d malformed row(s) skipped"
			}
			if _, err := fmt.Sscanf(line, want, &n); err != nil || fmt.Sprintf(want, n) != line {
				t.Fatalf("notice %q, want %q", line, want)
			}
			rows, counts, cur = append(rows, cur), append(counts, n), nil
		}
	}
	if cur != nil {
		t.Fatalf("errors rows after the last notice: %v", cur)
	}
	return rows, counts
}

// TestTeeHandsBackStdin: a script's statement whose job reads stdin once
// and fans it out (a self-join, a UNION ALL, an IN subquery, a WITH name
// read twice), each reader stopped by its own LIMIT, leaves the rest of
// stdin to the script's next statement (SPEC 1: it continues where the
// previous one stopped, no byte lost): the next statement reads from the
// row after the furthest LIMIT, whichever reader had it, with the
// LIMITs in the first batch or across batches. The reference counts:
// the rest is rows max(a, b)+1 .. n, and each first statement's count is
// computed from the LIMITs' prefixes, apart from the engine.
func TestTeeHandsBackStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildStreamql(t, dir)
	const n = 5000
	var in strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, "k%d,%d\n", i%7, i)
	}
	keyed := func(rows int) map[int]int { // rows 1..rows per key
		c := map[int]int{}
		for i := 1; i <= rows; i++ {
			c[i%7]++
		}
		return c
	}
	pairs := func(a, b int) int { // rows of the join of prefixes a and b on k
		ca, cb, p := keyed(a), keyed(b), 0
		for k, x := range ca {
			p += x * cb[k]
		}
		return p
	}
	further := func(a, b int) int { return max(a, b) }
	shapes := []struct {
		name, sql string
		count     func(a, b int) int
		used      func(a, b int) int // the rows the job used: the rest starts after them
	}{
		{"self join", "SELECT COUNT(*) AS n FROM (SELECT a.k, a.v, b.v AS w FROM (SELECT k, v FROM s LIMIT %d) a JOIN (SELECT k, v FROM s LIMIT %d) b ON a.k = b.k)", pairs, further},
		{"union all", "SELECT COUNT(*) AS n FROM (SELECT k, v FROM (SELECT k, v FROM s LIMIT %d) UNION ALL SELECT k, v FROM (SELECT k, v FROM s LIMIT %d))", func(a, b int) int { return a + b }, further},
		{"IN subquery", "SELECT COUNT(*) AS n FROM (SELECT k, v FROM s LIMIT %d) a WHERE k IN (SELECT k FROM (SELECT k FROM s LIMIT %d))", func(a, b int) int {
			if b >= 7 {
				return a
			}
			c := 0
			for i := 1; i <= a; i++ {
				if i%7 >= 1 && i%7 <= b {
					c++
				}
			}
			return c
		}, further},
		{"WITH read twice", "WITH w AS (SELECT k, v FROM s LIMIT %[2]d) SELECT COUNT(*) AS n FROM w a JOIN w b ON a.k = b.k", func(_, b int) int { return pairs(b, b) }, func(_, b int) int { return b }},
	}
	for _, sh := range shapes {
		for _, l := range [][2]int{{2, 4}, {4, 2}, {1500, 2600}, {2600, 1500}} {
			t.Run(fmt.Sprintf("%s/%d,%d", sh.name, l[0], l[1]), func(t *testing.T) {
				q := fmt.Sprintf(sh.sql, l[0], l[1])
				script := "CREATE STREAM s (k VARCHAR, v INT) WITH ('connector'='stdin','format'='csv');\n" + q + ";\nSELECT COUNT(*) AS n, MIN(v) AS lo FROM s;\n"
				out := runStdinScript(t, bin, script, in.String())
				used := sh.used(l[0], l[1])
				want := fmt.Sprintf("n\n%d\nn,lo\n%d,%d\n", sh.count(l[0], l[1]), n-used, used+1)
				if out != want {
					t.Errorf("%s\ngot:\n%swant:\n%s", q, out, want)
				}
			})
		}
	}
}

// TestWrappersHandBackStdin: a source that wraps another (a derived
// relation's: subquery, view, WITH; CROSS JOIN UNNEST's; a join's, lookup,
// interval or semi; a window over a join) hands back to stdin what its job
// did not use when the job stops at its LIMIT (SPEC 1: the session's next
// job reads on after the last row used): each script's first statement
// stops at its LIMIT, inside stdin's first batch or across batches, and
// its second counts the rest of stdin, checked against the rows used as
// counted here from the input, through the binary and the library. A join
// holds the row whose watermark fired a window (the row after the joined
// rows the window took), which goes back; a window over stdin itself uses
// it. Malformed lines sit after the first row, after the last row used and
// the one before it, the one after it, the middle row and the one before
// the last: each is reported once (SPEC 1), by the statement whose cut it
// precedes (those after a row before the last used row by the first, the
// others, handed back, by the second), in the errors output ('errors'
// 'side') and in each statement's count (and so under 'skip'). Under
// 'errors'='fail', with malformed rows before the cut, only after it, and
// only after the rows the first statement reads, the statement that fails
// names the first malformed row it reads (a derived relation's part that
// failed handed its failing row on before its reader's cut was known: the
// next statement failed at a later row).
func TestWrappersHandBackStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildStreamql(t, dir)
	const n = 5000
	// input is stdin's text: row v at v seconds, with a malformed line
	// "bad<v>" after each row v of bad
	input := func(bad map[int]bool) string {
		var in strings.Builder
		for v := 1; v <= n; v++ {
			fmt.Fprintf(&in, "k%d,%d,1970-01-01 %02d:%02d:%02d\n", v%7, v, v/3600, v/60%60, v%60)
			if bad[v] {
				fmt.Fprintf(&in, "bad%d,x,zz\n", v)
			}
		}
		return in.String()
	}
	var dim strings.Builder // (every key once, at time 0)
	for k := range 7 {
		fmt.Fprintf(&dim, "k%d,%d,1970-01-01 00:00:00\n", k, k)
	}
	dpath := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(dpath, []byte(dim.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	nth := func(keep func(v int) bool, l int) int { // the l-th row kept
		for v := 1; v <= n; v++ {
			if keep(v) {
				if l--; l == 0 {
					return v
				}
			}
		}
		return n
	}
	all := func(int) bool { return true }
	rows := func(l int) int { return nth(all, l) }
	const join = "SELECT s.k, s.v, s.ts FROM s JOIN d ON s.k = d.k AND s.ts BETWEEN d.ts AND d.ts + INTERVAL '1' DAY"
	const window = "SELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end"
	rowLimits, windowLimits := []int{3, 1500, 2048}, []int{3, 40}
	shapes := []struct {
		name   string
		sql    string // with %d for the LIMIT
		limits []int
		used   func(l int) int // the input rows the first statement used
	}{
		{"subquery", "SELECT k, v FROM (SELECT k, v FROM s) LIMIT %d", rowLimits, rows},
		{"filtering subquery", "SELECT k, v FROM (SELECT k, v FROM s WHERE MOD(v, 3) <> 0) LIMIT %d", rowLimits, func(l int) int { return nth(func(v int) bool { return v%3 != 0 }, l) }},
		{"view", "CREATE VIEW sv AS SELECT k, v FROM s WHERE v > 0;\nSELECT k, v FROM sv LIMIT %d", rowLimits, rows},
		{"view in subquery", "CREATE VIEW sv AS SELECT k, v FROM s WHERE v > 0;\nSELECT * FROM (SELECT k, v FROM sv) LIMIT %d", rowLimits, rows},
		{"WITH", "WITH w AS (SELECT k, v FROM s) SELECT k, v FROM w LIMIT %d", rowLimits, rows},
		{"UNION ALL", "SELECT k, v FROM s UNION ALL SELECT k, x FROM d WHERE x < 0 LIMIT %d", rowLimits, rows},
		{"UNION ALL in time order", "SELECT k, ts FROM (SELECT k, ts FROM s UNION ALL SELECT k, ts FROM d WHERE x < 0) LIMIT %d", rowLimits, rows},
		{"UNNEST", "SELECT k, e FROM s CROSS JOIN UNNEST(ARRAY[v, v]) AS t(e) LIMIT %d", rowLimits, func(l int) int { return (l + 1) / 2 }},
		{"UNNEST in subquery", "SELECT * FROM (SELECT k, e FROM s CROSS JOIN UNNEST(ARRAY[v, v]) AS t(e)) LIMIT %d", rowLimits, func(l int) int { return (l + 1) / 2 }},
		{"lookup join", "SELECT s.k, s.v, d.x FROM s JOIN d ON s.k = d.k LIMIT %d", rowLimits, rows},
		{"interval join", join + " LIMIT %d", rowLimits, rows},
		{"interval join in a view", "CREATE VIEW j AS " + join + ";\nSELECT k, v FROM j LIMIT %d", rowLimits, rows},
		{"semi join", "SELECT s.k, s.v FROM s SEMI JOIN d ON s.k = d.k LIMIT %d", rowLimits, rows},
		{"semi join in subquery", "SELECT * FROM (SELECT s.k, s.v FROM s SEMI JOIN d ON s.k = d.k WHERE MOD(s.v, 2) = 0) LIMIT %d", rowLimits, func(l int) int { return 2 * l }},
		{"window over a join", fmt.Sprintf(window, "("+join+")") + " LIMIT %d", windowLimits, func(l int) int { return 60 * l }},
		{"window over a view of a join", "CREATE VIEW j AS " + join + ";\n" + fmt.Sprintf(window, "j") + " LIMIT %d", windowLimits, func(l int) int { return 60 * l }},
		{"window in subquery", "SELECT * FROM (" + fmt.Sprintf(window, "s") + ") LIMIT %d", windowLimits, func(l int) int { return 60*l + 1 }},
	}
	// the shapes whose job reads two rows after the last one used before its
	// LIMIT ends: an event-time join holds its rows until the watermark
	// passes them, which the second row after (its t less the watermark's
	// second) does; both go back
	readsNext := map[string]bool{"lookup join": true, "interval join": true, "interval join in a view": true, "window over a join": true, "window over a view of a join": true}
	decl := "CREATE STREAM s (k VARCHAR, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='stdin','format'='csv');\n" +
		"CREATE STREAM d (k VARCHAR, x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector'='file','path'='" + dpath + "','format'='csv');\n"
	for _, sh := range shapes {
		for _, l := range sh.limits {
			t.Run(fmt.Sprintf("%s/%d", sh.name, l), func(t *testing.T) {
				q := fmt.Sprintf(sh.sql, l)
				used := sh.used(l)
				bad := map[int]bool{}
				var first, second []int // the malformed rows each statement reports
				for _, v := range []int{1, used - 1, used, used + 1, n / 2, n - 1} {
					if v >= 1 && v < n && !bad[v] {
						bad[v] = true
					}
				}
				for v := 1; v < n; v++ {
					switch {
					case bad[v] && v < used:
						first = append(first, v)
					case bad[v]:
						second = append(second, v)
					}
				}
				in := input(bad)
				for _, policy := range []string{"side", "skip"} {
					script := strings.Replace(decl, "'format'='csv');", "'format'='csv','errors'='"+policy+"');", 1) + q + ";\nSELECT COUNT(*) AS n, MIN(v) AS lo FROM s;\n"
					out, stderr := runStdinScriptErr(t, bin, script, in)
					want := fmt.Sprintf("n,lo\n%d,%d\n", n-used, used+1)
					if got := out; !strings.HasSuffix(got, want) {
						t.Errorf("%s\nthe rest of stdin: got (the end of):\n%swant:\n%s", q, got[max(0, len(got)-40):], want)
					}
					rows, counts := malformedByStatement(t, stderr, policy)
					wantRows := [][]int{first, second}
					if policy == "skip" {
						wantRows = [][]int{nil, nil}
					}
					if !reflect.DeepEqual(counts, []int{len(first), len(second)}) || !reflect.DeepEqual(rows, wantRows) {
						t.Errorf("%s ('errors'='%s')\nmalformed rows reported by each statement: %v, counted %v; want %v, %d and %d", q, policy, rows, counts, wantRows, len(first), len(second))
					}
				}
				// the same script in the library, whose goroutines (the gates,
				// the parts' jobs) go test -race watches
				script := decl + q + ";\nSELECT COUNT(*) AS n, MIN(v) AS lo FROM s;\n"
				var lines []string
				ss := open(t, streamql.Options{OnRows: collect(&lines), Stdin: strings.NewReader(in)})
				if err := ss.ExecScript(context.Background(), "hb.sql", script, dir); err != nil {
					t.Fatalf("library: %v", err)
				}
				if want := fmt.Sprintf(": %d, %d", n-used, used+1); len(lines) == 0 || !strings.HasSuffix(lines[len(lines)-1], want) {
					t.Errorf("%s\nlibrary, the rest of stdin: got %q, want the last line to end %q", q, lines[max(0, len(lines)-1):], want)
				}
				var reported []int // (each once, in stdin's order, whichever statement)
				for _, line := range lines {
					if strings.HasPrefix(line, "errors ") {
						var v int
						if _, err := fmt.Sscanf(line[strings.Index(line, "bad"):], "bad%d", &v); err != nil {
							t.Fatalf("library errors row %q", line)
						}
						reported = append(reported, v)
					}
				}
				if want := append(slices.Clone(first), second...); !reflect.DeepEqual(reported, want) {
					t.Errorf("%s\nlibrary, the malformed rows reported: %v, want %v", q, reported, want)
				}
				// 'errors'='fail': the statement that fails names the first
				// malformed row it reads, its stdin line. The first statement
				// reads up to the last row used (two rows after it with a join
				// that holds rows, readsNext: a malformed row before the second
				// is met before the LIMIT ends); a row after what it reads is
				// the next statement's, whichever it is (a derived relation's
				// part that failed at it handed it on before the reading job's
				// cut was known). So with malformed rows before the cut the
				// first statement fails at the first of them; with those after
				// it only, the second, at the first after the cut; and with
				// readsNext, one right after the last used row fails the
				// first (later: those after the rows the first reads).
				reads := used
				if readsNext[sh.name] {
					reads = used + 2
				}
				later := slices.DeleteFunc(slices.Clone(second), func(v int) bool { return v < reads })
				for k, bads := range [][]int{append(slices.Clone(first), second...), second, later} {
					if len(bads) == 0 || k == 0 && len(first) == 0 || k == 2 && len(later) == len(second) {
						continue // (the same case as another)
					}
					fb := map[int]bool{}
					for _, v := range bads {
						fb[v] = true
					}
					line := bads[0] + 1 // (the first malformed line, after rows 1..bads[0])
					script := strings.Replace(decl, "'format'='csv');", "'format'='csv','errors'='fail');", 1) + q + ";\nSELECT COUNT(*) AS n, MIN(v) AS lo FROM s;\n"
					out, stderr, code := runStdinScriptExit(t, bin, script, input(fb))
					wantErr := fmt.Sprintf("error: stdin:%d: malformed row in stream s", line)
					secondRan := strings.Contains(out, "n,lo\n") // (its header: it started, so the first ended well)
					if code != 1 || !strings.Contains(stderr, wantErr) || secondRan != (bads[0] >= reads) {
						t.Errorf("%s ('errors'='fail', malformed rows after %v)\nexit %d, the second statement ran %v (want %v), stderr:\n%s\nwant it to name %q", q, bads, code, secondRan, bads[0] >= reads, stderr, wantErr)
					}
					ss := open(t, streamql.Options{OnRows: collect(new([]string)), Stdin: strings.NewReader(input(fb))})
					err := ss.ExecScript(context.Background(), "hb.sql", script, dir)
					if want := fmt.Sprintf("stdin:%d:", line); err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("%s ('errors'='fail', malformed rows after %v)\nlibrary: %v, want an error naming %s", q, bads, err, want)
					}
				}
			})
		}
	}
}

// TestReadOnceAcrossBranches: a side branch and the main query of one job
// whose IN subqueries each read the same read-once stream as their build
// side (each branch opens its own; before, the main query got no rows and
// nothing said so, then the job was refused) run, the build side's one read
// fanned out to both: over stdin they give what they give over a values
// stream; over 'go' and a socket they plan (EXPLAIN shows the Tee), as does
// Kafka in a group, whose build sides read every partition outside the
// group.
func TestReadOnceAcrossBranches(t *testing.T) {
	const q = "SELECT k, v FROM f WHERE v > 2 AND k IN (SELECT k FROM t) INTO SIDE 'x';\nSELECT k, v FROM f WHERE k IN (SELECT k FROM t);"
	for _, c := range readOnceConns {
		t.Run(c.name, func(t *testing.T) {
			var lines []string
			s := open(t, streamql.Options{OnRows: collect(&lines), Stdin: strings.NewReader("a,0,2024-01-01 00:00:00\nb,0,2024-01-01 00:00:01\n")})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			decl := fmt.Sprintf("CREATE STREAM t (k VARCHAR, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (%s);\nCREATE STREAM f (k VARCHAR, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector'='values');\n"+
				"INSERT INTO f VALUES ('a', 1, TIMESTAMP '2024-01-01 00:00:02'), ('b', 3, TIMESTAMP '2024-01-01 00:00:03'), ('c', 4, TIMESTAMP '2024-01-01 00:00:04');\n", c.with)
			if err := s.Exec(ctx, decl); err != nil {
				t.Fatal(err)
			}
			if c.name != "stdin" {
				if err := s.Exec(ctx, strings.Replace(q, "\nSELECT", "\nEXPLAIN SELECT", 1)); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err := s.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
			// (first match, SPEC 2.1: the side branch takes b)
			if got := strings.Join(lines, "|"); got != "main main: a, 1|side x: b, 3" {
				t.Errorf("rows %q", got)
			}
		})
	}
}

// readOnceRows are the rows the fan-out tests read, in event-time order (no
// late row), with one malformed line (for the connectors that decode text).
var readOnceRows = func() []string {
	var rows []string
	for i := range 40 {
		rows = append(rows, fmt.Sprintf("k%d,%d,2024-01-01 00:00:%02d", i%5, i, i))
	}
	return append(rows, "z,1,2024-01-01 00:00:40") // (a key no row with v > 2 has: the anti join keeps it)
}()

// eventTimeSemiJoin is a reference for the IN subquery and anti join shapes
// of readOnceShapes over an unbounded stream, written apart from the engine:
// an event-time semi join (SPEC 2.2) keeps a row of readOnceRows when a row
// with its key for which build holds has a time at or before its own; an
// anti join keeps the others.
func eventTimeSemiJoin(build func(v int) bool, anti bool) map[string]map[string]int {
	main := map[string]int{}
	for i, r := range readOnceRows {
		f := strings.Split(r, ",")
		found := false
		for _, b := range readOnceRows[:i+1] { // (in time order: the rows before it and itself)
			g := strings.Split(b, ",")
			v, _ := strconv.Atoi(g[1])
			found = found || g[0] == f[0] && build(v)
		}
		if found != anti {
			main[f[0]+","+f[1]]++
		}
	}
	return map[string]map[string]int{"main": main}
}

// materialize collects every output but errors as a table: each row's text
// counted by its change kind (+I, +U add one, -U, -D take one away), so that
// a changelog and a final table of the same result compare equal; the
// errors output's rows are counted apart, in errs.
func materialize(tables map[string]map[string]int, errs *int) func(streamql.Output, *streamql.Rows) error {
	return func(out streamql.Output, rows *streamql.Rows) error {
		for r := range rows.Len() {
			if out.Kind == streamql.OutputErrors {
				*errs++
				continue
			}
			var vals []string
			for c := range out.Columns {
				vals = append(vals, fmt.Sprint(rows.Value(c, r)))
			}
			tb := tables[out.Name]
			if tb == nil {
				tb = map[string]int{}
				tables[out.Name] = tb
			}
			key := strings.Join(vals, ",")
			if k := rows.Kind(r); k == "-U" || k == "-D" {
				tb[key]--
			} else {
				tb[key]++
			}
			if tb[key] == 0 {
				delete(tb, key)
			}
		}
		return nil
	}
}

// TestReadOnceShapesRun: every shape of readOnceShapes over a stream that
// can be read once (stdin, 'go', a socket) runs, its one read fanned out to
// its readers (executor/tee.go), and its result equals the same query's over
// a file copy of the rows, each read of which reads the file on its own (a
// reference run); the malformed row is in the errors output once (the file's
// reads each report it); the socket is connected to once. Kafka in a
// consumer group reads these shapes whole (tests/kafka_* run them against a
// broker) but for the self-join, which stays refused
// (TestReadOnceFannedOrRefused).
func TestReadOnceShapesRun(t *testing.T) {
	dir := t.TempDir()
	text := strings.Join(readOnceRows[:20], "\n") + "\nnot a row\n" + strings.Join(readOnceRows[20:], "\n") + "\n"
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	const cols = "k VARCHAR, v INT, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND"
	run := func(t *testing.T, opts streamql.Options, with, q string, feed func(s *streamql.Session)) (map[string]map[string]int, int) {
		t.Helper()
		tables, errs := map[string]map[string]int{}, 0
		opts.OnRows = materialize(tables, &errs)
		s := open(t, opts)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // (a hang fails, it does not time anything)
		defer cancel()
		if err := s.Exec(ctx, fmt.Sprintf("CREATE STREAM s (%s) WITH (%s);\nCREATE VIEW sv AS SELECT k, v FROM s;\n", cols, with)); err != nil {
			t.Fatal(err)
		}
		if feed != nil {
			go feed(s)
		}
		if err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return tables, errs
	}
	for _, sh := range readOnceShapes {
		q := strings.Replace(sh.sql, "^", "", 1)
		t.Run(sh.name, func(t *testing.T) {
			want, _ := run(t, streamql.Options{}, "'connector'='file','path'='"+in+"','format'='csv'", q, nil)
			if len(want["main"]) == 0 {
				t.Fatalf("the reference run gave no rows")
			}
			unbounded := want // (the reference of an unbounded stream: an event-time semi or anti join differs)
			switch sh.name {
			case "IN subquery":
				unbounded = eventTimeSemiJoin(func(v int) bool { return v > 1 }, false)
			case "anti join":
				unbounded = eventTimeSemiJoin(func(v int) bool { return v > 2 }, true)
			}
			check := func(conn string, got map[string]map[string]int, errs, wantErrs int) {
				t.Helper()
				want := want
				if conn != "stdin" {
					want = unbounded
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: %v\nwant (over a file) %v", conn, got, want)
				}
				if errs != wantErrs {
					t.Errorf("%s: %d malformed rows in errors, want %d", conn, errs, wantErrs)
				}
			}
			got, errs := run(t, streamql.Options{Stdin: strings.NewReader(text)}, "'connector'='stdin','format'='csv'", q, nil)
			check("stdin", got, errs, 1)

			got, errs = run(t, streamql.Options{}, "'connector'='go'", q, func(s *streamql.Session) {
				ctx := context.Background()
				for _, r := range readOnceRows {
					f := strings.Split(r, ",")
					v, _ := strconv.ParseInt(f[1], 10, 64)
					ts, _ := time.Parse("2006-01-02 15:04:05", f[2])
					if err := s.Push(ctx, "s", f[0], v, ts); err != nil {
						t.Error(err)
						return
					}
				}
				if err := s.CloseStream("s"); err != nil {
					t.Error(err)
				}
			})
			check("go", got, errs, 0)

			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var conns atomic.Int32
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					conns.Add(1)
					_, _ = c.Write([]byte(text))
					_ = c.Close()
				}
			}()
			port := ln.Addr().(*net.TCPAddr).Port
			got, errs = run(t, streamql.Options{}, fmt.Sprintf("'connector'='socket','hostname'='127.0.0.1','port'='%d','format'='csv'", port), q, nil)
			check("socket", got, errs, 1)
			if n := conns.Load(); n != 1 {
				t.Errorf("socket: %d connections, want 1 (one read fanned out)", n)
			}
		})
	}
}

// TestTeeBudget: an IN subquery over the stdin stream it filters reads its
// build side whole first (SPEC 2.2), so the fan-out queues every row for
// the probe meanwhile: past 'state.max-bytes' the job stops (a runtime
// error: exit 1 on the command line) naming the tee, the stream and what
// to do; under a budget that holds them it gives every row whose key the
// build side has.
func TestTeeBudget(t *testing.T) {
	var text strings.Builder
	for i := range 60000 {
		fmt.Fprintf(&text, "k%d,%d\n", i%3, i)
	}
	const q = "CREATE STREAM s (k VARCHAR, v INT) WITH ('connector'='stdin','format'='csv');\nSELECT k, v FROM s WHERE k IN (SELECT k FROM s WHERE v > 1);"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := open(t, streamql.Options{Stdin: strings.NewReader(text.String()), OnRows: func(streamql.Output, *streamql.Rows) error { return nil }})
	err := s.Exec(ctx, "SET 'state.max-bytes' = '256KiB';\n"+q)
	var e *streamql.Error
	if !errors.As(err, &e) || e.Kind != streamql.KindRuntime {
		t.Fatalf("got %v, want a runtime error", err)
	}
	for _, want := range []string{"'state.max-bytes' (256KiB)", "Tee s holds", "rows of stream s its readers have not taken yet", "fanned out to 2 readers", "declare the stream over a file", "SET 'state.max-bytes' = '"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("error %q lacks %q", e.Error(), want)
		}
	}
	n := 0
	s = open(t, streamql.Options{Stdin: strings.NewReader(text.String()), OnRows: func(out streamql.Output, rows *streamql.Rows) error {
		if out.Kind == streamql.OutputMain {
			n += rows.Len()
		}
		return nil
	}})
	if err := s.Exec(ctx, "SET 'state.max-bytes' = '64MiB';\n"+q); err != nil {
		t.Fatal(err)
	}
	if n != 60000 {
		t.Errorf("%d rows, want 60000", n)
	}
}

// TestTeeLateRowsAsFile: a job over a stream read once (stdin, fanned out
// by a Tee to its readers) gives the same rows, late rows and late notices
// as the same job over a file holding the same data, which each reader
// reads (SPEC 2.6: each reader scans the stream; SPEC 2.7: a join has a late
// output per input, and a late row goes to its input's). For every shape
// that reads the stream twice with event time: a self-join (interval,
// LEFT, named late outputs, a window join of two TUMBLE aggregates) and two
// window aggregates in a UNION ALL. Each input of a self-join reports the
// late row a,4 (the stdin run dropped the right input's copies).
func TestTeeLateRowsAsFile(t *testing.T) {
	const data = "a,1,2024-01-01 00:00:01\na,2,2024-01-01 00:00:02\nb,3,2024-01-01 00:00:10\na,4,2024-01-01 00:00:03\na,5,2024-01-01 00:00:11\nc,6,2024-01-01 00:00:20\n"
	in := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	tumble := func(agg string) string {
		return "(SELECT window_start, window_end, " + agg + " AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(t), INTERVAL '2' SECOND)) GROUP BY window_start, window_end)"
	}
	shapes := []struct {
		name, sql string
		late      []string // late outputs each of which must hold a late row
		// anyOrder: a UNION ALL over a live source (stdin) gives each part's
		// rows as they come (derived.go's polled parts), so the order
		// across parts is not the file's: the rows are compared as a multiset
		anyOrder bool
	}{
		{"interval self-join", "SELECT a.k, a.v, b.v AS w FROM s a JOIN s b ON a.k = b.k AND a.t BETWEEN b.t - INTERVAL '2' SECOND AND b.t;", []string{"late-a", "late-b"}, false},
		{"left self-join", "SELECT a.k, a.v, b.v AS w FROM s a LEFT JOIN s b ON a.k = b.k AND a.t BETWEEN b.t - INTERVAL '2' SECOND AND b.t;", []string{"late-a", "late-b"}, false},
		{"named late outputs", "SELECT a.k, a.v, b.v AS w FROM s a JOIN s b ON a.k = b.k AND a.t BETWEEN b.t AND b.t + INTERVAL '1' SECOND LATE INTO SIDE 'x', 'y';", []string{"x", "y"}, false},
		{"window self-join", "SELECT l.window_start, l.n, r.n AS m FROM " + tumble("COUNT(*)") + " l JOIN " + tumble("SUM(v)") + " r ON l.window_start = r.window_start AND l.window_end = r.window_end;", nil, false},
		{"two windows", "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(t), INTERVAL '2' SECOND)) GROUP BY window_start, window_end\n" +
			"UNION ALL SELECT window_start, SUM(v) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(t), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;", []string{"late"}, true},
	}
	run := func(with, q string) (rows []string, notices string) {
		var log strings.Builder
		s := open(t, streamql.Options{Stdin: strings.NewReader(data), OnRows: collect(&rows), Log: &log})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := s.Exec(ctx, "CREATE STREAM s (k VARCHAR, v INT, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ("+with+");\n"+q); err != nil {
			t.Fatal(err)
		}
		var late []string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, "late row") {
				late = append(late, l)
			}
		}
		return rows, strings.Join(late, "\n")
	}
	stdin, file := "'connector'='stdin','format'='csv'", "'connector'='file','format'='csv','path'='"+in+"'"
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			gotRows, gotLate := run(stdin, sh.sql)
			wantRows, wantLate := run(file, sh.sql)
			if sh.anyOrder {
				slices.Sort(gotRows)
				slices.Sort(wantRows)
			}
			if strings.Join(gotRows, "|") != strings.Join(wantRows, "|") {
				t.Errorf("over stdin:\n%s\nover the file:\n%s", strings.Join(gotRows, "\n"), strings.Join(wantRows, "\n"))
			}
			if gotLate != wantLate {
				t.Errorf("late notices over stdin:\n%s\nover the file:\n%s", gotLate, wantLate)
			}
			for _, out := range sh.late {
				if !slices.ContainsFunc(wantRows, func(r string) bool { return strings.Contains(r, " "+out+": ") }) {
					t.Errorf("no late row in %s: %q", out, wantRows)
				}
			}
		})
	}
}
