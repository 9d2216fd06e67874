package textconv

// Milliseconds per time unit.
const (
	msPerSecond = 1000
	msPerMinute = 60 * msPerSecond
	msPerHour   = 60 * msPerMinute
	msPerDay    = 24 * msPerHour
)

// ParseTimestamp reads a TIMESTAMP (SPEC 1) and returns milliseconds since the
// epoch, UTC. Surrounding spaces and tabs are trimmed. Accepted forms, those
// SPEC 1 lists and nothing else:
//
//	1610035289736                    epoch milliseconds (optional sign)
//	2021-01-17 12:48:29              seconds required
//	2021-01-17 12:48:29.1            1 to 9 fraction digits; beyond 3 they are
//	                                 truncated to milliseconds
//	2021-01-17T12:48[:29[.1]]        ISO-8601 with T: seconds optional, and an
//	...T...Z, +08:00, -0530, +08     offset after the time, converted to UTC
//
// The T and the Z may be lowercase, as RFC 3339 (section 5.6) allows.
//
// Fields are range-checked (month 1-12, day within the month, hour 0-23, minute and
// second 0-59). The second result is false for anything else (a date alone, the
// space form without seconds or with an offset).
func ParseTimestamp(b []byte) (int64, bool) {
	b = Trim(b)
	if len(b) == 0 {
		return 0, false
	}
	if len(b) < 10 || b[4] != '-' {
		return parseIntTrimmed(b)
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || b[7] != '-' || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return 0, false
	}
	ms := daysFromCivil(year, month, day) * msPerDay
	rest := b[10:]
	if len(rest) == 0 || rest[0] != ' ' && rest[0] != 'T' && rest[0] != 't' {
		return 0, false
	}
	iso := rest[0] != ' ' // (seconds optional, an offset allowed)
	rest = rest[1:]
	if len(rest) < 5 || rest[2] != ':' {
		return 0, false
	}
	hour, ok1 := digits(rest[0:2])
	minute, ok2 := digits(rest[3:5])
	if !ok1 || !ok2 || hour > 23 || minute > 59 {
		return 0, false
	}
	ms += hour*msPerHour + minute*msPerMinute
	rest = rest[5:]
	if !iso && (len(rest) == 0 || rest[0] != ':') {
		return 0, false // the space form has seconds
	}
	if len(rest) > 0 && rest[0] == ':' {
		if len(rest) < 3 {
			return 0, false
		}
		sec, ok := digits(rest[1:3])
		if !ok || sec > 59 {
			return 0, false
		}
		ms += sec * msPerSecond
		rest = rest[3:]
		if len(rest) > 0 && rest[0] == '.' {
			i := 1
			var frac, scale int64 = 0, 100
			for i < len(rest) && rest[i]-'0' <= 9 {
				frac += int64(rest[i]-'0') * scale
				scale /= 10
				i++
			}
			if i == 1 || i > 10 { // 1 to 9 fraction digits
				return 0, false
			}
			ms += frac
			rest = rest[i:]
		}
	}
	if len(rest) == 0 {
		return ms, true
	}
	if !iso {
		return 0, false // an offset only after ISO-8601's T form
	}
	off, ok := parseOffset(rest)
	if !ok {
		return 0, false
	}
	return ms - off, true
}

// parseOffset reads Z, +HH, +HHMM or +HH:MM (or '-') and returns it in ms.
func parseOffset(b []byte) (int64, bool) {
	if len(b) == 1 && (b[0] == 'Z' || b[0] == 'z') {
		return 0, true
	}
	if len(b) < 3 || (b[0] != '+' && b[0] != '-') {
		return 0, false
	}
	h, ok := digits(b[1:3])
	if !ok || h > 18 {
		return 0, false
	}
	var m int64
	switch len(b) {
	case 3:
	case 5:
		m, ok = digits(b[3:5])
	case 6:
		if b[3] != ':' {
			return 0, false
		}
		m, ok = digits(b[4:6])
	default:
		return 0, false
	}
	if !ok || m > 59 {
		return 0, false
	}
	off := h*msPerHour + m*msPerMinute
	if b[0] == '-' {
		off = -off
	}
	return off, true
}

// digits reads b as unsigned decimal digits (all of b).
func digits(b []byte) (int64, bool) {
	var n int64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	return n, true
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z
	if era < 0 {
		era -= 146096
	}
	era /= 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// AppendTimestamp appends ms (milliseconds since the epoch, UTC) as SPEC 4 prints a
// TIMESTAMP: "2021-01-17 12:48:29.123", always three fraction digits. Years outside
// 0000-9999 print like Java's LocalDateTime ("+10000-01-01", "-0001-01-01"). It
// allocates nothing when dst has room for the result (24 bytes suffice for
// years 0000-9999).
func AppendTimestamp(dst []byte, ms int64) []byte {
	days := ms / msPerDay
	rem := ms % msPerDay
	if rem < 0 {
		rem += msPerDay
		days--
	}
	y, mo, d := civilFromDays(days)
	switch {
	case y < 0:
		dst = append(dst, '-')
		dst = appendPadded(dst, -y, 4)
	case y > 9999:
		dst = append(dst, '+')
		dst = appendPadded(dst, y, 4)
	default:
		dst = appendPadded(dst, y, 4)
	}
	dst = append(dst, '-')
	dst = appendPadded(dst, mo, 2)
	dst = append(dst, '-')
	dst = appendPadded(dst, d, 2)
	dst = append(dst, ' ')
	dst = appendPadded(dst, rem/msPerHour, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, rem/msPerMinute%60, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, rem/msPerSecond%60, 2)
	dst = append(dst, '.')
	return appendPadded(dst, rem%msPerSecond, 3)
}

// appendPadded appends the non-negative n in decimal, left-padded with zeros to at
// least width digits.
func appendPadded(dst []byte, n int64, width int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for n >= 10 || width > 1 {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
		width--
	}
	i--
	tmp[i] = byte('0' + n)
	return append(dst, tmp[i:]...)
}

// AppendBool appends "true" or "false" (SPEC 4).
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}
