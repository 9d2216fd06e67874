package streamql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql"
)

// TestFailedCallAfterJoinNamesItsInput: a call that fails on a joined row
// (a user function's error, which sends the row to the errors output, and
// ELEMENT of more than one element, which stops the job; SPEC 1, 2.10)
// names the input row whose value failed: its stream, its file and its
// line there, for every join kind (lookup, swapped lookup, interval,
// regular, temporal), with the failing value on the left side and on the
// right. The rows that fail sit at other lines than their partners, so a
// position read from the wrong input, or a joined row's ordinal read as a
// line, shows. A row padded with NULLs (an outer join's) has only its own
// input's row to name (its raw text shows the padding's NULLs as empty
// fields). A call over both sides' values names both rows. The raw text of
// a joined row is the user's columns (the left input's, then the right's:
// six fields here), never the join's internal watermark stamps or computed
// keys.
func TestFailedCallAfterJoinNamesItsInput(t *testing.T) {
	dir := t.TempDir()
	// a's row of k = 3 (line 3) has x = 99, and joins b's line 1; b's row
	// of k = 2 (line 3) has y = 98, and joins a's line 2; a's line 5 and
	// b's line 5 have no partner (x = 96, y = 97)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.csv", "1,1000,10\n2,2000,20\n3,3000,99\n4,4000,40\n8,5000,96\n")
	write("b.csv", "3,500,300\n1,600,100\n2,700,98\n4,800,400\n9,900,97\n")
	const (
		a      = "CREATE STREAM a (k BIGINT, ts BIGINT, x BIGINT) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');\n"
		b      = "CREATE STREAM b (k BIGINT, ts BIGINT, y BIGINT) WITH ('connector'='file', 'path'='b.csv', 'format'='csv', 'errors'='skip');\n"
		aTime  = "CREATE STREAM a (k BIGINT, ts BIGINT, x BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');\n"
		bTime  = "CREATE STREAM b (k BIGINT, ts BIGINT, y BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');\n"
		bTable = "CREATE STREAM b (k BIGINT, ts BIGINT, y BIGINT, PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');\n"
	)
	kinds := []struct {
		name, ddl, plan string
		query           func(call string) string // the query with call among its columns
	}{
		{"lookup", a + b, "lookup join", func(call string) string {
			return "SELECT a.k, " + call + " AS f FROM a JOIN b ON a.k = b.k;"
		}},
		{"swapped lookup", a + b, "the left side is read whole first and kept", func(call string) string {
			return "SELECT k, f FROM (SELECT a.k, " + call + " AS f, ROW_NUMBER() OVER (PARTITION BY a.k ORDER BY b.y DESC) AS rn FROM a, b WHERE a.k = b.k) WHERE rn <= 1;"
		}},
		{"interval", aTime + bTime, "interval join", func(call string) string {
			return "SELECT a.k, " + call + " AS f FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - 5000 AND a.ts + 5000;"
		}},
		{"regular", aTime + bTime, "regular join", func(call string) string {
			return "SELECT a.k, " + call + " AS f FROM a FULL JOIN b ON a.k = b.k;"
		}},
		{"temporal", aTime + bTable, "temporal join", func(call string) string {
			return "SELECT a.k, " + call + " AS f FROM a JOIN b FOR SYSTEM_TIME AS OF a.ts ON a.k = b.k;"
		}},
	}
	sides := []struct {
		name, arg, stream, pos string
	}{
		{"left", "a.x", "a", "a.csv:3"},
		{"right", "b.y", "b", "b.csv:3"},
	}
	for _, k := range kinds {
		for _, sd := range sides {
			t.Run(k.name+"/"+sd.name, func(t *testing.T) {
				var lines []string
				s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&lines)})
				if err := s.RegisterFunc("fail", failAbove(90, 98, 99)); err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if err := s.Exec(ctx, k.ddl+"EXPLAIN "+k.query("fail("+sd.arg+")")); err != nil {
					t.Fatal(err)
				}
				if plan := strings.Join(lines, "\n"); !strings.Contains(plan, k.plan) {
					t.Fatalf("the plan is not a %s join (%q):\n%s", k.name, k.plan, plan)
				}
				// the errors output: the row's input, file and line
				lines = lines[:0]
				if err := s.Exec(ctx, k.query("fail("+sd.arg+")")); err != nil {
					t.Fatal(err)
				}
				var errs []string
				for _, l := range lines {
					if strings.HasPrefix(l, "errors ") {
						errs = append(errs, l)
					}
				}
				// (one row a call: the FULL join's right row is also
				// emitted padded, then taken back, before it joins)
				want := fmt.Sprintf("errors errors: %s, %s, ", sd.stream, sd.pos)
				if len(errs) == 0 {
					t.Errorf("no errors output, want rows starting %q", want)
				}
				for _, e := range errs {
					end := ", function FAIL: no " + map[string]string{"a": "99", "b": "98"}[sd.stream]
					if !strings.HasPrefix(e, want) || !strings.HasSuffix(e, end) {
						t.Errorf("errors output %q, want rows starting %q", errs, want)
					} else if raw := strings.TrimSuffix(strings.TrimPrefix(e, want), end); strings.Count(raw, ",") != 5 {
						t.Errorf("errors output %q: the raw text %q is not the joined row's six user columns", e, raw)
					}
				}
				// the job's failure: the same row named
				lines = lines[:0]
				err := s.Exec(ctx, k.query("ELEMENT(IF("+sd.arg+" IN (98, 99), ARRAY[1, 2], ARRAY[1]))"))
				if want := fmt.Sprintf("stream %s, %s: function ELEMENT", sd.stream, sd.pos); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("the job's error %v, want it to name %q", err, want)
				}
			})
		}
	}
	// padded rows (the FULL join's unpartnered rows, a lookup join's LEFT
	// rows) name their own input's row, whichever columns the call reads;
	// a call over both sides names both rows; the raw text is the user's
	// columns (a lookup join keeps only the columns the query reads, on
	// both sides: a.ts and b.ts are empty there)
	for _, c := range []struct{ name, ddl, query, want string }{
		{"regular, right row padded", aTime + bTime, "SELECT fail(COALESCE(a.x, b.y)) AS f FROM a FULL JOIN b ON a.k = b.k WHERE b.y = 97;", "errors errors: b, b.csv:5, ,,,9,900,97, function FAIL: no 97"},
		{"regular, left row padded", aTime + bTime, "SELECT fail(COALESCE(b.y, a.x)) AS f FROM a FULL JOIN b ON a.k = b.k WHERE a.x = 96;", "errors errors: a, a.csv:5, 8,5000,96,,,, function FAIL: no 96"},
		{"lookup, left row padded", a + b, "SELECT fail(COALESCE(b.y, a.x)) AS f FROM a LEFT JOIN b ON a.k = b.k WHERE a.x = 96;", "errors errors: a, a.csv:5, 8,,96,,,, function FAIL: no 96"},
		{"lookup, both sides", a + b, "SELECT fail(a.x + b.y - 300) AS f FROM a JOIN b ON a.k = b.k;", "errors errors: a JOIN b, a.csv:3, b.csv:1, 3,,99,3,,300, function FAIL: no 99"},
		{"interval, both sides", aTime + bTime, "SELECT fail(b.y + a.x - 20) AS f FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - 5000 AND a.ts + 5000 WHERE a.k = 2;", "errors errors: a JOIN b, a.csv:2, b.csv:3, 2,2000,20,2,700,98, function FAIL: no 98"},
		{"regular, both sides", aTime + bTime, "SELECT fail(b.y + a.x - 20) AS f, a.*, b.* FROM a JOIN b ON a.k = b.k WHERE a.k = 2;", "errors errors: a JOIN b, a.csv:2, b.csv:3, 2,2000,20,2,700,98, function FAIL: no 98"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lines []string
			s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&lines)})
			if err := s.RegisterFunc("fail", failAbove(90, 96, 97, 98, 99)); err != nil {
				t.Fatal(err)
			}
			if err := s.Exec(context.Background(), c.ddl+c.query); err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, l := range lines {
				if strings.HasPrefix(l, "errors ") {
					errs = append(errs, l)
				}
			}
			if len(errs) != 1 || errs[0] != c.want {
				t.Errorf("errors output %q, want %q", errs, c.want)
			}
		})
	}
}

// failAbove returns a user function fail(x) that fails ("no x") when x is
// one of bad (all of them above floor, the rows' other values below it) and
// gives x otherwise.
func failAbove(floor int64, bad ...int64) func(int64) (int64, error) {
	return func(x int64) (int64, error) {
		for _, v := range bad {
			if x == v && x > floor {
				return 0, fmt.Errorf("no %d", x)
			}
		}
		return x, nil
	}
}

// TestFailedCallInJoinNamesItsInput: a call the join computes itself, on an
// input's rows before they join (a WHERE or ON term of one side pushed down
// to it, a computed join key), names that input's row (stream, file, line,
// its values), not the joined row of the same index in the batch after the
// join; so does a call that stops the job. A call in the ON condition's
// terms over both sides, computed on a pair of rows (held, or read whole),
// names the join and both rows' files and lines, with the pair's values as
// the raw text, for every join kind that has such terms (lookup, regular
// LEFT and FULL, interval, temporal), whether the pair is tested as a row
// arrives or when a watermark or the inputs' end releases it; so does such
// a call that stops the job. (Before, it was named "a JOIN b" with no
// position, or, when a watermark released the pair, taken for a call on
// the next joined row of the same index.)
func TestFailedCallInJoinNamesItsInput(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.csv": "1,1000,10\n2,2000,20\n3,3000,99\n4,4000,40\n8,5000,96\n", "b.csv": "3,500,300\n1,600,100\n2,700,98\n4,800,400\n9,900,97\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const ddl = "CREATE STREAM a (k BIGINT, ts BIGINT, x BIGINT) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');\n" +
		"CREATE STREAM b (k BIGINT, ts BIGINT, y BIGINT) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');\n"
	const aTime = "CREATE STREAM a (k BIGINT, ts BIGINT, x BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');\n"
	const timed = aTime + "CREATE STREAM b (k BIGINT, ts BIGINT, y BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');\n"
	const table = aTime + "CREATE STREAM b (k BIGINT, ts BIGINT, y BIGINT, PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');\n"
	const both = "fail(b.y + a.x - 20) > 0"
	const bothStops = "ELEMENT(IF(b.y + a.x = 118, ARRAY[1, 2], ARRAY[1])) > 0"
	const pair = "errors errors: a JOIN b, a.csv:2, b.csv:3, 2,2000,20,2,700,98, function FAIL: no 98"
	for _, c := range []struct{ name, query, want, fail string }{
		{"pushed WHERE, right", "SELECT a.k FROM a JOIN b ON a.k = b.k WHERE fail(b.y) > 0;", "errors errors: b, b.csv:3, 2,700,98, function FAIL: no 98", ""},
		{"pushed WHERE, left", "SELECT a.k FROM a JOIN b ON a.k = b.k WHERE fail(a.x) > 0;", "errors errors: a, a.csv:3, 3,3000,99, function FAIL: no 99", ""},
		{"computed key", "SELECT a.k FROM a JOIN b ON a.k = fail(b.y) - b.y + b.k;", "errors errors: b, b.csv:3, 2,700,98, function FAIL: no 98", ""},
		{"pushed ON of a LEFT join", "SELECT a.k FROM a LEFT JOIN b ON a.k = b.k AND fail(b.y) > 0;", "errors errors: b, b.csv:3, 2,700,98, function FAIL: no 98", ""},
		{"ON over both sides, lookup", "SELECT a.k FROM a LEFT JOIN b ON a.k = b.k AND " + both + ";", "errors errors: a JOIN b, a.csv:2, b.csv:3, 2,,20,2,,98, function FAIL: no 98", ""},
		{"ON over both sides, regular LEFT", timed + "SELECT a.k FROM a LEFT JOIN b ON a.k = b.k AND " + both + ";", "errors errors: a JOIN b, a.csv:2, b.csv:3, 2,2000,20,2,,98, function FAIL: no 98", ""},
		{"ON over both sides, regular FULL", timed + "SELECT a.k FROM a FULL JOIN b ON a.k = b.k AND " + both + ";", pair, ""},
		{"ON over both sides, interval", timed + "SELECT a.k FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - 5000 AND a.ts + 5000 AND " + both + ";", pair, ""},
		{"ON over both sides, temporal", table + "SELECT a.k FROM a JOIN b FOR SYSTEM_TIME AS OF a.ts ON a.k = b.k AND " + both + ";", pair, ""},
		{"ON over both sides stops the job, lookup", "SELECT a.k FROM a LEFT JOIN b ON a.k = b.k AND " + bothStops + ";", "", "stream a JOIN b, a.csv:2, b.csv:3: function ELEMENT"},
		{"ON over both sides stops the job, regular", timed + "SELECT a.k FROM a LEFT JOIN b ON a.k = b.k AND " + bothStops + ";", "", "stream a JOIN b, a.csv:2, b.csv:3: function ELEMENT"},
		{"pushed WHERE stops the job", "SELECT a.k FROM a JOIN b ON a.k = b.k WHERE ELEMENT(IF(b.y = 98, ARRAY[1, 2], ARRAY[1])) = 1;", "", "stream b, b.csv:3: function ELEMENT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lines []string
			s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&lines)})
			if err := s.RegisterFunc("fail", failAbove(90, 98, 99)); err != nil {
				t.Fatal(err)
			}
			script := ddl + c.query
			if strings.HasPrefix(c.query, "CREATE") { // (streams of their own: with event time)
				script = c.query
			}
			err := s.Exec(context.Background(), script)
			if c.fail == "" && err != nil || c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)) {
				t.Fatalf("%v, want %q", err, c.fail)
			}
			var errs []string
			for _, l := range lines {
				if strings.HasPrefix(l, "errors ") {
					errs = append(errs, l)
				}
			}
			if c.want != "" && (len(errs) != 1 || errs[0] != c.want) {
				t.Errorf("errors output %q, want %q", errs, c.want)
			}
		})
	}
}
