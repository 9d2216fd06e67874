package tests

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// TestWindowMistakes: every misuse of SPEC 2.4's windows and aggregation is a
// planning error (exit 2) at the offending token, saying what to write instead.
func TestWindowMistakes(t *testing.T) {
	ddl := "CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'file', 'path' = '/dev/null', 'format' = 'csv');\n" +
		"CREATE STREAM plain (deviceNo VARCHAR, ts BIGINT, at TIMESTAMP) WITH ('connector' = 'file', 'path' = '/dev/null', 'format' = 'csv');\n" +
		"CREATE STREAM live (deviceNo VARCHAR, ts BIGINT) WITH ('connector' = 'socket', 'hostname' = 'localhost', 'port' = '9', 'format' = 'csv');\n"
	tumble := "FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
	cases := []struct {
		name, query, at, msg string
	}{
		{"a column neither grouped nor aggregated", "SELECT window_start, window_end, temperature " + tumble + " GROUP BY window_start, window_end;", "temperature " + tumble[:4], "column 'temperature' is neither grouped nor aggregated: add it to GROUP BY or aggregate it"},
		{"an aggregate in WHERE", "SELECT COUNT(*) " + tumble + " WHERE MAX(temperature) > 1 GROUP BY window_start, window_end;", "MAX(", "aggregate MAX is not allowed here"},
		{"an aggregate in GROUP BY", "SELECT COUNT(*) FROM plain GROUP BY COUNT(ts);", "COUNT(ts)", "aggregate COUNT is not allowed here"},
		{"nested aggregates", "SELECT SUM(COUNT(ts)) FROM plain;", "COUNT(ts)", "aggregates cannot be nested"},
		{"an unbounded stream without WATERMARK FOR", "SELECT * FROM TABLE(TUMBLE(TABLE live, DESCRIPTOR(ts), INTERVAL '1' SECOND));", "TUMBLE", "add WATERMARK FOR ts AS"},
		{"HOP's size not a multiple of its slide", "SELECT * FROM TABLE(HOP(TABLE sensors, DESCRIPTOR(ts), INTERVAL '3' SECOND, INTERVAL '10' SECOND));", "INTERVAL '10'", "must be a multiple of its slide"},
		{"CUMULATE's size not a multiple of its step", "SELECT * FROM TABLE(CUMULATE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '3' SECOND, INTERVAL '10' SECOND));", "INTERVAL '10'", "must be a multiple of its step"},
		{"DESCRIPTOR naming a column other than the event time", "SELECT * FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(temperature), INTERVAL '1' SECOND));", "temperature)", "write DESCRIPTOR(ts)"},
		{"DESCRIPTOR naming a non-time column", "SELECT * FROM TABLE(TUMBLE(TABLE plain, DESCRIPTOR(deviceNo), INTERVAL '1' SECOND));", "deviceNo)", "is a BIGINT (epoch ms) or TIMESTAMP"},
		{"DESCRIPTOR naming no column", "SELECT * FROM TABLE(TUMBLE(TABLE plain, DESCRIPTOR(nope), INTERVAL '1' SECOND));", "nope)", "unknown column 'nope' in DESCRIPTOR"},
		{"an offset too large", "SELECT * FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '-1' SECOND));", "INTERVAL '-1'", "must be smaller than its size"},
		{"a size that is not positive", "SELECT * FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '0' SECOND));", "INTERVAL '0'", "size must be positive"},
		{"GROUP BY without the window columns", "SELECT deviceNo, COUNT(*) " + tumble + " GROUP BY deviceNo;", "deviceNo;", "needs GROUP BY window_start, window_end"},
		{"SESSION without its partition keys in GROUP BY", "SELECT COUNT(*) FROM TABLE(SESSION(TABLE sensors PARTITION BY deviceNo, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;", "window_start, window_end;", "needs GROUP BY deviceNo, window_start, window_end"},
		{"SESSION without aggregation", "SELECT * FROM TABLE(SESSION(TABLE sensors PARTITION BY deviceNo, DESCRIPTOR(ts), INTERVAL '5' SECOND));", "SESSION", "SESSION windows need aggregation"},
		{"LATE INTO SIDE without a window", "SELECT deviceNo FROM sensors LATE INTO SIDE 'x';", "'x'", "LATE INTO SIDE needs a window function"},
		{"SUM of text", "SELECT SUM(deviceNo) FROM plain;", "deviceNo)", "SUM needs a number"},
		{"DISTINCT outside COUNT", "SELECT SUM(DISTINCT ts) FROM plain;", "SUM(", "COUNT(DISTINCT x) only"},
		{"an unknown aggregate", "SELECT GROUP_CONCAT(deviceNo) FROM plain;", "GROUP_CONCAT", "streamql has COUNT, SUM"},
		{"SELECT * with GROUP BY", "SELECT * FROM plain GROUP BY deviceNo;", "*", "list the grouping keys and aggregates"},
		{"a side output named late beside the default late output", "SELECT deviceNo INTO SIDE 'late' FROM sensors WHERE ts < 0;\nSELECT window_start, window_end, COUNT(*) AS n " + tumble + " GROUP BY window_start, window_end;", "'late' FROM", "side output 'late' has the name of the late output"},
		{"LATE INTO SIDE sharing a name with other columns", "SELECT deviceNo INTO SIDE 'x' FROM sensors WHERE ts < 0;\nSELECT window_start, window_end, COUNT(*) AS n " + tumble + " GROUP BY window_start, window_end LATE INTO SIDE 'x';", "'x';", "late side output 'x' has the stream's columns"},
		{"HAVING naming an unknown column", "SELECT window_start, window_end, COUNT(*) AS n " + tumble + " GROUP BY window_start, window_end HAVING m > 1;", "m > 1", "unknown column 'm'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := ddl + c.query
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"-e", src}, strings.NewReader(""), &out, &errb)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stdout %q stderr %q", code, out.String(), errb.String())
			}
			off := len(ddl) + strings.Index(c.query, c.at)
			line := strings.Count(src[:off], "\n") + 1
			col := off - strings.LastIndex(src[:off], "\n")
			if where := fmt.Sprintf("line %d, column %d", line, col); !strings.Contains(errb.String(), c.msg) || !strings.Contains(errb.String(), where) {
				t.Errorf("stderr %q\nwant %q at %s", errb.String(), c.msg, where)
			}
		})
	}
}

// TestIntervalOverflow (issue 30 item 15): an INTERVAL whose milliseconds do
// not fit in int64, in any unit, sign and place (a window function's
// argument, arithmetic in a query or a WATERMARK), is a planning error that
// says it overflows and gives the largest interval; the largest whole number
// of each unit that fits is accepted.
func TestIntervalOverflow(t *testing.T) {
	const maxMs = int64(^uint64(0) >> 1)
	units := map[string]int64{"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 7 * 86_400_000}
	places := map[string]string{
		"tumble size": "SELECT * FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '%s' %s));",
		"hop slide":   "SELECT * FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '%s' %s, INTERVAL '1' SECOND));",
		"expression":  "SELECT ts - INTERVAL '%s' %s FROM s;",
		"timestamp":   "SELECT at + INTERVAL '%s' %s FROM s;",
		"watermark":   "",
	}
	for place, q := range places {
		for unit, ms := range units {
			if place != "expression" && place != "watermark" && place != "timestamp" && unit != "DAY" && unit != "SECOND" && unit != "MILLISECOND" {
				continue
			}
			amounts := []string{fmt.Sprint(maxMs/ms + 1), "-" + fmt.Sprint(maxMs/ms+1), "9223372036854775807", "1e30"}
			if ms == 1 { // maxMs/ms + 1 is out of int64 itself
				amounts = []string{"9223372036854775808", "-9223372036854775808", "1e30"}
			}
			for _, amount := range amounts {
				if strings.HasPrefix(place, "tumble") || strings.HasPrefix(place, "hop") {
					if amount[0] == '-' || amount == "1e30" {
						continue // not a size, or not a window argument's number
					}
				}
				src := "CREATE STREAM s (ts BIGINT, at TIMESTAMP) WITH ('connector'='file', 'path'='/dev/null');\n" + fmt.Sprintf(q, amount, unit)
				if place == "watermark" {
					src = fmt.Sprintf("CREATE STREAM s (ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%s' %s) WITH ('connector'='file', 'path'='/dev/null');\nSELECT * FROM s;", amount, unit)
				}
				var out, errb bytes.Buffer
				code := cli.Run(context.Background(), []string{"-e", src}, strings.NewReader(""), &out, &errb)
				if code != 2 || !strings.Contains(errb.String(), "overflows") || !strings.Contains(errb.String(), "INTERVAL '106751991167' DAY") {
					t.Errorf("%s, INTERVAL '%s' %s: exit %d %q; want 2 and an overflow naming the largest interval", place, amount, unit, code, errb.String())
				}
			}
			if place == "hop slide" {
				continue // the slide must divide the size
			}
			ok := fmt.Sprint(maxMs / ms)
			src := "CREATE STREAM s (ts BIGINT, at TIMESTAMP) WITH ('connector'='file', 'path'='/dev/null');\n" + fmt.Sprintf(q, ok, unit)
			if place == "watermark" {
				src = fmt.Sprintf("CREATE STREAM s (ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%s' %s) WITH ('connector'='file', 'path'='/dev/null');\nSELECT * FROM s;", ok, unit)
			}
			var out, errb bytes.Buffer
			if code := cli.Run(context.Background(), []string{"-e", src}, strings.NewReader(""), &out, &errb); code != 0 {
				t.Errorf("%s, INTERVAL '%s' %s (the largest that fits): exit %d %q", place, ok, unit, code, errb.String())
			}
		}
	}
}

// TestIntervalUnitsAgree (issue 30, "also noted"): INTERVAL 'v' MILLISECOND
// works wherever an INTERVAL does (arithmetic on BIGINT and TIMESTAMP, both
// signs, DATE_ADD and DATE_SUB spelled as calls, a WHERE, a WATERMARK), and
// every unit gives what the same span written in milliseconds gives; EXPLAIN
// shows the unit as written.
func TestIntervalUnitsAgree(t *testing.T) {
	units := map[string]int64{"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 7 * 86_400_000}
	exprs := []string{"ts + INTERVAL '%s' %s", "ts - INTERVAL '%s' %s", "INTERVAL '%s' %s + ts", "DATE_ADD(ts, INTERVAL %s %s)",
		"DATE_SUB(at, INTERVAL '%s' %s)", "at + INTERVAL '%s' %s"}
	run := func(src string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), []string{"--format", "csv", "-e", src}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("exit %d %q for\n%s", code, errb.String(), src)
		}
		return out.String()
	}
	ddl := "CREATE STREAM s (ts BIGINT, at TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '%s' %s) WITH ('connector'='values');\n" +
		"INSERT INTO s VALUES (0, '2021-01-01 00:00:00'), (1700000000123, '2024-02-29 23:59:59.999'), (5000, '1970-01-01 00:00:05'), (-86400001, '1969-12-31 00:00:00');\n"
	for unit, ms := range units {
		for _, amount := range []int64{0, 1, 3, 250} {
			var sel, want []string
			for k, e := range exprs {
				sel = append(sel, fmt.Sprintf(e, fmt.Sprint(amount), unit)+fmt.Sprintf(" AS c%d", k))
				want = append(want, fmt.Sprintf(e, fmt.Sprint(amount*ms), "MILLISECOND")+fmt.Sprintf(" AS c%d", k))
			}
			q := "SELECT CURRENT_WATERMARK(ts) AS wm, %s FROM s WHERE ts >= -1 - INTERVAL '%s' %s;"
			got := run(fmt.Sprintf(ddl, fmt.Sprint(amount), unit) + fmt.Sprintf(q, strings.Join(sel, ", "), fmt.Sprint(amount), unit))
			exp := run(fmt.Sprintf(ddl, fmt.Sprint(amount*ms), "MILLISECOND") + fmt.Sprintf(q, strings.Join(want, ", "), fmt.Sprint(amount*ms), "MILLISECOND"))
			if got != exp {
				t.Errorf("INTERVAL '%d' %s differs from INTERVAL '%d' MILLISECOND:\n%s\nwant\n%s", amount, unit, amount*ms, got, exp)
			}
		}
	}
	// the arithmetic itself, against values computed here
	got := run("SELECT 1000 + INTERVAL '5' MILLISECOND AS a, 1000 - INTERVAL '5' MILLISECOND AS b, TIMESTAMP '2021-01-01 00:00:00' + INTERVAL '7' MILLISECOND AS c, INTERVAL '2' MILLISECOND + 10 AS d, 1000 + INTERVAL '1' MICROSECOND AS e;")
	if want := "a,b,c,d,e\n1005,995,2021-01-01 00:00:00.007,12,1000\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	plan := run("CREATE STREAM s (ts BIGINT) WITH ('connector'='values');\nEXPLAIN SELECT ts - INTERVAL '3' MILLISECOND AS q FROM s WHERE ts > 5 + INTERVAL '1' MILLISECOND;")
	for _, w := range []string{"ts - INTERVAL '3' MILLISECOND AS q", "ts > 5 + INTERVAL '1' MILLISECOND"} { // (as written: not TiDB's DATE_SUB / DATE_ADD)
		if !strings.Contains(plan, w) {
			t.Errorf("EXPLAIN does not show %s:\n%s", w, plan)
		}
	}
}

// TestWindowBoundsNeverWrap (issue 30 item 14): for every window function,
// with and without an offset, aggregated or not, rows at and near both ends
// of int64 whose windows cannot be represented are malformed (the errors
// output names the column and the value), and every row that comes out has
// window_start <= ts < window_end: no result holds a wrapped time, and no row
// is sent to late by a wrapped window.
func TestWindowBoundsNeverWrap(t *testing.T) {
	const maxT, minT = "9223372036854775807", "-9223372036854775808"
	data := "a,1\nb," + maxT + "\nc," + minT + "\nd,9223372036854000000\ne,-9223372036854000001\nf,9223372036850000000\n"
	dir := t.TempDir()
	ddl := "CREATE STREAM s (k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='s.csv');\n"
	tvfs := []string{
		"TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' HOUR)",
		"TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '30' MINUTE)",
		"HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '30' MINUTE, INTERVAL '2' HOUR)",
		"HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '30' MINUTE, INTERVAL '2' HOUR, INTERVAL '7' MINUTE)",
		"CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL '30' MINUTE, INTERVAL '2' HOUR)",
		"CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL '30' MINUTE, INTERVAL '2' HOUR, INTERVAL '1' MINUTE)",
	}
	var queries []string
	for _, f := range tvfs {
		queries = append(queries,
			"SELECT k, ts, window_start, window_end FROM TABLE("+f+");",
			"SELECT k, MIN(ts), MAX(ts), window_start, window_end FROM TABLE("+f+") GROUP BY k, window_start, window_end;")
	}
	queries = append(queries, "SELECT k, MIN(ts), MAX(ts), window_start, window_end FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY k, window_start, window_end;")
	for _, q := range queries {
		out, errs, code := runSQLIn(t, dir, map[string]string{"s.csv": data}, ddl+q, "--format", "csv")
		if code != 0 {
			t.Fatalf("%s: exit %d %s", q, code, errs)
		}
		if strings.Contains(errs, "late") {
			t.Errorf("%s: a row went to late: %s", q, errs)
		}
		seen := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Split(line, ",")
			var lo, hi, ws, we int64
			fmt.Sscan(f[1], &lo)
			fmt.Sscan(f[len(f)-3], &hi)
			fmt.Sscan(f[len(f)-2], &ws)
			fmt.Sscan(f[len(f)-1], &we)
			if !(ws <= lo && hi < we) {
				t.Errorf("%s: row %q has ts outside its window (wrapped)", q, line)
			}
			seen[f[0]] = true
		}
		if !seen["a"] {
			t.Errorf("%s: row a missing: %s", q, out)
		}
		for _, k := range []string{"e", "f"} { // near the ends: out, or malformed
			if !seen[k] && !strings.Contains(errs, "\""+k+",") {
				t.Errorf("%s: row %s neither out nor malformed: %s %s", q, k, out, errs)
			}
		}
		for _, k := range []string{"b", "d"} { // windows past the end of int64
			if seen[k] || !strings.Contains(errs, "\""+k+","+map[string]string{"b": maxT, "d": "9223372036854000000"}[k]+"\",column ts: ") {
				t.Errorf("%s: row %s should be malformed, naming column ts and its value; stderr %q", q, k, errs)
			}
		}
		if !strings.Contains(q, "SESSION") && (seen["c"] || !strings.Contains(errs, "column ts: "+minT+" ")) {
			t.Errorf("%s: row c should be malformed; stderr %q", q, errs)
		}
	}
}
