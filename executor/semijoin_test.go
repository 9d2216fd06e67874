package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/parser"
	"streamql/planner"
)

// row is a (key, event time) pair of the property test's streams; key "" is NULL.
type row struct {
	k  string
	ts int64
}

// stepSource is a live source that yields its rows in random-sized batches, one
// batch each time the test's driver sends on step, sometimes reporting that it
// waits for input. It makes the interleaving of two streams the driver's choice.
type stepSource struct {
	rows []row
	rng  *rand.Rand
	step chan struct{}
	done chan struct{}
	pos  int
}

func (s *stepSource) Next(b *vector.Batch, _ *[]BadRow) error {
	b.Reset()
	<-s.step
	if s.pos == len(s.rows) {
		close(s.done)
		return io.EOF
	}
	if s.rng.Intn(4) == 0 {
		return ErrWaiting
	}
	n := 1 + s.rng.Intn(5)
	for ; n > 0 && s.pos < len(s.rows); n-- {
		r := s.rows[s.pos]
		i := b.N
		b.Cols[0].Null[i] = r.k == ""
		b.Cols[0].S[i] = []byte(r.k)
		b.Cols[1].Null[i] = false
		b.Cols[1].I[i] = r.ts
		b.Pos[i] = int64(s.pos + 1)
		b.N++
		s.pos++
	}
	return nil
}

func (s *stepSource) Position(line int64) string { return fmt.Sprint("test:", line) }
func (s *stepSource) Progress() (int64, int64)   { return 0, 0 }
func (s *stepSource) Close() error               { return nil }

// collect is a sink that records the main output's rows: each row's key
// column and event time as "key@ts", or as row says when it is set.
type collect struct {
	out []string
	row func(cols []*vector.Vec, i int) string
}

func (c *collect) Rows(r *Step) error {
	dest := destsOf(r)
	for i := 0; i < r.N; i++ {
		if k := dest[i]; k >= 0 {
			p := r.Parts[k]
			if c.row != nil {
				c.out = append(c.out, c.row(p.Cols, i))
				continue
			}
			key := ""
			if !p.Cols[0].Null[i] {
				key = string(p.Cols[0].S[i])
			}
			c.out = append(c.out, fmt.Sprintf("%s@%d", key, p.Cols[1].I[i]))
		}
	}
	return nil
}
func (c *collect) Errors(string, []ErrorRow) error { return nil }
func (c *collect) Flush() error                    { return nil }
func (c *collect) Close() error                    { return nil }

// planEventJoin plans SQL over an unbounded probe stream l and build stream r,
// both (k VARCHAR, ts BIGINT) with watermarks ts - ldelay / ts - rdelay ms.
func planEventJoin(t *testing.T, sql string, ldelay, rdelay int) *planner.Job {
	t.Helper()
	ddl := fmt.Sprintf(`CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%g' SECOND) WITH ('connector'='socket', 'port'='1');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%g' SECOND) WITH ('connector'='socket', 'port'='1');
`, float64(ldelay)/1000, float64(rdelay)/1000)
	_, job := planEventJoinScript(t, ddl+sql)
	return job
}

// planEventJoinScript declares the streams of src's CREATE STREAM
// statements, each (k VARCHAR, ts BIGINT) with event time ts, its watermark
// and its options, and plans src's SELECT over them; it returns the
// catalog and the job.
func planEventJoinScript(tb testing.TB, src string) (*catalog.Catalog, *planner.Job) {
	tb.Helper()
	script, err := parser.Parse("test", src)
	if err != nil {
		tb.Fatal(err)
	}
	cat := catalog.New()
	for _, st := range script.Stmts {
		switch st := st.(type) {
		case *parser.CreateStream:
			s := &catalog.Stream{Name: st.Name, EventTime: 1, Watermark: planner.Watermark(st.Watermark),
				Columns: []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}}}
			if s.Connector, s.Options, err = planner.ValidateOptions(st.Options, s.Columns, 0); err != nil {
				tb.Fatal(err)
			}
			cat.Add(s)
		case *parser.Select:
			return cat, planWith(tb, cat, src[st.Start:st.End])
		}
	}
	tb.Fatal("no SELECT")
	return nil, nil
}

// planBranch plans one SELECT over cat.
func planBranch(tb testing.TB, cat *catalog.Catalog, sql string) *planner.Branch {
	tb.Helper()
	script, err := parser.Parse("test", sql)
	if err != nil {
		tb.Fatal(err)
	}
	p := &planner.Planner{Cat: cat, Source: sql}
	b, err := p.PlanSelect(script.Stmts[0].(*parser.Select))
	if err != nil {
		tb.Fatal(parser.FormatError("test", sql, err.(*parser.Error)))
	}
	return b
}

// planWith plans one main query over cat into a job.
func planWith(tb testing.TB, cat *catalog.Catalog, sql string) *planner.Job {
	tb.Helper()
	b := planBranch(tb, cat, sql)
	job, err := planner.NewJob(b.Stream, nil, b, sql)
	if err != nil {
		tb.Fatal(err)
	}
	return job
}

// reference computes SPEC 2.2's event-time answer naively: a left row (k, t)
// matches when some build row with key k and time <= t was not late (its time not
// below the build watermark before it); semi keeps matches, anti the rest.
func reference(left, right []row, rdelay int64, anti bool) []string {
	var wm int64
	set := false
	var live []row
	for _, r := range right {
		if !(set && r.ts < wm) && r.k != "" {
			live = append(live, r)
		}
		if !set || r.ts-rdelay > wm {
			wm, set = r.ts-rdelay, true
		}
	}
	var out []string
	for _, l := range left {
		match := false
		for _, r := range live {
			if l.k != "" && r.k == l.k && r.ts <= l.ts {
				match = true
			}
		}
		if match != anti {
			out = append(out, fmt.Sprintf("%s@%d", l.k, l.ts))
		}
	}
	return out
}

func randomRows(rng *rand.Rand, n int) []row {
	rows := make([]row, n)
	var t int64 = 1000
	for i := range rows {
		t += int64(rng.Intn(40)) - 15 // mostly increasing, sometimes out of order
		k := string(rune('a' + rng.Intn(4)))
		if rng.Intn(10) == 0 {
			k = ""
		}
		rows[i] = row{k: k, ts: t}
	}
	return rows
}

// TestEventTimeJoinDeterministic feeds random inputs in many random interleavings
// and checks every run gives the same output, equal to the naive reference
// (SPEC 2.2: the answer never depends on how the two inputs interleave).
func TestEventTimeJoinDeterministic(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewSource(seed))
		left, right := randomRows(rng, 10+rng.Intn(60)), randomRows(rng, 10+rng.Intn(60))
		rdelay := int64(rng.Intn(30))
		anti := seed%2 == 0
		op := "SEMI"
		if anti {
			op = "ANTI"
		}
		job := planEventJoin(t, fmt.Sprintf("SELECT l.k, l.ts FROM l %s JOIN r ON l.k = r.k;", op), rng.Intn(20), int(rdelay))
		want := strings.Join(reference(left, right, rdelay, anti), " ")
		for run := 0; run < 8; run++ {
			ls := &stepSource{rows: left, rng: rand.New(rand.NewSource(seed*100 + int64(run))), step: make(chan struct{}), done: make(chan struct{})}
			rs := &stepSource{rows: right, rng: rand.New(rand.NewSource(seed*1000 + int64(run))), step: make(chan struct{}), done: make(chan struct{})}
			ctx, cancel := context.WithCancel(context.Background())
			go drive(ctx, rand.New(rand.NewSource(int64(run))), ls, rs)
			sink := &collect{}
			var stats Stats
			stats.stream(job.Stream)
			err := runJob(ctx, opContext{}, job, testOpened(ls), testOpeneds(rs), []*planner.Branch{job.Main}, sink, &stats, NewStateBudget(0))
			cancel()
			if err != nil {
				t.Fatalf("seed %d run %d: %v", seed, run, err)
			}
			if got := strings.Join(sink.out, " "); got != want {
				t.Fatalf("seed %d run %d (%s, build delay %d):\ngot  %s\nwant %s", seed, run, op, rdelay, got, want)
			}
		}
	}
}

// drive steps the two sources in a random order until both ended.
func drive(ctx context.Context, rng *rand.Rand, a, b *stepSource) {
	as, bs := a.step, b.step
	for as != nil || bs != nil {
		first, second := as, bs
		if rng.Intn(2) == 0 {
			first, second = bs, as
		}
		select {
		case first <- struct{}{}:
		case <-ctx.Done():
			return
		default:
			select {
			case first <- struct{}{}:
			case second <- struct{}{}:
			case <-a.done:
				as = nil
			case <-b.done:
				bs = nil
			case <-ctx.Done():
				return
			}
		}
	}
}

// TestEventTimeJoinPlanningErrors checks SPEC 2.2's planning errors for an
// unbounded build side.
func TestEventTimeJoinPlanningErrors(t *testing.T) {
	src := `CREATE STREAM l (k VARCHAR, ts BIGINT) WITH ('connector'='socket', 'port'='1');
SELECT l.k FROM l SEMI JOIN r ON l.k = r.k;`
	script, _ := parser.Parse("t", src)
	cat := catalog.New()
	for _, name := range []string{"l", "r"} {
		s := &catalog.Stream{Name: name, EventTime: -1, Columns: []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}}}
		s.Connector, s.Options, _ = planner.ValidateOptions(script.Stmts[0].(*parser.CreateStream).Options, s.Columns, 0)
		cat.Add(s)
	}
	p := &planner.Planner{Cat: cat, Source: src}
	_, err := p.PlanSelect(script.Stmts[1].(*parser.Select))
	if err == nil || !strings.Contains(err.Error(), "needs a WATERMARK on both streams") {
		t.Errorf("error %v, want one that asks for watermarks", err)
	}
}

// scriptSource gives, one call of Next each, the steps of its script: n > 0
// a batch of n rows, 0 ErrWaiting, -1 io.EOF, -2 an error. It records a
// call of Next made while a batch it gave is still out (out: set when it
// gives one, cleared by the test before it acks), which a portReader must
// never make (one batch of a port in flight).
type scriptSource struct {
	steps []int
	out   atomic.Bool
	ahead atomic.Int32 // calls made while out
}

var errScript = errors.New("script: read failed")

func (s *scriptSource) Next(b *vector.Batch, _ *[]BadRow) error {
	if s.out.Load() {
		s.ahead.Add(1)
	}
	b.Reset()
	st := s.steps[0]
	s.steps = s.steps[1:]
	switch st {
	case 0:
		return ErrWaiting
	case -1:
		return io.EOF
	case -2:
		return errScript
	}
	for i := range st {
		b.Cols[0].S[i], b.Cols[0].Null[i] = []byte("k"), false
		b.Cols[1].I[i], b.Cols[1].Null[i] = int64(i), false
		b.Pos[i] = int64(i + 1)
	}
	b.N = st
	s.out.Store(true)
	return nil
}

func (s *scriptSource) Position(line int64) string { return fmt.Sprint("script:", line) }
func (s *scriptSource) Progress() (int64, int64)   { return 0, 0 }
func (s *scriptSource) Close() error               { return nil }

// TestHeldPortReader checks the reader an event-time join job's scheduler
// has for each input port (portReader), the probe stream's and the build
// sides' alike: it hands each batch with its port, reads the next only once
// the scheduler acked the last (stdin's hand-back holds one batch at most),
// hands ErrWaiting only when it waits for the scheduler (the probe: the sink
// is flushed), and its source's end or error is its last message; read
// (the scheduler's own call, for a replayed source) gives the same steps.
func TestHeldPortReader(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt}
	show := func(m portMsg) string {
		switch {
		case m.err == nil:
			return fmt.Sprintf("%d:%d", m.r.port, m.b.N)
		case errors.Is(m.err, ErrWaiting):
			return fmt.Sprintf("%d:wait", m.r.port)
		case m.err == io.EOF:
			return fmt.Sprintf("%d:eof", m.r.port)
		}
		return fmt.Sprintf("%d:%v", m.r.port, m.err)
	}
	for _, c := range []struct {
		port  int
		waits bool
		steps []int
		want  string // run's messages
		read  string // read's, call by call until the end or an error
	}{
		{0, true, []int{3, 0, 2, 0, 0, 1, -1}, "0:3 0:wait 0:2 0:wait 0:wait 0:1 0:eof", "0:3 0:wait 0:2 0:wait 0:wait 0:1 0:eof"},
		{2, false, []int{3, 0, 2, 0, 0, 1, -1}, "2:3 2:2 2:1 2:eof", "2:3 2:wait 2:2 2:wait 2:wait 2:1 2:eof"},
		{0, true, []int{4, -2, 5}, "0:4 0:" + errScript.Error(), "0:4 0:" + errScript.Error()},
		{1, false, []int{0, -2, 5}, "1:" + errScript.Error(), "1:wait 1:" + errScript.Error()},
		{0, true, []int{-1, 5}, "0:eof", "0:eof"},
	} {
		src := &scriptSource{steps: append([]int(nil), c.steps...)}
		r := newPortReader(c.port, src, types, c.waits)
		ch := make(chan portMsg)
		done := make(chan struct{})
		go func() { r.run(context.Background(), ch); close(done) }()
		var got []string
		for ended := false; !ended; {
			select {
			case m := <-ch:
				got = append(got, show(m))
				if m.err != nil && !errors.Is(m.err, ErrWaiting) {
					continue
				}
				src.out.Store(false)
				select { // (r.ack, which never blocks when the reader waits for it)
				case r.acks <- struct{}{}:
				default:
					t.Errorf("port %d over %v: an ack not taken before the next batch", c.port, c.steps)
				}
			case <-done:
				ended = true
			}
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("port %d (waits %v) over %v: got %s, want %s", c.port, c.waits, c.steps, s, c.want)
		}
		if n := src.ahead.Load(); n > 0 {
			t.Errorf("port %d over %v: %d reads before the last batch was acked", c.port, c.steps, n)
		}
		// read, on the scheduler's goroutine: every step, ErrWaiting too (the
		// scheduler reads a polled probe so)
		src = &scriptSource{steps: append([]int(nil), c.steps...)}
		r = newPortReader(c.port, src, types, c.waits)
		got = got[:0]
		for {
			m := r.read()
			src.out.Store(false)
			got = append(got, show(m))
			if m.err != nil && !errors.Is(m.err, ErrWaiting) {
				break
			}
		}
		if s := strings.Join(got, " "); s != c.read {
			t.Errorf("port %d read over %v: got %s, want %s", c.port, c.steps, s, c.read)
		}
	}
}

// errCount is collect that also counts the malformed rows routed with the
// rows (Step.Errors).
type errCount struct {
	collect
	bad int
}

func (c *errCount) Rows(r *Step) error {
	c.bad += len(r.Errors.Rows)
	return c.collect.Rows(r)
}

// TestHeldChainHold: an event-time join job's hold is the operator of its
// chain between the watermark assigner and the router (chainOpts.hold,
// issue 22 item 3), counted by its wrapper as every operator is: over
// random stdin inputs of good and malformed lines spanning several batches,
// under 'skip' and 'side', the assigner stamps every good row once (rows in
// and out), the hold takes them all and releases them all into the router
// once the build side ended, the job's output is the good rows whose key
// the build side has, and every malformed row is counted once, and written
// once under 'side'. The reference reads the input lines.
func TestHeldChainHold(t *testing.T) {
	for seed := range 8 {
		r := rand.New(rand.NewSource(int64(seed)))
		policy := []string{"side", "skip"}[seed%2]
		n := 1 + r.Intn(3*vector.Cap)
		var lines, want []string
		good, bad := 0, 0
		for i := range n {
			if r.Intn(30) == 0 {
				lines = append(lines, fmt.Sprintf("bad%d", i))
				bad++
				continue
			}
			k := "abc"[r.Intn(3)]
			lines = append(lines, fmt.Sprintf("%c,%d", k, i+1))
			good++
			if k != 'c' {
				want = append(want, fmt.Sprintf("%c@%d", k, i+1))
			}
		}
		cat, job := planEventJoinScript(t, `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='stdin', 'errors'='`+policy+`');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='1');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;`)
		ls := openStdinLines(t, cat.Lookup("l"), lines)
		sink := &errCount{}
		var stats Stats
		stats.Analysis = newAnalysis(job)
		es := stats.stream(job.Stream)
		build := &stalledSource{rows: []row{{"a", 0}, {"b", 0}}}
		err := runJob(context.Background(), opContext{}, job, testOpened(ls), testOpeneds(build), []*planner.Branch{job.Main}, sink, &stats, NewStateBudget(0))
		ls.Close()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var names []string
		ops := map[string]*OpStats{}
		for _, o := range stats.Analysis.Ops {
			names = append(names, o.Name)
			ops[o.Name] = o
		}
		if got := strings.Join(names, " "); !strings.HasPrefix(got, "watermark hold router ") {
			t.Fatalf("seed %d: the chain's operators are %s, want the hold between the watermark assigner and the router", seed, got)
		}
		g := int64(good)
		if w, h, rt := ops["watermark"], ops["hold"], ops["router"]; w.RowsIn != g || w.RowsOut != g || h.RowsIn != g || h.RowsOut != g || rt.RowsIn != g || w.Batches == 0 || w.Batches != h.Batches {
			t.Errorf("seed %d (%s, %d lines): watermark %+v, hold %+v, router %+v; want %d rows in and out of each, the assigner's batches the hold's", seed, policy, n, *w, *h, *rt, good)
		}
		wantBad := bad
		if policy == "skip" {
			wantBad = 0
		}
		if !slices.Equal(sink.out, want) || es.Malformed != int64(bad) || sink.bad != wantBad {
			t.Errorf("seed %d (%s, %d lines): %d rows (want %d), %d malformed counted and %d written (want %d and %d)", seed, policy, n, len(sink.out), len(want), es.Malformed, sink.bad, bad, wantBad)
		}
	}
}

// groupFailSource is a probe source read on the job's goroutine (a
// connector.Replayer, as a Kafka group source is) that gives one batch
// whose malformed row comes after the good rows rows[:at], then waits
// (ErrWaiting); it records what the job said it did not use (UnreadAfter)
// and how often it was read.
type groupFailSource struct {
	rows  []row
	at    int
	reads int
	after [2]int // the last UnreadAfter's arguments ({-1, -1}: none)
}

func (s *groupFailSource) Next(b *vector.Batch, bad *[]BadRow) error {
	s.reads++
	b.Reset()
	if s.reads > 1 {
		return ErrWaiting
	}
	for i, r := range s.rows {
		b.Cols[0].S[i], b.Cols[1].I[i], b.Pos[i] = []byte(r.k), r.ts, int64(i+1)
	}
	b.N = len(s.rows)
	*bad = append(*bad, BadRow{Index: s.at, Line: int64(s.at + 1), Raw: []byte("bad"), Reason: "malformed"})
	return nil
}

func (s *groupFailSource) SetReplay(connector.Replay) {}
func (s *groupFailSource) Unread(int)                 {}
func (s *groupFailSource) UnreadAfter(rows, bad int)  { s.after = [2]int{rows, bad} }
func (s *groupFailSource) Position(line int64) string { return fmt.Sprint("g:", line) }
func (s *groupFailSource) Progress() (int64, int64)   { return 0, 0 }
func (s *groupFailSource) Close() error               { return nil }

// TestHeldGroupProbeFailsAtItsMalformedRow: an event-time join whose probe
// stream is read on the job's goroutine (a consumer group's source, whose
// checkpoint runs between pushes) and has 'errors'='fail' stops at the
// first malformed row: the job's error is its *RowError, the held rows
// before it are routed once the build side passed them, and the source is
// told that nothing from the failing row on was used (UnreadAfter: the hold's
// fail, so the group does not commit it) and is not read again. For each
// place of the failing row in the batch, the reference is the good rows
// before it whose key the build side has.
func TestHeldGroupProbeFailsAtItsMalformedRow(t *testing.T) {
	rows := []row{{"a", 10}, {"b", 20}, {"a", 30}, {"c", 40}}
	_, job := planEventJoinScript(t, `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='1', 'errors'='fail');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='2');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;`)
	for at := 0; at <= len(rows); at++ {
		src := &groupFailSource{rows: rows, at: at, after: [2]int{-1, -1}}
		var want []string
		for _, r := range rows[:at] {
			if r.k != "c" {
				want = append(want, fmt.Sprintf("%s@%d", r.k, r.ts))
			}
		}
		sink := &collect{}
		var stats Stats
		stats.stream(job.Stream)
		build := &stalledSource{rows: []row{{"a", 0}, {"b", 0}}}
		err := runJob(context.Background(), opContext{}, job, testOpened(src), testOpeneds(build), []*planner.Branch{job.Main}, sink, &stats, NewStateBudget(0))
		var re *RowError
		if !errors.As(err, &re) || re.Position != fmt.Sprint("g:", at+1) {
			t.Errorf("failing row after %d good rows: the job's error is %v, want the *RowError of g:%d", at, err, at+1)
		}
		if src.after != [2]int{at, 1} || src.reads != 1 {
			t.Errorf("failing row after %d good rows: UnreadAfter%v after %d reads, want UnreadAfter(%d, 1) after 1", at, src.after, src.reads, at)
		}
		if !slices.Equal(sink.out, want) {
			t.Errorf("failing row after %d good rows: routed %q, want %q", at, sink.out, want)
		}
	}
}
