package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Position returns the 1-based line and column of byte offset off in src. Columns
// count characters (code points), not bytes. An offset outside src is clamped to
// it; an offset inside a UTF-8 sequence points at that character.
func Position(src string, off int) (line, col int) {
	off = clampOffset(src, off)
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	return strings.Count(src[:off], "\n") + 1, utf8.RuneCountInString(src[lineStart:off]) + 1
}

// FormatError renders e, an error in src (the text of the script named
// scriptName), for a user (SPEC 4): the message first, then the position, the
// source line (tabs kept, a trailing CR dropped) and a caret under the offending
// token, without a trailing newline:
//
//	<msg>
//	line L, column C of <scriptName>:
//	  <source line>
//	  <padding>^
//
// L and C are 1-based, C in characters. The padding has the display width of the
// line before the token (CJK characters are two columns wide; a tab stays a tab).
// With an empty scriptName the second line reads "line L, column C:". An Offset
// outside src is clamped to it. e must not be nil.
func FormatError(scriptName, src string, e *Error) string {
	off := clampOffset(src, e.Offset)
	line, col := Position(src, off)
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	lineEnd := len(src)
	if i := strings.IndexByte(src[lineStart:], '\n'); i >= 0 {
		lineEnd = lineStart + i
	}
	text := strings.TrimSuffix(src[lineStart:lineEnd], "\r")
	var pad strings.Builder
	for _, r := range src[lineStart:off] {
		switch {
		case r == '\t':
			pad.WriteByte('\t')
		case r < ' ' || r == utf8.RuneError:
			pad.WriteByte(' ')
		default:
			pad.WriteString(strings.Repeat(" ", runewidth.RuneWidth(r)))
		}
	}
	where := fmt.Sprintf("line %d, column %d", line, col)
	if scriptName != "" {
		where += " of " + scriptName
	}
	return fmt.Sprintf("%s\n%s:\n  %s\n  %s^", e.Msg, where, text, pad.String())
}

// clampOffset moves off into [0, len(src)] and back to the start of the UTF-8
// sequence it falls in.
func clampOffset(src string, off int) int {
	off = min(max(off, 0), len(src))
	for k := 0; k < utf8.UTFMax-1 && off > 0 && off < len(src) && !utf8.RuneStart(src[off]); k++ {
		off--
	}
	return off
}
