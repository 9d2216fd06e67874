package connector

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestFileBounded(t *testing.T) {
	st := newStream(t, kv, "file", "path", "in.csv")
	if err := os.WriteFile(filepath.Join(st.BaseDir, "in.csv"), []byte("a,1\nb,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := OpenFile(context.Background(), st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	r := newReader(t, src, st)
	if rows, err := r.next(); err != nil || !slices.Equal(rows, []string{"a,1", "b,2"}) {
		t.Fatalf("%q %v", rows, err)
	}
	if _, err := r.next(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
	if got := src.Position(2); got != "in.csv:2" {
		t.Errorf("position %q", got)
	}
	if read, total := src.Progress(); read != 8 || total != 8 {
		t.Errorf("progress %d/%d", read, total)
	}
}

func TestFileMissing(t *testing.T) {
	st := newStream(t, kv, "file", "path", "nope.csv", "follow", "true")
	if _, err := OpenFile(context.Background(), st, csvDec(st)); err == nil {
		t.Fatal("no error for a missing file")
	}
}

// TestFileFollow appends to a file while the source reads it: appended lines
// come out, a line written in two parts comes out once complete, a truncated
// file is read again from its start, and cancelling the context stops it.
func TestFileFollow(t *testing.T) {
	old := FollowPoll
	FollowPoll = 5 * time.Millisecond
	defer func() { FollowPoll = old }()

	st := newStream(t, kv, "file", "path", "log.csv", "follow", "true")
	path := filepath.Join(st.BaseDir, "log.csv")
	if err := os.WriteFile(path, []byte("a,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := OpenFile(ctx, st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	r := newReader(t, src, st)
	appendTo := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	if rows, err := r.rows(); err != nil || !slices.Equal(rows, []string{"a,1"}) {
		t.Fatalf("%q %v", rows, err)
	}
	// at the end of the file it waits instead of ending
	if _, err := r.next(); !errors.Is(err, ErrWaiting) {
		t.Fatalf("want ErrWaiting at the end of a followed file, got %v", err)
	}
	appendTo("b,2\nc,")
	if rows, err := r.rows(); err != nil || !slices.Equal(rows, []string{"b,2"}) {
		t.Fatalf("%q %v", rows, err)
	}
	appendTo("3\n")
	if rows, err := r.rows(); err != nil || !slices.Equal(rows, []string{"c,3"}) {
		t.Fatalf("%q %v", rows, err)
	}
	if err := os.WriteFile(path, []byte("d,4\n"), 0o644); err != nil { // truncate
		t.Fatal(err)
	}
	if rows, err := r.rows(); err != nil || !slices.Equal(rows, []string{"d,4"}) {
		t.Fatalf("after truncation: %q %v", rows, err)
	}
	cancel()
	err = waitErr(t, 5*time.Second, func() error {
		for {
			if _, err := r.next(); !errors.Is(err, ErrWaiting) {
				return err
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	if err := waitErr(t, 5*time.Second, src.Close); err != nil {
		t.Fatal(err)
	}
}
