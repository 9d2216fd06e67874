package pipewrite

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lines returns n lines of random lengths up to max bytes, each ending in LF.
func lines(rng *rand.Rand, n, max int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), rng.IntN(max)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestStopNoReader: writes to a pipe nobody reads end within Grace and some
// slack after the context ends, with context.Canceled, and the pipe then holds
// a prefix of the text in whole lines (issue 30: a stop waited for the
// reader, and a cut write left half a row), for lines short, near PipeBuf and
// mixed, written in buffers that end in the middle of lines.
func TestStopNoReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 6))
	for _, maxLine := range []int{40, 3000, PipeBuf - 1, 600} {
		r, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		text := lines(rng, 4000, maxLine)
		ctx, cancel := context.WithCancel(context.Background())
		w := NewWriter(ctx, pw)
		done := make(chan error, 1)
		go func() {
			for off := 0; off < len(text); {
				k := min(len(text)-off, 1+rng.IntN(256<<10)) // a bufio flush: anywhere in a line
				_, err := w.Write(text[off : off+k])
				if err != nil {
					done <- err
					return
				}
				off += k
			}
			done <- nil
		}()
		time.Sleep(50 * time.Millisecond) // the pipe fills
		t0 := time.Now()
		cancel()
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("lines of up to %d bytes: Write still blocked 5 s after the stop", maxLine)
		}
		if took := time.Since(t0); !errors.Is(err, context.Canceled) || took > 2*time.Second {
			t.Fatalf("lines of up to %d bytes: Write = %v after %v, want context.Canceled within Grace", maxLine, err, took)
		}
		w.Close()
		pw.Close()
		got, _ := io.ReadAll(r)
		r.Close()
		if len(got) == 0 || !bytes.HasPrefix(text, got) || got[len(got)-1] != '\n' {
			t.Fatalf("lines of up to %d bytes: the pipe holds %d bytes, ending %q: not a prefix of whole lines", maxLine, len(got), got[max(0, len(got)-20):])
		}
	}
}

// TestWholeTextWithReader: with a reader that reads, every byte arrives in
// order, also the text after the last line end (written by Close).
func TestWholeTextWithReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 7))
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	text := append(lines(rng, 20000, 300), "no line end"...)
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	w := NewWriter(context.Background(), pw)
	for off := 0; off < len(text); {
		k := min(len(text)-off, 1+rng.IntN(300<<10))
		if n, err := w.Write(text[off : off+k]); err != nil || n != k {
			t.Fatalf("Write = %d, %v, want %d", n, err, k)
		}
		off += k
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if b := <-got; !bytes.Equal(b, text) {
		t.Fatalf("read %d bytes, wrote %d", len(b), len(text))
	}
}

// TestOpenFIFOStops: opening a FIFO that no process reads waits, and ends with
// the context (issue 30: open(2) blocked for good); once a reader comes it
// opens.
func TestOpenFIFOStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := OpenFIFO(ctx, path, os.O_WRONLY, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("OpenFIFO with no reader = %v", err)
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := OpenFIFO(context.Background(), path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
