package strategy

import (
	"context"
	"errors"
	"io"
	"strconv"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// counting is a source of n rows (one BIGINT and one VARCHAR column, the
// row's number and its text), in batches of up to per rows, a malformed row
// after every 7th, waiting (connector.ErrWaiting) once every 5 calls, then
// ending with end.
type counting struct {
	n, per, next, calls int
	end                 error
	text                []byte // cap 1 MiB: never moved, overwritten by each call

}

func (s *counting) Next(b *vector.Batch, bad *[]records.BadRow) error {
	s.calls++
	if s.calls%5 == 0 {
		return connector.ErrWaiting
	}
	if s.next == s.n {
		return s.end
	}
	b.Reset()
	s.text = s.text[:0] // (the source's memory, valid until the next call)
	for b.N < s.per && s.next < s.n {
		b.Cols[0].I[b.N] = int64(s.next)
		start := len(s.text)
		s.text = strconv.AppendInt(s.text, int64(s.next), 10)
		b.Cols[1].S[b.N] = s.text[start:len(s.text):len(s.text)]
		b.Cols[1].Null[b.N] = false
		b.N++
		if s.next%7 == 0 {
			*bad = append(*bad, records.BadRow{Index: b.N, Line: int64(s.next), Raw: s.text[start:], Reason: "x"})
		}
		s.next++
	}
	return nil
}

func (s *counting) Position(line int64) string    { return strconv.FormatInt(line, 10) }
func (s *counting) Progress() (read, total int64) { return 0, 0 }
func (s *counting) Close() error                  { return nil }

var types = []catalog.Type{catalog.BigInt, catalog.Varchar}

// TestPrefetchKeepsOrder: Prefetch feeds every batch, its text values and
// its malformed rows' raw text in the source's order, on the caller's
// goroutine, though the source is read ahead on another (its memory reused);
// it passes the source's end (io.EOF) or error to the feed once, last, and
// stops at the feed's end; with the shallow queue and the deep one
// (plan.Job.PrefetchDeep), whose producer gets further ahead.
func TestPrefetchKeepsOrder(t *testing.T) {
	for k, end := range []error{io.EOF, errors.New("read failed"), io.EOF, errors.New("read failed")} {
		deep := k >= 2
		src := &counting{n: 1000, per: 33, end: end, text: make([]byte, 0, 1<<20)}
		want, bads := 0, 0
		var last error
		feed := func(ctx context.Context, b *vector.Batch, bad []records.BadRow, err error) (bool, error) {
			if last != nil {
				t.Fatalf("fed after the source's end %v", last)
			}
			if err != nil {
				last = err
				return true, err
			}
			for i := range b.N {
				if b.Cols[0].I[i] != int64(want) || string(b.Cols[1].S[i]) != strconv.Itoa(want) {
					t.Fatalf("row %d: %d %q", want, b.Cols[0].I[i], b.Cols[1].S[i])
				}
				want++
			}
			for _, x := range bad {
				if string(x.Raw) != strconv.FormatInt(x.Line, 10) {
					t.Fatalf("malformed row %d: raw %q", x.Line, x.Raw)
				}
				bads++
			}
			return false, nil
		}
		err := Prefetch(context.Background(), types, false, deep, src, feed)
		if err != end || last != end || want != 1000 || bads != 143 {
			t.Errorf("end %v, deep %v: err %v, last %v, %d rows, %d malformed", end, deep, err, last, want, bads)
		}
	}
	// the feed ends the job: Prefetch returns its error, the producer stopped
	stop := errors.New("limit")
	rows := 0
	err := Prefetch(context.Background(), types, false, false, &counting{n: 1 << 20, per: 100, end: io.EOF, text: make([]byte, 0, 1<<20)}, func(ctx context.Context, b *vector.Batch, bad []records.BadRow, err error) (bool, error) {
		rows += b.N
		return rows >= 500, stop
	})
	if err != stop || rows != 500 {
		t.Errorf("a feed that ends: err %v after %d rows", err, rows)
	}
}

// TestNotParallel: a source whose stream declares no parallel decoding
// (connector.SourceHandles.Parallel nil: a socket, a source hook's
// wrapper) gets no parallel reader and no pipeline; the caller takes
// another strategy.
func TestNotParallel(t *testing.T) {
	if ParallelReader(types, false, nil) != nil {
		t.Error("a parallel reader of a source that cannot be cut")
	}
	made := false
	cr := Pipeline(nil, types, PipelineOptions{}, func(int) (*int, bool) { made = true; return new(int), true }, func(int) { made = true }, nil)
	if cr != nil || made {
		t.Errorf("a pipeline over a source that cannot be cut: %v, outputs or workers made %v", cr, made)
	}
}
