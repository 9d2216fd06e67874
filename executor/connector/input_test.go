package connector

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/csvdec"
)

// TestDevZeroStopsOnCancel reads /dev/zero, one endless record, through every
// source that reads bytes: the record is skipped in bounded memory (a 64 KiB
// 'max-record-size'), and Next returns the context's error within 100 ms of
// the cancel, in the middle of that record.
func TestDevZeroStopsOnCancel(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	limited := func(st *catalog.Stream) NewDecoder {
		return func(r io.Reader) (Decoder, error) {
			return csvdec.NewDecoder(r, st.Names(), st.Types(), csvdec.Options{MaxRecord: 64 << 10}), nil
		}
	}
	open := map[string]func(ctx context.Context, t *testing.T) (Source, error){
		"file": func(ctx context.Context, t *testing.T) (Source, error) {
			st := newStream(t, kv, "file", "path", "/dev/zero")
			return OpenFile(ctx, st, limited(st))
		},
		"follow": func(ctx context.Context, t *testing.T) (Source, error) {
			st := newStream(t, kv, "file", "path", "/dev/zero", "follow", "true")
			return OpenFile(ctx, st, limited(st))
		},
		"stdin": func(ctx context.Context, t *testing.T) (Source, error) {
			f, err := os.Open("/dev/zero")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			st := newStream(t, kv, "stdin")
			return (&Stdin{R: f}).Open(ctx, st, fromStart(limited(st)))
		},
	}
	for name, open := range open {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := open(ctx, t)
			if err != nil {
				t.Fatal(err)
			}
			r := newReader(t, src, newStream(t, kv, "stdin"))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			done := make(chan error, 1)
			go func() {
				for {
					if _, err := r.next(); !errors.Is(err, ErrWaiting) {
						done <- err
						return
					}
				}
			}()
			time.Sleep(300 * time.Millisecond)
			runtime.ReadMemStats(&after)
			if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 16<<20 {
				t.Errorf("heap grew by %d MiB while reading /dev/zero", grown>>20)
			}
			cancel()
			at := time.Now()
			select {
			case err := <-done:
				if d := time.Since(at); d > 100*time.Millisecond {
					t.Errorf("Next returned %v after the cancel", d)
				}
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Next: %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Next does not return after the cancel")
			}
			if err := waitErr(t, 5*time.Second, src.Close); err != nil && !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
		})
	}
}

// TestFileDirectory: a directory as 'path' is an error naming the path.
func TestFileDirectory(t *testing.T) {
	for _, follow := range []string{"false", "true"} {
		st := newStream(t, kv, "file", "path", "sub", "follow", follow)
		if err := os.Mkdir(filepath.Join(st.BaseDir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := OpenFile(context.Background(), st, csvDec(st))
		if err == nil || !strings.Contains(err.Error(), "'path' = 'sub'") || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("follow=%s: %v", follow, err)
		}
	}
}

// TestFollowRotation follows a log that is rotated like tail -F expects
// (SPEC 1): what is written to the old file before the rotation is drained,
// then the new file at the path is read from its start; a truncated file is
// read again from its start.
func TestFollowRotation(t *testing.T) {
	old := FollowPoll
	FollowPoll = 5 * time.Millisecond
	defer func() { FollowPoll = old }()
	write := func(t *testing.T, path, s string, flag int) {
		f, err := os.OpenFile(path, flag|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	rotations := map[string]func(t *testing.T, path string){
		"rename and recreate": func(t *testing.T, path string) {
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
			write(t, path+".1", "b,2\n", os.O_APPEND) // the writer still had the old file open
			write(t, path, "c,3\nd,4\n", os.O_CREATE|os.O_EXCL)
		},
		"delete and recreate": func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			f.WriteString("b,2\n")
			f.Close()
			time.Sleep(3 * FollowPoll) // a while with no file at the path
			write(t, path, "c,3\nd,4\n", os.O_CREATE|os.O_EXCL)
		},
		"truncate": func(t *testing.T, path string) {
			write(t, path, "b,2\n", os.O_APPEND)
			time.Sleep(50 * time.Millisecond) // b,2 is read before the truncation
			write(t, path, "", os.O_TRUNC)    // as logrotate's copytruncate does
			time.Sleep(3 * FollowPoll)
			write(t, path, "c,3\nd,4\n", os.O_APPEND)
		},
	}
	for name, rotate := range rotations {
		t.Run(name, func(t *testing.T) {
			st := newStream(t, kv, "file", "path", "app.log", "follow", "true")
			path := filepath.Join(st.BaseDir, "app.log")
			write(t, path, "a,1\n", os.O_CREATE)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src, err := OpenFile(ctx, st, csvDec(st))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			r := newReader(t, src, st)
			if rows, err := r.rowsN(1); err != nil || !slices.Equal(rows, []string{"a,1"}) {
				t.Fatalf("%q %v", rows, err)
			}
			rotate(t, path)
			rows, err := r.rowsN(3)
			if err != nil || !slices.Equal(rows, []string{"b,2", "c,3", "d,4"}) {
				t.Fatalf("after the rotation: %q %v", rows, err)
			}
			write(t, path, "e,5\n", os.O_APPEND) // and the new file is followed
			if rows, err := r.rowsN(1); err != nil || !slices.Equal(rows, []string{"e,5"}) {
				t.Fatalf("appended to the new file: %q %v", rows, err)
			}
		})
	}
}

// TestStdinSharedByJobs: a job that used only some rows of stdin leaves the
// rest, byte for byte, to the next job (SPEC 1): the rows after the last one
// it used, and what its decoder had read ahead, through a pipe and from a
// regular file.
// TestStdinUnreadAfter: a job that used a batch's first good row and its
// first malformed row ('errors'='fail' stops there) gives back the rest: the
// next job reads the malformed row after it and the good rows, from a pipe or
// a regular file.
func TestStdinUnreadAfter(t *testing.T) {
	input := "a,1\nbad\n\nx\nc,3\n"
	path := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(path, []byte(input), 0o644)
	for name, stdin := range map[string]func() io.Reader{
		"pipe": func() io.Reader { return strings.NewReader(input) },
		"regular file": func() io.Reader {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
	} {
		in := &Stdin{R: stdin()}
		st := newStream(t, kv, "stdin")
		src, err := in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		r := newReader(t, src, st)
		if rows, err := r.rowsN(1); err != nil || !slices.Equal(rows, []string{"a,1", "c,3", "bad:bad", "bad:x"}) {
			t.Fatalf("%s: %q %v", name, rows, err)
		}
		src.(Unreader).UnreadAfter(1, 1)
		src.Close()
		src, err = in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, src, st); !slices.Equal(got, []string{"c,3", "bad:x"}) {
			t.Fatalf("%s: second job: %q", name, got)
		}
		src.Close()
	}
}

func TestStdinSharedByJobs(t *testing.T) {
	t.Run("pipe", func(t *testing.T) {
		pr, pw := io.Pipe()
		in := &Stdin{R: pr}
		st := newStream(t, kv, "stdin")
		src, err := in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		go pw.Write([]byte("a,1\nb,2\nc,3\nbad\nd,4\ne,"))
		r := newReader(t, src, st)
		rows, err := r.rows()
		if err != nil || !slices.Equal(rows, []string{"a,1", "b,2", "c,3", "d,4", "bad:bad"}) {
			t.Fatalf("%q %v", rows, err)
		}
		src.(Unreader).Unread(2) // LIMIT 2
		src.Close()

		// the next job reads c,3 on, and e, that the decoder had read ahead
		src, err = in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		r = newReader(t, src, st)
		rows, err = r.rowsN(1)
		if err != nil || !slices.Equal(rows, []string{"c,3", "d,4", "bad:bad"}) {
			t.Fatalf("second job: %q %v", rows, err)
		}
		src.Close() // used all: only the incomplete e, goes back

		src, err = in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		go func() {
			pw.Write([]byte("5\nf,6\n"))
			pw.Close()
		}()
		if got := readAll(t, src, st); !slices.Equal(got, []string{"e,5", "f,6"}) {
			t.Fatalf("third job: %q", got)
		}
	})
	t.Run("regular file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "in.csv")
		os.WriteFile(path, []byte("a,1\nb,2\nc,3\n"), 0o644)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in := &Stdin{R: f}
		st := newStream(t, kv, "stdin")
		src, err := in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		r := newReader(t, src, st)
		if rows, err := r.rows(); err != nil || len(rows) != 3 {
			t.Fatalf("%q %v", rows, err)
		}
		src.(Unreader).Unread(1)
		src.Close()
		src, err = in.Open(context.Background(), st, fromStart(csvDec(st)))
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		if got := readAll(t, src, st); !slices.Equal(got, []string{"b,2", "c,3"}) {
			t.Fatalf("second job: %q", got)
		}
	})
}

// TestFollowRotationMidLine: an old file that ends in the middle of a line
// (its writer stopped there) ends that line at the rotation; it is not glued to
// the new file's first line.
func TestFollowRotationMidLine(t *testing.T) {
	old := FollowPoll
	FollowPoll = 5 * time.Millisecond
	defer func() { FollowPoll = old }()
	st := newStream(t, kv, "file", "path", "app.log", "follow", "true")
	path := filepath.Join(st.BaseDir, "app.log")
	os.WriteFile(path, []byte("a,1\nb,"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := OpenFile(ctx, st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	r := newReader(t, src, st)
	if rows, err := r.rowsN(1); err != nil || !slices.Equal(rows, []string{"a,1"}) {
		t.Fatalf("%q %v", rows, err)
	}
	time.Sleep(3 * FollowPoll) // "b," is read and waits for its line end
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("c,3\n"), 0o644)
	if rows, err := r.rowsN(2); err != nil || !slices.Equal(rows, []string{"b,NULL", "c,3"}) {
		t.Fatalf("after the rotation: %q %v", rows, err)
	}
}
