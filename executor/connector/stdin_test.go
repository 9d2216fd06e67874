package connector

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestStdinPipe reads stdin through a pipe: rows show before the writer closes,
// the source says when it waits, and a second job goes on where the first one
// stopped (one reader for the session).
func TestStdinPipe(t *testing.T) {
	pr, pw := io.Pipe()
	in := &Stdin{R: pr}
	st := newStream(t, kv, "stdin")
	src, err := in.Open(context.Background(), st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(t, src, st)
	go pw.Write([]byte("a,1\n"))
	if rows, err := r.rows(); err != nil || !slices.Equal(rows, []string{"a,1"}) {
		t.Fatalf("%q %v", rows, err)
	}
	if _, err := r.next(); !errors.Is(err, ErrWaiting) {
		t.Fatalf("want ErrWaiting, got %v", err)
	}
	if p := src.Position(7); p != "stdin:7" {
		t.Errorf("position %q", p)
	}
	src.Close() // a job ends (LIMIT, Ctrl-C) while stdin stays open

	src, err = in.Open(context.Background(), st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	r = newReader(t, src, st)
	go func() {
		pw.Write([]byte("b,2\n"))
		pw.Close()
	}()
	if rows, err := r.rows(); err != nil || !slices.Equal(rows, []string{"b,2"}) {
		t.Fatalf("%q %v", rows, err)
	}
	if _, err := r.rows(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestStdinRegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(path, []byte("a,1\n"), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st := newStream(t, kv, "stdin")
	src, err := (&Stdin{R: f}).Open(context.Background(), st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, src, st); !slices.Equal(got, []string{"a,1"}) {
		t.Fatalf("%q", got)
	}
	if _, total := src.Progress(); total != 4 {
		t.Errorf("total %d", total)
	}
	src.Close()
	if _, err := f.Stat(); err != nil {
		t.Error("closing the source closed stdin")
	}
}

func TestStdinNil(t *testing.T) {
	st := newStream(t, kv, "stdin")
	src, err := (&Stdin{}).Open(context.Background(), st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := readAll(t, src, st); len(got) != 0 {
		t.Fatalf("%q", got)
	}
}
