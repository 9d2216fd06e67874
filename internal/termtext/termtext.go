// Package termtext owns the one rule for text bound for a terminal (SPEC 4
// Output): control characters (U+0000–U+001F except tab, U+007F,
// U+0080–U+009F) and bytes that are not valid UTF-8 (a lone 0x9b is an 8-bit
// CSI to many terminals) are shown as \xNN, so neither data nor a script can
// drive the terminal. The table, markdown and plain formats, the errors> lines, the live
// status and the error excerpts of the parser all use it. It imports only the
// standard library, so parser/ and the renderers can share it.
package termtext

import "unicode/utf8"

// Mode says how a line feed is shown. Bytes that are not valid UTF-8 are
// shown as \xNN in every mode (SPEC 4).
type Mode uint8

// The modes.
const (
	// Line: a line feed as \x0a. For one line of data on a terminal.
	Line Mode = iota
	// Cell: a line feed as \n (SPEC 4: a line break in a table cell).
	Cell
	// Source: as Line. For a line of a script shown under an error, which
	// must keep its width.
	Source
	// Message: line feeds kept (a message may span lines).
	Message
)

// IsControl reports whether r is a control character that is shown as \xNN.
func IsControl(r rune) bool { return (r < ' ' && r != '\t') || (r >= 0x7f && r <= 0x9f) }

// escapes reports whether the rune r of size bytes at the start of s is
// rewritten in mode m.
func escapes(r rune, size int, m Mode) bool {
	switch {
	case r == '\n':
		return m != Message
	case r == utf8.RuneError && size == 1:
		return true
	}
	return IsControl(r)
}

// Needs reports whether Append would rewrite any part of s in mode m.
func Needs(s []byte, m Mode) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				if c != '\n' || m != Message {
					return true
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if escapes(r, size, m) {
			return true
		}
		i += size
	}
	return false
}

// Append appends s to dst as mode m shows it: each control character as \xNN
// (NN its code point in lower-case hex), a line feed as m says, a byte that is
// not valid UTF-8 as \xNN (the byte). Other text is
// copied. It allocates only when dst must grow.
func Append(dst, s []byte, m Mode) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' && m == Cell:
				dst = append(dst, '\\', 'n')
			case c == '\n' && m == Message:
				dst = append(dst, c)
			case (c < 0x20 && c != '\t') || c == 0x7f:
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
		case r >= 0x80 && r <= 0x9f:
			dst = append(dst, '\\', 'x', hex[r>>4], hex[r&15])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

// String returns s as Append shows it in mode m, s itself when nothing needs
// rewriting.
func String(s string, m Mode) string {
	if !Needs([]byte(s), m) {
		return s
	}
	return string(Append(nil, []byte(s), m))
}

// Shorten cuts s to its first n characters, marking a cut with "...", for
// quoting user text in a message.
func Shorten(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "..."
		}
		i++
	}
	return s
}
