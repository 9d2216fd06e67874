package tests

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql/cmd/streamql/cli"
)

// runSQL writes files into a temp folder, runs sql there in-process with extra
// flags, and returns stdout, stderr and the exit status.
func runSQL(t *testing.T, files map[string]string, sql string, flags ...string) (string, string, int) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), append(flags, "-f", script), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

const joinStreams = `CREATE STREAM l (k VARCHAR, n BIGINT, v BIGINT) WITH ('connector'='file', 'path'='l.csv', 'csv.null-literal'='NULL');
CREATE STREAM r (k VARCHAR, n DOUBLE, active BOOLEAN) WITH ('connector'='file', 'path'='r.csv', 'csv.null-literal'='NULL');
`

// TestJoinSemantics is SPEC 2.2 table-driven: left rows only, at most once, in
// left order; NULL keys never match; NOT IN's three-valued rule; extra conditions
// on either side; joins inside side branches.
func TestJoinSemantics(t *testing.T) {
	left := "a,1,10\nb,2,20\nNULL,NULL,30\na,1,40\nc,3,50\nd,4,60\n"
	right := "a,1.0,true\na,1.0,true\nc,3.5,false\nNULL,2,true\n"
	cases := []struct {
		name, sql, want string
		right           string // overrides the right file when set
	}{
		{"semi, duplicates on the right give one row", "SELECT l.v FROM l SEMI JOIN r ON l.k = r.k;", "v\n10\n40\n50\n", ""},
		{"anti keeps NULL keys", "SELECT l.v FROM l ANTI JOIN r ON l.k = r.k;", "v\n20\n30\n60\n", ""},
		{"IN subquery", "SELECT v FROM l WHERE k IN (SELECT k FROM r);", "v\n10\n40\n50\n", ""},
		{"NOT IN with a NULL in the subquery passes nothing", "SELECT v FROM l WHERE k NOT IN (SELECT k FROM r);", "v\n", ""},
		{"NOT IN without NULLs", "SELECT v FROM l WHERE k NOT IN (SELECT k FROM r WHERE k IS NOT NULL);", "v\n20\n60\n", ""},
		{"NOT IN against an empty subquery passes NULL keys too", "SELECT v FROM l WHERE k NOT IN (SELECT k FROM r WHERE k = 'zzz');", "v\n10\n20\n30\n40\n50\n60\n", ""},
		{"EXISTS correlated", "SELECT v FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.active = true);", "v\n10\n40\n", ""},
		{"NOT EXISTS", "SELECT v FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k);", "v\n20\n30\n60\n", ""},
		{"two keys, BIGINT with DOUBLE compares as DOUBLE", "SELECT l.v FROM l SEMI JOIN r ON l.k = r.k AND l.n = r.n;", "v\n10\n40\n", ""},
		{"build-side condition", "SELECT l.v FROM l SEMI JOIN r ON l.k = r.k AND r.active = false;", "v\n50\n", ""},
		{"probe-side condition in ON and a WHERE", "SELECT l.v FROM l SEMI JOIN r ON l.k = r.k AND l.v > 10 WHERE l.v < 50;", "v\n40\n", ""},
		{"empty build side", "SELECT l.v FROM l SEMI JOIN r ON l.k = r.k;", "v\n", "\n"},
		{"semi join in a side branch leaves the rest for main",
			"SELECT v INTO SIDE 'known' FROM l WHERE k IN (SELECT k FROM r);\nSELECT v FROM l;",
			// SPEC 4: each output prints its own header line before its first row
			"output,v\nknown,10\noutput,v\nmain,20\nmain,30\nknown,40\nknown,50\nmain,60\n", ""},
		// SPEC 2.2: only the NULLs that survive the subquery's own WHERE count
		{"NOT IN: a NULL the subquery's constant WHERE filters out does not count",
			"SELECT v FROM l WHERE k NOT IN (SELECT k FROM r WHERE 'x' IS NULL);", "v\n10\n20\n30\n40\n50\n60\n", ""},
		{"NOT IN: a NULL the subquery's WHERE on its own columns filters out does not count",
			"SELECT v FROM l WHERE k NOT IN (SELECT k FROM r WHERE r.active = false);", "v\n10\n20\n40\n60\n", ""},
		{"NOT IN: a left row the subquery's WHERE rejects sees an empty subquery",
			"SELECT v FROM l WHERE k NOT IN (SELECT k FROM r WHERE l.v > 35);", "v\n10\n20\n30\n", ""},
		{"NOT EXISTS with a constant false subquery WHERE passes every row",
			"SELECT v FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND 1 = 0);", "v\n10\n20\n30\n40\n50\n60\n", ""},
		{"EXISTS with a constant false subquery WHERE passes nothing",
			"SELECT v FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND 1 = 0);", "v\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := right
			if c.right != "" {
				r = c.right
			}
			out, errs, code := runSQL(t, map[string]string{"l.csv": left, "r.csv": r}, joinStreams+c.sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if out != c.want {
				t.Errorf("got\n%s\nwant\n%s", out, c.want)
			}
		})
	}
}

// TestJoinDoubleKeysThreeValued checks every subquery form over DOUBLE keys
// with NULL, NaN, 0.0 and -0.0 against SQL's three-valued logic, written
// here apart from the engine: x = y is UNKNOWN when either is NULL, else
// FALSE when either is NaN (SPEC 2: NaN equals nothing), else their values'
// equality (0.0 = -0.0). IN is the OR over the subquery's rows (FALSE when
// empty), NOT IN its negation, EXISTS/SEMI JOIN keep a row with a TRUE
// comparison, NOT EXISTS/ANTI JOIN the others (SPEC 2.2); a literal IN list
// is the same OR. A row passes a WHERE only when it is TRUE.
func TestJoinDoubleKeysThreeValued(t *testing.T) {
	type val struct {
		lit  string
		null bool
		f    float64
	}
	vals := []val{{"NULL", true, 0}, {"CAST('NaN' AS DOUBLE)", false, math.NaN()}, {"0.0", false, 0}, {"-0.0", false, math.Copysign(0, -1)}, {"1.5", false, 1.5}, {"2.0", false, 2}}
	const T, F, U = 1, 0, -1
	eq := func(a, b val) int {
		switch {
		case a.null || b.null:
			return U
		case math.IsNaN(a.f) || math.IsNaN(b.f):
			return F
		case a.f == b.f:
			return T
		}
		return F
	}
	in := func(x val, ys []val) int { // OR over the rows: TRUE wins, then UNKNOWN
		r := F
		for _, y := range ys {
			if c := eq(x, y); c == T {
				return T
			} else if c == U {
				r = U
			}
		}
		return r
	}
	rng := rand.New(rand.NewSource(11))
	for round := 0; round < 60; round++ {
		pick := func(n int) []val {
			out := make([]val, n)
			for i := range out {
				out[i] = vals[rng.Intn(len(vals))]
			}
			return out
		}
		left, right := pick(1+rng.Intn(6)), pick(rng.Intn(4))
		rows := func(vs []val) string {
			var parts []string
			for i, v := range vs {
				parts = append(parts, fmt.Sprintf("(%d, %s)", i, v.lit))
			}
			return strings.Join(parts, ", ")
		}
		sql := "CREATE STREAM l (id BIGINT, d DOUBLE) WITH ('connector'='values');\n" +
			"CREATE STREAM r (id BIGINT, d DOUBLE) WITH ('connector'='values');\n" +
			"INSERT INTO l VALUES " + rows(left) + ";\n"
		if len(right) > 0 {
			sql += "INSERT INTO r VALUES " + rows(right) + ";\n"
		}
		var lits []string
		for _, y := range right {
			lits = append(lits, y.lit)
		}
		forms := []struct {
			q    string
			pass func(x val) bool
		}{
			{"SELECT id FROM l WHERE d IN (SELECT d FROM r);", func(x val) bool { return in(x, right) == T }},
			{"SELECT id FROM l WHERE d NOT IN (SELECT d FROM r);", func(x val) bool { return in(x, right) == F }},
			{"SELECT id FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.d = l.d);", func(x val) bool { return in(x, right) == T }},
			{"SELECT id FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.d = l.d);", func(x val) bool { return in(x, right) != T }},
			{"SELECT l.id FROM l SEMI JOIN r ON l.d = r.d;", func(x val) bool { return in(x, right) == T }},
			{"SELECT l.id FROM l ANTI JOIN r ON l.d = r.d;", func(x val) bool { return in(x, right) != T }},
		}
		if len(right) > 0 {
			list := strings.Join(lits, ", ")
			forms = append(forms,
				struct {
					q    string
					pass func(x val) bool
				}{"SELECT id FROM l WHERE d IN (" + list + ");", func(x val) bool { return in(x, right) == T }},
				struct {
					q    string
					pass func(x val) bool
				}{"SELECT id FROM l WHERE d NOT IN (" + list + ");", func(x val) bool { return in(x, right) == F }})
		}
		for _, f := range forms {
			want := "id\n"
			for i, x := range left {
				if f.pass(x) {
					want += fmt.Sprintf("%d\n", i)
				}
			}
			out, errs, code := runSQL(t, nil, sql+f.q, "--format", "csv")
			if code != 0 {
				t.Fatalf("%s%s\nexit %d: %s", sql, f.q, code, errs)
			}
			if out != want {
				t.Fatalf("%s%s\ngot\n%swant\n%s", sql, f.q, out, want)
			}
		}
	}
}

// TestJoinPlanningErrors checks SPEC 2.2's planning errors: they name the
// problem and point at the statement (exit status 2).
func TestJoinPlanningErrors(t *testing.T) {
	cases := map[string]string{
		"SELECT r.k FROM l SEMI JOIN r ON l.k = r.k;":           "left rows only",
		"SELECT r.* FROM l SEMI JOIN r ON l.k = r.k;":           "left rows only",
		"SELECT l.v FROM l SEMI JOIN r ON l.k < r.k;":           "mixes both sides",
		"SELECT l.v FROM l SEMI JOIN r ON l.v = r.k;":           "CAST",
		"SELECT l.v FROM l SEMI JOIN r ON l.v > 1;":             "key equality",
		"SELECT v FROM l WHERE k IN (SELECT k, n FROM r);":      "one column",
		"SELECT l.v FROM l SEMI JOIN nosuch ON l.k = nosuch.k;": "unknown stream 'nosuch'",
	}
	for sql, want := range cases {
		_, errs, code := runSQL(t, map[string]string{"l.csv": "a,1,1\n", "r.csv": "a,1,true\n"}, joinStreams+sql)
		if code != 2 || !strings.Contains(errs, want) || !strings.Contains(errs, "line 3, column") {
			t.Errorf("%s: exit %d, stderr %q; want status 2 and %q with a position", sql, code, errs, want)
		}
	}
}

// EXPLAIN's text is checked whole by TestExplainGolden (testdata/explain).

// TestWatermarkSemantics is SPEC 2.3 table-driven: the watermark is per row,
// CURRENT_WATERMARK is the value before the row (NULL before the first), equal
// timestamps are not late, and a NULL event time is a malformed row.
func TestWatermarkSemantics(t *testing.T) {
	ddl := "CREATE STREAM w (word VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%s' SECOND) WITH ('connector'='file', 'path'='w.csv'%s);\n"
	q := "SELECT word, ts, CURRENT_WATERMARK(ts) AS wm, ts < CURRENT_WATERMARK(ts) AS late FROM w;"
	cases := []struct {
		name, delay, opts, data, want, stderr string
		code                                  int
	}{
		{"first row has no watermark, out of order rows are late", "1", "", "a,5000\nb,3000\nc,4000\nd,4000\n",
			"word,ts,wm,late\na,5000,,\nb,3000,4000,true\nc,4000,4000,false\nd,4000,4000,false\n", "", 0},
		{"fractional seconds and a watermark that never goes back", "0.001", "", "a,1000\nb,999\nc,2000\nd,1999\n",
			"word,ts,wm,late\na,1000,,\nb,999,999,false\nc,2000,999,false\nd,1999,1999,false\n", "", 0},
		{"a NULL event time is malformed and does not advance the watermark", "0", "", "a,1000\nb,\nc,500\n",
			"word,ts,wm,late\na,1000,,\nc,500,1000,true\n", "w.csv:2", 0},
		{"with errors=fail a NULL event time stops the job", "0", ", 'errors'='fail'", "a,1000\nb,\nc,500\n",
			"word,ts,wm,late\na,1000,,\n", "w.csv:2", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sql := strings.Replace(strings.Replace(ddl, "%s", c.delay, 1), "%s", c.opts, 1) + q
			out, errs, code := runSQL(t, map[string]string{"w.csv": c.data}, sql, "--format", "csv")
			if code != c.code || out != c.want || !strings.Contains(errs, c.stderr) {
				t.Errorf("exit %d (want %d)\ngot\n%s\nwant\n%s\nstderr %q (want %q)", code, c.code, out, c.want, errs, c.stderr)
			}
		})
	}
}

// TestEventTimeJoinOverSocket joins a bounded file against an unbounded socket
// stream (SPEC 2.2, event-time strategy): left rows wait for the right watermark,
// late right rows never match, and the answer is the one SPEC defines.
func TestEventTimeJoinOverSocket(t *testing.T) {
	// b@500 arrives after the watermark passed 1000: it is late and never
	// enters the join state; c@3000 is later than left c@2500.
	port := serveText(t, "a,100\nx,2000\nb,500\nc,3000\nz,9000\n")
	sql := fmt.Sprintf(`CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;
`, port)
	out, errs, code := runSQL(t, map[string]string{"l.csv": "a,50\na,150\nb,1500\nc,2500\nc,3500\n"}, sql, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "k,ts\na,150\nc,3500\n"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestEventTimeJoinBuildErrorIsTheJobs: an error reading an event-time join's
// build side ends the job with that error and exit status 1 (SPEC 4), not as
// an interrupt: a socket the peer resets, and a malformed build row with
// 'errors'='fail'.
func TestEventTimeJoinBuildErrorIsTheJobs(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("p1,100\n"))
			time.Sleep(100 * time.Millisecond)
			c.(*net.TCPConn).SetLinger(0) // close with a reset
			c.Close()
		}
	}()
	left := map[string]string{"l.csv": "p1,4000\np2,1999\np2,2000\n", "r.csv": "p1,100\nbad,notanumber\np2,300\n"}
	const probe = "CREATE STREAM l (p VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv');\n"
	for _, c := range []struct{ name, build, want string }{
		{"a reset socket", fmt.Sprintf("CREATE STREAM r (p VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d');\n", ln.Addr().(*net.TCPAddr).Port), "stream r"},
		{"errors=fail on the build side", "CREATE STREAM r (p VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'follow'='true', 'errors'='fail');\n", "r.csv:2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := runSQL(t, left, c.build+probe+"SELECT l.* FROM l ANTI JOIN r ON l.p = r.p;\n", "--format", "csv")
			if code != 1 || !strings.Contains(errs, c.want) || strings.Contains(errs, "interrupted") {
				t.Errorf("exit %d, stderr %q; want exit 1 and an error naming %s", code, errs, c.want)
			}
		})
	}
}
