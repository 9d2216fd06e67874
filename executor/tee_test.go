package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// teeTestSource is a source of n rows (k = "r<i>", v = i) in batches of
// up to size rows, with a malformed row after every bad-th row and
// ErrWaiting before every wait-th batch (a live source's pause); written
// apart from the tee, as its reference.
type teeTestSource struct {
	n, size, bad, wait int
	next, batches      int
	waited             bool
	closed             int
	mu                 sync.Mutex // (the tee pulls one at a time; the race detector checks it)
}

func (s *teeTestSource) Next(b *vector.Batch, bad *[]BadRow) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b.Reset()
	if s.next >= s.n {
		return io.EOF
	}
	if s.wait > 0 && s.batches%s.wait == 0 && !s.waited {
		s.waited = true
		return ErrWaiting
	}
	s.waited = false
	s.batches++
	for b.N < s.size && s.next < s.n {
		i := s.next
		s.next++
		b.Cols[0].SetString(b.N, fmt.Appendf(nil, "r%d", i))
		b.Cols[0].Null[b.N] = false
		b.Cols[1].I[b.N], b.Cols[1].Null[b.N] = int64(i), false
		b.Pos[b.N] = int64(i + 1)
		b.N++
		if s.bad > 0 && i%s.bad == 0 {
			*bad = append(*bad, BadRow{Index: b.N, Line: int64(i + 1), Raw: []byte(fmt.Sprintf("bad%d", i)), Reason: "test"})
		}
	}
	return nil
}

func (s *teeTestSource) Position(line int64) string { return fmt.Sprintf("test:%d", line) }
func (s *teeTestSource) Progress() (int64, int64)   { return 0, 0 }
func (s *teeTestSource) Close() error {
	s.mu.Lock()
	s.closed++
	s.mu.Unlock()
	return nil
}

// teeTestStream is the stream the tee tests fan out: (k VARCHAR, v BIGINT).
var teeTestStream = &catalog.Stream{Name: "s", Columns: []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "v", Type: catalog.BigInt}}}

// openTee returns the tee set of a job that fans src out to readers
// readers, with a budget of max bytes, and a function opening one reader.
func openTee(t *testing.T, src Source, readers int, max int64) (*teeSet, func() Source) {
	ctx := context.Background()
	set := newTeeSet(ctx, &plan.Job{Tees: []plan.Tee{{Stream: teeTestStream, Readers: readers}}}, NewStateBudget(max))
	return set, func() Source {
		o, err := set.of(teeTestStream).reader(ctx, set, func(context.Context) (opened, error) { return opened{src: src}, nil })
		if err != nil {
			t.Fatal(err)
		}
		return o.src
	}
}

// readAll reads r to its end (ErrWaiting: again), returning its rows' v in
// order and its malformed rows' texts; pause is called after each batch.
func readAll(r Source, pause func()) ([]int64, []string, error) {
	b := vector.NewBatch(teeTestStream.Types())
	var vs []int64
	var bads []string
	for {
		var bad []BadRow
		err := r.Next(b, &bad)
		for _, x := range bad {
			bads = append(bads, string(x.Raw))
		}
		if errors.Is(err, ErrWaiting) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return vs, bads, nil
		}
		if err != nil {
			return vs, bads, err
		}
		for i := range b.N {
			if string(b.Cols[0].S[i]) != fmt.Sprintf("r%d", b.Cols[1].I[i]) || b.Pos[i] != b.Cols[1].I[i]+1 {
				return vs, bads, fmt.Errorf("row %d: %q, %d at %d", i, b.Cols[0].S[i], b.Cols[1].I[i], b.Pos[i])
			}
			vs = append(vs, b.Cols[1].I[i])
		}
		if pause != nil {
			pause()
		}
	}
}

// TestTeeReadersOnGoroutines: three readers of one tee, each on its own
// goroutine at its own pace, each get every row once, in the source's
// order; every malformed row is given once, to one reader; the source is
// opened and closed once, and the queued bytes are all given back. Run
// with -race (the readers pull and queue concurrently).
func TestTeeReadersOnGoroutines(t *testing.T) {
	const n = 20000
	src := &teeTestSource{n: n, size: 97, bad: 101, wait: 7}
	set, open := openTee(t, src, 3, 0)
	var wg sync.WaitGroup
	got := make([][]int64, 3)
	bads := make([][]string, 3)
	errs := make([]error, 3)
	for i := range 3 {
		r := open()
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := 0
			pause := func() { // (reader i reads slower: it yields every few batches)
				if k++; k%(i+1) == 0 {
					for range 100 * i {
						_ = fmt.Sprint(k)
					}
				}
			}
			got[i], bads[i], errs[i] = readAll(r, pause)
			_ = r.Close()
		}()
	}
	wg.Wait()
	set.close()
	var allBad []string
	for i := range 3 {
		if errs[i] != nil {
			t.Fatalf("reader %d: %v", i, errs[i])
		}
		if len(got[i]) != n {
			t.Fatalf("reader %d: %d rows, want %d", i, len(got[i]), n)
		}
		for k, v := range got[i] {
			if v != int64(k) {
				t.Fatalf("reader %d: row %d is %d", i, k, v)
			}
		}
		allBad = append(allBad, bads[i]...)
	}
	if want := (n + 100) / 101; len(allBad) != want {
		t.Errorf("%d malformed rows given, want %d (each once)", len(allBad), want)
	}
	seen := map[string]bool{}
	for _, b := range allBad {
		if seen[b] {
			t.Errorf("malformed row %s given twice", b)
		}
		seen[b] = true
	}
	if src.closed != 1 {
		t.Errorf("source closed %d times, want 1", src.closed)
	}
	if u := set.of(teeTestStream).account.Bytes(); u != 0 {
		t.Errorf("%d bytes still charged", u)
	}
}

// TestTeeReadWholeFirst: on one goroutine, one reader read whole first (a
// build side) and then the other (the probe) never deadlocks: the second
// finds every row queued. A budget too small for the queue stops the first
// reader with the budget's error, naming the tee and what to do.
func TestTeeReadWholeFirst(t *testing.T) {
	src := &teeTestSource{n: 5000, size: 64}
	_, open := openTee(t, src, 2, 0)
	build, probe := open(), open()
	b, _, err := readAll(build, nil)
	if err != nil || len(b) != 5000 {
		t.Fatalf("build side: %d rows, %v", len(b), err)
	}
	p, _, err := readAll(probe, nil)
	if err != nil || len(p) != 5000 {
		t.Fatalf("probe: %d rows, %v", len(p), err)
	}

	src = &teeTestSource{n: 50000, size: 64}
	_, open = openTee(t, src, 2, 64<<10)
	build, _ = open(), open()
	_, _, err = readAll(build, nil)
	var le *StateLimitError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want the budget's error", err)
	}
	for _, want := range []string{"'state.max-bytes'", "Tee s", "rows of stream s its readers have not taken yet", "fanned out to 2 readers", "declare the stream over a file", "SET 'state.max-bytes'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestTeeClosedReaderQueuesNothing: a reader that closes early (a LIMIT)
// gives back its queued bytes and gets no more; the other still reads
// every row, and the source closes once, with the last reader.
func TestTeeClosedReaderQueuesNothing(t *testing.T) {
	src := &teeTestSource{n: 3000, size: 50}
	set, open := openTee(t, src, 2, 0)
	a, b := open(), open()
	batch := vector.NewBatch(teeTestStream.Types())
	if err := b.Next(batch, new([]BadRow)); err != nil { // (a's queue has that batch)
		t.Fatal(err)
	}
	_ = a.Close()
	got, _, err := readAll(b, nil)
	if err != nil || len(got) != 3000-50 {
		t.Fatalf("%d rows, %v", len(got), err)
	}
	if u := set.of(teeTestStream).account.Bytes(); u != 0 {
		t.Errorf("%d bytes charged after the closed reader's queue", u)
	}
	_ = b.Close()
	set.close()
	if src.closed != 1 {
		t.Errorf("source closed %d times, want 1", src.closed)
	}
}

// teeUnreadSource is a teeTestSource that takes rows back (Unreader, as
// stdin does): it records the UnreadAfter calls.
type teeUnreadSource struct {
	teeTestSource
	unread [][2]int
}

func (s *teeUnreadSource) Unread(rows int)           { s.UnreadAfter(rows, 0) }
func (s *teeUnreadSource) UnreadAfter(rows, bad int) { s.unread = append(s.unread, [2]int{rows, bad}) }

// TestTeeHandBack: the tee's source is told, when it closes, the furthest
// position its readers' jobs used of its last batch (tee.handBack): the
// later of the readers' in that batch, nothing when a reader used all of
// it, all of it back when no reader took it; a reader's job's HandBack
// replaces its Unread. The reference is each case's expected call, by
// hand.
func TestTeeHandBack(t *testing.T) {
	type step struct {
		reader, batches int // the reader takes this many batches more
		unread          [2]int
		hb              bool // the unread comes from a HandBack read at Close
	}
	cases := []struct {
		name  string
		steps []step
		want  [][2]int
	}{
		{"later of two in the last batch", []step{{0, 2, [2]int{5, 0}, false}, {1, 2, [2]int{7, 1}, false}}, [][2]int{{7, 1}}},
		{"one used all of it", []step{{0, 2, [2]int{5, 0}, false}, {1, 2, [2]int{-1, -1}, false}}, nil},
		{"the furthest reader decides", []step{{0, 1, [2]int{3, 0}, false}, {1, 3, [2]int{2, 0}, false}}, [][2]int{{2, 0}}},
		{"a job's HandBack", []step{{0, 2, [2]int{4, 0}, true}, {1, 1, [2]int{1, 0}, false}}, [][2]int{{4, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := &teeUnreadSource{teeTestSource: teeTestSource{n: 100, size: 10}}
			set, open := openTee(t, src, 2, 0)
			readers := []Source{open(), open()}
			b := vector.NewBatch(teeTestStream.Types())
			for _, s := range c.steps {
				r := readers[s.reader]
				for range s.batches {
					var bad []BadRow
					if err := r.Next(b, &bad); err != nil {
						t.Fatal(err)
					}
				}
				if s.unread[0] < 0 {
					continue
				}
				if s.hb {
					r.(*teeReader).SetHandBack(fixedHandBack(s.unread))
				} else {
					r.(Unreader).UnreadAfter(s.unread[0], s.unread[1])
				}
			}
			for _, r := range readers {
				_ = r.Close()
			}
			set.close()
			if fmt.Sprint(src.unread) != fmt.Sprint(c.want) || src.closed != 1 {
				t.Errorf("unread %v, closed %d times; want %v, once", src.unread, src.closed, c.want)
			}
		})
	}
}

// fixedHandBack is a job's HandBack that used its first rows and bad.
type fixedHandBack [2]int

func (h fixedHandBack) Used() (int, int, bool) { return h[0], h[1], true }
