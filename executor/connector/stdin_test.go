package connector

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStdinPipe reads stdin through a pipe: rows show before the writer closes,
// the source says when it waits, and a second job goes on where the first one
// stopped (one reader for the session).
func TestStdinPipe(t *testing.T) {
	pr, pw := io.Pipe()
	in := &Stdin{R: pr}
	st := newStream(t, kv, "stdin")
	src, err := in.Open(context.Background(), st, fromStart(csvDec(st)))
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

	src, err = in.Open(context.Background(), st, fromStart(csvDec(st)))
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
	src, err := (&Stdin{R: f}).Open(context.Background(), st, fromStart(csvDec(st)))
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
	src, err := (&Stdin{}).Open(context.Background(), st, fromStart(csvDec(st)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got := readAll(t, src, st); len(got) != 0 {
		t.Fatalf("%q", got)
	}
}

// TestStdinLinesCarryOn: a job's stdin positions are lines of the whole stdin
// (SPEC 1): a later job's line numbers go on after the lines the earlier jobs
// consumed, whether they stopped inside a batch (Unread), after a malformed
// row (UnreadAfter) or at the end, with blank lines and a quoted record over
// two lines among them; from a pipe or a regular file.
func TestStdinLinesCarryOn(t *testing.T) {
	input := "a,1\n\nb,2\r\n\"c\nd\",3\ne,x\nf,4\ng,5\n"
	path := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(path, []byte(input), 0o644)
	for name, open := range map[string]func() io.Reader{
		"pipe": func() io.Reader { return strings.NewReader(input) },
		"file": func() io.Reader {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
	} {
		in := &Stdin{R: open()}
		st := newStream(t, kv, "stdin")
		// job 1 uses a,1 and b,2 (lines 1-3) of a batch that holds more
		src, err := in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		r := newReader(t, src, st)
		if _, err := r.rows(); err != nil {
			t.Fatal(err)
		}
		src.(Unreader).Unread(2)
		src.Close()
		// job 2 starts at line 4 ("c\nd" over lines 4-5); it stops after its
		// first malformed row, e,x at line 6
		src, err = in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		r = newReader(t, src, st)
		rows, err := r.rows()
		if err != nil || len(rows) == 0 || rows[0] != "c\nd,3" {
			t.Fatalf("%s: job 2 rows %q %v", name, rows, err)
		}
		if got := src.Position(r.b.Pos[0]); got != "stdin:4" {
			t.Errorf("%s: job 2 first row at %s, want stdin:4", name, got)
		}
		if len(r.bad) == 0 || src.Position(r.bad[0].Line) != "stdin:6" {
			t.Fatalf("%s: job 2 bad rows %+v", name, r.bad)
		}
		src.(Unreader).UnreadAfter(1, 1)
		src.Close()
		// job 3 reads the rest: f,4 at line 7, g,5 at line 8; job 4 gets nothing
		for job, want := range []string{"stdin:7", "stdin:9"} {
			src, err = in.Open(context.Background(), st, fromStart(csvDec(st)))
			if err != nil {
				t.Fatal(err)
			}
			r = newReader(t, src, st)
			rows, err = r.rows()
			if job == 0 {
				if err != nil || len(rows) != 2 || src.Position(r.b.Pos[0]) != want || src.Position(r.b.Pos[1]) != "stdin:8" {
					t.Errorf("%s: job 3 rows %q %v at %v", name, rows, err, r.b.Pos[:r.b.N])
				}
			} else if err != io.EOF || src.Position(1) != want {
				t.Errorf("%s: job 4 %q %v, line 1 at %s, want %s", name, rows, err, src.Position(1), want)
			}
			if job == 0 {
				for err == nil {
					_, err = r.rows()
				}
			}
			src.Close()
		}
	}
}
