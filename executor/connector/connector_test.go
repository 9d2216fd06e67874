package connector

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/vector"
)

// newStream declares a stream as CREATE STREAM would: opts are the WITH options
// besides 'connector', validated against the connector's spec (defaults filled).
func newStream(t *testing.T, cols []catalog.Column, connector string, opts ...string) *catalog.Stream {
	t.Helper()
	po := []catalog.Option{{Key: "connector", Value: connector}}
	for i := 0; i+1 < len(opts); i += 2 {
		po = append(po, catalog.Option{Key: opts[i], Value: opts[i+1]})
	}
	spec, vals, err := catalog.ValidateOptions(po, cols, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &catalog.Stream{Name: "s", Columns: cols, EventTime: -1, Connector: spec, Options: vals, BaseDir: t.TempDir()}
}

var kv = []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "v", Type: catalog.BigInt}}

// csvDec is the CSV decoder of a kv stream.
func csvDec(st *catalog.Stream) NewDecoder {
	return func(r io.Reader) (Decoder, error) {
		return csvdec.NewDecoder(r, st.Names(), st.Types(), csvdec.Options{}), nil
	}
}

// fromStart is d for a stdin source, whose decoder is also told whether the
// input continues an earlier job's (which a csv decoder built here ignores).
func fromStart(d NewDecoder) NewHandBackDecoder {
	return func(r io.Reader, _ bool) (Decoder, error) { return d(r) }
}

// reader drives a Source the way the job's run loop does.
type reader struct {
	t   *testing.T
	src Source
	b   *vector.Batch
	bad []BadRow
}

func newReader(t *testing.T, src Source, st *catalog.Stream) *reader {
	return &reader{t: t, src: src, b: vector.NewBatch(st.Types())}
}

// next calls Next once and returns its error and the rows it gave as "k=v" text.
func (r *reader) next() ([]string, error) {
	r.bad = r.bad[:0]
	err := r.src.Next(r.b, &r.bad)
	if err != nil {
		return nil, err
	}
	var rows []string
	for i := 0; i < r.b.N; i++ {
		rows = append(rows, rowText(r.b, i))
	}
	for _, x := range r.bad {
		rows = append(rows, "bad:"+string(x.Raw))
	}
	return rows, nil
}

// rows calls Next, skipping ErrWaiting, until it gives rows or another error;
// a test that waits longer than 10 s fails.
func (r *reader) rows() ([]string, error) {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rows, err := r.next()
		if errors.Is(err, ErrWaiting) {
			continue
		}
		return rows, err
	}
	r.t.Fatal("no rows within 10 s")
	return nil, nil
}

// rowsN collects rows (skipping ErrWaiting) until it has n of them.
func (r *reader) rowsN(n int) ([]string, error) {
	r.t.Helper()
	var all []string
	for len(all) < n {
		rows, err := r.rows()
		if err != nil {
			return all, err
		}
		all = append(all, rows...)
	}
	return all, nil
}

func rowText(b *vector.Batch, i int) string {
	var parts []string
	for _, c := range b.Cols {
		if c.Null[i] {
			parts = append(parts, "NULL")
			continue
		}
		parts = append(parts, string(vector.AppendValue(nil, c.Type, c, i)))
	}
	return strings.Join(parts, ",")
}

// waitErr runs f in a goroutine and fails the test when it does not return
// within d: a live source must stop promptly.
func waitErr(t *testing.T, d time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
		return nil
	}
}

func TestWallClockSleepStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := waitErr(t, 5*time.Second, func() error { return WallClock{}.Sleep(ctx, time.Hour) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}
