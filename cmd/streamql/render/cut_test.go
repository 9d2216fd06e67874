package render

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// closingWriter accepts k bytes, then fails with EPIPE, reporting the bytes
// of the failing write that got through (write(2) on a pipe whose reader
// went away after k bytes).
type closingWriter struct{ n, k int }

func (w *closingWriter) Write(p []byte) (int, error) {
	if w.n+len(p) <= w.k {
		w.n += len(p)
		return len(p), nil
	}
	n := max(0, w.k-w.n)
	w.n += n
	return n, syscall.EPIPE
}

// TestCutLogModel checks the cut's log (cut.go) against a model: random
// sequences of main rows and side rows of random lengths, stdout behind a
// small buffer over a writer that takes k bytes, the side files behind
// buffers of their own, flushes and prunes at random places (the log's
// first capacity is 1, so mainRow prunes often). At the end each side file's
// kept length must be its header and its rows routed before the last main
// row whose bytes were all accepted.
func TestCutLogModel(t *testing.T) {
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 3))
		k := r.IntN(3000)
		out := &WriteCounter{W: &closingWriter{k: k}}
		w := bufio.NewWriterSize(out, 16+r.IntN(300))
		header := r.IntN(20)
		w.Write(make([]byte, header)) // the main header
		c := &cutLog{out: out, w: w, ends: make([]int64, 0, 1)}
		type sideRow struct {
			mains int // main rows routed before it
			end   int64
		}
		ns := 1 + r.IntN(3)
		sides, headers := make([][]sideRow, ns), make([]int64, ns)
		for s := range ns {
			cw := &WriteCounter{W: io.Discard}
			f := &target{cw: cw, w: bufio.NewWriterSize(cw, 16+r.IntN(100))}
			f.w.Write(make([]byte, r.IntN(10))) // its header
			f.tag, f.base, headers[s] = c.tag(), cutLen{n: f.length()}, f.length()
			c.files = append(c.files, f)
		}
		var mainEnds []int64
		mainAt := int64(header)
		events := r.IntN(400)
		for range events {
			line := make([]byte, 1+r.IntN(40))
			switch x := r.IntN(10); {
			case x < 4:
				w.Write(line)
				c.mainRow()
				mainAt += int64(len(line))
				mainEnds = append(mainEnds, mainAt)
			case x < 9:
				s := r.IntN(ns)
				f := c.files[s]
				c.sideRow(f, c.tag())
				f.w.Write(line)
				sides[s] = append(sides[s], sideRow{mains: len(mainEnds), end: f.length()})
			default:
				if r.IntN(2) == 0 {
					w.Flush()
				}
				c.prune()
			}
		}
		w.Flush()
		last := 0 // main rows accepted whole
		for last < len(mainEnds) && mainEnds[last] <= out.N {
			last++
		}
		if out.Err == nil {
			continue // stdout took every byte: nothing is cut (apply)
		}
		got := c.accepted()
		for s, f := range c.files {
			want := headers[s]
			for _, row := range sides[s] {
				if row.mains < last {
					want = row.end
				}
			}
			if n := f.kept(got).n; n != want {
				t.Fatalf("seed %d: side %d keeps %d bytes, want %d (stdout took %d of %d bytes, %d of %d main rows)", seed, s, n, want, out.N, mainAt, last, len(mainEnds))
			}
		}
	}
}

// TestWriteCounter: the bytes of a failing write that got through count.
func TestWriteCounter(t *testing.T) {
	c := &WriteCounter{W: &closingWriter{k: 5}}
	n1, err1 := c.Write([]byte("abc"))
	n2, err2 := c.Write([]byte("defg"))
	if got := fmt.Sprint(n1, err1, n2, err2 == syscall.EPIPE, c.N, c.Err == syscall.EPIPE); got != "3 <nil> 2 true 5 true" {
		t.Fatal(got)
	}
}

// TestSideFilesRefuseFIFOs: a named pipe in --side-dir, with or without a
// reader, or a symbolic link to one, is refused at once (a side file must
// be a regular file to be cut back when stdout is closed early, SPEC 4),
// naming the file; the open does not wait for a reader.
func TestSideFilesRefuseFIFOs(t *testing.T) {
	side := t.TempDir()
	fifo := filepath.Join(side, "p.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := os.Symlink(fifo, filepath.Join(side, "l.csv")); err != nil {
		t.Fatal(err)
	}
	fs := NewFileSet()
	check := func(name, want string) {
		t.Helper()
		done := make(chan error, 1)
		go func() { _, _, _, err := fs.open(filepath.Join(side, name), "x VARCHAR"); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s: error %v, want one naming it and saying %q", name, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the open waits for a reader", name)
		}
	}
	check("p.csv", "not a regular file")
	check("l.csv", "symbolic link")
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader now
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check("p.csv", "not a regular file")
	// a regular file is still written
	f, _, _, err := fs.open(filepath.Join(side, "ok.csv"), "x VARCHAR")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
