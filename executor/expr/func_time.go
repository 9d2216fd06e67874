package expr

import (
	"bytes"
	"math"
	"strings"
	"time"
	_ "time/tzdata" // CONVERT_TZ's zones, the same on every machine

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// The time functions of the function table (SPEC 2.10): TIMESTAMP values are
// epoch milliseconds without a time zone (SPEC 1), read as UTC.

// utc returns the time of epoch milliseconds ms, UTC.
func utc(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// field returns the calendar field unit of t: YEAR, QUARTER, MONTH, WEEK (ISO
// 8601), DAY, DOY, DOW (1 = Sunday, as Flink's DAYOFWEEK), HOUR, MINUTE,
// SECOND, MILLISECOND, MICROSECOND, NANOSECOND (of the second, as Flink's
// EXTRACT: ms of the second × 1, 1000 or 10^6), EPOCH (whole seconds since
// 1970-01-01, truncated as Flink's utcTs / 1000), ISODOW (1 = Monday),
// ISOYEAR (of the ISO 8601 week), DECADE (year / 10), CENTURY, MILLENNIUM.
func field(unit string, t time.Time) int64 {
	switch unit {
	case "YEAR":
		return int64(t.Year())
	case "QUARTER":
		return int64(t.Month()+2) / 3
	case "MONTH":
		return int64(t.Month())
	case "WEEK":
		_, w := t.ISOWeek()
		return int64(w)
	case "DAY":
		return int64(t.Day())
	case "DOY":
		return int64(t.YearDay())
	case "DOW":
		return int64(t.Weekday()) + 1
	case "HOUR":
		return int64(t.Hour())
	case "MINUTE":
		return int64(t.Minute())
	case "SECOND":
		return int64(t.Second())
	case "MILLISECOND":
		return int64(t.Nanosecond() / 1e6)
	case "MICROSECOND":
		return int64(t.Nanosecond() / 1e3)
	case "NANOSECOND":
		return int64(t.Nanosecond())
	case "EPOCH":
		return t.UnixMilli() / 1000
	case "ISODOW":
		return (int64(t.Weekday())+6)%7 + 1
	case "ISOYEAR":
		y, _ := t.ISOWeek()
		return int64(y)
	case "DECADE":
		return int64(t.Year()) / 10
	case "CENTURY":
		return yearsOf(int64(t.Year()), 100)
	case "MILLENNIUM":
		return yearsOf(int64(t.Year()), 1000)
	}
	return 0
}

// yearsOf is the century (n = 100) or millennium (n = 1000) of year y, as
// Flink's EXTRACT counts them: 2000 is in the 20th century, 2001 in the
// 21st; a year before 1 counts down from 0 (integer division toward zero).
func yearsOf(y, n int64) int64 {
	if y > 0 {
		return (y + n - 1) / n
	}
	return (y - n + 1) / n
}

// extractUnits are EXTRACT's units (TiDB's names, and Flink's DOY/DOW).
var extractUnits = map[string]bool{"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "DOY": true,
	"DOW": true, "HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true, "MICROSECOND": true,
	"NANOSECOND": true, "EPOCH": true, "ISODOW": true, "ISOYEAR": true, "DECADE": true, "CENTURY": true, "MILLENNIUM": true}

// prepField is a TIMESTAMP → BIGINT calendar field (HOUR, YEAR, ...).
func prepField(unit string) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			out.I[i] = field(unit, utc(a[0].I[i]))
			return true
		}, nil
	}
}

// prepExtract is EXTRACT(unit FROM ts), the planner passing the unit as a
// constant first argument.
func prepExtract(args []Arg, _ catalog.Type) (RowFunc, error) {
	unit := strings.ToUpper(string(args[0].Value.S))
	if !args[0].Const || !extractUnits[unit] {
		return nil, &ArgError{Arg: 0, Offset: -1, Msg: "EXTRACT takes MILLENNIUM, CENTURY, DECADE, YEAR, ISOYEAR, QUARTER, MONTH, WEEK, DAY, DOY, DOW, ISODOW, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, NANOSECOND or EPOCH"}
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		out.I[i] = field(unit, utc(a[1].I[i]))
		return true
	}, nil
}

// unitMillis are the fixed-length units of TIMESTAMPADD / TIMESTAMPDIFF.
var unitMillis = map[string]int64{"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 7 * 86_400_000}

// unitMonths are their calendar units.
var unitMonths = map[string]int64{"MONTH": 1, "QUARTER": 3, "YEAR": 12}

func timeUnit(args []Arg, fn string) (string, error) {
	unit := strings.ToUpper(string(args[0].Value.S))
	if _, ok := unitMillis[unit]; ok {
		return unit, nil
	}
	if _, ok := unitMonths[unit]; ok {
		return unit, nil
	}
	return "", &ArgError{Arg: 0, Offset: -1, Msg: fn + " takes SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR"}
}

// addMonths adds n months to ms, keeping the time of day and clamping the
// day to the month's last (Jan 31 + 1 month = Feb 28, as Flink/Calcite).
func addMonths(ms, n int64) (int64, bool) {
	if n > 12*300000 || n < -12*300000 {
		return 0, false
	}
	t := utc(ms)
	y, m := int64(t.Year()), int64(t.Month())-1+n
	y += floorDiv(m, 12)
	m = m - floorDiv(m, 12)*12
	d := t.Day()
	if last := daysIn(int(y), time.Month(m+1)); d > last {
		d = last
	}
	r := time.Date(int(y), time.Month(m+1), d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	return r.UnixMilli(), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// prepTimestampAdd is TIMESTAMPADD(unit, n, ts), the unit a constant first
// argument: NULL past the TIMESTAMP range.
func prepTimestampAdd(args []Arg, _ catalog.Type) (RowFunc, error) {
	unit, err := timeUnit(args, "TIMESTAMPADD")
	if err != nil {
		return nil, err
	}
	if months, ok := unitMonths[unit]; ok {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			n, ok := mulOK(a[1].I[i], months)
			if !ok {
				return false
			}
			out.I[i], ok = addMonths(a[2].I[i], n)
			return ok
		}, nil
	}
	step := unitMillis[unit]
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		d, ok := mulOK(a[1].I[i], step)
		if !ok {
			return false
		}
		out.I[i], ok = AddInterval(a[2].I[i], d)
		return ok
	}, nil
}

// mulOK is a * b and false on overflow.
func mulOK(a, b int64) (int64, bool) { return mulInt(a, b) }

// mulInt and subInt are BIGINT * and - (false on overflow).
var mulInt, subInt = intOps[plan.OpMul], intOps[plan.OpSub]

// prepTimestampDiff is TIMESTAMPDIFF(unit, t1, t2): whole units from t1 to t2
// (toward zero; months counted on the calendar, as Flink/Calcite).
func prepTimestampDiff(args []Arg, _ catalog.Type) (RowFunc, error) {
	unit, err := timeUnit(args, "TIMESTAMPDIFF")
	if err != nil {
		return nil, err
	}
	if months, ok := unitMonths[unit]; ok {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			out.I[i] = monthsBetween(a[1].I[i], a[2].I[i]) / months
			return true
		}, nil
	}
	step := unitMillis[unit]
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		d, ok := subInt(a[2].I[i], a[1].I[i])
		if !ok {
			return false
		}
		out.I[i] = d / step
		return true
	}, nil
}

// monthsBetween is the number of whole months from t1 to t2 (negative when
// t2 is earlier).
func monthsBetween(t1, t2 int64) int64 {
	if t2 < t1 {
		return -monthsBetween(t2, t1)
	}
	a, b := utc(t1), utc(t2)
	m := int64(b.Year()-a.Year())*12 + int64(b.Month()-a.Month())
	if m > 0 {
		if back, ok := addMonths(t1, m); ok && back > t2 {
			m--
		}
	}
	return m
}

// prepNow is CURRENT_TIMESTAMP / NOW() / PROCTIME(): the wall clock in
// milliseconds, UTC, read per row (Flink evaluates it per record in a stream).
func prepNow([]Arg, catalog.Type) (RowFunc, error) {
	return func(_ []*vector.Vec, i int, out *vector.Vec) bool {
		out.I[i] = time.Now().UnixMilli()
		return true
	}, nil
}

// prepToTimestampLTZ is TO_TIMESTAMP_LTZ(n, 0 | 3): epoch seconds or
// milliseconds (BIGINT or DOUBLE) as a TIMESTAMP.
func prepToTimestampLTZ(args []Arg, _ catalog.Type) (RowFunc, error) {
	if !args[1].Const || args[1].Value.Null || (args[1].Value.I != 0 && args[1].Value.I != 3) {
		return nil, &ArgError{Arg: 1, Offset: -1, Msg: "TO_TIMESTAMP_LTZ's precision must be 0 (seconds) or 3 (milliseconds)"}
	}
	scale := int64(1)
	if args[1].Value.I == 0 {
		scale = 1000
	}
	if args[0].Type == catalog.Double {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			f := a[0].F[i] * float64(scale)
			if f != f || f >= 9.2e18 || f <= -9.2e18 {
				return false
			}
			out.I[i] = int64(f)
			return true
		}, nil
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		v, ok := mulOK(a[0].I[i], scale)
		out.I[i] = v
		return ok
	}, nil
}

// defaultFormat is the format TO_TIMESTAMP, UNIX_TIMESTAMP and FROM_UNIXTIME
// use without one (Flink's).
var defaultFormat = mustFormat("yyyy-MM-dd HH:mm:ss")

func mustFormat(p string) *dateFormat {
	f, err := compileDateFormat(p)
	if err != nil {
		panic(err)
	}
	return f
}

// formatArg returns the format of a call's argument k: compiled once when it
// is constant (an error is an *ArgError for the planner), else per row by a
// cache that recompiles only when the text changes.
func formatArg(args []Arg, k int) (func(a []*vector.Vec, i int) *dateFormat, error) {
	if k >= len(args) {
		return func([]*vector.Vec, int) *dateFormat { return defaultFormat }, nil
	}
	if args[k].Const {
		f, err := compileDateFormat(string(args[k].Value.S))
		if err != nil {
			err.(*ArgError).Arg = k
			return nil, err
		}
		return func([]*vector.Vec, int) *dateFormat { return f }, nil
	}
	var last []byte
	var lastF *dateFormat
	return func(a []*vector.Vec, i int) *dateFormat {
		s := a[k].S[i]
		if lastF != nil && string(s) == string(last) {
			return lastF
		}
		f, err := compileDateFormat(string(s))
		if err != nil {
			return nil
		}
		last, lastF = append(last[:0], s...), f
		return f
	}, nil
}

// parseArg returns the reading of text argument 0 by the format of argument
// 1 (the default format without one): epoch milliseconds, or false when the
// text does not match or the format (not constant) is bad. whole: the
// whole text must match (dateFormat.parse), else its start
// (dateFormat.parsePrefix).
func parseArg(args []Arg, whole bool) (func(a []*vector.Vec, i int) (int64, bool), error) {
	fmtOf, err := formatArg(args, 1)
	if err != nil {
		return nil, err
	}
	return func(a []*vector.Vec, i int) (int64, bool) {
		f := fmtOf(a, i)
		if f == nil {
			return 0, false
		}
		return f.read(a[0].S[i], whole)
	}, nil
}

// prepDateFormat is DATE_FORMAT(ts | text, fmt): text is read as Flink's
// DateTimeUtils.formatTimestampString reads it, by a lenient
// SimpleDateFormat of 'yyyy-MM-dd HH:mm:ss' from its start
// (defaultFormat.parsePrefix: '2021-02-30 10:00:00' is 2021-03-02 10:00:00,
// a date alone does not read); NULL when it does not read.
func prepDateFormat(args []Arg, _ catalog.Type) (RowFunc, error) {
	fmtOf, err := formatArg(args, 1)
	if err != nil {
		return nil, err
	}
	text := args[0].Type == catalog.Varchar
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		f := fmtOf(a, i)
		if f == nil {
			return false
		}
		var ms int64
		if text {
			var ok bool
			if ms, ok = defaultFormat.parsePrefix(a[0].S[i]); !ok {
				return false
			}
		} else {
			ms = a[0].I[i]
		}
		start := len(out.Arena)
		out.Arena = f.append(out.Arena, ms)
		setText(out, i, start)
		return true
	}, nil
}

// prepFromUnixtime is FROM_UNIXTIME(sec[, fmt]).
func prepFromUnixtime(args []Arg, _ catalog.Type) (RowFunc, error) {
	fmtOf, err := formatArg(args, 1)
	if err != nil {
		return nil, err
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		f := fmtOf(a, i)
		ms, ok := mulOK(a[0].I[i], 1000)
		if f == nil || !ok {
			return false
		}
		start := len(out.Arena)
		out.Arena = f.append(out.Arena, ms)
		setText(out, i, start)
		return true
	}, nil
}

// prepToTimestamp is TO_TIMESTAMP(s[, fmt]): without a format, text is read as
// CAST reads a TIMESTAMP, or as Flink's default format reads it
// (lenientTimestamp: a date alone is its midnight, one-digit fields, a day
// past its month's end the month's last, Java's SMART resolving); with one,
// by its letters (dateFormat.parse, SMART too), and when they do not match
// as Flink falls back (DateTimeUtils.parseTimestampData: the trimmed text by
// java.sql.Timestamp.valueOf or Date.valueOf, which roll a day past the
// month's end over into the next: lenientTimestamp with roll). NULL when
// nothing matches.
func prepToTimestamp(args []Arg, _ catalog.Type) (RowFunc, error) {
	if len(args) == 1 {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			var ok bool
			if out.I[i], ok = textconv.ParseTimestamp(a[0].S[i]); !ok {
				out.I[i], ok = lenientTimestamp(a[0].S[i], false)
			}
			return ok
		}, nil
	}
	parse, err := parseArg(args, true)
	if err != nil {
		return nil, err
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		var ok bool
		if out.I[i], ok = parse(a, i); !ok && !a[0].Null[i] {
			out.I[i], ok = lenientTimestamp(bytes.TrimSpace(a[0].S[i]), true)
		}
		return ok
	}, nil
}

// lenientTimestamp reads s as Flink's TO_TIMESTAMP reads text without a
// format (DateTimeUtils' default formatter, `yyyy-[MM][M]-[dd][d]` then
// optionally ` [HH][H]:[mm][m]:[ss][s]` and a fraction of up to 9 digits,
// truncated to milliseconds; absent fields are 0, so a date alone is its
// midnight): epoch milliseconds, UTC, and whether s is such a text of a
// valid date and time. The month must be 1 to 12 and the day 1 to 31; a day
// past the month's end is the month's last (the formatter's SMART
// resolving), or with roll, as java.sql.Timestamp.valueOf and Date.valueOf
// read (Flink's fallback for a format that does not match), rolls over into
// the next month, and so do an hour, minute or second past its range.
func lenientTimestamp(s []byte, roll bool) (int64, bool) {
	pos := 0
	field := func(min, max int) (int, bool) {
		v, n := readDigits(s[pos:], max)
		pos += n
		return int(v), n >= min
	}
	sep := func(c byte) bool {
		if pos < len(s) && s[pos] == c {
			pos++
			return true
		}
		return false
	}
	y, ok1 := field(4, 4)
	okSep1 := sep('-')
	mo, ok2 := field(1, 2)
	okSep2 := sep('-')
	d, ok3 := field(1, 2)
	if !ok1 || !okSep1 || !ok2 || !okSep2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return 0, false
	}
	if !roll {
		d = min(d, daysIn(y, time.Month(mo)))
	}
	var h, mi, sec, ms int
	if pos < len(s) {
		var okH, okM, okS bool
		if !sep(' ') {
			return 0, false
		}
		h, okH = field(1, 2)
		okC1 := sep(':')
		mi, okM = field(1, 2)
		okC2 := sep(':')
		sec, okS = field(1, 2)
		if !okH || !okC1 || !okM || !okC2 || !okS || !roll && (h > 23 || mi > 59 || sec > 59) {
			return 0, false
		}
		if sep('.') {
			v, n := readDigits(s[pos:], 9)
			pos += n
			for k := n; k < 3; k++ {
				v *= 10
			}
			for k := n; k > 3; k-- {
				v /= 10
			}
			ms = int(v)
		}
	}
	if pos != len(s) {
		return 0, false
	}
	return time.Date(y, time.Month(mo), d, h, mi, sec, ms*1e6, time.UTC).UnixMilli(), true
}

// prepUnixTimestamp is UNIX_TIMESTAMP() (the clock, in seconds) and
// UNIX_TIMESTAMP(s[, fmt]) (text's epoch seconds, UTC, read by the format
// from the text's start, what follows ignored, as Flink's SimpleDateFormat
// parse; NULL when it does not match, where Flink gives Long.MIN_VALUE).
func prepUnixTimestamp(args []Arg, _ catalog.Type) (RowFunc, error) {
	if len(args) == 0 {
		return func(_ []*vector.Vec, i int, out *vector.Vec) bool {
			out.I[i] = time.Now().Unix()
			return true
		}, nil
	}
	parse, err := parseArg(args, false)
	if err != nil {
		return nil, err
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		ms, ok := parse(a, i)
		out.I[i] = floorDiv(ms, 1000)
		return ok
	}, nil
}

// floorUnits are the units of FLOOR / CEIL(ts TO unit).
var floorUnits = map[string]bool{"MILLISECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true, "DAY": true, "WEEK": true, "MONTH": true, "QUARTER": true, "YEAR": true}

// prepFloorTo and prepCeilTo are FLOOR(ts TO unit) and CEIL(ts TO unit) (the
// parser writes them FLOOR(ts, 'unit')): ts rounded down or up to a whole
// unit (CEIL of a whole unit is itself).
func prepFloorTo(args []Arg, _ catalog.Type) (RowFunc, error) { return prepRoundTo(args, false) }
func prepCeilTo(args []Arg, _ catalog.Type) (RowFunc, error)  { return prepRoundTo(args, true) }

func prepRoundTo(args []Arg, up bool) (RowFunc, error) {
	unit := strings.ToUpper(string(args[1].Value.S))
	if !args[1].Const || !floorUnits[unit] {
		return nil, &ArgError{Arg: 1, Offset: -1, Msg: "FLOOR and CEIL take ts TO MILLISECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR"}
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		ms := a[0].I[i]
		f, ok := floorTime(ms, unit)
		if up && f != ms {
			switch unit {
			case "MONTH", "QUARTER", "YEAR":
				f, ok = addMonths(f, unitMonths[unit])
			default:
				f, ok = AddInterval(f, unitMillis[unit])
			}
		}
		out.I[i] = f
		return ok
	}, nil
}

// floorTime is ms rounded down to a whole unit; a WEEK starts on Sunday at
// midnight (Flink's DateTimeUtils.julianDateFloor).
func floorTime(ms int64, unit string) (int64, bool) {
	if unit == "WEEK" {
		days := floorDiv(ms, msPerDay)
		sunday := days - (days+4)%7 // (1970-01-01 was a Thursday: day 0 is 4 days past a Sunday)
		if (days+4)%7 < 0 {
			sunday -= 7
		}
		return sunday * msPerDay, true
	}
	if step, ok := unitMillis[unit]; ok {
		return floorDiv(ms, step) * step, true
	}
	t := utc(ms)
	m := t.Month()
	switch unit {
	case "QUARTER":
		m = (m-1)/3*3 + 1
	case "YEAR":
		m = 1
	}
	return time.Date(t.Year(), m, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), true
}

// msPerDay is a day in milliseconds.
const msPerDay = 86400000

// prepCurrentDate is CURRENT_DATE: today (UTC, SPEC 1 has no time zone) at
// midnight, read per row as Flink reads it in a stream (SPEC 1 has no DATE:
// a date is its midnight).
func prepCurrentDate([]Arg, catalog.Type) (RowFunc, error) {
	return func(_ []*vector.Vec, i int, out *vector.Vec) bool {
		out.I[i] = floorDiv(time.Now().UnixMilli(), msPerDay) * msPerDay
		return true
	}, nil
}

// prepCurrentTime is CURRENT_TIME and LOCALTIME: the time of day (UTC) in
// whole seconds (Flink's TIME(0)), on 1970-01-01 (SPEC 1 has no TIME: a time
// is a TIMESTAMP on that day, as TIME '...' literals are).
func prepCurrentTime([]Arg, catalog.Type) (RowFunc, error) {
	return func(_ []*vector.Vec, i int, out *vector.Vec) bool {
		ms := time.Now().UnixMilli()
		out.I[i] = (ms - floorDiv(ms, msPerDay)*msPerDay) / 1000 * 1000
		return true
	}, nil
}

// isoDate reads s as Flink's DateTimeUtils.parseDate(String) does (TO_DATE
// without a format): what follows the first space (past the start) is
// dropped, the rest is year[-month[-day]] (month and day 1 by default),
// each part digits once blanks around it are trimmed; the date must exist
// (year 0 to 9999; 2021-02-30 does not). It returns the days since
// 1970-01-01, and false when s does not read.
func isoDate(s []byte) (int64, bool) {
	if sp := bytes.IndexByte(s, ' '); sp > 0 {
		s = s[:sp]
	}
	part := func(p []byte) (int, bool) {
		p = bytes.TrimFunc(p, func(r rune) bool { return r <= ' ' }) // (Java's String.trim)
		if len(p) == 0 || len(p) > 9 {
			return 0, false
		}
		v := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	ys, rest, hasM := bytes.Cut(s, []byte{'-'})
	ms, ds, hasD := bytes.Cut(rest, []byte{'-'})
	y, ok := part(ys)
	m, d := 1, 1
	okM, okD := true, true
	if hasM {
		m, okM = part(ms)
	}
	if hasD {
		d, okD = part(ds)
	}
	if !ok || !okM || !okD || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) {
		return 0, false
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400, true
}

// prepToDate is TO_DATE(s[, fmt]) (Flink's DateTimeUtils.parseDate): without
// a format, s read as parseDate(String) reads it (isoDate: a day that does
// not exist is NULL); with one, s read by fmt from its start as a lenient
// SimpleDateFormat (dateFormat.parsePrefix: what follows is ignored, a day
// past the month's end rolls over); its day's midnight, NULL when it does
// not read.
func prepToDate(args []Arg, _ catalog.Type) (RowFunc, error) {
	if len(args) == 1 {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			days, ok := isoDate(a[0].S[i])
			out.I[i] = days * msPerDay
			return ok
		}, nil
	}
	fmtOf, err := formatArg(args, 1)
	if err != nil {
		return nil, err
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		f := fmtOf(a, i)
		if f == nil {
			return false
		}
		ms, ok := f.parsePrefix(a[0].S[i]) // (Flink's SimpleDateFormat parse: the text's start)
		out.I[i] = floorDiv(ms, msPerDay) * msPerDay
		return ok
	}, nil
}

// javaShortZones are the three-letter zone IDs Java's TimeZone still takes
// that the IANA database lacks (Java's ZoneId.SHORT_IDS), with the zone
// each stands for.
var javaShortZones = map[string]string{
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires", "ART": "Africa/Cairo",
	"AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka", "CAT": "Africa/Harare", "CNT": "America/St_Johns",
	"CST": "America/Chicago", "CTT": "Asia/Shanghai", "EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
	"IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan", "NST": "Pacific/Auckland", "PLT": "Asia/Karachi",
	"PNT": "America/Phoenix", "PRT": "America/Puerto_Rico", "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
}

// javaZone is Java's TimeZone.getTimeZone(id), which Flink's CONVERT_TZ
// calls: an IANA name (the database is embedded: time/tzdata), a
// three-letter ID (javaShortZones), a custom GMT+h[h][[:]mm] or GMT-...; an
// ID it does not know is GMT, as Java's is.
func javaZone(id string) *time.Location {
	if rest, ok := strings.CutPrefix(id, "GMT"); ok && len(rest) > 1 && (rest[0] == '+' || rest[0] == '-') {
		return customGMT(rest)
	}
	if z, ok := javaShortZones[id]; ok {
		id = z
	}
	if id == "" || id == "Local" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(id); err == nil {
		return loc
	}
	return time.UTC
}

// customGMT reads Java's custom zone after "GMT": a sign, then hours (1 or
// 2 digits, at most 23) and minutes (2 digits, at most 59): h, hh, h:mm,
// hh:mm, hmm or hhmm; GMT when it is not one (checked against Java 17's
// TimeZone.getTimeZone).
func customGMT(s string) *time.Location {
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	digits := func(t string) (int, bool) {
		n := 0
		for _, c := range []byte(t) {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, t != ""
	}
	var hh, mm string
	switch {
	case len(s) <= 2:
		hh = s
	case strings.IndexByte(s, ':') > 0:
		hh, mm, _ = strings.Cut(s, ":")
		if len(mm) != 2 {
			return time.UTC
		}
	case len(s) <= 4:
		hh, mm = s[:len(s)-2], s[len(s)-2:]
	default:
		return time.UTC
	}
	h, ok := digits(hh)
	m := 0
	if mm != "" {
		var okm bool
		m, okm = digits(mm)
		ok = ok && okm
	}
	if !ok || len(hh) > 2 || h > 23 || m > 59 {
		return time.UTC
	}
	return time.FixedZone("GMT", sign*(h*3600+m*60))
}

// zoneArg returns the zone of argument k: resolved once when constant, else
// through a one-entry cache.
func zoneArg(args []Arg, k int) func(a []*vector.Vec, i int) *time.Location {
	if args[k].Const && !args[k].Value.Null {
		loc := javaZone(string(args[k].Value.S))
		return func([]*vector.Vec, int) *time.Location { return loc }
	}
	var last []byte
	var lastLoc *time.Location
	return func(a []*vector.Vec, i int) *time.Location {
		s := a[k].S[i]
		if lastLoc == nil || string(s) != string(last) {
			last, lastLoc = append(last[:0], s...), javaZone(string(s))
		}
		return lastLoc
	}
}

// prepConvertTZ is CONVERT_TZ(s, from, to) (Flink's DateTimeUtils.convertTz):
// s, read as a lenient SimpleDateFormat of 'yyyy-MM-dd HH:mm:ss' reads it
// from its start (defaultFormat.parsePrefix: what follows the seconds is
// ignored, a field past its range rolls over) on the clocks of zone from,
// written as 'yyyy-MM-dd HH:mm:ss' on the clocks of zone to; NULL when s
// does not read. The zones are Java's IDs (javaZone).
func prepConvertTZ(args []Arg, _ catalog.Type) (RowFunc, error) {
	fromOf, toOf := zoneArg(args, 1), zoneArg(args, 2)
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		s := a[0].S[i]
		ms, ok := defaultFormat.parsePrefix(s)
		if !ok {
			return dst, false
		}
		at := wallInstant(fromOf(a, i), ms)
		return defaultFormat.append(dst, at+offsetAt(toOf(a, i), at)), true
	}), nil
}

// offsetAt is zone loc's offset from UTC at epoch milliseconds ms, in
// milliseconds.
func offsetAt(loc *time.Location, ms int64) int64 {
	_, off := time.UnixMilli(ms).In(loc).Zone()
	return int64(off) * 1000
}

// wallInstant is the instant (epoch milliseconds) when zone loc's clocks
// read wall (epoch milliseconds of the clock reading, as if UTC). A reading
// the clocks show twice (a DST overlap) or skip (a gap) is taken as Java's
// GregorianCalendar takes it: the later instant of the offsets in force a
// day before and a day after (standard time, for a DST change: checked
// against Java 17).
func wallInstant(loc *time.Location, wall int64) int64 {
	best, found := int64(math.MinInt64), false
	for _, probe := range [2]int64{wall - msPerDay, wall + msPerDay} {
		off := offsetAt(loc, probe)
		at := wall - off
		valid := offsetAt(loc, at) == off
		switch {
		case valid && (!found || at > best):
			best, found = at, true
		case !found && at > best:
			best = at
		}
	}
	return best
}
