package expr

import "unicode/utf8"

// validJSON reports whether s is one JSON value (RFC 8259; whitespace around
// it allowed), without allocating: encoding/json.Valid's rules (strings may
// hold any bytes but control characters; more than 10000 nested arrays and
// objects are invalid).
func validJSON(s []byte) bool {
	i, ok := scanValue(s, skipWS(s, 0), 0)
	return ok && skipWS(s, i) == len(s)
}

// scanValue reads the value at i and returns its end.
func scanValue(s []byte, i, depth int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch c := s[i]; {
	case (c == '{' || c == '[') && depth >= 10000:
		return i, false // (encoding/json's maxNestingDepth)
	case c == '{' || c == '[':
		closeC := byte('}')
		if c == '[' {
			closeC = ']'
		}
		i = skipWS(s, i+1)
		if i < len(s) && s[i] == closeC {
			return i + 1, true
		}
		for {
			if c == '{' {
				end, ok := scanString(s, i)
				if !ok {
					return end, false
				}
				i = skipWS(s, end)
				if i >= len(s) || s[i] != ':' {
					return i, false
				}
				i = skipWS(s, i+1)
			}
			end, ok := scanValue(s, i, depth+1)
			if !ok {
				return end, false
			}
			i = skipWS(s, end)
			if i >= len(s) {
				return i, false
			}
			if s[i] == closeC {
				return i + 1, true
			}
			if s[i] != ',' {
				return i, false
			}
			i = skipWS(s, i+1)
		}
	case c == '"':
		return scanString(s, i)
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(s, i)
	}
	for _, lit := range [3]string{"true", "false", "null"} {
		if len(s)-i >= len(lit) && string(s[i:i+len(lit)]) == lit {
			return i + len(lit), true
		}
	}
	return i, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// scanString reads the string at i (its quote) and returns its end.
func scanString(s []byte, i int) (int, bool) {
	if i >= len(s) || s[i] != '"' {
		return i, false
	}
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(s) {
				return i, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 >= len(s) || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
					return i, false
				}
				i += 5
			default:
				return i, false
			}
		}
	}
	return i, false
}

// scanNumber reads the number at i and returns its end.
func scanNumber(s []byte, i int) (int, bool) {
	digits := func(i int) (int, bool) {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i, i > start
	}
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else {
		var ok bool
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	if i < len(s) && s[i] == '.' {
		var ok bool
		if i, ok = digits(i + 1); !ok {
			return i, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		var ok bool
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	return i, true
}

// appendUnquoted appends the text of the valid JSON string q (quotes
// included), its escapes decoded as encoding/json decodes them (a lone
// surrogate is U+FFFD; invalid UTF-8 bytes are U+FFFD too).
func appendUnquoted(dst, q []byte) []byte {
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			switch e := s[i+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(s[i+2:])
				i += 6
				if r >= 0xD800 && r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2 := hex4(s[i+2:]); r2 >= 0xDC00 && r2 < 0xE000 {
						dst = utf8.AppendRune(dst, (r-0xD800)<<10+(r2-0xDC00)+0x10000)
						i += 6
						continue
					}
				}
				if r >= 0xD800 && r < 0xE000 {
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // " \ /
				dst = append(dst, e)
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// hex4 is the value of four hex digits.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
