package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
)

// TestPortSchedulerRule checks the scheduling core (portScheduler) over
// random runs of random ports, each read by a reader on a goroutine of its
// own or polled, under a random rule that changes between batches: the
// core acks a port whose batch was taken exactly when the rule accepts it
// (ackAccepted), a port's reader reads its next batch only once acked
// (never a read ahead: scriptSource.ahead), next gives the first polled
// port that was acked and that the rule accepts, and every port is read to
// its end. A stopped job's core acks no goroutine's reader (ackAccepted
// false) but still readies a polled port.
func TestPortSchedulerRule(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt}
	for seed := range int64(300) {
		rng := rand.New(rand.NewSource(seed))
		n := 1 + rng.Intn(4)
		srcs := make([]*scriptSource, n)
		refused := make([]bool, n) // the rule's answer for each port now
		c := newPortScheduler(n, func(p int) bool { return !refused[p] })
		acked := make([]bool, n) // port p may read (its reader reads its next batch)
		for p := range n {
			var steps []int
			for range rng.Intn(6) {
				steps = append(steps, rng.Intn(4)) // (0: ErrWaiting)
			}
			srcs[p] = &scriptSource{steps: append(steps, -1)}
			c.add(p, newPortReader(p, srcs[p], types, true), rng.Intn(2) == 0)
			acked[p] = true // (a reader reads its first batch at once)
		}
		ctx, cancel := context.WithCancel(context.Background())
		g, gctx := errgroup.WithContext(ctx)
		c.start(gctx, g)
		fail := func(format string, args ...any) {
			cancel()
			t.Fatalf("seed %d (%d ports, polled %v): %s", seed, n, c.polled, fmt.Sprintf(format, args...))
		}
		for ended := 0; ended < n; {
			for p := range n {
				refused[p] = rng.Intn(3) == 0
			}
			due := append([]bool(nil), c.due...)
			if !c.ackAccepted(gctx) {
				fail("ackAccepted false with the context alive")
			}
			for p := range n {
				switch {
				case due[p] && !c.due[p] && refused[p]:
					fail("port %d acked while the rule refuses it", p)
				case due[p] && c.due[p] && !refused[p]:
					fail("port %d not acked while the rule accepts it", p)
				case due[p] && !c.due[p]:
					acked[p] = true
				}
			}
			want := -1
			for p := n - 1; p >= 0; p-- {
				if c.polled[p] && acked[p] && !refused[p] {
					want = p
				}
			}
			var m portMsg
			if p := c.next(); p != want {
				fail("next gave port %d, want %d (acked %v, refused %v)", p, want, acked, refused)
			} else if p >= 0 {
				m = c.read(p)
			} else {
				inFlight := false
				for p := range n {
					inFlight = inFlight || !c.polled[p] && acked[p]
				}
				if !inFlight {
					continue // (every port waits for an ack the rule refuses now)
				}
				m = <-c.msgs
			}
			p := m.r.port
			if !acked[p] {
				fail("port %d read before the core acked it", p)
			}
			acked[p] = false
			srcs[p].out.Store(false)
			switch {
			case m.err == io.EOF:
				ended++
				c.taken(p, false)
			case errors.Is(m.err, ErrWaiting): // (nothing came: it reads again)
				if !c.ack(gctx, p) {
					fail("ack false with the context alive")
				}
				acked[p] = true
			case m.err != nil:
				fail("port %d: %v", p, m.err)
			default:
				c.taken(p, true)
			}
		}
		for p, s := range srcs {
			if k := s.ahead.Load(); k > 0 {
				t.Errorf("seed %d: port %d read %d times before its last batch was taken", seed, p, k)
			}
		}
		cancel()
		_ = g.Wait()
	}
	// a stopped job: a due goroutine's reader is not acked, a polled port is
	c := newPortScheduler(2, func(int) bool { return true })
	c.add(0, newPortReader(0, &scriptSource{steps: []int{-1}}, types, true), true)
	c.add(1, newPortReader(1, &scriptSource{steps: []int{-1}}, types, false), false)
	c.reading(0)
	c.taken(0, true)
	c.taken(1, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c.ackAccepted(ctx) {
		t.Error("a stopped job's core acked its goroutine reader")
	}
	if !c.ready[0] || c.next() != 0 {
		t.Error("a stopped job's core did not ready its polled port")
	}
	if len(c.readers[1].acks) != 0 {
		t.Error("a stopped job's goroutine reader got an ack")
	}
}

// The connectors of TestJoinReadOrder: an unbounded and a bounded stream,
// each opening the orderSource the test gave its name (orderSources).
var (
	orderMu      sync.Mutex
	orderSources map[string]*orderSource
)

func init() {
	open := func(_ context.Context, st *catalog.Stream, _ *connector.Env) (connector.Source, error) {
		orderMu.Lock()
		defer orderMu.Unlock()
		return orderSources[st.Name], nil
	}
	connector.Register(&catalog.ConnectorSpec{Name: "test-order", Doc: "test", Bounded: func(map[string]string) bool { return false }}, &connector.Driver{Open: open})
	connector.Register(&catalog.ConnectorSpec{Name: "test-order-bounded", Doc: "test", Bounded: func(map[string]string) bool { return true }}, &connector.Driver{Open: open})
	// (with the options of a connector that reads bytes: TestJoinInputReaderKeepsItsBatch)
	connector.Register(&catalog.ConnectorSpec{Name: "test-order-options", Doc: "test", Options: catalog.WithFormat(), Bounded: func(map[string]string) bool { return false }}, &connector.Driver{Open: open})
}

// orderStep is one call of an orderSource's Next: a batch of rows (key
// "k", these event times), or ErrWaiting when times is nil.
type orderStep struct{ times []int64 }

// orderSource gives its steps, one a call of Next, then io.EOF, and logs
// each call in log as its name and what it gave: "l2" (a batch of 2
// rows), "lw" (ErrWaiting), "le" (the end).
type orderSource struct {
	name  string
	steps []orderStep
	log   *[]string
	// given, when set, records the batch each call of Next was given
	given *[]*vector.Batch
}

func (s *orderSource) Next(b *vector.Batch, _ *[]BadRow) error {
	b.Reset()
	orderMu.Lock()
	defer orderMu.Unlock()
	if s.given != nil {
		*s.given = append(*s.given, b)
	}
	if len(s.steps) == 0 {
		*s.log = append(*s.log, s.name+"e")
		return io.EOF
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	if st.times == nil {
		*s.log = append(*s.log, s.name+"w")
		return ErrWaiting
	}
	for i, ts := range st.times {
		b.Cols[0].S[i], b.Cols[0].Null[i] = []byte("k"), false
		b.Cols[1].I[i], b.Cols[1].Null[i] = ts, false
		b.Pos[i] = int64(i + 1)
	}
	b.N = len(st.times)
	*s.log = append(*s.log, fmt.Sprint(s.name, b.N))
	return nil
}

func (s *orderSource) Position(line int64) string { return fmt.Sprint(s.name, ":", line) }
func (s *orderSource) Progress() (int64, int64)   { return 0, 0 }
func (s *orderSource) Close() error               { return nil }

// orderReference is the order in which SPEC 2.7 reads a join's two inputs
// (l input 0, r input 1), each with its steps, a watermark of its largest
// time less delay[s] when timed[s], bounded or not: while both have not
// ended, a lookup join reads r whole first; an input that ended leaves the
// other; when one input has no event time, a bounded input is read whole
// first (l before r), else they are read by turns (r first); else the
// input whose watermark is behind is read (unset is behind, l on a tie). An
// input whose read has no row ready (ErrWaiting) has the other one, not
// ended, read meanwhile, but in a lookup join.
func orderReference(steps [2][]orderStep, timed, bounded [2]bool, delay [2]int64, lookup bool) string {
	var log []string
	var pos [2]int
	var done, set [2]bool
	var wm [2]int64
	name := [2]string{"l", "r"}
	read := func(s int) bool { // (true: ErrWaiting)
		if pos[s] == len(steps[s]) {
			done[s] = true
			log = append(log, name[s]+"e")
			return false
		}
		st := steps[s][pos[s]]
		pos[s]++
		if st.times == nil {
			log = append(log, name[s]+"w")
			return true
		}
		for _, ts := range st.times {
			if !set[s] || ts-delay[s] > wm[s] {
				wm[s], set[s] = ts-delay[s], true
			}
		}
		log = append(log, fmt.Sprint(name[s], len(st.times)))
		return false
	}
	last := 0
	for !done[0] || !done[1] {
		var s int
		switch {
		case lookup && !done[1], done[0]:
			s = 1
		case done[1]:
			s = 0
		case !timed[0] || !timed[1]:
			switch {
			case bounded[0]:
				s = 0
			case bounded[1]:
				s = 1
			default:
				s = 1 - last
			}
		case !set[0]:
			s = 0
		case !set[1] || wm[0] > wm[1]:
			s = 1
		}
		last = s
		if read(s) && !done[1-s] && !lookup {
			read(1 - s)
		}
	}
	return strings.Join(log, " ")
}

// TestJoinReadOrder: a two-input join's source reads its inputs under the
// scheduling core (portScheduler) by the join's rule (joinSource.accepts),
// in SPEC 2.7's order (orderReference), over random inputs (live ones
// that sometimes have no row ready, bounded ones), for an interval join of
// two timed inputs, a regular join of inputs with or without event time
// and a lookup join.
func TestJoinReadOrder(t *testing.T) {
	cases := []struct {
		name    string
		timed   [2]bool
		bounded [2]bool
		lookup  bool
		q       string
	}{
		{"interval join", [2]bool{true, true}, [2]bool{}, false, "SELECT l.k, r.ts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts + INTERVAL '1' SECOND"},
		{"regular join without event time, by turns", [2]bool{}, [2]bool{}, false, "SELECT l.k, r.ts FROM l JOIN r ON l.k = r.k"},
		{"regular join, one input timed", [2]bool{true, false}, [2]bool{}, false, "SELECT l.k, r.ts FROM l JOIN r ON l.k = r.k"},
		{"regular join, the left input bounded", [2]bool{}, [2]bool{true, false}, false, "SELECT l.k, r.ts FROM l JOIN r ON l.k = r.k"},
		{"lookup join", [2]bool{true, false}, [2]bool{false, true}, true, "SELECT l.k, r.ts FROM l JOIN r ON l.k = r.k"},
	}
	delay := [2]int64{1000, 2000}
	for _, c := range cases {
		ddl := ""
		for s, name := range []string{"l", "r"} {
			wm := ""
			if c.timed[s] {
				wm = fmt.Sprintf(", WATERMARK FOR ts AS ts - INTERVAL '%d' SECOND", delay[s]/1000)
			}
			conn := "test-order"
			if c.bounded[s] {
				conn = "test-order-bounded"
			}
			ddl += fmt.Sprintf("CREATE STREAM %s (k VARCHAR, ts BIGINT%s) WITH ('connector'='%s');\n", name, wm, conn)
		}
		cat := orderCatalog(t, ddl)
		job := planWith(t, cat, c.q)
		if job.Both == nil || job.Both.Lookup != c.lookup {
			t.Fatalf("%s: not planned as the join it tests (%+v)", c.name, job.Both)
		}
		for seed := range int64(60) {
			rng := rand.New(rand.NewSource(seed))
			var steps [2][]orderStep
			for s := range steps {
				t0 := int64(rng.Intn(3000))
				for range rng.Intn(8) {
					if !c.bounded[s] && rng.Intn(4) == 0 {
						steps[s] = append(steps[s], orderStep{})
						continue
					}
					var times []int64
					for range 1 + rng.Intn(3) {
						t0 += int64(rng.Intn(1500)) - 300
						times = append(times, t0)
					}
					steps[s] = append(steps[s], orderStep{times: times})
				}
			}
			want := orderReference(steps, c.timed, c.bounded, delay, c.lookup)
			var log []string
			orderMu.Lock()
			orderSources = map[string]*orderSource{
				"l": {name: "l", steps: append([]orderStep(nil), steps[0]...), log: &log},
				"r": {name: "r", steps: append([]orderStep(nil), steps[1]...), log: &log},
			}
			orderMu.Unlock()
			if _, err := Run(context.Background(), job, &Env{}, func() (Sink, error) { return &collect{}, nil }); err != nil {
				t.Fatalf("%s, seed %d: %v", c.name, seed, err)
			}
			orderMu.Lock()
			got := strings.Join(log, " ")
			orderMu.Unlock()
			if got != want {
				t.Errorf("%s, seed %d: read\n%s\nwant\n%s", c.name, seed, got, want)
			}
		}
	}
}

// orderCatalog declares the streams of ddl as kTsCatalog does, a stream
// without a WATERMARK with no event time either.
func orderCatalog(t *testing.T, ddl string) *catalog.Catalog {
	t.Helper()
	cat := kTsCatalog(t, ddl)
	for _, name := range []string{"l", "r"} {
		if st := cat.Lookup(name); st.Watermark == nil {
			st.EventTime = -1
		}
	}
	return cat
}

// TestJoinInputReaderKeepsItsBatch: a join input's port reader reads every
// batch of its source into its own batch (portReader.b, decoded without
// the record texts: vector.Batch.NoText), also after the input's port
// stage took rows out of one (joinSource.intake: a row refused by
// 'watermark.max-future', rows the pushed-down filter drops), whose kept
// rows go to batches of the input's own (kept, filtered), never swapped
// into the reader's; and the join's output is the same as without the
// option and the filter's rows (the reference: the join of the rows
// kept, by the test's own count).
func TestJoinInputReaderKeepsItsBatch(t *testing.T) {
	ddl := ""
	for _, name := range []string{"l", "r"} {
		ddl += fmt.Sprintf("CREATE STREAM %s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='test-order-options', 'watermark.max-future'='1 min');\n", name)
	}
	cat := orderCatalog(t, ddl)
	job := planWith(t, cat, "SELECT l.ts, r.ts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '10' SECOND AND r.ts + INTERVAL '10' SECOND WHERE l.ts <> 5000 AND r.ts <> 6000")
	if job.Both == nil || job.Both.Inputs[0].Filter == nil || job.Both.Inputs[1].Filter == nil {
		t.Fatalf("not planned as the join it tests, each input with its pushed-down filter (%+v)", job.Both)
	}
	// each input: rows in order (none late), one far in the future
	// (refused), one the filter drops, and rows after them
	steps := [2][]orderStep{
		{{times: []int64{1000, 2000}}, {times: []int64{3000, 10_000_000, 4000}}, {times: []int64{5000, 7000}}, {times: []int64{8000}}},
		{{times: []int64{1500}}, {times: []int64{2500, 6000, 20_000_000}}, {times: []int64{6500, 9000}}, {times: []int64{9500}}},
	}
	var log []string
	var given [2][]*vector.Batch
	orderMu.Lock()
	orderSources = map[string]*orderSource{
		"l": {name: "l", steps: steps[0], log: &log, given: &given[0]},
		"r": {name: "r", steps: steps[1], log: &log, given: &given[1]},
	}
	orderMu.Unlock()
	out := &collect{row: func(cols []*vector.Vec, i int) string { return fmt.Sprint(cols[0].I[i], ",", cols[1].I[i]) }}
	if _, err := Run(context.Background(), job, &Env{}, func() (Sink, error) { return out, nil }); err != nil {
		t.Fatal(err)
	}
	orderMu.Lock()
	defer orderMu.Unlock()
	for s, bs := range given {
		if len(bs) < len(steps[s])+1 {
			t.Fatalf("input %d: %d calls of Next, want %d", s, len(bs), len(steps[s])+1)
		}
		for k, b := range bs {
			if b != bs[0] || !b.NoText {
				t.Errorf("input %d, call %d of Next: given batch %p (NoText %v), want the reader's %p (NoText)", s, k, b, b.NoText, bs[0])
			}
		}
	}
	// the reference: every pair of kept rows (not refused: within a minute
	// of the input's watermark; not filtered) within 10 s of each other
	var kept [2][]int64
	for s, st := range steps {
		for _, x := range st {
			for _, ts := range x.times {
				if ts < 1_000_000 && ts != []int64{5000, 6000}[s] {
					kept[s] = append(kept[s], ts)
				}
			}
		}
	}
	var want []string
	for _, l := range kept[0] {
		for _, r := range kept[1] {
			if l >= r-10_000 && l <= r+10_000 {
				want = append(want, fmt.Sprint(l, ",", r))
			}
		}
	}
	got := out.out
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("joined rows\n%v\nwant\n%v", got, want)
	}
}
