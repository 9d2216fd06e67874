package cli

import (
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// A long paste at the prompt (issue 30: readline redraws the whole line at
// each character, so a 20 KB line took 36 s and 1 MB hours): pasteIn, under
// readline, takes each run of at least pasteMin plain bytes (no control
// character, no DEL) that one read of the terminal gives, hands readline one
// pasteRune in its place, and the REPL's listener (pasteIn.onKey) puts the
// run's text where that rune landed. A run that reaches the end of a read is
// held while the terminal gives more within pasteGap, so that a paste, which a
// terminal hands over a few KiB a read, is one run and one redraw: readline
// redraws the whole line per key, and a redraw per read was still quadratic
// (a 256 KB paste took 4 s). What is typed comes a few bytes a read and
// passes through as it is.

// pasteMin is the shortest run of plain bytes taken as pasted.
const pasteMin = 128

// pasteGap is how long a long run that reached the end of a read waits for
// the terminal's next bytes before it is taken as whole. A terminal or tmux
// writes a paste back to back; typing never makes a run of pasteMin bytes.
const pasteGap = 30 * time.Millisecond

// pasteRune stands for a pasted run in readline's input (a private-use code
// point, never typed).
const pasteRune = '\uE000'

// pasteIn is the terminal's input with long pasted runs set aside (above).
type pasteIn struct {
	io.ReadCloser
	more func() bool // whether the terminal gives more input within pasteGap, or nil
	mu   sync.Mutex
	runs [][]rune // the runs read and not yet put in the line, in order
	held []byte   // a run that reached the end of a read with more to come
}

// Read reads the terminal and replaces each long run of plain bytes that ends
// on a whole UTF-8 character with pasteRune (the output is never longer); a
// run that reaches the end of a read while the terminal holds more is held
// and joined with the next read's first run, so that a paste is one run.
func (p *pasteIn) Read(b []byte) (int, error) {
	for {
		n, err := p.ReadCloser.Read(b)
		k, i := 0, 0
		for i < n {
			j := i
			for j < n && b[j] >= 0x20 && b[j] != 0x7f {
				j++
			}
			if j == n && err == nil && p.more != nil && len(p.held)+j-i >= pasteMin && p.more() {
				p.held = append(p.held, b[i:j]...) // more of it to come
				i = j
				break
			}
			end := j
			for end > i && !utf8.FullRune(b[lastStart(b[i:end])+i:end]) {
				end = lastStart(b[i:end]) + i // (a character cut by the read passes through)
			}
			if len(p.held)+end-i >= pasteMin || len(p.held) > 0 {
				run := append(p.held, b[i:end]...)
				p.held = nil
				if len(run) >= pasteMin {
					p.mu.Lock()
					p.runs = append(p.runs, []rune(string(run)))
					p.mu.Unlock()
					k += utf8.EncodeRune(b[k:], pasteRune)
				} else {
					k += copy(b[k:], run) // (held: shorter than what it replaces)
				}
				i = end
			}
			k += copy(b[k:], b[i:j])
			i = j
			for i < n && (b[i] < 0x20 || b[i] == 0x7f) {
				b[k] = b[i]
				k, i = k+1, i+1
			}
		}
		if k > 0 || err != nil || len(p.held) == 0 {
			return k, err
		}
	}
}

// lastStart returns the index of the start of b's last UTF-8 character.
func lastStart(b []byte) int {
	i := len(b) - 1
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return max(i, 0)
}

// onKey is the REPL's readline listener: a pasteRune just put in the line
// becomes the run it stands for; other keys go to next.
func (p *pasteIn) onKey(next func([]rune, int, rune) ([]rune, int, bool)) func([]rune, int, rune) ([]rune, int, bool) {
	return func(line []rune, pos int, key rune) ([]rune, int, bool) {
		if key != pasteRune || pos < 1 || pos > len(line) || line[pos-1] != pasteRune {
			return next(line, pos, key)
		}
		p.mu.Lock()
		if len(p.runs) == 0 {
			p.mu.Unlock()
			return next(line, pos, key)
		}
		run := p.runs[0]
		p.runs = p.runs[1:]
		p.mu.Unlock()
		out := make([]rune, 0, len(line)-1+len(run))
		out = append(append(append(out, line[:pos-1]...), run...), line[pos:]...)
		return out, pos - 1 + len(run), true
	}
}
