package render

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hinshun/vt10x"

	"streamql/internal/session"
)

// vtScreen is a terminal model (hinshun/vt10x, an xterm-like VT emulator:
// autowrap with a pending wrap at the last column, scrolling at the bottom
// line) fed the exact bytes a sink writes, as a tty with ONLCR passes them
// (LF as CR LF).
type vtScreen struct {
	vt         vt10x.Terminal
	cols, rows int
	out        bytes.Buffer // what the sink wrote, not yet fed
	fed        string       // what was fed last
}

func newVTScreen(cols, rows int) *vtScreen {
	return &vtScreen{vt: vt10x.New(vt10x.WithSize(cols, rows)), cols: cols, rows: rows}
}

func (v *vtScreen) Write(b []byte) (int, error) { return v.out.Write(b) }

// feed passes what was written since the last feed (whole runes: the sink's
// writer has been flushed) to the terminal model.
func (v *vtScreen) feed(t *testing.T) {
	t.Helper()
	v.fed = v.out.String()
	b := bytes.ReplaceAll(v.out.Bytes(), []byte("\n"), []byte("\r\n"))
	v.out.Reset()
	// an erase to the end of the screen never starts at its top-left
	// corner: tmux (scroll-on-clear, on by default) would push the whole
	// screen into the scrollback
	for i, part := range bytes.Split(b, []byte("\x1b[J")) {
		if i > 0 {
			v.vt.Lock()
			c := v.vt.Cursor()
			v.vt.Unlock()
			if c.X == 0 && c.Y == 0 {
				t.Fatalf("the screen is cleared from its top-left corner (ESC [J there): tmux pushes it whole into the scrollback")
			}
			part = append([]byte("\x1b[J"), part...)
		}
		if n, err := v.vt.Write(part); err != nil || n != len(part) {
			t.Fatalf("terminal model took %d of %d bytes: %v", n, len(part), err)
		}
	}
}

// lines returns the screen's lines, trailing blanks left out.
func (v *vtScreen) lines() []string {
	v.vt.Lock()
	defer v.vt.Unlock()
	var out []string
	for y := 0; y < v.rows; y++ {
		var b strings.Builder
		for x := 0; x < v.cols; x++ {
			c := v.vt.Cell(x, y).Char
			if c == 0 {
				c = ' '
			}
			b.WriteRune(c)
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

func (v *vtScreen) cursorY() int {
	v.vt.Lock()
	defer v.vt.Unlock()
	return v.vt.Cursor().Y
}

// refTable is the test's own materialized result: keys in their places (a
// new key at the end, an update in place, a delete taken out) and each
// key's count.
type refTable struct {
	keys []string
	n    map[string]int
}

// step makes one random change to r and returns it as a changelog batch
// (SPEC 2.8's kinds, as an unbounded GROUP BY emits them).
func (r *refTable) step(rng *rand.Rand, next *int) *session.Batch {
	switch p := rng.Intn(10); {
	case p < 4 || len(r.keys) == 0: // a new group
		*next++
		k := "k" + strconv.Itoa(*next) + "-" + strings.Repeat("x", rng.Intn(40))
		r.keys = append(r.keys, k)
		r.n[k] = 1
		return changeBatch(k, 1, session.Insert)
	case p < 9: // a group's count changes in place
		k := r.keys[rng.Intn(len(r.keys))]
		old := r.n[k]
		r.n[k]++
		return changeBatch(k, old, session.UpdateBefore, k, old+1, session.UpdateAfter)
	default: // a group goes
		i := rng.Intn(len(r.keys))
		k := r.keys[i]
		r.keys = slices.Delete(r.keys, i, i+1)
		old := r.n[k]
		delete(r.n, k)
		return changeBatch(k, old, session.Delete)
	}
}

// cutRef is the test's own cut of a line to cols columns (every rune of
// these tables is one column wide): never the last column, a cut line
// ending in "…".
func cutRef(line string, cols int) string {
	if utf8.RuneCountInString(line) <= cols-1 {
		return line
	}
	return string([]rune(line)[:cols-2]) + "…"
}

// TestLiveTableFitsTerminal: the live table (SPEC 2.8, issue 24 item 3) fed
// to a VT emulator over many random updates of a result taller and wider
// than the terminal. After each redraw the screen holds exactly the current
// result's first page in the emulator: the frame starts where the first one
// did, its rows are the first rows of a separately kept materialized result,
// as many as fit in the terminal's height less one line (less the live
// status's lines, Reserve), a last line counts the rows not shown, and the
// cursor is on the line under it; so no redraw scrolled, and no frame went
// into the scrollback. A narrow terminal shows the same lines cut to its
// width less one column, ending in "…" (no line wraps). Rows of another
// table printed while the live table is up (the errors output) go above
// it, and the frame is drawn again under them. When the job ends, the
// final table is printed once, whole.
func TestLiveTableFitsTerminal(t *testing.T) {
	for _, tc := range []struct {
		rows, reserve int
		start         string // written before the job: where its output begins
	}{
		{24, 0, "$ streamql q.sql\n"},        // at the top of the screen
		{24, 3, strings.Repeat("old\n", 30)}, // at the bottom, the status's 3 lines kept free
		{24, 0, strings.Repeat("old\n", 30)}, // at the bottom: the full frame starts on the top line
		{12, 0, strings.Repeat("old\n", 5)},  // in the middle of a small screen
		{8, 2, "$ streamql q.sql\n"},         // a page of one row
	} {
		t.Run(fmt.Sprintf("%dlines-reserve%d", tc.rows, tc.reserve), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(tc.rows*10 + tc.reserve)))
			wide, narrow := newVTScreen(200, tc.rows), newVTScreen(40, tc.rows)
			var sinks []session.Sink
			var writers []*bufio.Writer
			for _, v := range []*vtScreen{wide, narrow} {
				v.Write([]byte(tc.start))
				v.feed(t)
				w := bufio.NewWriter(v)
				cols, rows := v.cols, v.rows
				s, err := NewSink(Config{Format: "table", Stdout: w, Stderr: w, Files: NewFileSet(), Terminal: true, Every: time.Nanosecond,
					Size: func() (int, int) { return cols, rows }, Reserve: tc.reserve}, updatingJob())
				if err != nil {
					t.Fatal(err)
				}
				sinks, writers = append(sinks, s), append(writers, w)
			}
			ref := &refTable{n: map[string]int{}}
			next := 0
			height := tc.rows - 1 - tc.reserve
			top := -1          // the row of the frame's first line
			var above []string // the screen above the frame, as the first frame left it
			for step := 0; step < 300; step++ {
				b := ref.step(rng, &next)
				errs := step%50 == 49 // an errors row: a table of its own, printed above the live one
				for k, s := range sinks {
					if err := s.Rows(b); err != nil {
						t.Fatal(err)
					}
					if errs {
						if err := s.Errors("errors", []session.ErrorRow{{Stream: "s", Position: "line " + strconv.Itoa(step), Raw: []byte("bad"), Error: "not a number"}}); err != nil {
							t.Fatal(err)
						}
					}
					if err := s.Flush(); err != nil {
						t.Fatal(err)
					}
					writers[k].Flush()
				}
				wide.feed(t)
				narrow.feed(t)
				// the expected page: the first rows of the result
				total := len(ref.keys)
				shown, footer := total, false
				if total+4 > height {
					shown, footer = max(height-5, 0), true
				}
				frame := 3 + shown
				if shown > 0 {
					frame++
				}
				if footer {
					frame++
				}
				screen := wide.lines()
				cur := wide.cursorY()
				at := cur - frame // the row of the frame's first line
				if at < 0 {
					t.Fatalf("step %d: the frame's %d lines are not all on the %d-line screen:\n%s", step, frame, tc.rows, strings.Join(screen, "\n"))
				}
				if top < 0 || errs { // the first frame, or the first under the errors table
					top, above = at, slices.Clone(screen[:at])
					// (the errors table is above the frame, or scrolled into
					// the scrollback when the frame takes the whole screen)
					fed := wide.fed
					erase, row, head := strings.Index(fed, "\x1b[J"), strings.Index(fed, "line "+strconv.Itoa(step)), strings.LastIndex(fed, "│ k ")
					if errs && !(erase >= 0 && erase < row && row < head) {
						t.Fatalf("step %d: the frame is not erased, the errors table written, then the frame drawn under it:\n%q", step, fed)
					}
				}
				// a frame taller than the last one may scroll the screen, so
				// lines above the frame go into the scrollback, but never
				// a frame's: the frame starts no lower than the last one, and
				// the screen above it holds the last lines of what was above
				// the last one
				if at > top || !slices.Equal(screen[:at], above[top-at:]) {
					t.Fatalf("step %d: the frame of %d lines starts on line %d (the last one on %d), cursor on line %d; screen:\n%s\nwant above it the end of\n%s",
						step, frame, at, top, cur, strings.Join(screen, "\n"), strings.Join(above, "\n"))
				}
				top, above = at, above[top-at:]
				got := screen[top : top+frame]
				var cells [][]string
				for _, l := range got {
					if strings.HasPrefix(l, "│") {
						var row []string
						for _, c := range strings.Split(strings.Trim(l, "│"), "│") {
							row = append(row, strings.TrimSpace(c))
						}
						cells = append(cells, row)
					}
				}
				want := [][]string{{"k", "n"}}
				for _, k := range ref.keys[:shown] {
					want = append(want, []string{k, strconv.Itoa(ref.n[k])})
				}
				if !slices.EqualFunc(cells, want, slices.Equal) || !strings.HasPrefix(got[0], "┌") || !strings.HasPrefix(got[len(got)-1-b2i(footer)], "└") {
					t.Fatalf("step %d: the screen shows\n%s\nwant the first %d of the %d rows %v", step, strings.Join(got, "\n"), shown, total, want)
				}
				if footer {
					if l, w := got[len(got)-1], fmt.Sprintf("… %d of %d rows not shown", total-shown, total); !strings.HasPrefix(l, w) {
						t.Fatalf("step %d: last line %q, want it to start %q", step, l, w)
					}
				}
				for y, l := range screen[top+frame:] {
					if l != "" {
						t.Fatalf("step %d: line %d under the frame holds %q (a stale drawing)", step, top+frame+y, l)
					}
				}
				// the narrow screen: the same lines, cut to 39 columns
				nscreen := narrow.lines()
				if ncur := narrow.cursorY(); ncur != cur {
					t.Fatalf("step %d: on 40 columns the cursor is on line %d, on 200 on line %d:\n%s", step, ncur, cur, strings.Join(nscreen, "\n"))
				}
				for y := top; y < top+frame; y++ {
					if w := cutRef(screen[y], narrow.cols); nscreen[y] != w {
						t.Fatalf("step %d: line %d on 40 columns is\n%q\nwant\n%q", step, y, nscreen[y], w)
					}
				}
			}
			// the end: the final table once, whole, after the last erasure
			var final bytes.Buffer
			fw := bufio.NewWriter(&final)
			ps, err := NewSink(Config{Format: "table", Stdout: fw, Stderr: fw, Files: NewFileSet()}, updatingJob())
			if err != nil {
				t.Fatal(err)
			}
			var rows []any
			for _, k := range ref.keys {
				rows = append(rows, k, ref.n[k], session.Insert)
			}
			if err := ps.Rows(changeBatch(rows...)); err != nil {
				t.Fatal(err)
			}
			ps.Close()
			for k, s := range sinks {
				v := []*vtScreen{wide, narrow}[k]
				v.out.Reset()
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				out := v.out.String()
				erase, ok := strings.CutSuffix(out, final.String())
				if m := liveErase.FindStringSubmatch(erase); !ok || m == nil || strings.Count(m[2], "\n") != atoiT(t, m[1]) || m[1] != m[3] {
					t.Fatalf("at the end: got\n%q\nwant the frame erased (the cursor up to its first line, each line cleared, back up), then the final table whole\n%q", out, final.String())
				}
			}
		})
	}
}

// liveErase is what erases the live table at the end: the cursor up to the
// frame's first line, each line cleared, and back up.
var liveErase = regexp.MustCompile("^\x1b\\[(\\d+)A((?:\x1b\\[2K\n)+)\x1b\\[(\\d+)A$")

func atoiT(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkLiveRedraw: one redraw of the live table (SPEC 2.8) of an
// unbounded GROUP BY's 100,000 groups, on a 100x24 terminal (a page: the
// first rows and the line counting the rest) and with no size known (the
// whole table, as every redraw drew it before the page):
//
//	go test ./cmd/streamql/render -run XXX -bench LiveRedraw -benchmem
func BenchmarkLiveRedraw(b *testing.B) {
	for _, tc := range []struct {
		name string
		size func() (int, int)
	}{{"page-100x24", func() (int, int) { return 100, 24 }}, {"whole", nil}} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := NewSink(Config{Format: "table", Stdout: bufio.NewWriter(io.Discard), Stderr: io.Discard, Files: NewFileSet(), Terminal: true, Every: time.Hour, Size: tc.size}, updatingJob())
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < 100000; i += 1000 {
				var rows []any
				for k := i; k < i+1000; k++ {
					rows = append(rows, "key-"+strconv.Itoa(k), k, session.Insert)
				}
				if err := s.Rows(changeBatch(rows...)); err != nil {
					b.Fatal(err)
				}
			}
			ls := s.(*sink)
			b.ReportAllocs()
			for b.Loop() {
				ls.liveLines = 0 // (nothing to erase: the frame alone)
				if err := ls.live(false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFitLine: a line of the live table is cut to the terminal's width less
// one column, measured as the table measures its cells (East Asian wide
// runes 2 columns) and a tab to the next multiple of 8, and a cut line
// ends in "…" within that width; a wide rune is never split.
func TestFitLine(t *testing.T) {
	opts, _, narrowBox := widthOptions()
	for _, tc := range []struct {
		line      string
		cols      int
		want      string
		wantWidth int
	}{
		{"abcdef", 0, "abcdef", 0},  // width unknown: whole
		{"abcdef", 7, "abcdef", 6},  // fits in cols-1
		{"abcdefg", 7, "abcde…", 6}, // one too wide: cut, the marker in the last column but one
		{"设备设备", 9, "设备设备", 8},      // 8 columns of 2-column runes fit in 8
		{"设备设备x", 9, "设备设…", 7},     // cut before a wide rune that would pass the width
		{"a\tb", 10, "a\tb", 9},     // the tab goes to column 8
		{"a\tbc", 10, "a\t…", 9},    // (8 + 2 > 9)
		{"│ k │ n │", 10, "│ k │ n │", 9},
	} {
		got, w := fitLine(nil, []byte(tc.line), tc.cols, opts, narrowBox)
		if string(got) != tc.want || w != tc.wantWidth {
			t.Errorf("fitLine(%q, %d) = %q (%d columns), want %q (%d)", tc.line, tc.cols, got, w, tc.want, tc.wantWidth)
		}
	}
}
