package connector

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
)

func feedStream() *catalog.Stream {
	return &catalog.Stream{Name: "s", EventTime: -1, Columns: []catalog.Column{
		{Name: "id", Type: catalog.BigInt}, {Name: "name", Type: catalog.Varchar},
		{Name: "t", Type: catalog.Timestamp}, {Name: "x", Type: catalog.Double}, {Name: "ok", Type: catalog.Boolean},
	}}
}

// TestFeedOrderAndValues pushes more rows than the queue holds from one
// goroutine while a source reads them: every row arrives once, in order, with
// its values.
func TestFeedOrderAndValues(t *testing.T) {
	st := feedStream()
	f := NewFeed(st)
	const n = 3*vector.Cap*feedDepth + 7
	go func() {
		for i := 0; i < n; i++ {
			name := any(strings.Repeat("x", i%5))
			if i%7 == 0 {
				name = nil
			}
			if err := f.Push(context.Background(), []any{i, name, time.UnixMilli(int64(i)), float32(i), i%2 == 0}); err != nil {
				t.Error(err)
				return
			}
		}
		f.Close()
	}()
	src := f.Open(context.Background())
	defer src.Close()
	b := vector.NewBatch(st.Types())
	next := 0
	for {
		err := src.Next(b, nil)
		if errors.Is(err, ErrWaiting) {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			if b.Cols[0].I[i] != int64(next) || b.Cols[2].I[i] != int64(next) || b.Cols[3].F[i] != float64(next) || b.Cols[4].B[i] != (next%2 == 0) || b.Pos[i] != int64(next+1) {
				t.Fatalf("row %d: got id %d t %d x %v ok %v pos %d", next, b.Cols[0].I[i], b.Cols[2].I[i], b.Cols[3].F[i], b.Cols[4].B[i], b.Pos[i])
			}
			if null := next%7 == 0; b.Cols[1].Null[i] != null || !null && string(b.Cols[1].S[i]) != strings.Repeat("x", next%5) {
				t.Fatalf("row %d: name %q null %v", next, b.Cols[1].S[i], b.Cols[1].Null[i])
			}
			next++
		}
	}
	if next != n {
		t.Fatalf("read %d rows, pushed %d", next, n)
	}
}

// TestFeedBackpressure: with no reader, Push blocks once the queue is full
// and returns the context's error, without pushing the row.
func TestFeedBackpressure(t *testing.T) {
	st := &catalog.Stream{Name: "s", EventTime: -1, Columns: []catalog.Column{{Name: "id", Type: catalog.BigInt}}}
	f := NewFeed(st)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	pushed := 0
	var err error
	for ; pushed < 100*vector.Cap; pushed++ {
		if err = f.Push(ctx, []any{int64(pushed)}); err != nil {
			break
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Push = %v after %d rows, want the deadline", err, pushed)
	}
	if max := (feedDepth + 1) * vector.Cap; pushed > max {
		t.Fatalf("%d rows pushed without a reader; the queue holds %d", pushed, max)
	}
	f.Close()
	src := f.Open(context.Background())
	b := vector.NewBatch(st.Types())
	got := 0
	for {
		err := src.Next(b, nil)
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrWaiting) {
			continue // (b is not the caller's until Next returns nil: Source.Next's contract)
		}
		if err != nil {
			t.Fatal(err)
		}
		got += b.N
	}
	if got != pushed {
		t.Fatalf("read %d rows, %d were pushed", got, pushed)
	}
	if err := f.Push(context.Background(), []any{int64(1)}); !errors.Is(err, ErrFeedClosed) {
		t.Fatalf("Push after Close = %v", err)
	}
}

// TestFeedBadRows: a row of the wrong width or a value of the wrong type is
// refused with the stream and column named, and is not pushed.
func TestFeedBadRows(t *testing.T) {
	f := NewFeed(feedStream())
	ctx := context.Background()
	if err := f.Push(ctx, []any{1}); err == nil || !strings.Contains(err.Error(), "stream s: a row has 1 values, the stream has 5 columns") {
		t.Fatalf("short row: %v", err)
	}
	if err := f.Push(ctx, []any{1, 2, nil, nil, nil}); err == nil || !strings.Contains(err.Error(), "stream s, column name VARCHAR: cannot take a Go int") {
		t.Fatalf("bad value: %v", err)
	}
	if err := f.Push(ctx, []any{uint64(1 << 63), "a", nil, nil, nil}); err == nil || !strings.Contains(err.Error(), "column id BIGINT") {
		t.Fatalf("overflow: %v", err)
	}
}
