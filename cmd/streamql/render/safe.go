package render

import "unicode/utf8"

// needsTerminalEscape reports whether s holds a byte that appendTerminal would
// rewrite: a control character of SPEC 4 (U+0000–U+001F except tab, U+007F,
// U+0080–U+009F).
func needsTerminalEscape(s []byte) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r >= 0x80 && r <= 0x9f {
			return true
		}
		i += size
	}
	return false
}

// appendTerminal appends s to dst for a terminal (SPEC 4: the table, markdown
// and plain formats and the errors> lines on stderr): every control character
// (U+0000–U+001F except tab, U+007F, U+0080–U+009F) shows as \xNN, NN its code
// in lower-case hex, so data never drives the terminal; in a table cell (cell
// true) a line feed shows as \n instead. Other text is copied, bytes that are
// not valid UTF-8 too (SPEC 1: raw input bytes are kept as they are).
// It allocates only when dst must grow.
func appendTerminal(dst, s []byte, cell bool) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' && cell:
				dst = append(dst, '\\', 'n')
			case (c < 0x20 && c != '\t') || c == 0x7f:
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r >= 0x80 && r <= 0x9f {
			dst = append(dst, '\\', 'x', hex[r>>4], hex[r&15])
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

// terminalString returns s as appendTerminal shows it, s itself when nothing
// needs escaping (cell: a table cell, a line feed as \n).
func terminalString(s string, cell bool) string {
	if !needsTerminalEscape([]byte(s)) {
		return s
	}
	return string(appendTerminal(nil, []byte(s), cell))
}
