package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"streamql/catalog"
	"streamql/internal/session"
)

// shuffleOpts is `streamql test --shuffle [N] [--seed S]` (SPEC 4, "Finding
// out why"): each case that passed runs N more times, run k with seed S+k-1,
// and each run's outputs must equal the first run's.
//
// A run varies the batch sizes of every bounded file input (each batch a
// random size up to a maximum chosen per run, from 1 row to session.BatchCap), and,
// in most runs, splits each such input that has a WATERMARK into 2 to 4
// partitions of consecutive rows, read through the partition-watermark logic
// of Kafka (executor/partwm.go, SPEC 2.5: each partition its own watermark,
// the stream's their minimum) and interleaved in a random order, in random
// runs of rows. Since splitting changes which rows are late (a row is late by
// its partition's watermark), a split run is compared with the same split
// read partition after partition, and on its lines in any order (rows of a
// partitioned stream come in arrival order); errors.csv is compared stream by
// stream (byStream). A case with a LIMIT, a join or
// an aggregate of the arrival order (LISTAGG, FIRST_VALUE, LAST_VALUE) is not
// split: which rows come first decides its result. Kafka inputs are
// read as they are; a case that reads one is also run as a process that is
// killed and restarted (killRestart, shufflekafka.go).
//
// A case whose jobs' plans call a function that reads the clock or a random
// source (session.Job.Volatile: PROCTIME(), NOW(), CURRENT_TIMESTAMP, RAND(), …)
// is reported as not deterministic and not rerun. What the first run's plans
// say decides (casePlans), not the query text: a view or a `.read` script may
// hold the call, and a string literal that spells one is not a call.
type shuffleOpts struct {
	n    int
	seed uint64
}

// casePlans is what the plans of a case's jobs say about rerunning it,
// gathered as its first run plans them (runHooks.jobObserver); jobs of a case run
// one after another.
type casePlans struct {
	volatile []string // the clock and random functions called (session.Job.Volatile), sorted
	// orderBound: a job's result depends on the order in which rows arrive,
	// beyond their event time: a LIMIT, a join (its build side is read
	// first, its watermark per row), an aggregate of the arrival order
	// (LISTAGG, FIRST_VALUE, LAST_VALUE)
	orderBound bool
	kafka      bool // a job reads a Kafka stream (killRestart)
}

// add records what job's plan says (session.Job).
func (c *casePlans) add(job *session.Job) {
	for _, f := range job.Volatile {
		if !slices.Contains(c.volatile, f) {
			c.volatile = append(c.volatile, f)
		}
	}
	sort.Strings(c.volatile)
	c.orderBound = c.orderBound || job.OrderBound
	if readsKafka(job) {
		c.kafka = true
	}
}

// shuffleCase reruns the passing case c (first is its first run) as opts says.
// It returns the problems (each with the diff and the --seed that reproduces
// it), or a note when the case is not deterministic.
func (o *shuffleOpts) shuffleCase(ctx context.Context, c testCase, timeout time.Duration, first caseRun) (problems []string, note string) {
	if v := first.plans.volatile; len(v) > 0 {
		return nil, fmt.Sprintf("not deterministic: the query calls %s, which read the clock or random numbers, so --shuffle does not rerun it", strings.Join(v, ", "))
	}
	maySplit := !first.plans.orderBound
	for k := 0; k < o.n; k++ {
		seed := o.seed + uint64(k)
		v := newVariant(seed, maySplit)
		got, p := execCase(ctx, v.hook, c, timeout)
		if p != "" {
			return []string{p + " " + v.describe(seed)}, ""
		}
		ref := first
		if v.split {
			v.inOrder = true
			if ref, p = execCase(ctx, v.hook, c, timeout); p != "" {
				return []string{p + " " + v.describe(seed)}, ""
			}
		}
		if diffs := compareRuns(ref, got, v.split); len(diffs) > 0 {
			what := "first run"
			if v.split {
				what = "partitions in order"
			}
			head := fmt.Sprintf("differs from the %s %s; reproduce with: streamql test --shuffle 1 --seed %d %s", what, v.describe(seed), seed, c.name)
			return append([]string{head}, diffs...), ""
		}
	}
	if first.plans.kafka {
		return killRestart(ctx, c, timeout, first, o.seed)
	}
	return nil, ""
}

// compareRuns returns a diff per output that differs between a and b (exit
// status, stdout, side files, stderr); anyOrder compares their lines sorted.
func compareRuns(a, b caseRun, anyOrder bool) []string {
	var out []string
	if a.code != b.code {
		out = append(out, fmt.Sprintf("exit status %d, first run %d", b.code, a.code))
	}
	texts := func(r caseRun) map[string]string {
		m := map[string]string{"main.csv": r.stdout, "stderr": r.stderr}
		for k, v := range r.sides {
			m[k] = v
		}
		return m
	}
	ta, tb := texts(a), texts(b)
	names := sortedKeys(ta)
	for _, n := range sortedKeys(tb) {
		if _, ok := ta[n]; !ok {
			names = append(names, n)
		}
	}
	for _, n := range names {
		x, y := ta[n], tb[n]
		from, to := "first/"+n, "shuffled/"+n
		switch {
		case anyOrder:
			x, y = sortedLines(x), sortedLines(y)
		case n == "errors.csv":
			x, y = byStream(x), byStream(y)
			from, to = from+" (by stream)", to+" (by stream)"
		}
		if x != y {
			out = append(out, unifiedDiff(from, to, x, y))
		}
	}
	return out
}

// byStream returns the text of an errors.csv with its rows grouped by their
// first column, the stream (streams in name order, each stream's rows in
// their order): malformed rows of several inputs reach errors in each
// stream's read order, and their order across streams is not specified (SPEC
// 2.7's decided details), so a join's two inputs read in other batch sizes
// may interleave them otherwise. Text that is not csv is returned as it is.
func byStream(text string) string {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil || len(recs) < 3 {
		return text
	}
	rows := recs[1:] // (after the header)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	var b strings.Builder
	w := csv.NewWriter(&b)
	if err := w.WriteAll(recs); err != nil {
		return text
	}
	return b.String()
}

func sortedLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// variant is one rerun's way of reading the inputs.
type variant struct {
	maxBatch int  // the largest batch, rows
	parts    int  // partitions per input with a WATERMARK (1: not split)
	inOrder  bool // read the partitions one after another (the reference)
	split    bool // an input was split
	mu       sync.Mutex
	rng      *rand.Rand
}

func newVariant(seed uint64, maySplit bool) *variant {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	sizes := []int{1, 2, 3, 7, 64, 333, session.BatchCap}
	v := &variant{maxBatch: sizes[rng.IntN(len(sizes))], parts: 1, rng: rng}
	if maySplit && rng.IntN(4) > 0 {
		v.parts = 2 + rng.IntN(3)
	}
	return v
}

func (v *variant) describe(seed uint64) string {
	s := fmt.Sprintf("(seed %d: batches of 1 to %d rows", seed, v.maxBatch)
	if v.split {
		s += fmt.Sprintf(", each input with a watermark split into %d partitions interleaved", v.parts)
	}
	return s + ")"
}

// hook is the runs' source hook (session.Env.SetSourceHook): bounded inputs
// of a known size (files: catalog.Stream.SizedBounded) are read again as
// the variant says, with no handle of the file's (its parallel reader would
// bypass the reordering) but partitions of their own when split; others as
// they are, with their handles h.
func (v *variant) hook(st *catalog.Stream, src session.Source, h session.SourceHandles) (session.Source, session.SourceHandles) {
	if !st.SizedBounded() {
		return src, h
	}
	v.mu.Lock()
	seed := v.rng.Uint64()
	v.mu.Unlock()
	s := &reshuffled{Source: src, rng: rand.New(rand.NewPCG(seed, 1)), maxBatch: v.maxBatch, parts: 1, inOrder: v.inOrder}
	if v.parts > 1 && st.Watermark != nil {
		s.parts = v.parts
		v.mu.Lock()
		v.split = true
		v.mu.Unlock()
		ps := &partitioned{s}
		return ps, session.SourceHandles{Partitions: ps}
	}
	return s, session.SourceHandles{}
}

// reshuffled reads its whole source first, then hands its rows out in batches
// of random sizes, from partitions of consecutive rows in a random
// interleaving when parts > 1.
type reshuffled struct {
	session.Source
	rng      *rand.Rand
	maxBatch int
	parts    int
	inOrder  bool
	loaded   bool
	batches  []*session.Columns // the source's rows, owned
	items    []item             // every row, in source order
	next     []int              // per partition: its next item
	end      []int              // per partition: the item after its last
	firstPos []int64            // per partition: the position of its first row
	// per partition: the position of its last good row, and whether the
	// watermark assigner asked for that row's partition (partitioned), that
	// is, stamped it
	lastPos  []int64
	lastSeen []bool
}

// item is one row of the source: row i of batches[b], or the malformed row bad.
type item struct {
	b, i int
	bad  *session.BadRow
	pos  int64
}

func (s *reshuffled) load(types []catalog.Type) error {
	s.loaded = true
	tmp := session.NewColumns(types)
	var bad []session.BadRow
	for {
		bad = bad[:0]
		err := s.Source.Next(tmp, &bad)
		if err != nil && err != io.EOF {
			return err
		}
		own := session.NewColumns(types)
		session.AppendRows(own, tmp, 0, tmp.N)
		bi := len(s.batches)
		s.batches = append(s.batches, own)
		k := 0
		for i := 0; i <= tmp.N; i++ {
			for k < len(bad) && bad[k].Index == i {
				x := bad[k]
				x.Raw = append([]byte(nil), x.Raw...)
				s.items = append(s.items, item{bad: &x, pos: x.Line})
				k++
			}
			if i < tmp.N {
				s.items = append(s.items, item{b: bi, i: i, pos: tmp.Pos[i]})
			}
		}
		if err == io.EOF {
			break
		}
	}
	n := len(s.items)
	for p := 0; p < s.parts; p++ {
		from, to := p*n/s.parts, (p+1)*n/s.parts
		s.next, s.end = append(s.next, from), append(s.end, to)
		pos := int64(-1 << 62)
		if p > 0 && from < n {
			pos = s.items[from].pos
		}
		s.firstPos = append(s.firstPos, pos)
		last, seen := int64(0), true
		for k := to - 1; k >= from; k-- {
			if s.items[k].bad == nil {
				last, seen = s.items[k].pos, false
				break
			}
		}
		s.lastPos, s.lastSeen = append(s.lastPos, last), append(s.lastSeen, seen)
	}
	return nil
}

// Next implements session.Source: a batch of up to maxBatch rows.
func (s *reshuffled) Next(b *session.Columns, bad *[]session.BadRow) error {
	if !s.loaded {
		types := make([]catalog.Type, len(b.Cols))
		for c, v := range b.Cols {
			types[c] = v.Type
		}
		if err := s.load(types); err != nil {
			return err
		}
	}
	session.ResetColumns(b)
	size := 1 + s.rng.IntN(s.maxBatch)
	for b.N < size && len(*bad) < session.BatchCap {
		p := s.pick()
		if p < 0 {
			break
		}
		run := 1 + s.rng.IntN(8)
		for ; run > 0 && s.next[p] < s.end[p] && b.N < size && len(*bad) < session.BatchCap; run-- {
			it := s.items[s.next[p]]
			s.next[p]++
			if it.bad != nil {
				x := *it.bad
				x.Index = b.N
				*bad = append(*bad, x)
				continue
			}
			session.AppendRows(b, s.batches[it.b], it.i, it.i+1)
		}
	}
	if b.N == 0 && len(*bad) == 0 {
		return io.EOF
	}
	return nil
}

// pick returns a partition with rows left (the first one in order when
// inOrder, a random one otherwise), or -1.
func (s *reshuffled) pick() int {
	var left []int
	for p := range s.next {
		if s.next[p] < s.end[p] {
			if s.inOrder {
				return p
			}
			left = append(left, p)
		}
	}
	if len(left) == 0 {
		return -1
	}
	return left[s.rng.IntN(len(left))]
}

// partitioned is a reshuffled source read as a partitioned one (the hook
// gives it as the source's session.SourceHandles.Partitions, as Kafka's
// stream declares its own): each partition gets its own watermark.
type partitioned struct{ *reshuffled }

// Partition implements connector.PartitionedSource: the partition of the row
// at position pos. The watermark assigner asks it for each row it stamps, on
// the job's goroutine, which tells when a partition's last row is stamped.
func (s *partitioned) Partition(pos int64) int32 {
	p := max(sort.Search(len(s.firstPos), func(i int) bool { return s.firstPos[i] > pos })-1, 0)
	if pos == s.lastPos[p] {
		s.lastSeen[p] = true
	}
	return int32(p)
}

// Partitions implements connector.PartitionedSource: those whose last row is
// not stamped yet. (Next may run ahead on a prefetching goroutine, so what it
// handed out does not say what the job has stamped.)
func (s *partitioned) Partitions(dst []int32) []int32 {
	for p, seen := range s.lastSeen {
		if !seen {
			dst = append(dst, int32(p))
		}
	}
	return dst
}

// IdleTimeout implements connector.PartitionedSource: no partition is idle.
func (s *partitioned) IdleTimeout() time.Duration { return 0 }

// runHooks are what `streamql test` gives the runs of its cases, passed to
// the run explicitly, not in the context (which carries cancellation only).
type runHooks struct {
	// sourceHook, when set, wraps every source a job opens
	// (session.Env.SetSourceHook): how `test --shuffle` reads inputs
	// (shuffle.go).
	sourceHook sourceHook
	// jobObserver, when set, is called with each job the session is about
	// to run (Session.RunJob): how `test --shuffle` learns what a case's
	// plans say.
	jobObserver func(*session.Job)
	// groupSuffix, when not "", is added to every stream's consumer group
	// (renameGroups, shufflekafka.go): each run of a test case reads its
	// Kafka topics as a new job (SPEC 2.5).
	groupSuffix string
}

// sourceHook wraps the source a job opens for a stream
// (session.Env.SetSourceHook).
type sourceHook = session.SourceHook

// shuffleFlags are the flags of `test --shuffle`.
type shuffleFlags struct {
	n    *int
	seed *uint64
}

// addShuffleFlags declares --shuffle [N] (default 3 when given without N) and
// --seed S on fl.
func addShuffleFlags(fl *pflag.FlagSet) shuffleFlags {
	f := shuffleFlags{
		n:    fl.Int("shuffle", 0, "rerun each passing case `N` more times with other batch sizes and partition orders; a difference fails it"),
		seed: fl.Uint64("seed", 0, "the seed of the first --shuffle run (`S`, printed with a difference; default: from the clock)"),
	}
	fl.Lookup("shuffle").NoOptDefVal = "3"
	return f
}

// opts returns the parsed --shuffle options, nil without --shuffle, or an
// error for a bad N.
func (f shuffleFlags) opts(fl *pflag.FlagSet) (*shuffleOpts, error) {
	if !fl.Changed("shuffle") {
		if fl.Changed("seed") {
			return nil, fmt.Errorf("--seed applies to --shuffle; add --shuffle 1 to rerun a case with that seed")
		}
		return nil, nil
	}
	if *f.n < 1 {
		return nil, fmt.Errorf("--shuffle %d must be at least 1 (the number of reruns per case)", *f.n)
	}
	seed := *f.seed
	if !fl.Changed("seed") {
		seed = uint64(time.Now().UnixNano()) % 1_000_000_000
	}
	return &shuffleOpts{n: *f.n, seed: seed}, nil
}

// noteText is a case's note after its PASS line.
func noteText(note string) string {
	if note == "" {
		return ""
	}
	return " (" + note + ")"
}

// shuffleArgs joins `--shuffle N` into `--shuffle=N` when N is a number, so
// that N is optional (pflag's NoOptDefVal) and still may follow a space.
func shuffleArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--shuffle" && i+1 < len(args) {
			if _, err := strconv.Atoi(args[i+1]); err == nil {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
