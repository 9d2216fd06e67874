package expr

import "time"

// dateFormat is a compiled Java SimpleDateFormat pattern (DATE_FORMAT,
// TO_TIMESTAMP, FROM_UNIXTIME; SPEC 2.10): a list of fields and literals,
// formatted and parsed without allocating. Time zones are UTC (SPEC 1: no
// time zone): z prints UTC (zzzz Coordinated Universal Time), Z +0000, X Z.
// Weeks are the US locale's (Flink's JVM default: weeks from Sunday, week 1
// the one holding January 1 or the month's first day): w, W, Y.
type dateFormat struct {
	parts []datePart
}

// datePart is a letter repeated n times, or (letter 0) the literal text.
type datePart struct {
	letter byte
	n      int
	text   string
}

// dateLetters are the SimpleDateFormat letters streamql formats.
const dateLetters = "GyYMLwWdDFEuaHkKhmsSzZX"

// compileDateFormat compiles a SimpleDateFormat pattern. A letter Java does
// not know is an *ArgError at its offset (Java throws
// IllegalArgumentException).
func compileDateFormat(p string) (*dateFormat, error) {
	f := &dateFormat{}
	lit := []byte{}
	flush := func() {
		if len(lit) > 0 {
			f.parts = append(f.parts, datePart{text: string(lit)})
			lit = lit[:0]
		}
	}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			if i+1 < len(p) && p[i+1] == '\'' {
				lit = append(lit, '\'')
				i += 2
				continue
			}
			end := i + 1
			for end < len(p) {
				if p[end] == '\'' {
					if end+1 < len(p) && p[end+1] == '\'' {
						lit = append(lit, '\'')
						end += 2
						continue
					}
					break
				}
				lit = append(lit, p[end])
				end++
			}
			if end >= len(p) {
				return nil, &ArgError{Offset: i, Msg: "unterminated quote in the date format"}
			}
			i = end + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			if !containsByte(dateLetters, c) {
				msg := "unknown date format letter '" + string(c) + "'; use Java SimpleDateFormat letters (yyyy MM dd HH mm ss SSS E a ...), and quote text as 'T'"
				return nil, &ArgError{Offset: i, Msg: msg}
			}
			n := 1
			for i+n < len(p) && p[i+n] == c {
				n++
			}
			flush()
			f.parts = append(f.parts, datePart{letter: c, n: n})
			i += n
		default:
			lit = append(lit, c)
			i++
		}
	}
	flush()
	return f, nil
}

func containsByte(s string, c byte) bool {
	for k := 0; k < len(s); k++ {
		if s[k] == c {
			return true
		}
	}
	return false
}

var (
	monthNames = [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dayNames   = [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// appendPadded appends v in decimal, zero-padded to n digits (a minus sign first).
func appendPadded(dst []byte, v int64, n int) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	var buf [20]byte
	k := len(buf)
	for v > 0 || k == len(buf) {
		k--
		buf[k] = byte('0' + v%10)
		v /= 10
	}
	for pad := n - (len(buf) - k); pad > 0; pad-- {
		dst = append(dst, '0')
	}
	return append(dst, buf[k:]...)
}

// append formats epoch milliseconds ms (UTC) and appends it to dst.
func (f *dateFormat) append(dst []byte, ms int64) []byte {
	t := utc(ms)
	// the fields once per value (each time.Time accessor recomputes the date)
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	for _, p := range f.parts {
		switch p.letter {
		case 0:
			dst = append(dst, p.text...)
		case 'G':
			if year > 0 {
				dst = append(dst, "AD"...)
			} else {
				dst = append(dst, "BC"...)
			}
		case 'y', 'Y':
			y := int64(year)
			if p.letter == 'Y' {
				y, _ = weekOfYear(ms)
			}
			if p.n == 2 {
				dst = appendPadded(dst, (y%100+100)%100, 2)
			} else {
				dst = appendPadded(dst, y, p.n)
			}
		case 'M', 'L':
			switch {
			case p.n >= 4:
				dst = append(dst, monthNames[month-1]...)
			case p.n == 3:
				dst = append(dst, monthNames[month-1][:3]...)
			default:
				dst = appendPadded(dst, int64(month), p.n)
			}
		case 'd':
			dst = appendPadded(dst, int64(day), p.n)
		case 'w':
			_, w := weekOfYear(ms)
			dst = appendPadded(dst, w, p.n)
		case 'W':
			// week 1 holds the 1st: the 1st's weekday (from Sunday) shifts the days
			first := (int(t.Weekday()) - (day-1)%7 + 7) % 7
			dst = appendPadded(dst, int64((day-1+first)/7+1), p.n)
		case 'F':
			dst = appendPadded(dst, int64((day-1)/7+1), p.n)
		case 'D':
			dst = appendPadded(dst, int64(t.YearDay()), p.n)
		case 'E':
			if p.n >= 4 {
				dst = append(dst, dayNames[t.Weekday()]...)
			} else {
				dst = append(dst, dayNames[t.Weekday()][:3]...)
			}
		case 'u':
			wd := int64(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			dst = appendPadded(dst, wd, p.n)
		case 'a':
			if hour < 12 {
				dst = append(dst, "AM"...)
			} else {
				dst = append(dst, "PM"...)
			}
		case 'H':
			dst = appendPadded(dst, int64(hour), p.n)
		case 'k':
			h := int64(hour)
			if h == 0 {
				h = 24
			}
			dst = appendPadded(dst, h, p.n)
		case 'K':
			dst = appendPadded(dst, int64(hour%12), p.n)
		case 'h':
			h := int64(hour % 12)
			if h == 0 {
				h = 12
			}
			dst = appendPadded(dst, h, p.n)
		case 'm':
			dst = appendPadded(dst, int64(minute), p.n)
		case 's':
			dst = appendPadded(dst, int64(sec), p.n)
		case 'S':
			dst = appendPadded(dst, int64(t.Nanosecond()/1e6), p.n)
		case 'z':
			if p.n >= 4 {
				dst = append(dst, "Coordinated Universal Time"...)
			} else {
				dst = append(dst, "UTC"...)
			}
		case 'Z':
			dst = append(dst, "+0000"...)
		case 'X':
			dst = append(dst, 'Z')
		}
	}
	return dst
}

// weekOfYear returns the week-based year and week of year of epoch
// milliseconds ms (UTC) as SimpleDateFormat's Y and w give them in the US
// locale: weeks run Sunday to Saturday and week 1 is the one holding January
// 1, so a week belongs to the year of its Saturday (Dec 29, 2024, a Sunday,
// is week 1 of 2025).
func weekOfYear(ms int64) (year, week int64) {
	day := ms / 86400000
	if ms%86400000 < 0 {
		day--
	}
	wd := ((day+4)%7 + 7) % 7 // 1970-01-01 was a Thursday (Sunday = 0)
	sat := utc((day + 6 - wd) * 86400000)
	return int64(sat.Year()), int64((sat.YearDay()-1)/7 + 1)
}

// parsePrefix is read(s, false): s as Java's SimpleDateFormat.parse(String) reads text
// (lenient, Java's default), which Flink's UNIX_TIMESTAMP, TO_DATE(s, fmt),
// DATE_FORMAT(text, fmt) and CONVERT_TZ call (DateTimeUtils'
// internalParseTimestampMillis, formatTimestampString, parseTimestampTz):
// the format need match only the start of s, what follows is ignored
// ('2021-01-17 12:48:29.123' by 'yyyy-MM-dd HH:mm:ss' is 12:48:29), and a
// field past its range rolls over into the next (a lenient Calendar:
// '2021-02-30' is 2021-03-02, month 13 is January of the next year, hour
// 24 the next day's midnight, day 0 the last of the month before).
func (f *dateFormat) parsePrefix(s []byte) (int64, bool) { return f.read(s, false) }

// read(s, true) reads s by the format (numeric fields, month and day names,
// literals) as Java's DateTimeFormatter.ofPattern does, which Flink's
// TO_TIMESTAMP(s, fmt) calls: the whole text must match, and fields are
// resolved SMART (Java's default): a day of 29 to 31 past its month's end
// is the month's last day ('2021-02-30' is 2021-02-28), any other field
// out of its range is no match. The result is epoch milliseconds, UTC. A
// numeric field followed directly by another takes exactly its letters'
// count of digits (yyyyMMdd), else up to 9 digits.
// Without whole it reads the text's start as parsePrefix says
// (SimpleDateFormat, lenient).
func (f *dateFormat) read(s []byte, whole bool) (int64, bool) {
	year, month, day := int64(1970), int64(1), int64(1)
	var hour, minute, sec, milli int64
	pm, hour12 := false, false
	pos := 0
	for k, p := range f.parts {
		if p.letter == 0 {
			if len(s)-pos < len(p.text) || string(s[pos:pos+len(p.text)]) != p.text {
				return 0, false
			}
			pos += len(p.text)
			continue
		}
		switch p.letter {
		case 'M', 'L':
			if p.n >= 3 {
				m, n := matchName(s[pos:], monthNames[:], p.n == 3)
				if n == 0 {
					return 0, false
				}
				month, pos = int64(m+1), pos+n
				continue
			}
		case 'E':
			_, n := matchName(s[pos:], dayNames[:], p.n < 4)
			if n == 0 {
				return 0, false
			}
			pos += n
			continue
		case 'a':
			switch {
			case len(s)-pos >= 2 && (string(s[pos:pos+2]) == "AM" || string(s[pos:pos+2]) == "am"):
			case len(s)-pos >= 2 && (string(s[pos:pos+2]) == "PM" || string(s[pos:pos+2]) == "pm"):
				pm = true
			default:
				return 0, false
			}
			pos += 2
			continue
		case 'G', 'z', 'Z', 'X':
			return 0, false
		}
		width := 9
		if k+1 < len(f.parts) && f.parts[k+1].letter != 0 {
			width = p.n
		}
		v, n := readDigits(s[pos:], width)
		if n == 0 {
			return 0, false
		}
		pos += n
		switch p.letter {
		case 'y', 'Y':
			year = v
			if p.n == 2 && n == 2 {
				year += 2000 // (Java picks the century within 80 years before, 20 after now)
			}
		case 'M', 'L':
			month = v
		case 'd':
			day = v
		case 'H':
			hour = v
		case 'k':
			hour = v % 24 // (clock hour 1 to 24: 24 is midnight)
		case 'h', 'K':
			hour, hour12 = v%12, true
		case 'm':
			minute = v
		case 's':
			sec = v
		case 'S':
			milli = v
		case 'D', 'u', 'w', 'W', 'F':
		}
	}
	if whole && pos != len(s) {
		return 0, false
	}
	if hour12 && pm {
		hour += 12
	}
	if whole { // (DateTimeFormatter, SMART: only the day past the month's end is moved)
		if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 59 || milli > 999 {
			return 0, false
		}
		day = min(day, int64(daysIn(int(year), time.Month(month))))
	}
	// (SimpleDateFormat, lenient: time.Date rolls each field over into the
	// next as Java's lenient Calendar does; the fields are at most 9 digits,
	// so the sum cannot overflow before the range check)
	t := time.Date(int(year), time.Month(month), int(day), int(hour), int(minute), int(sec), int(milli)*1e6, time.UTC)
	if y := t.Year(); y > 292278994 || y < -292275055 {
		return 0, false
	}
	return t.UnixMilli(), true
}

// readDigits reads up to width decimal digits at the start of s.
func readDigits(s []byte, width int) (v int64, n int) {
	for n < len(s) && n < width && s[n] >= '0' && s[n] <= '9' {
		v = v*10 + int64(s[n]-'0')
		n++
	}
	return v, n
}

// matchName finds which of names (or their first 3 letters when short) s
// starts with, case-insensitively: its index and length, or n 0.
func matchName(s []byte, names []string, short bool) (idx, n int) {
	for k, name := range names {
		if short {
			name = name[:3]
		}
		if len(s) >= len(name) && equalFoldASCII(s[:len(name)], name) {
			return k, len(name)
		}
	}
	return 0, 0
}

func equalFoldASCII(a []byte, b string) bool {
	for k := range a {
		x, y := a[k]|0x20, b[k]|0x20
		if x != y {
			return false
		}
	}
	return true
}
