package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// waitingSource reads its source as the live sources (stdin, a socket) do:
// Next hands the batch to a decoder that fills it after returning
// ErrWaiting (connector.ErrWaiting: the caller passes the same batch again,
// untouched); the next call returns what the decoder got. With async the
// decoder is a goroutine still filling the batch as the caller goes on (so
// that go test -race sees a wrapper that reads it meanwhile); without, it
// has filled it already (so that a wrapper that resets it loses its rows).
type waitingSource struct {
	Source
	async bool
	done  chan error
	bad   []BadRow
}

// Next implements Source.
func (w *waitingSource) Next(b *vector.Batch, bad *[]BadRow) error {
	if w.done == nil {
		w.done = make(chan error, 1)
		w.bad = w.bad[:0]
		fill := func() { w.done <- w.Source.Next(b, &w.bad) }
		if w.async {
			go fill()
		} else {
			fill()
		}
		return ErrWaiting
	}
	err := <-w.done
	w.done = nil
	*bad = append(*bad, w.bad...)
	return err
}

// TestWrappersLeaveAWaitingBatchAlone: a source that wraps another (CROSS
// JOIN UNNEST's, the 'watermark.max-future' filter's, a derived relation's
// parts', a join's inputs') passes ErrWaiting on without touching the batch
// it gave the source it wraps, which a live source may still be filling,
// and gives it the same batch again (connector.ErrWaiting): every query's
// rows and malformed rows are those of the run without the waiting, each
// source read through waitingSource, filled at once and on a goroutine
// (under go test -race, a wrapper that reads the batch meanwhile fails).
// Before, UNNEST reset the batch being filled and read its row count, and
// the 'watermark.max-future' filter read its row count.
func TestWrappersLeaveAWaitingBatchAlone(t *testing.T) {
	dir := t.TempDir()
	var s, d strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&s, "k%d,%d\n", i%5, i*100)
		if i%400 == 7 {
			s.WriteString("bad,x\n")
		}
	}
	for k := range 5 {
		fmt.Fprintf(&d, "k%d,0\n", k)
	}
	for name, text := range map[string]string{"s.csv": s.String(), "d.csv": d.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	with := "'connector'='file', 'format'='csv', 'path'='%s'"
	cat := kTsCatalog(t, "CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ("+fmt.Sprintf(with, filepath.Join(dir, "s.csv"))+");\n"+
		"CREATE STREAM f (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ("+fmt.Sprintf(with, filepath.Join(dir, "s.csv"))+", 'watermark.max-future'='20 s');\n"+
		"CREATE STREAM d (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ("+fmt.Sprintf(with, filepath.Join(dir, "d.csv"))+");")
	for _, q := range []string{
		"SELECT k, ts FROM s",
		"SELECT k, e FROM s CROSS JOIN UNNEST(ARRAY[ts, ts + 1]) AS t (e)",
		"SELECT k, ts FROM f",
		"SELECT k, e FROM f CROSS JOIN UNNEST(ARRAY[ts, ts + 1]) AS t (e)",
		"SELECT k, ts FROM (SELECT k, ts FROM s WHERE ts > 500)",
		"SELECT s.k, s.ts FROM s JOIN d ON s.k = d.k",
		"SELECT s.k, s.ts FROM s JOIN d ON s.k = d.k AND s.ts BETWEEN d.ts AND d.ts + INTERVAL '1' DAY",
	} {
		run := func(hook SourceHook) []string {
			job := planWith(t, cat, q)
			env := &Env{}
			env.SetSourceHook(hook)
			var names []string
			for _, o := range job.Outputs {
				names = append(names, o.Name)
			}
			sink := &orderSink{names: names}
			if _, err := Run(context.Background(), job, env, func() (Sink, error) { return sink, nil }); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			slices.Sort(sink.out) // (a join's order is its own)
			return sink.out
		}
		want := run(nil)
		if len(want) < 2900 {
			t.Fatalf("%s: %d rows, want 2900 or more", q, len(want))
		}
		for _, async := range []bool{false, true} {
			got := run(func(_ *catalog.Stream, src Source, h SourceHandles) (Source, SourceHandles) {
				return &waitingSource{Source: src, async: async}, h.Wrapped()
			})
			if !slices.Equal(got, want) {
				t.Errorf("%s, filled on a goroutine %v: %d lines, want %d (first difference at %d)", q, async, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

// firstDiff is the index of the first line where a and b differ.
func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
