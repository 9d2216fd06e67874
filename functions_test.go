package streamql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"streamql"
)

// runSQL runs a script in a fresh session and returns its rows as
// collect's lines.
func runSQL(t *testing.T, sql string) []string {
	t.Helper()
	var lines []string
	s := open(t, streamql.Options{OnRows: collect(&lines)})
	if err := s.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
	return lines
}

const bids = `CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, dateTime TIMESTAMP)
  WITH ('connector'='values');
INSERT INTO bid VALUES
  (1, 10, 100, 'Apple', 'https://www.nexmark.com/a/b/item.htm?query=1', TIMESTAMP '2021-01-18 09:08:29.123'),
  (2, 20, 200, 'channel-x', 'https://www.nexmark.com/c/d/e/item.htm?query=1&channel_id=1478', TIMESTAMP '2021-01-18 23:59:59.999'),
  (3, 30, 300, 'channel-y', 'https://www.nexmark.com/f/item.htm', TIMESTAMP '2021-01-19 05:00:00');
`

// TestNexmarkFunctions: the scalar calls of Nexmark q10, q14, q21 and q22
// (DATE_FORMAT, HOUR in CASE, LOWER and REGEXP_EXTRACT in CASE, SPLIT_INDEX)
// over column values, through SQL, give Flink's results.
func TestNexmarkFunctions(t *testing.T) {
	cases := []struct{ name, query, want string }{
		{"q10", "SELECT auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS dt, DATE_FORMAT(dateTime, 'HH:mm') AS tm FROM bid;",
			"main main: 1, 2021-01-18, 09:08|main main: 2, 2021-01-18, 23:59|main main: 3, 2021-01-19, 05:00"},
		{"q14", `SELECT auction, CASE
        WHEN HOUR(dateTime) >= 8 AND HOUR(dateTime) <= 18 THEN 'dayTime'
        WHEN HOUR(dateTime) <= 6 OR HOUR(dateTime) >= 20 THEN 'nightTime'
        ELSE 'otherTime' END AS bidTimeType FROM bid;`,
			"main main: 1, dayTime|main main: 2, nightTime|main main: 3, nightTime"},
		{"q21", `SELECT auction, channel, CASE
        WHEN lower(channel) = 'apple' THEN '0'
        WHEN lower(channel) = 'google' THEN '1'
        ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) END AS channel_id FROM bid
      WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL OR lower(channel) IN ('apple', 'google');`,
			"main main: 1, Apple, 0|main main: 2, channel-x, 1478"},
		{"q22", "SELECT auction, SPLIT_INDEX(url, '/', 3) AS dir1, SPLIT_INDEX(url, '/', 4) AS dir2, SPLIT_INDEX(url, '/', 5) AS dir3 FROM bid;",
			"main main: 1, a, b, item.htm?query=1|main main: 2, c, d, e|main main: 3, f, item.htm, <nil>"},
		{"extract", "SELECT EXTRACT(DAY FROM dateTime) AS d, TIMESTAMPDIFF(HOUR, dateTime, TIMESTAMP '2021-01-19 12:00:00') AS h FROM bid;",
			"main main: 18, 26|main main: 18, 12|main main: 19, 7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(runSQL(t, bids+c.query), "|")
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestExplainNotDeterministic: EXPLAIN marks a plan that reads the clock
// (SPEC 2.10) and only such a plan.
func TestExplainNotDeterministic(t *testing.T) {
	text := strings.Join(runSQL(t, bids+"EXPLAIN SELECT auction, NOW() AS t FROM bid WHERE PROCTIME() > dateTime;"), "\n")
	if !strings.Contains(text, "not deterministic: calls NOW, PROCTIME") {
		t.Errorf("no mark in\n%s", text)
	}
	text = strings.Join(runSQL(t, bids+"EXPLAIN SELECT auction, HOUR(dateTime) AS h FROM bid;"), "\n")
	if strings.Contains(text, "not deterministic") {
		t.Errorf("a deterministic plan marked:\n%s", text)
	}
}

// TestIntervalPluralUnits: Flink's plural INTERVAL units (INTERVAL '10'
// MINUTES, its documentation's spelling) are the singular ones, in every
// place an INTERVAL stands: arithmetic, a WATERMARK expression and a window
// TVF's size, for every unit.
func TestIntervalPluralUnits(t *testing.T) {
	for _, u := range []string{"MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK"} {
		script := func(unit string) string {
			return `CREATE STREAM s (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' ` + unit + `) WITH ('connector'='values');
INSERT INTO s VALUES (TIMESTAMP '2021-01-18 09:08:29.123'), (TIMESTAMP '2021-03-01 00:00:00');
SELECT ts + INTERVAL '3' ` + unit + ` AS a, ts - INTERVAL '-3' ` + unit + ` AS b FROM s;
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '7' ` + unit + `)) GROUP BY window_start, window_end;`
		}
		want := runSQL(t, script(u))
		if got := runSQL(t, script(u+"S")); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%sS: %q, want %q (as %s)", u, got, want, u)
		}
		if len(want) != 4 {
			t.Errorf("%s: %d rows, want 4: %q", u, len(want), want)
		}
	}
}

// TestOverRangeFrameUnits: a RANGE frame's INTERVAL means the same time in
// every unit (MILLISECOND was read as TiDB's MICROSECOND stand-in, 1000
// times too short): INTERVAL '3' <unit> PRECEDING gives the rows that the
// same span written in seconds gives, over rows spaced so that the frame
// holds some and not others.
func TestOverRangeFrameUnits(t *testing.T) {
	for _, u := range []struct {
		unit string
		ms   int64
	}{{"MILLISECOND", 1}, {"MILLISECONDS", 1}, {"SECOND", 1000}, {"MINUTE", 60_000}, {"HOUR", 3_600_000}} {
		var rows []string
		for i := range 8 {
			rows = append(rows, fmt.Sprintf("(%d, %d)", i, int64(i)*u.ms*2/3))
		}
		script := func(frame string) string {
			return `CREATE STREAM s (v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');
INSERT INTO s VALUES ` + strings.Join(rows, ", ") + `;
SELECT v, COUNT(*) OVER (ORDER BY ts RANGE BETWEEN ` + frame + ` PRECEDING AND CURRENT ROW) AS n FROM s;`
		}
		got := runSQL(t, script("INTERVAL '3' "+u.unit))
		want := runSQL(t, script(fmt.Sprintf("INTERVAL '%g' SECOND", float64(3*u.ms)/1000)))
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != 8 || strings.Join(got, "|") == strings.Join(runSQL(t, script("INTERVAL '0' SECOND")), "|") {
			t.Errorf("%s: %q, want %q (as seconds), and more than the current row", u.unit, got, want)
		}
	}
}

// TestExtractDowDoy: EXTRACT(DOW FROM ts) and EXTRACT(DOY FROM ts), Flink's
// units (DOW 1 for Sunday to 7 for Saturday, as its DAYOFWEEK; DOY the day
// of the year), over ten days across a leap day and a year's end, against
// Go's calendar; NULL gives NULL.
func TestExtractDowDoy(t *testing.T) {
	start := time.Date(2024, 2, 26, 13, 4, 5, 0, time.UTC)
	for _, day := range []time.Time{start, start.AddDate(0, 0, 3), start.AddDate(0, 0, 5), time.Date(2023, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)} {
		for d := range 2 {
			ts := day.AddDate(0, 0, d)
			got := runSQL(t, fmt.Sprintf("SELECT EXTRACT(DOW FROM TIMESTAMP '%s') AS dow, EXTRACT(doy FROM TIMESTAMP '%[1]s') AS doy, EXTRACT(DOW FROM CAST(NULL AS TIMESTAMP)) AS n;", ts.Format("2006-01-02 15:04:05")))
			want := fmt.Sprintf("main main: %d, %d, <nil>", int(ts.Weekday())+1, ts.YearDay()) // (collect prints NULL as <nil>)
			if len(got) != 1 || got[0] != want {
				t.Errorf("%s: %q, want %q", ts, got, want)
			}
		}
	}
}

// TestIntervalCalendarUnits: ts ± INTERVAL 'n' MONTH | QUARTER | YEAR (and
// the plurals) move a TIMESTAMP by calendar months, the day clamped to the
// month's last (Flink's year-month intervals), against Go's calendar over
// month ends, leap days and a NULL; on a BIGINT or with a fraction the
// interval is a planning error naming it.
func TestIntervalCalendarUnits(t *testing.T) {
	times := []time.Time{
		time.Date(2021, 1, 31, 10, 0, 0, 123e6, time.UTC), time.Date(2020, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(2021, 3, 31, 23, 59, 59, 999e6, time.UTC), time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC),
	}
	var values []string
	for _, ts := range times {
		values = append(values, "(TIMESTAMP '"+ts.Format("2006-01-02 15:04:05.000")+"')")
	}
	values = append(values, "(NULL)")
	// addMonths is the reference: calendar months, the day clamped.
	addMonths := func(ts time.Time, n int) string {
		first := time.Date(ts.Year(), ts.Month(), 1, ts.Hour(), ts.Minute(), ts.Second(), ts.Nanosecond(), time.UTC).AddDate(0, n, 0)
		last := first.AddDate(0, 1, -1).Day()
		return first.AddDate(0, 0, min(ts.Day(), last)-1).String() // (as collect prints a time.Time)
	}
	for _, u := range []struct {
		unit   string
		months int
	}{{"MONTH", 1}, {"MONTHS", 1}, {"QUARTER", 3}, {"QUARTERS", 3}, {"YEAR", 12}, {"YEARS", 12}} {
		for _, n := range []int{1, 13, -2} {
			got := runSQL(t, `CREATE STREAM s (ts TIMESTAMP(3)) WITH ('connector'='values');
INSERT INTO s VALUES `+strings.Join(values, ", ")+`;
SELECT ts + INTERVAL '`+fmt.Sprint(n)+`' `+u.unit+` AS a, ts - INTERVAL '`+fmt.Sprint(n)+`' `+u.unit+` AS b FROM s;`)
			var want []string
			for _, ts := range times {
				want = append(want, "main main: "+addMonths(ts, n*u.months)+", "+addMonths(ts, -n*u.months))
			}
			want = append(want, "main main: <nil>, <nil>")
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%d %s:\n got %q\nwant %q", n, u.unit, got, want)
			}
		}
	}
	for sql, msg := range map[string]string{
		"SELECT 5 + INTERVAL '1' MONTH AS x;":                                "INTERVAL '1' MONTH has no fixed length in milliseconds",
		"SELECT TIMESTAMP '2021-01-01 00:00:00' - INTERVAL '1.5' YEAR AS x;": "INTERVAL '1.5' YEAR: a YEAR interval takes a whole number",
	} {
		s := open(t, streamql.Options{OnRows: collect(new([]string))})
		if err := s.Exec(context.Background(), sql); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error with %q", sql, err, msg)
		}
	}
}

// TestBetweenSymmetric: x [NOT] BETWEEN SYMMETRIC a AND b is Flink's (x
// BETWEEN a AND b) OR (x BETWEEN b AND a), and ASYMMETRIC the plain BETWEEN,
// over every x, a, b of {NULL, 1, 2, 3} (three-valued logic computed here),
// with an implicit alias after it.
func TestBetweenSymmetric(t *testing.T) {
	vals := []int64{-1, 1, 2, 3} // -1 is NULL
	lit := func(v int64) string {
		if v < 0 {
			return "NULL"
		}
		return fmt.Sprint(v)
	}
	// tri is SQL's three-valued result: 0 false, 1 true, 2 NULL
	ge := func(x, y int64) int {
		if x < 0 || y < 0 {
			return 2
		}
		if x >= y {
			return 1
		}
		return 0
	}
	and := func(p, q int) int {
		if p == 0 || q == 0 {
			return 0
		}
		if p == 2 || q == 2 {
			return 2
		}
		return 1
	}
	or := func(p, q int) int {
		if p == 1 || q == 1 {
			return 1
		}
		if p == 2 || q == 2 {
			return 2
		}
		return 0
	}
	not := func(p int) int {
		if p == 2 {
			return 2
		}
		return 1 - p
	}
	show := []string{"false", "true", "<nil>"}
	var rows, want []string
	for _, x := range vals {
		for _, a := range vals {
			for _, b := range vals {
				rows = append(rows, "("+lit(x)+", "+lit(a)+", "+lit(b)+")")
				asym := and(ge(x, a), ge(b, x))
				sym := or(asym, and(ge(x, b), ge(a, x)))
				want = append(want, "main main: "+show[sym]+", "+show[not(sym)]+", "+show[asym])
			}
		}
	}
	got := runSQL(t, `CREATE STREAM s (x BIGINT, a BIGINT, b BIGINT) WITH ('connector'='values');
INSERT INTO s VALUES `+strings.Join(rows, ", ")+`;
SELECT x BETWEEN SYMMETRIC a AND b s1, x NOT BETWEEN SYMMETRIC a AND b AS s2, x BETWEEN ASYMMETRIC a AND b AS s3 FROM s;`)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		for i := range want {
			if i >= len(got) || got[i] != want[i] {
				t.Errorf("row %s: got %v, want %q", rows[i], got[min(i, len(got)-1)], want[i])
			}
		}
	}
}

// TestExtractFlinkUnits: EXTRACT(unit FROM ts) for Flink's units that TiDB's
// grammar lacks (MILLISECOND, NANOSECOND, EPOCH, ISODOW, ISOYEAR, DECADE,
// CENTURY, MILLENNIUM; before, a syntax error) and MICROSECOND (now of the
// second, as Flink's DateTimeUtils, not of the minute), over century, ISO
// year and epoch boundaries and a NULL, against values worked out by hand.
func TestExtractFlinkUnits(t *testing.T) {
	times := []string{"2000-12-31 23:59:59.999", "2001-01-01 00:00:00.000", "2021-01-01 12:48:29.123", "2018-12-31 00:00:00.007", "1970-01-01 00:00:01.500"}
	want := map[string][]string{
		"MILLISECOND": {"999", "0", "123", "7", "500"},
		"MICROSECOND": {"999000", "0", "123000", "7000", "500000"},
		"NANOSECOND":  {"999000000", "0", "123000000", "7000000", "500000000"},
		"EPOCH":       {"978307199", "978307200", "1609505309", "1546214400", "1"},
		"ISODOW":      {"7", "1", "5", "1", "4"},
		"ISOYEAR":     {"2000", "2001", "2020", "2019", "1970"},
		"DECADE":      {"200", "200", "202", "201", "197"},
		"CENTURY":     {"20", "21", "21", "21", "20"},
		"MILLENNIUM":  {"2", "3", "3", "3", "2"},
	}
	var values []string
	for _, ts := range times {
		values = append(values, "(TIMESTAMP '"+ts+"')")
	}
	for unit, w := range want {
		got := runSQL(t, `CREATE STREAM s (ts TIMESTAMP(3)) WITH ('connector'='values');
INSERT INTO s VALUES `+strings.Join(values, ", ")+`, (NULL);
SELECT EXTRACT(`+unit+` FROM ts) AS x, EXTRACT(`+strings.ToLower(unit)+` FROM ts) y FROM s;`)
		var exp []string
		for _, v := range w {
			exp = append(exp, "main main: "+v+", "+v)
		}
		exp = append(exp, "main main: <nil>, <nil>")
		if strings.Join(got, "|") != strings.Join(exp, "|") {
			t.Errorf("%s:\n got %q\nwant %q", unit, got, exp)
		}
	}
}

// TestFloorCeilWeek: FLOOR(ts TO WEEK) is the Sunday at midnight on or
// before ts and CEIL(ts TO WEEK) the one on or after it (Flink's
// julianDateFloor; was a planning error), over two weeks of days on both
// sides of 1970-01-01, at midnight and during the day, against Go's weekdays.
func TestFloorCeilWeek(t *testing.T) {
	var values, want []string
	for _, start := range []time.Time{time.Date(2021, 1, 10, 0, 0, 0, 0, time.UTC), time.Date(1969, 12, 21, 0, 0, 0, 0, time.UTC)} {
		for d := range 14 {
			for _, tod := range []time.Duration{0, 13*time.Hour + 5*time.Millisecond} {
				ts := start.AddDate(0, 0, d).Add(tod)
				values = append(values, "(TIMESTAMP '"+ts.Format("2006-01-02 15:04:05.000")+"')")
				day := time.Date(ts.Year(), ts.Month(), ts.Day(), 0, 0, 0, 0, time.UTC)
				floor := day.AddDate(0, 0, -int(ts.Weekday()))
				ceil := floor
				if !floor.Equal(ts) {
					ceil = floor.AddDate(0, 0, 7)
				}
				want = append(want, "main main: "+floor.String()+", "+ceil.String())
			}
		}
	}
	got := runSQL(t, `CREATE STREAM s (ts TIMESTAMP(3)) WITH ('connector'='values');
INSERT INTO s VALUES `+strings.Join(values, ", ")+`;
SELECT FLOOR(ts TO WEEK) AS f, CEIL(ts TO week) AS c FROM s;`)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestIntervalCompoundUnits: INTERVAL 'text' A TO B (Flink's interval
// qualifiers; were syntax errors) is the sum of its fields, a leading '-'
// negating all of them, SECOND with up to three decimals, YEAR TO MONTH in
// calendar months: against the same span written in milliseconds (or
// months); a text not of the qualifier's form is a planning error naming it.
func TestIntervalCompoundUnits(t *testing.T) {
	cases := []struct {
		iv     string
		ms     int64 // or months, for YEAR TO MONTH
		months bool
	}{
		{"'1 02:03:04.5' DAY TO SECOND", 86_400_000 + 2*3_600_000 + 3*60_000 + 4500, false},
		{"'-1 02:03:04.005' DAY TO SECOND", -(86_400_000 + 2*3_600_000 + 3*60_000 + 4005), false},
		{"'3 04' DAY TO HOUR", 3*86_400_000 + 4*3_600_000, false},
		{"'3 04:05' DAY TO MINUTE", 3*86_400_000 + 4*3_600_000 + 5*60_000, false},
		{"'1:30' HOUR TO MINUTE", 90 * 60_000, false},
		{"'10:00:00.25' HOUR TO SECOND", 36_000_250, false},
		{"'01:02.003' MINUTE TO SECOND", 62_003, false},
		{"'1-2' YEAR TO MONTH", 14, true},
		{"'-0-11' YEAR TO MONTH", -11, true},
	}
	for _, c := range cases {
		other := fmt.Sprintf("INTERVAL '%d' MILLISECOND", c.ms)
		if c.months {
			other = fmt.Sprintf("INTERVAL '%d' MONTH", c.ms)
		}
		script := func(iv string) string {
			return `CREATE STREAM s (ts TIMESTAMP(3)) WITH ('connector'='values');
INSERT INTO s VALUES (TIMESTAMP '2021-01-31 10:00:00.123'), (TIMESTAMP '1969-12-31 23:59:59.999'), (NULL);
SELECT ts + ` + iv + ` AS a, ts - ` + iv + ` AS b FROM s;`
		}
		got, want := runSQL(t, script("INTERVAL "+c.iv)), runSQL(t, script(other))
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != 3 {
			t.Errorf("INTERVAL %s:\n got %q\nwant %q (as %s)", c.iv, got, want, other)
		}
	}
	for _, bad := range []string{"'1:2' DAY TO SECOND", "'1 x' DAY TO HOUR", "'1:2.3456' MINUTE TO SECOND", "'1' HOUR TO MINUTE"} {
		s := open(t, streamql.Options{OnRows: collect(new([]string))})
		err := s.Exec(context.Background(), "SELECT TIMESTAMP '2021-01-01 00:00:00' + INTERVAL "+bad+" AS x;")
		if err == nil || !strings.Contains(err.Error(), "INTERVAL "+strings.SplitN(bad, " TO", 2)[0]) {
			t.Errorf("INTERVAL %s: %v, want an error naming it", bad, err)
		}
	}
}
