package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/source"
	"streamql/executor/vector"
	"streamql/planner"
)

// stalledSource is a build side that gives its rows in one batch and then
// waits until stop is closed (its watermark stays where they left it), or
// ends when stop is nil.
type stalledSource struct {
	rows []row
	sent bool
	stop chan struct{}
}

func (s *stalledSource) Next(b *vector.Batch, _ *[]BadRow) error {
	b.Reset()
	if !s.sent {
		s.sent = true
		for i, r := range s.rows {
			b.Cols[0].S[i], b.Cols[1].I[i], b.Pos[i] = []byte(r.k), r.ts, int64(i+1)
		}
		b.N = len(s.rows)
		return nil
	}
	if s.stop == nil {
		return io.EOF // the build side ends: every held row is decided
	}
	<-s.stop
	return context.Canceled
}

func (s *stalledSource) Position(line int64) string { return "r" }
func (s *stalledSource) Progress() (int64, int64)   { return 0, 0 }
func (s *stalledSource) Close() error               { return nil }

// cancelAfter collects the main output and cancels the job once it holds n rows.
type cancelAfter struct {
	collect
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Rows(r *Step) error {
	err := c.collect.Rows(r)
	if len(c.out) >= c.n {
		c.cancel()
	}
	return err
}

// TestStdinHeldJob: a job on the event-time join path (and, for
// 'errors'='fail', one without a join) hands back to the next
// job reading stdin what it did not use, and not the rows it routed or
// dropped (SPEC 1, stdin): stopped (Ctrl-C) while probe rows are held, those
// rows; stopped by 'errors'='fail', the rows after the failing row.
func TestStdinHeldJob(t *testing.T) {
	t.Run("cancelled", func(t *testing.T) {
		stop := make(chan struct{})
		build := &stalledSource{rows: []row{{"a", 10}, {"z", 100}}, stop: stop}
		out, rest, err := runEventJoinThenRead(t, "", 0, strings.NewReader("a,50\nbad\na,60\nb,70\nc,150\na,160\n"), build, 2, func() { close(stop) })
		if !errors.Is(err, context.Canceled) || !slices.Equal(out, []string{"a@50", "a@60"}) || !slices.Equal(rest, []string{"c", "a"}) {
			t.Fatalf("first job: %v, %q; second job: %q, want the held rows c and a", err, out, rest)
		}
	})
	t.Run("cancelled, no join", func(t *testing.T) {
		pr, pw := io.Pipe()
		go pw.Write([]byte("a,1\nb,2\n"))
		out, rest, err := runEventJoinThenRead(t, "", 0, pr, nil, 2, func() {
			go func() { pw.Write([]byte("c,3\nd,4\n")); pw.Close() }()
		})
		if !errors.Is(err, context.Canceled) || !slices.Equal(out, []string{"a@1", "b@2"}) || !slices.Equal(rest, []string{"c", "d"}) {
			t.Fatalf("first job: %v, %q; second job: %q, want c and d", err, out, rest)
		}
	})
	t.Run("errors fail, no join", func(t *testing.T) {
		out, rest, err := runEventJoinThenRead(t, ", 'errors'='fail'", 0, strings.NewReader("a,50\nb,60\nbad\nbad2\na,70\n"), nil, 1000, nil)
		var re *RowError
		if !errors.As(err, &re) || !slices.Equal(out, []string{"a@50", "b@60"}) || !slices.Equal(rest, []string{"a", "bad:bad2"}) {
			t.Fatalf("first job: %v, %q; second job: %q, want a and bad2, after the failing row", err, out, rest)
		}
	})
	t.Run("errors fail", func(t *testing.T) {
		build := &stalledSource{rows: []row{{"a", 10}, {"z", 100}}}
		out, rest, err := runEventJoinThenRead(t, ", 'errors'='fail'", 0, strings.NewReader("a,50\nb,60\nbad\nbad2\na,70\n"), build, 1000, nil)
		var re *RowError
		if !errors.As(err, &re) || !slices.Equal(out, []string{"a@50"}) || !slices.Equal(rest, []string{"a", "bad:bad2"}) {
			t.Fatalf("first job: %v, %q; second job: %q, want a and bad2, after the failing row", err, out, rest)
		}
	})
}

// runEventJoinThenRead runs SELECT l.k, l.ts FROM l SEMI JOIN r over the stdin
// input (stream l, with the options opts) and build (nil: no join), with
// LIMIT limit when it is above 0, cancelling the job once it routed n rows
// (then calling stopped), and then reads what a second job on stdin gets:
// its keys, and "bad:" and the raw text of malformed rows.
func runEventJoinThenRead(t *testing.T, opts string, limit int, input io.Reader, build Source, n int, stopped func()) (out, rest []string, err error) {
	t.Helper()
	src := `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='stdin'` + opts + `);
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='1');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;`
	if limit > 0 {
		src = strings.Replace(src, "r.k;", fmt.Sprintf("r.k LIMIT %d;", limit), 1)
	}
	if build == nil {
		src = strings.Replace(src, " SEMI JOIN r ON l.k = r.k", "", 1)
	}
	cat, job := planEventJoinScript(t, src)
	l := cat.Lookup("l")
	newDec := func(r io.Reader, continues bool) (connector.Decoder, error) {
		return source.NewDecoder(l, r, continues)
	}
	stdin := &connector.Stdin{R: input}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ls, oerr := stdin.Open(ctx, l, newDec)
	if oerr != nil {
		t.Fatal(oerr)
	}
	sink := &cancelAfter{n: n, cancel: cancel}
	var stats Stats
	stats.stream(job.Stream)
	if stopped != nil {
		go func() { <-ctx.Done(); stopped() }()
	}
	if build == nil {
		err = runJob(ctx, opContext{}, job, testOpened(ls), nil, nil, sink, &stats, NewStateBudget(0))
	} else {
		err = runJob(ctx, opContext{}, job, testOpened(ls), testOpeneds(build), []*planner.Branch{job.Main}, sink, &stats, NewStateBudget(0))
	}
	ls.Close()

	ls, oerr = stdin.Open(context.Background(), l, newDec)
	if oerr != nil {
		t.Fatal(oerr)
	}
	defer ls.Close()
	b := vector.NewBatch(job.BatchTypes)
	for {
		var bad []BadRow
		err := ls.Next(b, &bad)
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrWaiting) {
			continue // (the decoder may be filling b: Source.Next's contract says read it only once it returns nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			rest = append(rest, string(b.Cols[0].S[i]))
		}
		for _, x := range bad {
			rest = append(rest, "bad:"+string(x.Raw))
		}
	}
	return sink.out, rest, err
}

// TestStdinHeldHandBack: a job on the event-time join path over stdin hands
// the session's next job exactly the input after the last row it used
// (SPEC 1), as its hold says (probeHold.Used): after a LIMIT's last row,
// after the failing row of 'errors'='fail', or nothing when it used all,
// over random inputs of good and malformed lines spanning several batches
// and every errors policy. The reference reads the input lines: the used
// prefix ends at the LIMIT's last passing row (keys a and b pass, c does
// not) or at the first malformed line under 'fail', whichever comes first.
func TestStdinHeldHandBack(t *testing.T) {
	for seed := range 24 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		policy := []string{"side", "skip", "fail"}[seed%3]
		n := 1 + r.IntN(3*vector.Cap)
		var lines []string
		for i := range n {
			if r.IntN(40) == 0 {
				lines = append(lines, fmt.Sprintf("bad%d", i))
			} else {
				lines = append(lines, fmt.Sprintf("%c,%d", "abc"[r.IntN(3)], i+1))
			}
		}
		passing := 0
		for _, l := range lines {
			if !strings.HasPrefix(l, "bad") && l[0] != 'c' {
				passing++
			}
		}
		limit := 1 + r.IntN(passing+10)
		// the reference: the used prefix, and what the next job reads
		var wantOut, wantGood, wantBad []string
		used, failed := len(lines), false
		for i, l := range lines {
			if strings.HasPrefix(l, "bad") {
				if policy == "fail" {
					used, failed = i+1, true
					break
				}
				continue
			}
			if l[0] != 'c' {
				wantOut = append(wantOut, fmt.Sprintf("%c@%d", l[0], i+1))
				if len(wantOut) == limit {
					used = i + 1
					break
				}
			}
		}
		for _, l := range lines[used:] {
			if strings.HasPrefix(l, "bad") {
				wantBad = append(wantBad, "bad:"+l)
			} else {
				wantGood = append(wantGood, l[:1])
			}
		}
		build := &stalledSource{rows: []row{{"a", 0}, {"b", 0}}}
		opts := ", 'errors'='" + policy + "'"
		out, rest, err := runEventJoinThenRead(t, opts, limit, strings.NewReader(strings.Join(lines, "\n")+"\n"), build, n+1, nil)
		var re *RowError
		if failed != errors.As(err, &re) || !failed && err != nil {
			t.Fatalf("seed %d (%s, LIMIT %d): %v, want a failure %v", seed, policy, limit, err, failed)
		}
		isBad := func(x string) bool { return strings.HasPrefix(x, "bad:") }
		good := slices.DeleteFunc(slices.Clone(rest), isBad)
		bad := slices.DeleteFunc(rest, func(x string) bool { return !isBad(x) })
		if !slices.Equal(out, wantOut) || !slices.Equal(good, wantGood) || !slices.Equal(bad, wantBad) {
			t.Fatalf("seed %d (%s, LIMIT %d, %d lines): first job %d rows (want %d); the next job read %d good and %d malformed rows, want %d and %d",
				seed, policy, limit, n, len(out), len(wantOut), len(good), len(bad), len(wantGood), len(wantBad))
		}
	}
}

// TestEventTimeJoinLimitEndsJob: a job on the event-time join path that its
// main query's LIMIT ends, the LIMIT operator's (LIMIT n) or a time-ordered
// Top-N's own (ORDER BY the event time LIMIT n, rank.go), ends without an
// error, as on every other driver (process.batch): the held rows' release
// (probeHold.Watermark on port 1) returns errLimitReached, which is the
// job's end, not its failure. Over random probe inputs spanning several
// batches, build keys a and b, LIMIT 1 to 5.
func TestEventTimeJoinLimitEndsJob(t *testing.T) {
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		var lines []string
		for i := range 1 + r.IntN(3*vector.Cap) {
			lines = append(lines, fmt.Sprintf("%c,%d", "abc"[r.IntN(3)], i+1))
		}
		limit := 1 + r.IntN(5)
		for _, order := range []string{"", " ORDER BY l.ts"} {
			src := `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='stdin');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='1');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k` + order + fmt.Sprintf(" LIMIT %d;", limit)
			cat, job := planEventJoinScript(t, src)
			ls := openStdinLines(t, cat.Lookup("l"), lines)
			build := &stalledSource{rows: []row{{"a", 0}, {"b", 0}}}
			var stats Stats
			stats.stream(job.Stream)
			err := runJob(context.Background(), opContext{}, job, testOpened(ls), testOpeneds(build), []*planner.Branch{job.Main}, &collect{}, &stats, NewStateBudget(0))
			ls.Close()
			if err != nil {
				t.Fatalf("seed %d, %q: %v, want the LIMIT to end the job", seed, order, err)
			}
		}
	}
}

// openStdinLines opens stream l as a stdin source reading lines, one a
// line, decoded by l's format.
func openStdinLines(t *testing.T, l *catalog.Stream, lines []string) Source {
	t.Helper()
	stdin := &connector.Stdin{R: strings.NewReader(strings.Join(lines, "\n") + "\n")}
	ls, err := stdin.Open(context.Background(), l, func(r io.Reader, continues bool) (connector.Decoder, error) {
		return source.NewDecoder(l, r, continues)
	})
	if err != nil {
		t.Fatal(err)
	}
	return ls
}
