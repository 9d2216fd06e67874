package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"streamql/internal/termtext"
)

// Position returns the 1-based line and column of byte offset off in src. Columns
// count characters (code points), not bytes. An offset outside src is clamped to
// it; an offset inside a UTF-8 sequence points at that character.
func Position(src string, off int) (line, col int) {
	off = clampOffset(src, off)
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	return strings.Count(src[:off], "\n") + 1, utf8.RuneCountInString(src[lineStart:off]) + 1
}

// Width of the source excerpt FormatError shows, in terminal columns: a longer
// line is cut to about this much around the caret, with … where it is cut.
const (
	excerptWidth = 80
	excerptLeft  = 40 // columns before the caret when the line is cut on both sides
)

// FormatError renders e, an error in src (the text of the script named
// scriptName), for a user (SPEC 4): the message first, then the position, the
// source line (tabs kept, a trailing CR dropped) and a caret under the offending
// token, without a trailing newline:
//
//	<msg>
//	<scriptName>, line L, column C:
//	  <source line>
//	  <padding>^
//
// L and C are 1-based, C in characters. When e.File is set and is another script
// than src (a stream's WATERMARK declared in another file), e is rendered against
// e.File's name and text instead. With an empty name the second line reads
// "line L, column C:". A line wider than about 80 columns is shown as a window of
// about 80 columns around the caret, with … where it is cut. Control characters
// (U+0000–U+001F but tab, U+007F–U+009F) and invalid UTF-8 in the line and the
// message are shown as \xNN, so a script never drives the terminal. The padding
// has the display width of what the excerpt shows before the token (CJK
// characters are two columns wide; a tab stays a tab). An Offset outside the text
// is clamped to it. e must not be nil.
func FormatError(scriptName, src string, e *Error) string {
	if e.File != nil && e.File.src != src {
		scriptName, src = e.File.name, e.File.src
	}
	off := clampOffset(src, e.Offset)
	lineStart := strings.LastIndexByte(src[:off], '\n') + 1
	lineEnd := len(src)
	if i := strings.IndexByte(src[lineStart:], '\n'); i >= 0 {
		lineEnd = lineStart + i
	}
	text := strings.TrimSuffix(src[lineStart:lineEnd], "\r")
	shown, pad := excerptLine(text, min(off-lineStart, len(text)))
	where := Pos{File: NewFile(scriptName, src), Offset: off}.String()
	return fmt.Sprintf("%s\n%s:\n  %s\n  %s^", termtext.String(e.Msg, termtext.Message), where, shown, pad)
}

// excerptLine returns the part of line shown in an error (all of it when it is at
// most excerptWidth columns wide, else a window around byte k with … marks) with
// control characters escaped, and the padding that puts a caret under byte k.
func excerptLine(line string, k int) (shown, pad string) {
	from, to := 0, len(line)
	if width(line, excerptWidth+1) > excerptWidth {
		// walk left from the caret, then right, within the budget
		left := 0
		from = k
		for from > 0 {
			r, n := utf8.DecodeLastRuneInString(line[:from])
			w := cellWidth(r, n)
			if left+w > excerptLeft-1 {
				break
			}
			left += w
			from -= n
		}
		right := 0
		budget := excerptWidth - 2 - left
		to = k
		for to < len(line) {
			r, n := utf8.DecodeRuneInString(line[to:])
			w := cellWidth(r, n)
			if right+w > budget {
				break
			}
			right += w
			to += n
		}
		if from == 0 { // room left over on the left goes to the right
			for to < len(line) {
				r, n := utf8.DecodeRuneInString(line[to:])
				w := cellWidth(r, n)
				if left+right+w > excerptWidth-1 {
					break
				}
				right += w
				to += n
			}
		}
	}
	var s, p strings.Builder
	if from > 0 {
		s.WriteString("…")
		p.WriteByte(' ')
	}
	s.WriteString(termtext.String(line[from:k], termtext.Source))
	for i := from; i < k; {
		r, n := utf8.DecodeRuneInString(line[i:])
		if r == '\t' {
			p.WriteByte('\t')
		} else {
			p.WriteString(strings.Repeat(" ", cellWidth(r, n)))
		}
		i += n
	}
	s.WriteString(termtext.String(line[k:to], termtext.Source))
	if to < len(line) {
		s.WriteString("…")
	}
	return s.String(), p.String()
}

// width returns the display width of s as excerptLine shows it, stopping once it
// reaches limit.
func width(s string, limit int) int {
	w := 0
	for i := 0; i < len(s) && w < limit; {
		r, n := utf8.DecodeRuneInString(s[i:])
		w += cellWidth(r, n)
		i += n
	}
	return w
}

// cellWidth is the display width of the character r (n bytes; RuneError with n ==
// 1 is an invalid byte) in an excerpt: 4 for an escaped \xNN, 1 for a tab (the
// padding keeps the tab itself), else its terminal width.
func cellWidth(r rune, n int) int {
	switch {
	case (r == utf8.RuneError && n == 1) || termtext.IsControl(r):
		return 4
	case r == '\t':
		return 1
	}
	return runewidth.RuneWidth(r)
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
