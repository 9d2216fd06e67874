package render

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
)

// The live table (SPEC 2.8, Flink SQL client's table mode): while a job
// runs, the materialized results of its updating outputs are redrawn in
// place on a terminal: the cursor moves up over the lines drawn last time
// and draws the current result over them (live). The
// cursor-up count is exact only when every line drawn takes one line of the
// screen and the whole drawing is on the screen, so a frame fits the
// terminal (Config.Size, read at each redraw, so a resized terminal gets
// frames of its new size):
//   - at most height-1-Config.Reserve lines (the cursor's own line and the
//     live status's lines under the table stay free, so nothing scrolls
//     while the frame is redrawn);
//   - when the result is taller, a page: the first rows of each table in
//     their places (a GROUP BY's groups in the order of their first rows; a
//     Top-N's rows where their ranks were first filled, rank order for a
//     global Top-N with its rank column: the sink does not know the rank
//     order, so the page is not sorted by it), rows left out of the last
//     tables first, and a last line saying how many rows are not shown;
//   - no line is wider than the terminal's width less one column: a longer
//     line is cut and ends in "…" (never the last column, as the live
//     status: no terminal wraps it).
//
// When the job ends the frame is erased and the final result printed once,
// whole (renderTables), so the scrollback holds the final table and no frame.

// liveMore is the marker at the end of a line cut to the terminal's width.
const liveMore = "…"

// live redraws the materialized results of s's outputs on the terminal:
// the cursor goes up to the first line of the frame drawn last time, and
// the current frame (livePage) is drawn over it, each line cleared to its
// end, then the screen below it (what is left of a taller frame). The
// screen is never cleared from its top-left corner, which tmux (its
// scroll-on-clear option, on by default) would push into the scrollback
// whole. final only erases the frame (eraseLive): the final table replaces
// it.
func (s *sink) live(final bool) error {
	if final {
		s.eraseLive()
		return nil
	}
	up := s.liveUp()
	cols, rows := s.termSize()
	height := 0 // (unknown: no limit)
	if rows > 0 {
		height = max(rows-1-s.cfg.Reserve, 1)
	}
	frame, lines, err := s.livePage(cols, height)
	if err != nil {
		return err
	}
	if up > 0 {
		fmt.Fprintf(s.cfg.Stdout, "\x1b[%dA", up)
	}
	s.liveLines, s.liveCols, s.liveRows = lines, cols, rows
	s.liveDirty = false
	if _, err = s.cfg.Stdout.Write(frame); err == nil && up > 0 {
		_, err = s.cfg.Stdout.WriteString("\x1b[J") // (below the frame: never the top-left corner)
	}
	return err
}

// termSize returns the terminal's width and height (Config.Size), 0, 0
// when unknown.
func (s *sink) termSize() (cols, rows int) {
	if s.cfg.Size == nil {
		return 0, 0
	}
	return s.cfg.Size()
}

// liveUp returns the lines the cursor goes up to reach the first line of
// the frame on the screen (0 when none is) and forgets the frame. When the
// terminal has narrowed since the frame was drawn, a terminal that reflows
// its lines (tmux, VTE's, iTerm2, kitty) has wrapped each line wider than
// it: the cursor goes up over the wrapped lines too.
func (s *sink) liveUp() int {
	up := s.liveLines
	if cols, _ := s.termSize(); up > 0 && cols > 0 && cols < s.liveCols {
		up = 0
		for _, w := range s.liveWidths {
			up += max(1, (w+cols-1)/cols)
		}
	}
	s.liveLines = 0
	return up
}

// eraseLive erases the live table's frame, when one is on the screen: the
// cursor goes up to its first line, each of its lines is cleared, and the
// cursor goes back up there, where what is written next starts (as in live,
// never an erase from the screen's top-left corner).
func (s *sink) eraseLive() {
	up := s.liveUp()
	if up == 0 {
		return
	}
	b := fmt.Appendf(s.liveFrame[:0], "\x1b[%dA", up)
	for range up {
		b = append(b, "\x1b[2K\n"...)
	}
	b = fmt.Appendf(b, "\x1b[%dA", up)
	s.cfg.Stdout.Write(b)
	s.liveFrame = b[:0]
}

// liveResized reports whether the terminal's size changed since the live
// table's frame was drawn (it is then drawn again for the new size).
func (s *sink) liveResized() bool {
	if s.liveLines == 0 || s.cfg.Size == nil {
		return false
	}
	cols, rows := s.cfg.Size()
	return cols != s.liveCols || rows != s.liveRows
}

// livePage returns the frame of the live table for a terminal of cols
// columns, at most height lines (each 0 when unknown: no limit), each line
// ending in LF, and its number of lines. It keeps its buffers in s from
// frame to frame.
func (s *sink) livePage(cols, height int) ([]byte, int, error) {
	mats := s.liveMats[:0]
	for _, t := range s.outs {
		if t.mat != nil {
			mats = append(mats, t)
		}
	}
	s.liveMats = mats
	for len(s.livePages) < len(mats) {
		s.livePages = append(s.livePages, tableRows{})
	}
	limit := -1
	if height > 0 {
		limit = height // (no more rows than lines can show)
	}
	shown := s.liveShown[:0]
	total, hidden := 0, 0
	for i, t := range mats {
		tr := &s.livePages[i]
		tr.reset()
		t.mat.fill(tr, true, limit)
		shown = append(shown, tr.n)
		total += t.mat.live
		hidden += t.mat.live - tr.n
	}
	s.liveShown = shown
	buf := &s.liveBuf
	for {
		buf.Reset()
		for i, t := range mats {
			tr := &s.livePages[i]
			n := tr.n
			tr.n = shown[i]
			err := writeTable(buf, s.cfg.Format, s.liveTitle(t), t.cols, tr)
			tr.n = n
			if err != nil {
				return nil, 0, err
			}
		}
		need := bytes.Count(buf.Bytes(), []byte{'\n'})
		if hidden > 0 {
			need++ // the line that says how many rows are not shown
		}
		if height <= 0 || need <= height {
			break
		}
		// leave out rows, the last tables' first: each row is one line (a
		// cell shows a line feed as \n), and the line saying so joins
		drop := need - height
		if hidden == 0 {
			drop++
		}
		left := 0
		for i := len(shown) - 1; i >= 0 && drop > 0; i-- {
			n := min(shown[i], drop)
			shown[i] -= n
			drop -= n
			left += n
		}
		if left == 0 {
			break // (the headers alone do not fit: the frame is cut below)
		}
		hidden += left
	}
	return s.liveFit(buf.Bytes(), cols, height, hidden, total)
}

// liveTitle is the title of output t's table in the live frame: its name
// when the job has side outputs, as the final tables (renderTables).
func (s *sink) liveTitle(t *target) string {
	if s.hasSides {
		return t.name
	}
	return ""
}

// liveFit returns the frame of the drawn tables text (lines ending in LF)
// cut to the terminal: each line to cols columns (fitLine) and cleared to
// its end (ESC [K, over the last frame's line), at most height lines, the last of them saying how many of the total rows are hidden (or,
// when the headers alone do not fit, that the table does not), and its
// number of lines.
func (s *sink) liveFit(text []byte, cols, height, hidden, total int) ([]byte, int, error) {
	lines := bytes.Count(text, []byte{'\n'})
	footer := hidden > 0 || height > 0 && lines > height
	keep := lines
	if footer && height > 0 {
		keep = min(lines, height-1)
	}
	out := s.liveFrame[:0]
	widths := s.liveWidths[:0]
	opts, _, narrowBox := widthOptions()
	var w int
	for range keep {
		j := bytes.IndexByte(text, '\n')
		out, w = fitLine(out, text[:j], cols, opts, narrowBox)
		out = append(out, "\x1b[K\n"...) // (over the last frame's line)
		widths = append(widths, w)
		text = text[j+1:]
	}
	if footer {
		var msg string
		if hidden > 0 {
			msg = fmt.Sprintf("%s %d of %d rows not shown: the whole result prints when the job ends", liveMore, hidden, total)
		} else {
			msg = fmt.Sprintf("%s the table does not fit in %d lines: it prints whole when the job ends", liveMore, height)
		}
		out, w = fitLine(out, []byte(msg), cols, opts, narrowBox)
		out = append(out, "\x1b[K\n"...)
		widths = append(widths, w)
		keep++
	}
	s.liveFrame, s.liveWidths = out, widths
	return out, keep, nil
}

// fitLine appends line (no LF, no control character but tabs) to dst,
// cut to at most cols-1 display columns when it is wider, ending then in
// liveMore; cols 0 (unknown) appends it whole. It returns dst and the
// width of what it appended (0 when cols is 0). Widths are cellWidth's (the
// table's own measure, opts and narrowBox from widthOptions); a tab
// advances to the next multiple of 8, as a terminal's tab stops.
func fitLine(dst, line []byte, cols int, opts displaywidth.Options, narrowBox bool) ([]byte, int) {
	if cols <= 0 {
		return append(dst, line...), 0
	}
	room := cols - 1
	r, _ := utf8.DecodeRuneInString(liveMore)
	more := runeCols(r, opts, narrowBox)
	w, cut, cutW := 0, -1, 0 // cut: where the line is cut when it is too wide, cutW its width there
	for i := 0; i < len(line); {
		c := line[i]
		n, size := 1, 1
		switch {
		case c == '\t':
			n = 8 - w%8
		case c >= utf8.RuneSelf:
			var r rune
			r, size = utf8.DecodeRune(line[i:])
			n = runeCols(r, opts, narrowBox)
		}
		if cut < 0 && w+n > room-more {
			cut, cutW = i, w
		}
		if w += n; w > room {
			return append(append(dst, line[:cut]...), liveMore...), cutW + more
		}
		i += size
	}
	return append(dst, line...), w
}
