package connector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/chunked"
	"streamql/executor/vector"
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

// TestFileParallel: a bounded file of more than two chunks decoded by
// Parallel gives the rows, positions and malformed rows Next gives, in order,
// with a quoted field spanning lines across a chunk end; the progress reaches
// the file's size. A small file, or one worker, keeps Next.
func TestFileParallel(t *testing.T) {
	st := newStream(t, kv, "file", "path", "in.csv")
	var sb strings.Builder
	for i := 0; sb.Len() < 3*chunked.DefaultChunkSize; i++ {
		switch i % 1000 {
		case 7:
			sb.WriteString("\"multi\n" + strings.Repeat("line\n", 40000) + "\",7\n") // 200 KB in one quoted field
		case 8:
			sb.WriteString("bad,x\n")
		default:
			sb.WriteString("k" + strconv.Itoa(i) + "," + strconv.Itoa(i) + "\n")
		}
	}
	path := filepath.Join(st.BaseDir, "in.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(par bool) []string {
		src, err := OpenFile(context.Background(), st, csvDec(st))
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		var out []string
		add := func(b *vector.Batch, bad []BadRow) {
			j := 0
			for i := range b.N + 1 {
				for ; j < len(bad) && bad[j].Index == i; j++ { // in order among the rows
					out = append(out, fmt.Sprintf("bad %s %s", src.Position(bad[j].Line), bad[j].Reason))
				}
				if i < b.N {
					out = append(out, fmt.Sprintf("%s %d %d", src.Position(b.Pos[i]), len(b.Cols[0].S[i]), b.Cols[1].I[i]))
				}
			}
		}
		if par {
			pr := src.(*parallelFile).Parallel(append(st.Types(), catalog.Boolean), 2, chunked.Options{})
			if pr == nil {
				t.Fatal("Parallel refused a 3 MiB csv file")
			}
			for {
				b, bad, err := pr.Next()
				if err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				add(b, bad)
			}
		} else {
			b := vector.NewBatch(st.Types())
			for {
				var bad []BadRow
				err := src.Next(b, &bad)
				if err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				add(b, bad)
			}
		}
		if read, total := src.Progress(); read != total || total != int64(sb.Len()) {
			t.Errorf("parallel %v: progress %d/%d of %d bytes", par, read, total, sb.Len())
		}
		return out
	}
	want, got := read(false), read(true)
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("row %d: parallel %s, sequential %s", i, got[i], want[i])
			}
		}
		t.Fatalf("parallel %d rows, sequential %d", len(got), len(want))
	}

	small := newStream(t, kv, "file", "path", "small.csv")
	if err := os.WriteFile(filepath.Join(small.BaseDir, "small.csv"), []byte("a,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := OpenFile(context.Background(), small, csvDec(small))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.(*parallelFile).Parallel(small.Types(), 2, chunked.Options{}) != nil {
		t.Error("Parallel split a 4-byte file")
	}
	src2, err := OpenFile(context.Background(), st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	defer src2.Close()
	if src2.(*parallelFile).Parallel(st.Types(), 1, chunked.Options{}) != nil {
		t.Error("Parallel with one worker")
	}
}
