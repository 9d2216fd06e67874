package op

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
)

// JoinKind is which rows of a join's inputs reach its output without a
// partner, padded with NULLs (SPEC 2.7).
type JoinKind uint8

// The join kinds of SPEC 2.7.
const (
	Inner JoinKind = iota // only joined pairs
	Left                  // and left rows without a partner
	Right                 // and right rows without a partner
	Full                  // and rows of either side without a partner
)

var joinKindNames = [...]string{"INNER", "LEFT", "RIGHT", "FULL"}

// String returns the kind as SQL writes it ("LEFT").
func (k JoinKind) String() string { return joinKindNames[k] }

// outer reports whether side s's rows without a partner are padded.
func (k JoinKind) outer(s int) bool {
	return k == Full || s == 0 && k == Left || s == 1 && k == Right
}

// JoinSpec is one keyed two-input join (SPEC 2.7). Input 0 is the left
// side, input 1 the right side.
type JoinSpec struct {
	Kind JoinKind
	// Types are each input's column types.
	Types [2][]catalog.Type
	// Keep marks, per input, the columns the join's state holds (nil holds
	// every column; plan.JoinInput.Keep, planner/rule_prune_columns.go): a
	// column no reader of the joined rows reads is NULL in them and takes no
	// memory. Late rows go out as they came, every column included. The key,
	// time and stamp columns are always held (the stamp but with DropStamp).
	Keep [2][]bool
	// Pass marks, per input, the columns the joined rows carry (nil: every
	// column held; plan.JoinInput.Pass, planner/rule_prune_columns.go): a
	// column only the join reads (a key, the event time or the stamp, held
	// whatever Keep says) is NULL in them, not written, when no reader of
	// the joined rows reads it. Late rows go out whole, as without it.
	Pass [2][]bool
	// DropStamp says, per input, that the state need not hold its Stamp
	// column: the join reads a row's stamp once, as the row comes (whether
	// it is late), and only a replay reads it back (EachRow, a Kafka input
	// read in its consumer group), so a join that is not replayed and
	// whose Pass leaves the stamp out keeps 8 bytes a row fewer and copies
	// nothing for it (issue 23, the interval join's goal: a file input
	// never replays). EachRow then gives every row's stamp as NULL.
	DropStamp [2]bool
	// Keys are each input's key columns, pairwise of one type (the planner
	// casts BIGINT to DOUBLE where they meet, SPEC 2.7); rows join when
	// every pair is equal.
	Keys [2][]int
	// NullSafe marks the key pairs compared by IS NOT DISTINCT FROM (nil:
	// none; else one flag a pair): a NULL there equals a NULL (Flink's
	// null-safe join key, JoinUtil's filterNulls false), where an = pair's
	// NULL matches nothing (SQL, SPEC 2.7). Its NULL hashes to a mark the
	// key's equality tells from any value (nullMark), allocating nothing.
	NullSafe []bool
	// Time is each input's event-time column (BIGINT epoch ms or
	// TIMESTAMP), -1 for an input without event time, whose rows are
	// processed as they arrive.
	Time [2]int
	// Stamp is each input's column holding the row's CURRENT_WATERMARK (the
	// watermark of its stream before the row, SPEC 2.3, as the watermark
	// assigner stamps it), -1 for none: a row is late when its time is below
	// its stamp, so lateness does not depend on where batches end. Without a
	// stamp, the input's last Watermark stands for it.
	Stamp [2]int
	// Interval makes it an interval join: a pair joins when also
	// left.t >= right.t + Lo and left.t <= right.t + Hi (ms; Lo <= Hi), and
	// a row leaves the state once no partner can come. It needs event time on
	// both inputs.
	Interval bool
	Lo, Hi   int64
	// Lookup makes it a lookup join (SPEC 2.7: INNER or LEFT with a bounded
	// right side): the executor gives the right input whole before the left
	// one's first row, so every left row joins the whole right side (its
	// rows' times and watermark do not matter, and none is late), and a left
	// row is joined as it is handled and never kept: the state is the right
	// side only.
	Lookup bool
	// TTL, when above 0, bounds a regular join's state ('table.exec.state.ttl',
	// SPEC 2.7; ms): a row of an input with event time leaves the state once
	// the join's watermark is more than TTL above its time, so it joins only
	// rows whose time is within TTL of its own; a row of an input without
	// event time leaves TTL ms of processing time after it was handled. A
	// regular outer join does not retract a padded row that expires (it has
	// no partner for good).
	TTL int64
	// Residual, when set, reports whether row i of b (the output layout:
	// the left columns, then the right ones) meets the rest of the join's
	// condition (an outer join's other ON terms, SPEC 2.7): only such pairs
	// join, and a row without one is padded. from are the pair's rows'
	// positions in their inputs (vector.Batch.Pos: left, right), for the
	// caller to name them when a call in the terms fails.
	Residual func(b *vector.Batch, i int, from [2]int64) bool
	// Changes is set for each input whose batches carry row kinds (SPEC 2.8,
	// vector.Batch.Kinds; a regular join only): its -U and -D rows retract
	// one equal row from the state and the joined rows it made, as Flink's
	// StreamingJoinOperator does: an INNER join emits them with the input's
	// kind (and +U rows' pairs as +U), an outer join as -D (and +I); an
	// outer side's row that loses its last partner is emitted padded again.
	Changes [2]bool
	// Extreme, when its Size is above 0, says that the other input is a
	// window's MAX or MIN of input Extreme.Side's own rows (JoinExtreme):
	// the rows of Side that cannot equal it are dropped as they come, not
	// held (an INNER interval join only; the output is the same).
	Extreme JoinExtreme
	// Swap makes an INNER lookup join read its left input whole first and
	// keep it, and join each right row as it comes (joinSwap): the same
	// joined rows, right row by right row, each at its left row's ordinal
	// (vector.Batch.Pos), for an operator whose result does not depend on
	// that order but through the positions (TopNSpec.PosOrder; the
	// planner proves it, planner/rule_join_swap.go).
	Swap bool
}

// JoinExtreme describes an INNER interval join one of whose inputs (Side)
// is the stream that the other input aggregates, by TUMBLE windows of Size
// ms from Offset, into the MAX (Max) or MIN of Side's column Col, which the
// join's keys equal to that aggregate (Nexmark q7: the bids of each
// window's highest price). A row of Side at time t can join only windows
// whose window_end e has t - e in [Lo, Hi] (the interval's bounds, moved to
// window_end), and of those only one whose MAX (MIN) equals its value.
//
// Every row of Side the join takes is one the aggregate counted in its own
// window: the row is not late (its time is at least its CURRENT_WATERMARK,
// which Side's Stamp column holds, the same stream's as the aggregate's),
// so its window ends after that watermark and has not fired. So the largest
// (least) value of Side's rows of a window taken so far is a bound of the
// window's MAX (MIN): a row whose value is below (above) the bound of every
// window it could join never joins, and Join drops it as it comes, or as
// it is released when a later row raised the bound. The planner sets it
// only when it can prove the above (planner/rule_join_extreme.go).
type JoinExtreme struct {
	Side         int
	Col          int
	Max          bool
	Size, Offset int64
	Lo, Hi       int64
}

// Updating reports whether the join's output is updating (SPEC 2.7's table,
// 2.8): a regular outer join retracts a padded row when its first partner
// comes, and a join over an updating input retracts what it joined. An
// interval join pads a row only when its interval has closed, so its output
// is append-only, as an inner join's over append-only inputs is.
func (s *JoinSpec) Updating() bool {
	return !s.Interval && !s.Lookup && s.Kind != Inner || s.Changes[0] || s.Changes[1]
}

// The output ports of a Join.
const (
	JoinOut       = 0 // joined rows: the left columns, then the right columns
	JoinLateLeft  = 1 // late rows of the left input, as they came
	JoinLateRight = 2 // late rows of the right input, as they came
)

// Join is the keyed two-input join operator of SPEC 2.7, INNER, LEFT, RIGHT
// or FULL, regular or interval, with its own aligner:
//   - Rows with event time are held until both inputs' watermarks are
//     greater than their time, then handled in event-time order (equal
//     times: the left input's rows first, then each input's in arrival
//     order), so the output, rows and order, is the same for every
//     interleaving of the inputs and every batch size (SPEC 2.7,
//     "Determinism"). A side that has ended no longer holds the other back.
//     An input without event time is handled as it arrives.
//   - A row whose event time is below its own input's watermark when it
//     arrives (SPEC 2.3), or NULL, is late: it goes, as it came, to the late
//     port of its input and joins nothing.
//   - Handling a row adds it to its side's state and joins it with the
//     other side's rows of the same key (for an interval join, those whose
//     time fits), in the order they were handled.
//   - A regular outer join emits a row without a partner padded with NULLs
//     at once (+I), and retracts that (-D) when its first partner comes;
//     an interval join pads a row when the time it can be joined has passed
//     for good (the other side's watermark above the end of its interval),
//     in event-time order with the joined rows.
//
// Its state (held rows and the state of both sides) is charged to its
// Account ('state.max-bytes', SPEC 1): a regular join keeps every row; an
// interval join drops a row once no partner can come.
type Join struct {
	twoInputs
	joinOutput
	spec JoinSpec
	acct Account
	swap *joinSwap // JoinSpec.Swap's state (joinswap.go), nil without it

	side    [2]joinSide
	pending pendingQueue // held rows, by (time, side, arrival)
	expiry  pendingQueue // an interval join's rows, by the end of their interval; a regular join's with a TTL, by time + TTL
	// expireAt is at most the least time of j.expiry's items (MaxInt64:
	// none), so that release calls expire only when an item is due
	expireAt int64
	// procExpiry holds the rows of inputs without event time of a join with
	// a TTL, by the processing time they leave the state.
	procExpiry pendingHeap
	seq        int64
	emitted    int64 // the last watermark emitted (math.MinInt64: none)
	count      JoinCounts
	pairB      *vector.Batch // one candidate pair, for JoinSpec.Residual
	// replay says which outputs a Kafka replay's rows wrote before
	// (joinreplay.go); nil: none
	replay JoinReplay

	// selL and selR are the pairs (a left batch row, a right stored row or
	// -1) a lookup join's probe has found and not yet written (probeLookup).
	selL, selR []int32
	borrowed   bool    // the batch being emitted is probeLookup's (Borrowed)
	slots      []int32 // probeLookup's key slot of each row of its batch
	touchedH   uint64  // lookAhead's loads (kept, so that they are made)
	// ahead is, for j.pending's and j.expiry's FIFO of each side, the last
	// item lookAhead loaded the slots of in this release (aheadSet: one
	// was), so that it loads each item's once, not at every call
	ahead    [2][2]pendingItem
	aheadSet [2][2]bool
	// hashes and keyed are holdBatch's key hashes of its batch's rows
	// (batchKeyHashes), sizes its rows' bytes (joinSide.size; kept: their
	// arrays are reused)
	hashes []uint64
	keyed  []bool
	sizes  []int32
	// pairL, pairR and pairK are the joined pairs emit queued (rows of the
	// left and right side's Rows, -1: NULLs) and their kinds (when the
	// output has kinds), not yet written (materialize)
	pairL, pairR []int32
	pairK        []vector.RowKind
	// held is pushRows' held rows of the batch being pushed (kept: its
	// array is reused)
	held []pendingItem
	// freed is the bytes of the rows dropped since settle gave them back
	freed int64
	// table is a lookup join's right side as one record a row, laid out
	// when the right input ends (lookupTable; nil before, or when it cannot
	// be): probeLookup reads it instead of the side's Rows, and selR holds
	// its records' offsets.
	table *lookupTable
	// tableRows and tableKeys are the right side's rows and keys when they
	// moved into table (SideState)
	tableRows, tableKeys int
	// lazy: the right side's index is not kept yet (a lookup join that
	// probes left batches: the table is laid out from the rows, and a
	// dense one needs no index); indexRight builds it when a left row is
	// handled before the right input ends or the table cannot be laid out
	lazy bool

	// now returns the processing time (epoch ms) for the TTL of an input
	// without event time; SetClock replaces it (tests).
	now func() int64

	// pace, when above 0, is the most batches of joined rows one call
	// releases (SetPace); deferred says that held rows the bound has passed
	// are still to be released (Drain).
	pace     int
	deferred bool
	// view is each input's batch as its state stores it, the columns
	// JoinSpec.Keep leaves out NULL (nil: it keeps every column)
	view [2]*keepView
	// extreme is JoinSpec.Extreme's bounds of the windows' MAX or MIN (nil
	// without one)
	extreme *extremeBounds
	// runSlots is probeRun's key slot of each row of its run (kept: its
	// array is reused)
	runSlots []int32
	// rowByRow makes release handle every join's held rows one at a time
	// (releaseRows), never by runs (releaseRuns): tests compare the two
	rowByRow bool
	// hashIsKey: rows of equal key hashes have equal keys (hashIsKey), so
	// a probe takes a key chain's rows without comparing their keys
	hashIsKey bool
	// shared: a probe copy (ProbeCopy), which reads the table and writes
	// nothing but its own output
	shared bool
	// noRightSources: the right rows keep no source positions and Sources
	// gives -1 for them (DropRightSources)
	noRightSources bool
}

// DropRightSources tells the join, before its first row, that its caller
// never reads the right rows' source positions from Sources (the
// pipelined join's, whose job has no call after the join that can fail
// and name the rows, executor/joinpipe.go): an INNER or LEFT interval
// join without other ON terms, replay, swap or retractions, in which no
// joined row takes its position from its right row, then keeps none for
// them (8 bytes a right row fewer in its state, none copied in or out;
// issue 23, the interval join's goal) and Sources gives -1 for each. It
// reports whether it did (false: the join keeps them, as before). Call it
// after SetReplay, whose replay reads the positions.
func (j *Join) DropRightSources() bool {
	sp := &j.spec
	if !sp.Interval || sp.Kind != Inner && sp.Kind != Left || sp.Residual != nil || sp.Lookup || sp.Swap ||
		sp.Changes[0] || sp.Changes[1] || j.replay != nil || j.shared || j.side[1].rows.Len() > 0 || j.from[1] == nil {
		return j.noRightSources
	}
	j.side[1].rows.dropPositions()
	for i := range j.from[1] {
		j.from[1][i] = -1
	}
	j.noRightSources = true
	return true
}

// hashIsKey reports whether two rows' keys (key columns keys of types) are
// equal whenever their key hashes are: a key of one BIGINT, TIMESTAMP,
// DOUBLE or BOOLEAN column, whose hash (mix of the value's 64 bits; a
// DOUBLE's -0.0 as 0.0, which it equals, and NaN never hashed) is a
// bijection of the value. A key index's chain holds the rows of one hash
// (keyIndex), so such a chain's rows all have the probe's key.
func hashIsKey(types []catalog.Type, keys []int) bool {
	if len(keys) != 1 {
		return false
	}
	switch types[keys[0]] {
	case catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean:
		return true
	}
	return false
}

// SetPace makes each call of the join release at most n batches of joined
// rows (vector.Cap rows each; n <= 0: no limit, the default): the rest stay
// held, in order, until Drain releases them, so that a caller that gives
// each batch on before asking for more (executor's joinSource) holds a few
// batches at a time, not every row an input's end releases at once. The
// caller calls Drain while Deferred reports true, before it pushes more rows
// (Push releases what is deferred first, whole: a row without event time is
// handled as it arrives, after them). A watermark or an input's end only
// raises the bound the deferred rows are below, so Watermark and Finish go
// on releasing them in order, paced.
func (j *Join) SetPace(n int) { j.pace = n }

// Deferred reports whether held rows the watermarks have passed are still
// to be released (SetPace): call Drain.
func (j *Join) Deferred() bool { return j.deferred }

// Drain releases the next rows that SetPace deferred, at most its limit of
// batches, and emits them.
func (j *Join) Drain(ctx context.Context) error {
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// undefer releases whole what SetPace deferred, before Push adds rows (a
// row without event time is handled at once: after the deferred ones).
func (j *Join) undefer(ctx context.Context) error {
	if !j.deferred {
		return nil
	}
	pace := j.pace
	j.pace = 0
	err := j.release(ctx)
	j.pace = pace
	return err
}

// SetClock makes the join read processing time from now (epoch ms) for
// JoinSpec.TTL; the default is the system clock.
func (j *Join) SetClock(now func() int64) { j.now = now }

// JoinCounts is what a Join did with each input's rows (index 0 left, 1
// right), for EXPLAIN ANALYZE (SPEC 4, "Finding out why"): In the rows pushed,
// Late those that went to the late port, Partnered those that joined at
// least one row of the other side, Held those still held (pushed, not yet
// handled: their time is above the other input's watermark) when counted,
// which a job that a LIMIT ended never handles (SPEC 2: the rest of the
// input is not read). In - Late - Partnered - Held is the rows without a
// partner (so far, while the job runs: handled rows count there until their
// partner comes).
type JoinCounts struct {
	In, Late, Partnered, Held [2]int64
}

// Counts returns the join's counts so far. It takes time linear in the
// rows held (it counts them: EXPLAIN ANALYZE calls it once, at the job's end).
func (j *Join) Counts() JoinCounts {
	c := j.count
	for s := range 2 {
		c.Held[s] = int64(len(j.pending.fifo[s]) - j.pending.head[s])
	}
	for _, it := range j.pending.heap {
		c.Held[it.side]++
	}
	return c
}

// joinSide is the state of one input.
//
// Its per-row values are columns of blocks as the Rows' are (column: no
// spare capacity, no copy as they grow), but for dead, which the key index
// reads as a slice; a row's bytes ('state.max-bytes') are not kept but
// counted again from the row when it leaves (Rows.rowBytes, what Add
// counted).
type joinSide struct {
	rows    *Rows
	index   keyIndex      // handled rows by key hash (dead ones unlinked as probes meet them)
	matches column[int32] // each row's partners so far
	padded  column[bool]  // a regular outer join emitted the row padded
	// hash is each row's key hash (batchKeyHash, taken from its batch as it
	// came), keyed whether it has one (false: a NULL or NaN key part, which
	// joins nothing): handling the row, and the look-ahead of the rows
	// about to be handled (Join.lookAhead), read them, not the stored row.
	// Empty for an input without event time, whose rows are handled as
	// they come (a lookup join's right side): handleKeyed is given them.
	hash  column[uint64]
	keyed column[bool]
	dead  []bool                 // an interval join's row whose interval has passed
	kinds column[vector.RowKind] // each row's kind (JoinSpec.Changes; empty otherwise)
	// partner is, with a replay (joinreplay.go), each row's first partner's
	// source position (-1: none yet), so that a replay reads it again and
	// the row is partnered again (empty otherwise)
	partner column[int64]
	// size is, for a side with VARCHAR or nested columns (Rows.texts), each
	// row's bytes as the store counted them when it came (drop gives them
	// back without reading the row's values again; empty otherwise)
	size  column[int32]
	ndead int
	// stray: the last row stored was not indexed, the budget having
	// stopped the job before it was handled (pushRows); SideState counts
	// its key from the row
	stray bool
	// low: the rows before it are dead (a lookup join's left side, whose
	// arena chunks below it are let go, Join.freeLow; 0 after a compaction)
	low int
}

// pendingItem is a held row (side, row) with its time, or an interval
// join's row with the end of its interval.
type pendingItem struct {
	t    int64
	seq  int64
	row  int32
	side int8 // (last: the item is 24 bytes)
}

// pendingHeap is a min-heap of pendingItems by (t, side, seq), typed (no
// boxing: container/heap's interface would allocate per row).
type pendingHeap []pendingItem

func (a pendingItem) before(b pendingItem) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.side != b.side {
		return a.side < b.side
	}
	return a.seq < b.seq
}

// push adds x.
func (h *pendingHeap) push(x pendingItem) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].before(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// pop removes and returns the least item; h must not be empty.
func (h *pendingHeap) pop() pendingItem {
	s := *h
	x := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && s[l].before(s[m]) {
			m = l
		}
		if r := l + 1; r < n && s[r].before(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return x
}

// pendingQueue orders pendingItems by (t, side, seq) as pendingHeap does,
// cheaper when each side's items come in time order (rows of inputs in
// event-time order; an interval join's ends, pushed as rows are handled in
// time order): an item not before its side's last one joins that side's
// FIFO, any other goes to a heap, and pop takes the least of the three
// heads. The order is exactly the heap's (the key is total), so the
// determinism of SPEC 2.7 does not depend on which way an item went.
type pendingQueue struct {
	fifo  [2][]pendingItem
	head  [2]int
	heap  pendingHeap
	tail  []pendingItem // pushSorted's copy of the FIFO's items it merges (and sort's of its items)
	keys  []uint64      // sort's words
	spare []uint64      // radixSort's other buffer
	// unsorted counts, per side, the batches sort still takes to its
	// words without trying nearlySorted first: set when a side's batch was
	// not nearly sorted, since its next ones are most likely not either
	// (the benchmark suite's payments, out of order by seconds: the
	// insertion's try cost a fifth of their sort), and tried again after
	// that many (a side whose rows come in order again)
	unsorted [2]uint8
}

// unsortedRetry is the batches sort takes straight to its words after one
// that was not nearly sorted (pendingQueue.unsorted).
const unsortedRetry = 32

// push adds x (x.side 0 or 1).
func (q *pendingQueue) push(x pendingItem) {
	f := q.fifo[x.side]
	if n := len(f); n > q.head[x.side] && x.before(f[n-1]) {
		q.heap.push(x)
		return
	}
	q.fifo[x.side] = append(f, x)
}

// pushSorted adds the items xs, all of one side and in arrival order (seq
// rising), sorting them (their order in xs is not kept). In time order they
// join the side's FIFO, merged with its items after the first of them: rows
// a little out of time order (the out-of-orderness a watermark allows) cost
// a sort of their batch and a merge with the FIFO's last items, not a heap
// push and pop each.
func (q *pendingQueue) pushSorted(xs []pendingItem) { q.pushOrdered(xs, false) }

// pushOrdered is pushSorted, of items xs in their order already when
// ordered (a HoldPrep's: not checked again).
func (q *pendingQueue) pushOrdered(xs []pendingItem, ordered bool) {
	if len(xs) == 0 {
		return
	}
	if !ordered && !timesRise(xs) {
		q.sort(xs)
	}
	s := xs[0].side
	f, h := q.fifo[s], q.head[s]
	n := len(f)
	if n == h || !xs[0].before(f[n-1]) {
		q.fifo[s] = append(f, xs...)
		return
	}
	// the FIFO's items after xs[0] are merged with xs
	p := h + sort.Search(n-h, func(i int) bool { return xs[0].before(f[h+i]) })
	tail := append(q.tail[:0], f[p:]...)
	f = f[:p]
	a, b := 0, 0
	for a < len(tail) && b < len(xs) {
		if xs[b].before(tail[a]) {
			f = append(f, xs[b])
			b++
		} else {
			f = append(f, tail[a])
			a++
		}
	}
	f = append(append(f, tail[a:]...), xs[b:]...)
	q.fifo[s], q.tail = f, tail
}

// timesRise reports whether xs, items of one side in arrival order (seq
// rising), are in comparePending's order already: their times never fall
// (one comparison of times an item, inline, where slices.IsSortedFunc
// called comparePending).
func timesRise(xs []pendingItem) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i].t < xs[i-1].t {
			return false
		}
	}
	return true
}

// sort sorts xs, items of one side in arrival order, by time (then
// arrival): as one word each, the time above the item's index, when the
// times' range leaves room for it (a batch's: seconds), so that the sort
// compares words, not items through a function.
func (q *pendingQueue) sort(xs []pendingItem) {
	switch side := xs[0].side; {
	case q.unsorted[side] > 0:
		q.unsorted[side]--
	case nearlySorted(xs):
		return
	default:
		q.unsorted[side] = unsortedRetry
	}
	lo, hi := xs[0].t, xs[0].t
	for _, x := range xs {
		lo, hi = min(lo, x.t), max(hi, x.t)
	}
	// ib is the indexes' bits: 10 for a batch of 1,024, so that a batch's
	// 14 bits of times (the benchmark suite's payments) sort in 3 byte
	// passes, not 4
	ib := uint(bits.Len(uint(len(xs) - 1)))
	if hi-lo < 0 || uint64(hi-lo) >= 1<<(64-ib) { // (a range too wide, or past int64's)
		slices.SortFunc(xs, comparePending)
		return
	}
	keys := q.keys[:0]
	for i, x := range xs {
		keys = append(keys, uint64(x.t-lo)<<ib|uint64(i))
	}
	if len(keys) < 64 {
		slices.Sort(keys)
	} else { // (the indexes' bits rise already: the passes sort the times' only)
		keys, q.spare = radixSort(keys, q.spare, ib, uint(bits.Len64(uint64(hi-lo)))+ib)
	}
	orig := append(q.tail[:0], xs...)
	for i, k := range keys {
		xs[i] = orig[k&(1<<ib-1)]
	}
	q.keys, q.tail = keys, orig
}

// timeOrder finds the order of a batch's rows by time, then arrival, as
// pendingQueue.sort orders their held items, from the times alone (the
// Preparer's HoldPrep.order: no items built, sorted and read back; issue
// 23). Its buffers are reused from batch to batch.
type timeOrder struct {
	keys, spare []uint64
	// unsorted is the batches order still takes to its words after one
	// that was not nearly sorted (pendingQueue.unsorted's)
	unsorted uint8
}

// order writes into ord (len(ts) of them) the indexes of ts in the order
// of their times, equal times in index order: the indexes as they are
// when the times rise, sorted by insertion when few move a few places
// (nearlyRising), else sorted as words, each time above its index, as
// pendingQueue.sort sorts its items.
func (o *timeOrder) order(ts []int64, ord []int32) {
	for i := range ord {
		ord[i] = int32(i)
	}
	if len(ts) < 2 || timesRiseIn(ts) {
		return
	}
	switch {
	case o.unsorted > 0:
		o.unsorted--
	case nearlyRising(ts, ord):
		return
	default:
		o.unsorted = unsortedRetry
	}
	lo, hi := ts[0], ts[0]
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	ib := uint(bits.Len(uint(len(ts) - 1)))       // (the indexes' bits, as sort's)
	if hi-lo < 0 || uint64(hi-lo) >= 1<<(64-ib) { // (a range too wide, or past int64's)
		for i := range ord {
			ord[i] = int32(i)
		}
		slices.SortStableFunc(ord, func(a, b int32) int { return cmp.Compare(ts[a], ts[b]) })
		return
	}
	keys := o.keys[:0]
	for i, t := range ts {
		keys = append(keys, uint64(t-lo)<<ib|uint64(i))
	}
	if len(keys) < 64 {
		slices.Sort(keys)
	} else { // (the indexes' bits rise already: the passes sort the times' only)
		keys, o.spare = radixSort(keys, o.spare, ib, uint(bits.Len64(uint64(hi-lo)))+ib)
	}
	for x, k := range keys {
		ord[x] = int32(k & (1<<ib - 1))
	}
	o.keys = keys
}

// timesRiseIn reports whether ts never goes down.
func timesRiseIn(ts []int64) bool {
	for i := 1; i < len(ts); i++ {
		if ts[i] < ts[i-1] {
			return false
		}
	}
	return true
}

// nearlyRising is nearlySorted for ord, indexes of ts in index order:
// it sorts them by time (equal times in index order) by insertion as long
// as that moves few of them (at most len(ord) moves in all, at most
// nearMoves places each) and reports whether it did; otherwise ord is
// left a permutation of them.
func nearlyRising(ts []int64, ord []int32) bool {
	budget := len(ord)
	for i := 1; i < len(ord); i++ {
		x := ord[i] // (index i: every index before it is less, so only a later time goes after it)
		t := ts[x]
		if t >= ts[ord[i-1]] {
			continue
		}
		k := i - 1
		for k > 0 && t < ts[ord[k-1]] {
			if k--; i-k > nearMoves {
				return false
			}
		}
		if budget -= i - k; budget < 0 {
			return false
		}
		copy(ord[k+1:i+1], ord[k:i])
		ord[k] = x
	}
	return true
}

// nearMoves is the most places nearlySorted moves one item by.
const nearMoves = 32

// nearlySorted sorts xs, items of one side in arrival order, by
// insertion as long as that moves few items (at most len(xs) moves in
// all, at most nearMoves places each: a batch whose rows are out of order by a place or two, the jitter
// of rows stamped about in order, as the benchmark suite's orders), and
// reports whether it did. Otherwise xs is left a permutation in which
// items of equal time are still in arrival order (insertion moves an item
// only before later-time ones), as sort's words need.
func nearlySorted(xs []pendingItem) bool {
	budget := len(xs)
	for i := 1; i < len(xs); i++ {
		x := xs[i]
		if !x.before(xs[i-1]) {
			continue
		}
		k := i - 1
		for k > 0 && x.before(xs[k-1]) {
			if k--; i-k > nearMoves {
				return false // (rows out of order by seconds, as the benchmark suite's payments: the radix sort's, found after a few comparisons, not after the budget's)
			}
		}
		if budget -= i - k; budget < 0 {
			return false
		}
		copy(xs[k+1:i+1], xs[k:i])
		xs[k] = x
	}
	return true
}

// radixSort sorts keys, whose values are below 1<<width and whose low from
// bits rise from key to key already (0: any keys; sort's words, the
// item's index in the low bits, in arrival order), by their bytes from bit
// from on, the lowest first (a least-significant-digit radix sort, stable:
// a pass of counting and one of moving per byte, skipped for a byte every
// key has the same; no comparisons to mispredict, as a comparison sort of
// a batch's times has), using tmp as the other buffer: the keys end in
// order, the low bits' order kept among keys equal above them (a batch of
// 1,024 payments: 2 passes for the times' 14 bits, not 3 with the indexes'
// 10; issue 23). It returns the sorted keys and the other buffer (either
// may be tmp's array).
func radixSort(keys, tmp []uint64, from, width uint) ([]uint64, []uint64) {
	tmp = slices.Grow(tmp[:0], len(keys))[:len(keys)]
	for shift := from; shift < width; shift += 8 {
		var count [256]int
		for _, k := range keys {
			count[k>>shift&255]++
		}
		if count[keys[0]>>shift&255] == len(keys) {
			continue
		}
		at := 0
		for d, c := range count {
			count[d] = at
			at += c
		}
		for _, k := range keys {
			d := k >> shift & 255
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	return keys, tmp
}

// comparePending orders items of one side as before does
// (slices.SortFunc).
func comparePending(a, b pendingItem) int {
	if a.t != b.t {
		return cmp.Compare(a.t, b.t)
	}
	return cmp.Compare(a.seq, b.seq)
}

// least returns where the least item is (0, 1: a FIFO; 2: the heap; -1: q
// is empty) and the item.
func (q *pendingQueue) least() (int, pendingItem) {
	at, x := -1, pendingItem{}
	for s := range 2 {
		if q.head[s] < len(q.fifo[s]) {
			if y := q.fifo[s][q.head[s]]; at < 0 || y.before(x) {
				at, x = s, y
			}
		}
	}
	if len(q.heap) > 0 && (at < 0 || q.heap[0].before(x)) {
		at, x = 2, q.heap[0]
	}
	return at, x
}

// popAt removes and returns the least item, which least found at at.
func (q *pendingQueue) popAt(at int) pendingItem {
	if at == 2 {
		return q.heap.pop()
	}
	x := q.fifo[at][q.head[at]]
	q.head[at]++
	if h, f := q.head[at], q.fifo[at]; h == len(f) {
		q.fifo[at], q.head[at] = f[:0], 0
	} else if h >= 1024 && h*2 >= len(f) {
		q.fifo[at], q.head[at] = f[:copy(f, f[h:])], 0
	}
	return x
}

// remap renumbers the items of side s by moved (Join.compact).
func (q *pendingQueue) remap(s int, moved []int) {
	for i := q.head[s]; i < len(q.fifo[s]); i++ {
		if r := q.fifo[s][i].row; r >= 0 {
			q.fifo[s][i].row = int32(moved[r])
		}
	}
	q.heap.remap(s, moved)
}

// remap renumbers the items of side s by moved (Join.compact).
func (h pendingHeap) remap(s int, moved []int) {
	for i := range h {
		if int(h[i].side) == s && h[i].row >= 0 { // (-1: a row dropped by an earlier compaction, retracted before its item came up)
			h[i].row = int32(moved[h[i].row])
		}
	}
}

// NewJoin returns the join of spec emitting into out, charging its state to
// acct (nil: no budget). It returns an error for a spec it cannot run: keys
// of different counts or types, an interval join without event time on both
// inputs, or Lo > Hi.
func NewJoin(spec JoinSpec, out Emitter, acct Account) (*Join, error) {
	if len(spec.Keys[0]) != len(spec.Keys[1]) || len(spec.Keys[0]) == 0 {
		return nil, fmt.Errorf("join: %d left and %d right key columns (a join needs an equality between its sides)", len(spec.Keys[0]), len(spec.Keys[1]))
	}
	for i := range spec.Keys[0] {
		if l, r := spec.Types[0][spec.Keys[0][i]], spec.Types[1][spec.Keys[1][i]]; l != r {
			return nil, fmt.Errorf("join: key %d is %s on the left and %s on the right", i+1, l, r)
		}
	}
	if spec.Interval && (spec.Time[0] < 0 || spec.Time[1] < 0 || spec.Lo > spec.Hi) {
		return nil, fmt.Errorf("join: an interval join needs event time on both inputs and Lo <= Hi")
	}
	if acct == nil {
		acct = noAccount{}
	}
	if spec.Lookup && spec.Kind != Inner && spec.Kind != Left {
		return nil, fmt.Errorf("join: a lookup join is INNER or LEFT (SPEC 2.7), not %s", spec.Kind)
	}
	if (spec.Changes[0] || spec.Changes[1]) && (spec.Interval || spec.Lookup) {
		return nil, fmt.Errorf("join: an updating input needs a regular join, not an interval or lookup join (SPEC 2.8)")
	}
	if spec.TTL < 0 {
		return nil, fmt.Errorf("join: a state TTL of %d ms (want 0 for none, or more)", spec.TTL)
	}
	if err := checkSwap(&spec); err != nil {
		return nil, err
	}
	if spec.Lookup {
		// the right side is a table read whole before the left's first row
		// (SPEC 2.7): every left row sees all of it, whatever its times, and
		// none of its rows is late
		spec.Time[1], spec.Stamp[1] = -1, -1
	}
	j := &Join{joinOutput: joinOutput{out: out}, spec: spec, acct: acct, emitted: math.MinInt64, expireAt: math.MaxInt64, now: func() int64 { return time.Now().UnixMilli() }}
	if spec.Swap {
		j.swap = &joinSwap{}
	}
	for s := range 2 {
		keep := spec.stateKeep(s)
		j.side[s] = joinSide{rows: NewRows(keptTypes(spec.Types[s], keep))}
		j.view[s] = newKeepView(spec.Types[s], keep)
		j.side[s].index.init(0)
		j.lateB[s] = vector.NewBatch(spec.Types[s])
	}
	j.outB = vector.NewBatch(append(append([]catalog.Type{}, spec.Types[0]...), spec.Types[1]...))
	j.from = newSources()
	if spec.Updating() {
		j.outB.Kinds = make([]vector.RowKind, vector.Cap)
	}
	if spec.Residual != nil {
		j.pairB = vector.NewBatch(append(append([]catalog.Type{}, spec.Types[0]...), spec.Types[1]...))
	}
	j.lazy = j.probesBatches() && !spec.Changes[0] && !spec.Changes[1]
	j.hashIsKey = hashIsKey(spec.Types[0], spec.Keys[0]) && !anyNullSafe(spec.NullSafe) // (the sides' key types are equal: checked above; a null-safe NULL's mark may hash as a value)
	if x := spec.Extreme; x.Size > 0 {
		if x.Side < 0 || x.Side > 1 || !spec.Interval || spec.Kind != Inner || spec.Stamp[x.Side] < 0 || x.Col < 0 || x.Col >= len(spec.Types[x.Side]) || x.Lo > x.Hi {
			return nil, fmt.Errorf("join: a window extreme's rows are filtered in an INNER interval join whose input has a CURRENT_WATERMARK column, on one of its columns")
		}
		j.extreme = newExtremeBounds(x, spec.Types[x.Side][x.Col])
	}
	return j, nil
}

// Push implements Operator: the rows of input port (0 left, 1 right) are
// kept; late ones go to the input's late port; rows that need not wait are
// handled.
func (j *Join) Push(ctx context.Context, port int, b *vector.Batch) error {
	return j.push(ctx, port, b, nil)
}

// push is Push with b's HoldPrep (nil: none).
func (j *Join) push(ctx context.Context, port int, b *vector.Batch, prep *HoldPrep) error {
	if err := j.undefer(ctx); err != nil {
		return err
	}
	if err := j.expireProc(ctx); err != nil {
		return err
	}
	j.count.In[port] += int64(b.N)
	kb := j.view[port].of(b) // (the row as the state keeps it; late rows go out from b, whole)
	if port == 0 && j.lazy && j.table == nil {
		j.indexRight()
	}
	if port == 0 && j.probesBatches() && j.done[1] {
		err := j.probeLookup(ctx, b)
		if err == nil { // (the rows gathered last: with the output batch empty on entry, every row is probeLookup's)
			j.borrowed = true
			err = j.flush(ctx)
			j.borrowed = false
		}
		return err
	}
	if err := j.settle(); err != nil {
		return err
	}
	if err := j.pushRows(ctx, port, b, kb, prep); err != nil {
		return err
	}
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// HoldPrep is what a join's holding of a batch computes from the batch
// alone (its rows' key hashes, the order of their times), computed ahead
// on another goroutine (Join.Preparer: the pipelined join's input readers,
// executor/joinpipe.go), so that the join's own goroutine, the job's
// longest path, does not (issue 23, the interval join's goal). Its memory
// is reused from batch to batch.
type HoldPrep struct {
	n      int      // the rows of the batch it was computed for
	hashes []uint64 // batchKeyHash of each row
	keyed  []bool   // whether each row has a key (no NULL, no NaN)
	order  []int32  // the rows' indexes in (time, arrival) order
	// lateKnown: late says whether a row of the batch is late (anyLate:
	// a NULL time, or a time below the row's stamp), found from the
	// stamps the input's reader wrote before it prepared the batch
	// (Preparer's stamped; an input with a Stamp column only)
	lateKnown, late bool
}

// Preparer returns the function that computes input port's HoldPrep for a
// batch (into p, reused; nil: a new one), safe to call on another
// goroutine than the join's (it reads only the spec), one call at a time
// (its sort's scratch is its own), or nil when the join does not hold that
// input's batches whole (no event time, a window's extreme, a lookup
// join's right side). stamped says that the batches it is given have
// their CURRENT_WATERMARK stamps written already (JoinSpec.Stamp's
// column; the pipelined join's readers stamp them, executor/joinpipe.go):
// it then also finds whether a row is late, which the join's goroutine
// would otherwise check (issue 23, the interval join's goal).
func (j *Join) Preparer(port int, stamped bool) func(b *vector.Batch, p *HoldPrep) *HoldPrep {
	tc := j.spec.Time[port]
	if tc < 0 || j.extreme != nil {
		return nil
	}
	sc := j.spec.Stamp[port]
	stamped = stamped && sc >= 0
	keys, ns := j.spec.Keys[port], j.spec.NullSafe
	var to timeOrder // (the sort's, shared by the input's batches)
	return func(b *vector.Batch, p *HoldPrep) *HoldPrep {
		if p == nil {
			p = &HoldPrep{}
		}
		n := b.N
		p.n = n
		p.hashes, p.keyed = batchKeyHashes(b, keys, ns, p.hashes[:0], p.keyed[:0])
		p.order = slices.Grow(p.order[:0], n)[:n]
		to.order(b.Cols[tc].I[:n], p.order) // (pendingQueue.pushSorted's order: by time, then arrival)
		p.lateKnown = stamped
		if stamped {
			p.late = lateByStamp(b.Cols[tc], b.Cols[sc], n)
		}
		return p
	}
}

// PushPrepared is Push of b with prep, its HoldPrep computed by
// Preparer(port) (nil, or computed for a batch of another length: Push's
// own work): the same rows, state and output.
func (j *Join) PushPrepared(ctx context.Context, port int, b *vector.Batch, prep *HoldPrep) error {
	if prep != nil && prep.n != b.N {
		prep = nil
	}
	return j.push(ctx, port, b, prep)
}

// pushRows adds the rows of b (kb: as the state keeps them) to input port's
// side: late ones go to its late port, rows without event time are handled
// at once, the others are held (j.pending, sorted by time a batch at a
// time). Their bytes are charged once for the batch, before the first row
// is handled (the state grows by the batch, then shrinks as rows leave it).
func (j *Join) pushRows(ctx context.Context, port int, b, kb *vector.Batch, prep *HoldPrep) error {
	s := &j.side[port]
	tc := j.spec.Time[port]
	if tc >= 0 && j.extreme == nil && b.N <= vector.Cap && !j.lateIn(port, b, prep) {
		return j.holdBatch(port, b, kb, prep)
	}
	held := j.held[:0]
	grown := int64(0)
	var err error
	for i := 0; i < b.N; i++ {
		var t int64
		if tc >= 0 {
			v := b.Cols[tc]
			late := j.wmSet[port] && v.I[i] < j.wm[port]
			if sc := j.spec.Stamp[port]; sc >= 0 {
				w := b.Cols[sc]
				late = !w.Null[i] && v.I[i] < w.I[i]
			}
			if v.Null[i] || late {
				j.count.Late[port]++
				if err = j.late(ctx, port, b, i); err != nil {
					break
				}
				continue
			}
			t = v.I[i]
			if x := j.extreme; x != nil && port == x.side && x.takeBatch(b, i, t) {
				continue // (it cannot join: JoinExtreme)
			}
		}
		k, bytes := s.rows.Add(kb, i)
		if len(s.rows.texts) > 0 {
			s.size.push(int32(bytes))
		}
		h, keyed := batchKeyHash(b, i, j.spec.Keys[port], j.spec.NullSafe)
		if tc >= 0 { // (a held row's, read when it is handled; a row handled at once is given them)
			s.hash.push(h)
			s.keyed.push(keyed)
		}
		if j.spec.Changes[port] {
			s.kinds.push(b.KindAt(i))
		}
		if s.matches.full() { // (push written out: inlined)
			s.matches.grow()
		}
		s.matches.put(0)
		if s.padded.full() {
			s.padded.grow()
		}
		s.padded.put(false)
		s.dead = append(s.dead, false)
		if j.replay != nil {
			s.partner.push(-1)
		}
		grown += int64(bytes)
		j.seq++
		if tc < 0 {
			s.stray = true // (stored, not indexed yet: the budget's message, built in Grow, reads SideState)
			if err = j.acct.Grow(grown); err != nil {
				break
			}
			s.stray = false
			grown = 0
			if err = j.handleKeyed(ctx, port, k, 0, h, keyed); err != nil {
				break
			}
			continue
		}
		held = append(held, pendingItem{t: t, side: int8(port), seq: j.seq, row: int32(k)})
	}
	j.held = held
	j.pending.pushSorted(held)
	if gerr := j.acct.Grow(grown); err == nil {
		err = gerr
	}
	return err
}

// lateIn is anyLate, taken from prep (nil: none) when its reader found it
// (HoldPrep.lateKnown; computed for b's rows: PushPrepared checked their
// count).
func (j *Join) lateIn(port int, b *vector.Batch, prep *HoldPrep) bool {
	if prep != nil && prep.lateKnown {
		return prep.late
	}
	return j.anyLate(port, b)
}

// anyLate reports whether a row of b, input port's, is late as pushRows
// sees it (NULL time, below the input's watermark or its stamp).
func (j *Join) anyLate(port int, b *vector.Batch) bool {
	v, n := b.Cols[j.spec.Time[port]], b.N
	if sc := j.spec.Stamp[port]; sc >= 0 {
		return lateByStamp(v, b.Cols[sc], n)
	}
	for _, null := range v.Null[:n] {
		if null {
			return true
		}
	}
	ts := v.I[:n]
	if j.wmSet[port] {
		wm := j.wm[port]
		for _, t := range ts {
			if t < wm {
				return true
			}
		}
	}
	return false
}

// lateByStamp reports whether one of a batch's first n rows is late by its
// stamp (SPEC 2.3: its time, in v, NULL or below its CURRENT_WATERMARK, in
// stamp, when that is not NULL).
func lateByStamp(v, stamp *vector.Vec, n int) bool {
	for _, null := range v.Null[:n] {
		if null {
			return true
		}
	}
	ts, wnull, wts := v.I[:n], stamp.Null[:n], stamp.I[:n] // (sliced to n first: no bounds check a row)
	for i, t := range ts {
		if t < wts[i] && !wnull[i] {
			return true
		}
	}
	return false
}

// holdBatch is pushRows for a batch of an input with event time none of
// whose rows is late (and no JoinSpec.Extreme): the rows are stored and
// their keys hashed column by column, their per-row state pushed a batch at
// a time, and every row held; the state the same as pushRows' row by row.
// The batch is charged as one growth (as pushRows charges its held rows),
// so a job passes 'state.max-bytes' by one batch's bytes at most, and stops
// at that batch (TestHeldRowsPassTheBudgetByOneBatchAtMost).
func (j *Join) holdBatch(port int, b, kb *vector.Batch, prep *HoldPrep) error {
	s := &j.side[port]
	n := b.N
	k0 := s.rows.Len()
	var bytes int64
	if len(s.rows.texts) > 0 {
		j.sizes = j.sizes[:0]
		bytes = s.rows.appendBatch(kb, &j.sizes)
		s.size.pushAll(j.sizes)
	} else {
		bytes = s.rows.appendBatch(kb, nil)
	}
	hashes, keyed := j.hashes, j.keyed
	if prep != nil {
		hashes, keyed = prep.hashes, prep.keyed
	} else {
		hashes, keyed = batchKeyHashes(b, j.spec.Keys[port], j.spec.NullSafe, hashes[:0], keyed[:0])
		j.hashes, j.keyed = hashes, keyed
	}
	s.hash.pushAll(hashes)
	s.keyed.pushAll(keyed)
	if j.spec.Changes[port] {
		for i := range n {
			s.kinds.push(b.KindAt(i))
		}
	}
	s.matches.pushAll(noMatches[:n])
	s.padded.pushAll(noFlags[:n])
	s.dead = append(s.dead, noFlags[:n]...)
	if j.replay != nil {
		for range n {
			s.partner.push(-1)
		}
	}
	held := slices.Grow(j.held[:0], n)[:n] // (written in place: no append's check a row)
	seq, side := j.seq, int8(port)
	if prep != nil { // (in their order already: pushSorted finds them so)
		ts := b.Cols[j.spec.Time[port]].I[:n]
		for x, o := range prep.order[:n] {
			held[x] = pendingItem{t: ts[o], side: side, seq: seq + int64(o) + 1, row: int32(k0) + o}
		}
	} else {
		for i, t := range b.Cols[j.spec.Time[port]].I[:n] {
			held[i] = pendingItem{t: t, side: side, seq: seq + int64(i) + 1, row: int32(k0 + i)}
		}
	}
	j.seq += int64(n)
	j.held = held
	j.pending.pushOrdered(held, prep != nil)
	return j.acct.Grow(bytes)
}

// noMatches and noFlags are a batch's worth of zeros and falses, the
// per-row state of rows just stored (holdBatch).
var (
	noMatches [vector.Cap]int32
	noFlags   [vector.Cap]bool
)

// settle gives back to the Account the bytes of the rows dropped since it
// last did (drop), before the state grows again.
func (j *Join) settle() error {
	freed := j.freed
	j.freed = 0
	return j.acct.Grow(-freed)
}

// indexRight builds the right side's index that a lookup join put off
// (Join.lazy): its live rows with a key (NULL and NaN keys match nothing),
// in the order they came in, as handle would have added them.
func (j *Join) indexRight() {
	if !j.lazy {
		return
	}
	j.lazy = false
	sd, keys := &j.side[1], j.spec.Keys[1]
	for k := range sd.rows.Len() {
		if sd.dead[k] {
			continue
		}
		if h, ok := sd.rows.keyHash(k, keys, j.spec.NullSafe); ok {
			sd.index.add(h, int32(k), sd.dead)
		}
	}
}

// probesBatches reports whether the join is a lookup join whose left rows
// are probed straight from their batch once the right input has ended
// (probeLookup): left rows without event time, no state TTL, no other ON
// terms.
func (j *Join) probesBatches() bool {
	return j.spec.Lookup && j.spec.Time[0] < 0 && j.spec.TTL == 0 && j.spec.Residual == nil && !j.spec.Swap
}

// Watermark implements Operator: input port's watermark is wm; the held rows
// both watermarks have passed are handled.
func (j *Join) Watermark(ctx context.Context, port int, wm int64) error {
	j.advance(port, wm) // (what SetPace deferred is below the bound still: released first, in order)
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// Held returns the rows of input side (0 left, 1 right) in the join's
// state: held for the watermarks, kept inside the interval or for ever (a
// regular join), or a lookup join's table. O(1), for the live status once
// a batch (SideState also counts the keys, which may take a pass).
func (j *Join) Held(side int) int {
	if side == 1 && j.table != nil {
		return j.tableRows
	}
	sd := &j.side[side]
	return sd.rows.Len() - sd.ndead
}

// SideState returns the rows input side (0 left, 1 right) holds in the
// join's state and the distinct key hashes they are indexed under (NULL
// keys not counted; with event time, those of the rows still held for the
// watermark too), for the message of a job stopped by 'state.max-bytes'
// (issue 23 item 5: the operator, the side and the key count). The row
// the budget stopped is counted with its key, and a lookup join's right
// side not indexed yet by its rows' keys, so that unique keys give as many
// keys as rows. It walks the side's rows: call it when the job stops, not
// per row.
func (j *Join) SideState(side int) (rows, keys int) {
	sd := &j.side[side]
	rows, keys = sd.rows.Len()-sd.ndead, sd.index.keys()
	var hashOf func(r int) (uint64, bool) // (a live row's key hash, from which the keys are counted)
	switch {
	case sd.hash.n == sd.rows.Len() && sd.keyed.n == sd.rows.Len():
		// (rows held for the watermark are not indexed yet: their hashes)
		hashOf = func(r int) (uint64, bool) { return sd.hash.get(r), sd.keyed.get(r) }
	case sd.stray || (side == 1 && j.lazy):
		// (a row the budget stopped before it was indexed, or a lookup
		// join's right side not indexed yet: the hashes of the rows' keys,
		// so that rows and keys agree)
		hashOf = func(r int) (uint64, bool) { return sd.rows.keyHash(r, j.spec.Keys[side], j.spec.NullSafe) }
	}
	if hashOf != nil {
		seen := map[uint64]struct{}{}
		for r := range sd.rows.Len() {
			if r >= len(sd.dead) || !sd.dead[r] {
				if h, ok := hashOf(r); ok {
					seen[h] = struct{}{}
				}
			}
		}
		keys = len(seen)
	}
	if side == 1 && j.table != nil {
		rows, keys = j.tableRows, j.tableKeys
	}
	return rows, keys
}

// Finish implements Operator: input port has ended; once both have, every
// held row is handled and every outer row still without a partner of an
// interval join is padded.
func (j *Join) Finish(ctx context.Context, port int) error {
	j.done[port] = true
	if port == 1 && j.probesBatches() && !j.done[0] {
		if j.table = newLookupTable(&j.side[1], j.side[1].rows.types, j.spec.Keys[1], j.spec.NullSafe, j.indexRight); j.table != nil {
			// (the table holds the rows now: the side's Rows and index are
			// no longer read, and their memory goes)
			od := &j.side[1]
			j.tableRows, j.tableKeys = od.rows.Len()-od.ndead, od.index.keys()
			od.rows, od.index = NewRows(j.spec.Types[1]), keyIndex{}
			od.index.init(0)
		}
	}
	if port == 1 && j.spec.Lookup && j.table == nil && !j.lazy {
		j.side[1].index.trim() // (the right side's rows are all in: its index no longer grows)
	}
	if err := j.swapDone(ctx, port); err != nil {
		return err
	}
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// bound is the time below which held rows are released: the smallest
// watermark of the inputs with event time that have not ended (MaxInt64
// when all have ended, MinInt64 while one has no watermark yet).
func (j *Join) bound() int64 {
	return j.twoInputs.bound([2]bool{j.spec.Time[0] >= 0, j.spec.Time[1] >= 0})
}

// release handles the held rows whose time is below the bound, in order,
// with an interval join's paddings interleaved by time, then emits the
// operator's watermark. With a pace (SetPace) it stops, deferred, once it
// has emitted that many batches of joined rows, before the next held row.
func (j *Join) release(ctx context.Context) error {
	bound := j.bound()
	all := bound == math.MaxInt64
	j.deferred = false
	var err error
	if st := j.oneSided(); st >= 0 {
		err = j.releaseRuns(ctx, st, bound, all)
	} else {
		err = j.releaseRows(ctx, bound, all)
	}
	if err != nil || j.deferred {
		return err
	}
	if err := j.expire(ctx, bound, all); err != nil {
		return err
	}
	if err := j.settle(); err != nil { // (once, not for every row expire drops: no row is added meanwhile, so nothing is charged)
		return err
	}
	if j.extreme != nil {
		j.extreme.prune(bound)
	}
	if bound > j.emitted && bound != math.MinInt64 && (j.swap == nil || j.done[1]) { // (Swap: no watermark before its joined rows)
		j.emitted = bound
		if err := j.flush(ctx); err != nil {
			return err
		}
		return j.out.EmitWatermark(ctx, bound)
	}
	return nil
}

// releaseRows is release's loop for every join but oneSided's: the held
// rows below bound (all: every one), one at a time in (time, side,
// arrival) order, each after the intervals that ended before it. With a
// pace it stops, deferred (and the bytes settled), before the next held row.
func (j *Join) releaseRows(ctx context.Context, bound int64, all bool) error {
	start := j.batches
	j.aheadSet = [2][2]bool{}
	for n := 0; ; n++ {
		at, next := j.pending.least()
		if at < 0 || !all && next.t >= bound {
			break
		}
		if n%lookAheadRows == 0 {
			j.lookAhead()
		}
		if j.pace > 0 && j.batches-start >= j.pace {
			j.deferred = true
			return j.settle()
		}
		// the intervals that ended before it (first: expire may compact, which
		// renumbers the held rows)
		if j.expireAt < next.t {
			if err := j.expire(ctx, next.t, false); err != nil {
				return err
			}
		}
		it := j.pending.popAt(at) // (expire does not move j.pending's items: it may renumber their rows only)
		if it.row < 0 || j.side[it.side].dead[it.row] {
			continue // (a Kafka partition's rows, dropped while held: DropRows)
		}
		if x := j.extreme; x != nil && int(it.side) == x.side && x.outdone(j.side[it.side].rows, int(it.row), it.t) {
			if err := j.drop(&j.side[it.side], int(it.row)); err != nil { // (a later row of its window raised the bound)
				return err
			}
			continue
		}
		if err := j.handle(ctx, int(it.side), int(it.row), it.t); err != nil {
			return err
		}
	}
	return nil
}

// lookAheadRows is how many held rows of each input Join.lookAhead loads
// the index slots of, once every as many rows released.
const lookAheadRows = 256

// lookAhead loads the key index slots that handling the next held rows
// (the first lookAheadRows of each input's in-order queue, j.pending's
// FIFOs) reads: the slot of the row's key in the other side's index (its
// probe) and in its own (where it is added). The loads are independent, so
// the processor overlaps their cache misses, which one row at a time it
// would wait for in turn (the key index is larger than the cache once an
// interval holds tens of thousands of rows; as probeTable's loads ahead).
func (j *Join) lookAhead() {
	touched := uint64(0)
	for s := range 2 {
		sd := &j.side[s]
		own, other := &sd.index, &j.side[1-s].index
		f := j.unloaded(0, s, j.pending.fifo[s][j.pending.head[s]:])
		for _, it := range f {
			if it.row < 0 || !sd.keyed.get(int(it.row)) {
				continue
			}
			h := sd.hash.get(int(it.row))
			touched += own.slots[own.home(h)].h + other.slots[other.home(h)].h
		}
		// and the slots of the rows whose intervals end next (expire's
		// dropHead)
		f = j.unloaded(1, s, j.expiry.fifo[s][j.expiry.head[s]:])
		for _, it := range f {
			if it.row < 0 || sd.hash.n == 0 || !sd.keyed.get(int(it.row)) {
				continue
			}
			touched += own.slots[own.home(sd.hash.get(int(it.row)))].h
		}
	}
	j.touchedH = touched
}

// unloaded returns the items of f, a FIFO of side s of j.pending (q 0) or
// j.expiry (q 1) from its head, that lookAhead is to load the slots of: of
// its first lookAheadRows, those after the last one it loaded in this
// release (the FIFO is in order; an item that joined it before that one
// since is left out, which costs its load only).
func (j *Join) unloaded(q, s int, f []pendingItem) []pendingItem {
	f = f[:min(len(f), lookAheadRows)]
	if len(f) == 0 {
		return f
	}
	if j.aheadSet[q][s] {
		last := j.ahead[q][s]
		lo, hi := 0, len(f) // (the first item after last: binary search)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if last.before(f[m]) {
				hi = m
			} else {
				lo = m + 1
			}
		}
		if lo == len(f) {
			return f[:0]
		}
		f = f[lo:]
	}
	j.ahead[q][s], j.aheadSet[q][s] = f[len(f)-1], true
	return f
}

// expire ends the intervals of an interval join's rows that end before t
// (all of them with all): such a row can no longer join, leaves the state,
// and is padded when its side is outer and it never joined.
func (j *Join) expire(ctx context.Context, t int64, all bool) error {
	if st := j.oneSided(); st >= 0 {
		if err := j.expireRun(st, t, all); err != nil {
			return err
		}
	}
	for {
		at, next := j.expiry.least()
		if at < 0 || !all && next.t >= t {
			break
		}
		it := j.expiry.popAt(at)
		s, k := int(it.side), int(it.row)
		sd := &j.side[s]
		if k < 0 || sd.dead[k] { // (retracted before: JoinSpec.Changes)
			continue
		}
		if err := j.drop(sd, k); err != nil {
			return err
		}
		if sd.hash.n > 0 && sd.keyed.get(k) {
			sd.index.dropHead(sd.hash.get(k), int32(k)) // (else unlinked when a probe meets it, or purged)
		}
		if j.spec.Interval && j.spec.Kind.outer(s) && sd.matches.get(k) == 0 { // (a regular join padded it when handled)
			old := j.replay != nil && j.written(s, k, j.padAt(s, k, it.t)) // (JoinReplay)
			if err := j.padOld(ctx, s, k, old); err != nil {
				return err
			}
		}
	}
	j.expireAt = math.MaxInt64
	if at, next := j.expiry.least(); at >= 0 {
		j.expireAt = next.t
	}
	j.compactSides() // (release settles, once)
	return nil
}

// pushExpiry queues x to leave the state at x.t (j.expiry), lowering
// expireAt to it.
func (j *Join) pushExpiry(x pendingItem) {
	j.expiry.push(x)
	j.expireAt = min(j.expireAt, x.t)
}

// expireProc drops the rows whose processing-time TTL has passed (inputs
// without event time of a join with a TTL).
func (j *Join) expireProc(ctx context.Context) error {
	if len(j.procExpiry) == 0 {
		return nil
	}
	now := j.now()
	for len(j.procExpiry) > 0 && j.procExpiry[0].t < now {
		it := j.procExpiry.pop()
		sd := &j.side[it.side]
		if it.row < 0 || sd.dead[it.row] { // (retracted before: JoinSpec.Changes)
			continue
		}
		if err := j.drop(sd, int(it.row)); err != nil {
			return err
		}
	}
	return j.compact()
}

// handle adds held row k of side s, whose event time is t, to its state and
// joins it with the other side's rows of its key (handleKeyed, with the key
// hash kept for it).
func (j *Join) handle(ctx context.Context, s, k int, t int64) error {
	sd := &j.side[s]
	return j.handleKeyed(ctx, s, k, t, sd.hash.get(k), sd.keyed.get(k))
}

// handleKeyed adds row k of side s, whose event time is t (read only for an
// input with event time) and key hash h (ok: it has one; a NULL or NaN key
// part joins nothing), to its state and joins it with the other side's rows
// of its key.
func (j *Join) handleKeyed(ctx context.Context, s, k int, t int64, h uint64, ok bool) error {
	if j.swap != nil {
		return j.swapHandle(ctx, s, k, h, ok)
	}
	sd, od := &j.side[s], &j.side[1-s]
	if j.spec.Changes[s] && sd.kinds.get(k).Retracts() {
		return j.retract(ctx, s, k)
	}
	// old: a replayed row's outputs, written by the run before (JoinReplay)
	old := j.replay != nil && j.spec.Time[s] >= 0 && j.written(s, k, t)
	// end: an interval join's last time of the other side that can join the
	// row; gone: no row handled after it can (its end is below its time, or
	// at it for a right row: the left rows of its time came first), so a row
	// of a side that is not padded leaves at once, never indexed or queued
	// to expire (the benchmark's payments, at most 0 ms after their order)
	var end int64
	gone := false
	if j.spec.Interval {
		if s == 0 {
			end = satSub(t, j.spec.Lo)
		} else {
			end = satAdd(t, j.spec.Hi)
		}
		gone = (end < t || end == t && s == 1) && !j.spec.Kind.outer(s) && j.replay == nil && !j.spec.Changes[s]
	}
	if ok {
		si := od.index.find(h)
		prev, next := int32(-1), int32(-1)
		if si >= 0 {
			next = od.index.slots[si].head
		}
		for {
			var o32 int32
			if o32, prev, next = od.index.live(si, prev, next, od.dead); o32 < 0 {
				break
			}
			o := int(o32)
			if !j.hashIsKey && !keyEqual(sd.rows, k, j.spec.Keys[s], od.rows, o, j.spec.Keys[1-s], j.spec.NullSafe) || !j.fits(s, t, o) || !j.holds(s, k, o) {
				continue
			}
			if od.padded.get(o) && od.matches.get(o) == 0 && !old { // (a regular outer join)
				if err := j.emitPadded(ctx, 1-s, o, vector.Delete); err != nil {
					return err
				}
			}
			if od.matches.get(o) == 0 {
				j.count.Partnered[1-s]++
			}
			if sd.matches.get(k) == 0 {
				j.count.Partnered[s]++
			}
			if j.replay != nil {
				j.notePartners(s, k, o)
			}
			od.matches.set(o, od.matches.get(o)+1)
			sd.matches.set(k, sd.matches.get(k)+1)
			l, r := k, o
			if s == 1 {
				l, r = o, k
			}
			if old && !j.rewrite {
				continue
			}
			if err := j.emitOld(ctx, l, r, j.addKind(s, k), old); err != nil {
				return err
			}
		}
		if j.spec.Lookup && s == 0 { // (no right row comes after it)
			if j.spec.Kind.outer(0) && sd.matches.get(k) == 0 && !old { // (a replayed row's padding was written: JoinReplay)
				if err := j.emitPadded(ctx, 0, k, vector.Insert); err != nil {
					return err
				}
			}
			if err := j.drop(sd, k); err != nil {
				return err
			}
			return j.compact()
		}
		if (s == 0 || !j.lazy) && !gone {
			sd.index.add(h, int32(k), sd.dead)
		}
	}
	if ttl := j.spec.TTL; ttl > 0 && !j.spec.Interval && ok {
		if tc := j.spec.Time[s]; tc >= 0 {
			j.seq++
			j.pushExpiry(pendingItem{t: satAdd(t, ttl), side: int8(s), seq: j.seq, row: int32(k)})
		} else {
			j.seq++
			j.procExpiry.push(pendingItem{t: satAdd(j.now(), ttl), side: int8(s), seq: j.seq, row: int32(k)})
		}
	}
	if j.spec.Interval {
		if gone {
			return j.drop(sd, k)
		}
		j.seq++
		j.pushExpiry(pendingItem{t: end, side: int8(s), seq: j.seq, row: int32(k)})
		return nil
	}
	if !ok { // a key that never matches (NULL, NaN): padded at once when outer, never state
		if j.spec.Kind.outer(s) {
			if err := j.padOld(ctx, s, k, old); err != nil {
				return err
			}
		}
		return j.drop(sd, k)
	}
	if j.spec.Kind.outer(s) && sd.matches.get(k) == 0 {
		sd.padded.set(k, true)
		if old {
			return nil
		}
		return j.emitPadded(ctx, s, k, vector.Insert)
	}
	return nil
}

// probeLookup joins the rows of b, the left input of a lookup join whose
// right side has ended and whose left rows are handled as they come (no
// event time, no TTL), as handle does, with the same output: each row, in
// order, with its partners in the order they were handled, or padded for
// LEFT when it has none. The rows are probed straight from b (hashed and
// compared by typed columns, never copied into the state: a left row of a
// lookup join is never kept) and the pairs written column by column
// (gather), so steady state allocates nothing.
func (j *Join) probeLookup(ctx context.Context, b *vector.Batch) error {
	j.materialize() // (probeTable and gather write after the output batch's rows)
	if j.table != nil {
		return j.probeTable(ctx, b)
	}
	od := &j.side[1]
	keys0, keys1 := j.spec.Keys[0], j.spec.Keys[1]
	// first every row's slot (-1: none), in a loop of independent lookups,
	// so the processor overlaps their cache misses
	slots := j.slots[:0]
	for i := 0; i < b.N; i++ {
		si := -1
		if h, ok := batchKeyHash(b, i, keys0, j.spec.NullSafe); ok {
			si = od.index.find(h)
		}
		slots = append(slots, int32(si))
	}
	j.slots = slots
	for i, si := range slots {
		matched := false
		if si >= 0 {
			si := int(si)
			prev, next := int32(-1), od.index.slots[si].head
			for next >= 0 {
				o := next
				if od.dead[o] {
					next = od.index.unlink(si, prev, next)
					continue
				}
				prev, next = next, od.index.next[o]
				if !batchKeyEqual(b, i, keys0, od.rows, int(o), keys1, j.spec.NullSafe) {
					continue
				}
				if od.matches.get(int(o)) == 0 {
					j.count.Partnered[1]++
				}
				od.matches.set(int(o), od.matches.get(int(o))+1)
				matched = true
				if err := j.pair(ctx, b, int32(i), o); err != nil {
					return err
				}
			}
		}
		if err := j.probed(ctx, b, i, matched); err != nil {
			return err
		}
	}
	return j.gather(ctx, b)
}

// probed ends the probe of left row i of b: counted when it matched, else
// paired with NULLs when the left side is outer.
func (j *Join) probed(ctx context.Context, b *vector.Batch, i int, matched bool) error {
	if matched {
		j.count.Partnered[0]++
		return nil
	}
	if j.spec.Kind.outer(0) {
		return j.pair(ctx, b, int32(i), -1)
	}
	return nil
}

// probeTable is probeLookup over the right side's lookupTable: every row's
// run of records first (lookupTable.probe: loops of independent loads, so
// the processor overlaps their cache misses), then each row's records in
// order, each compared by key (a dense index's are all equal) and paired
// (as pair and probed do, inline: the pairs kept in locals, written when
// they fill the output batch and at the end).
func (j *Join) probeTable(ctx context.Context, b *vector.Batch) error {
	t := j.table
	keys0, keys1 := j.spec.Keys[0], j.spec.Keys[1]
	dense, outer := t.dense != nil, j.spec.Kind.outer(0)
	selL, selR := j.selL, j.selR
	room := vector.Cap - j.outB.N - len(selL) // (pairs until the output batch is full)
	for i, r := range t.probe(b, keys0) {
		matched := false
		rec := int(r.off)
		for range r.n {
			if dense || t.keyEqual(b, i, rec, keys0, keys1) {
				if !j.shared && t.data[rec+recordMatched] == 0 {
					t.data[rec+recordMatched] = 1
					j.count.Partnered[1]++
				}
				matched = true
				selL, selR = append(selL, int32(i)), append(selR, int32(rec))
				if room--; room == 0 {
					j.selL, j.selR = selL, selR
					if err := j.gather(ctx, b); err != nil {
						return err
					}
					selL, selR, room = j.selL, j.selR, vector.Cap-j.outB.N
				}
			}
			rec = t.next(rec)
		}
		switch {
		case matched:
			j.count.Partnered[0]++
		case outer:
			selL, selR = append(selL, int32(i)), append(selR, -1)
			if room--; room == 0 {
				j.selL, j.selR = selL, selR
				if err := j.gather(ctx, b); err != nil {
					return err
				}
				selL, selR, room = j.selL, j.selR, vector.Cap-j.outB.N
			}
		}
	}
	j.selL, j.selR = selL, selR
	return j.gather(ctx, b)
}

// pair queues left row i of b joined with right row o (-1: NULLs), writing
// the queued pairs once they fill the output batch.
func (j *Join) pair(ctx context.Context, b *vector.Batch, i, o int32) error {
	j.selL = append(j.selL, i)
	j.selR = append(j.selR, o)
	if j.outB.N+len(j.selL) == vector.Cap {
		return j.gather(ctx, b)
	}
	return nil
}

// gather writes the queued pairs into the output batch, column by column:
// the left values from b (a VARCHAR column's plain marks, vector.Vec.Text,
// with them), the right ones from the state; a left column the
// state does not keep (JoinSpec.Keep: no reader of the joined rows reads
// it) is NULL, as in the rows the state gives (keptTypes), not copied.
// VARCHAR values
// point into b and the state, not copied: the batch is emitted before Push
// returns (Emitter: valid until Emit returns), and a lookup join's right
// rows neither move nor change while the left ones come.
func (j *Join) gather(ctx context.Context, b *vector.Batch) error {
	n := len(j.selL)
	if n == 0 {
		return nil
	}
	at := j.outB.N
	var keep []bool // (nil: every column)
	if kv := j.view[0]; kv != nil {
		keep = kv.keep
	}
	from := runOf(j.selL) // (a lookup of unique keys, every row matched: the whole batch, in order)
	for c, src := range b.Cols[:len(j.spec.Types[0])] {
		v := j.outB.Cols[c]
		if keep != nil && !keep[c] || c < len(j.spec.Pass[0]) && !j.spec.Pass[0][c] {
			setNulls(v.Null[at : at+n])
			if v.Text != nil {
				clear(v.Text[at : at+n])
			}
			continue
		}
		gatherSel(v.Null[at:at+n], src.Null, j.selL, from)
		switch {
		case v.I != nil:
			gatherSel(v.I[at:at+n], src.I, j.selL, from)
		case v.F != nil:
			gatherSel(v.F[at:at+n], src.F, j.selL, from)
		case v.B != nil:
			gatherSel(v.B[at:at+n], src.B, j.selL, from)
		case v.S != nil:
			gatherSel(v.S[at:at+n], src.S, j.selL, from)
			if src.Text != nil { // the values' plain marks (vector.Batch.PlainMarks), kept
				if v.Text == nil {
					v.Text = make([][]byte, vector.Cap) // (once: the output batch is reused)
				}
				gatherSel(v.Text[at:at+n], src.Text, j.selL, from)
				continue
			}
		case v.Kids != nil:
			for x, i := range j.selL {
				if !src.Null[i] {
					v.CopyValue(at+x, src, int(i))
				}
			}
		}
		if v.Text != nil {
			clear(v.Text[at : at+n])
		}
	}
	if t := j.table; t != nil {
		t.gather(j.outB, at, len(j.spec.Types[0]), j.selR, j.spec.Pass[1])
	} else {
		j.side[1].rows.gatherPassed(j.outB, at, len(j.spec.Types[0]), j.selR, j.spec.Pass[1], true)
	}
	gatherSel(j.outB.Pos[at:at+n], b.Pos, j.selL, from)
	if j.from[0] != nil { // (a probe copy keeps no Sources: ProbeCopy)
		copy(j.from[0][at:at+n], j.outB.Pos[at:at+n])
		if t := j.table; t != nil {
			t.positions(j.from[1][at:at+n], j.selR)
		} else {
			j.side[1].rows.positions(j.from[1][at:at+n], j.selR)
		}
	}
	j.outB.N += n
	j.selL, j.selR = j.selL[:0], j.selR[:0]
	if j.outB.N == vector.Cap {
		j.borrowed = true
		err := j.flush(ctx)
		j.borrowed = false
		return err
	}
	return nil
}

// gatherSel sets out[x] to src[sel[x]] for every x (len(out) == len(sel)):
// one copy when from >= 0 says sel is from, from+1, ... (runOf).
func gatherSel[T any](out, src []T, sel []int32, from int) {
	if from >= 0 {
		copy(out, src[from:from+len(out)])
		return
	}
	for x, i := range sel {
		out[x] = src[i]
	}
}

// runOf returns sel[0] when sel is a run of consecutive rows (sel[x] ==
// sel[0]+x for every x), else -1 (also for an empty sel): the pairs of a
// lookup join whose every left row has one partner, which gather then
// copies column by column instead of row by row.
func runOf(sel []int32) int {
	if len(sel) == 0 {
		return -1
	}
	first := sel[0]
	for x, i := range sel {
		if i != first+int32(x) {
			return -1
		}
	}
	return int(first)
}

// ProbeCopy returns a join that probes j's right side as j would, for
// another goroutine: a lookup join (JoinSpec.Lookup) whose right input has
// ended and is laid out as its table (lookupTable), whose left rows are
// probed a batch at a time (no event time, no TTL, no other ON terms, not
// swapped). The copy shares the table, read only (each copy keeps its own
// probe scratch: the runs, the key hashes), and has its own output batch,
// pairs and counts, emitting its joined rows to out (Emitter: port JoinOut)
// as j's Push would, batch for batch; its Push takes left batches only
// (port 0) and never marks the table's records as matched, so its
// JoinCounts' Partnered[1] stays 0 (the executor takes no copy for
// EXPLAIN ANALYZE). A copy keeps no source positions of its joined rows'
// input rows: its Sources are empty (its executor runs only jobs that
// call no function after the join, which is what reads them:
// plan.Job.LookupMorselable), which saves gathering them a row. Any number
// of copies may probe at once while j is not used; steady state allocates
// nothing. It returns nil when j is not such
// a join yet (plan.LookupMorsel's executor then keeps j's own path).
func (j *Join) ProbeCopy(out Emitter) *Join {
	if j.table == nil || !j.probesBatches() || !j.done[1] || j.spec.Changes[0] || j.spec.Changes[1] || j.deferred {
		return nil
	}
	c := *j
	t := *j.table
	t.runs, t.hashes, t.hashed = nil, nil, nil
	c.table = &t
	c.joinOutput = joinOutput{out: out, outB: vector.NewBatch(append(append([]catalog.Type{}, j.spec.Types[0]...), j.spec.Types[1]...))} // (no Sources: from nil)
	for s := range 2 {
		c.lateB[s] = vector.NewBatch(j.spec.Types[s])
		c.view[s] = newKeepView(j.spec.Types[s], j.spec.stateKeep(s))
	}
	c.selL, c.selR, c.slots, c.held, c.pairL, c.pairR, c.pairK = nil, nil, nil, nil, nil, nil, nil
	c.count = JoinCounts{}
	c.shared = true
	return &c
}

// Borrowed reports, while the join is emitting a batch of joined rows
// (Emitter.Emit, port JoinOut), whether that batch is a lookup join's
// probe's (probeLookup): its VARCHAR values then point into the left batch
// being pushed and into the right side's store, which no longer changes
// once the right input has ended, not into the emitted batch's own arenas.
// So an emitter may keep the batch's rows without copying their strings
// (vector.Batch.ShareRows) for as long as the left batch's strings stay
// valid. False for every other batch.
func (j *Join) Borrowed() bool { return j.borrowed }

// Owned reports, while the join is emitting a batch of joined rows
// (Emitter.Emit, port JoinOut), whether that batch's VARCHAR and nested
// values are in its own arenas (materialize copies them), so that an
// emitter may keep its rows, taken by vector.Batch.SwapRows, without
// copying them (vector.Batch.OwnStrings): every batch but a lookup join's
// probe's (Borrowed).
func (j *Join) Owned() bool { return !j.borrowed }

// fits reports whether a row of side s whose time is t and row o of the
// other side meet an interval join's time condition (always true for a
// regular join).
func (j *Join) fits(s int, t int64, o int) bool {
	if !j.spec.Interval {
		return true
	}
	var lt, rt int64
	if s == 0 {
		lt, rt = t, j.side[1].rows.Int(o, j.spec.Time[1])
	} else {
		lt, rt = j.side[0].rows.Int(o, j.spec.Time[0]), t
	}
	return lt >= satAdd(rt, j.spec.Lo) && lt <= satAdd(rt, j.spec.Hi)
}

// drop takes row k of side sd out of the state: it is dead (skipped by
// probes, removed by the next compact) and its bytes leave the budget.
func (j *Join) drop(sd *joinSide, k int) error {
	sd.dead[k] = true
	sd.ndead++
	if sd.size.n > 0 {
		j.freed += int64(sd.size.get(k)) // (given back by settle: in compact, and before the state grows)
	} else {
		j.freed += sd.rows.rowFixed
	}
	return nil
}

// holds reports whether row k of side s and row o of the other side meet
// JoinSpec.Residual (always true without one).
func (j *Join) holds(s, k, o int) bool {
	if j.spec.Residual == nil {
		return true
	}
	l, r := k, o
	if s == 1 {
		l, r = o, k
	}
	b := j.pairB
	b.Reset()
	j.side[0].rows.CopyTo(b, 0, 0, l)
	j.side[1].rows.CopyTo(b, 0, len(j.spec.Types[0]), r)
	b.N = 1
	return j.spec.Residual(b, 0, [2]int64{j.side[0].rows.Pos(l), j.side[1].rows.Pos(r)})
}

// emit writes the pair (left row l, right row r) with kind to the output;
// l or r is -1 for the NULLs that pad a row without a partner. A joined
// row's position is its left row's. The pair is queued (pairL, pairR,
// pairK) and written with the others, column by column, when the output
// batch fills or is flushed (materialize).
func (j *Join) emit(ctx context.Context, l, r int, kind vector.RowKind) error {
	j.pairL = append(j.pairL, int32(l))
	j.pairR = append(j.pairR, int32(r))
	if j.outB.Kinds != nil {
		j.pairK = append(j.pairK, kind)
	}
	if j.outB.N+len(j.pairL) == vector.Cap {
		return j.flush(ctx)
	}
	return nil
}

// materialize writes the pairs emit queued into the output batch, column
// by column (Rows.gatherPassed, the columns JoinSpec.Pass marks), after its
// rows. Their VARCHAR values are copied into the batch's arenas, so that
// the batch does not depend on the stores (compactSides moves their
// values) and an emitter that keeps it need not copy them again (Owned).
func (j *Join) materialize() {
	n := len(j.pairL)
	if n == 0 {
		return
	}
	at, b := j.outB.N, j.outB
	l, r := &j.side[0], &j.side[1]
	l.rows.gatherPassed(b, at, 0, j.pairL, j.spec.Pass[0], false)
	r.rows.gatherPassed(b, at, len(j.spec.Types[0]), j.pairR, j.spec.Pass[1], false)
	froml, fromr := j.from[0][at:at+n], j.from[1][at:at+n]
	l.rows.positions(froml, j.pairL)
	if !j.noRightSources { // (DropRightSources: every pair's left row is there, fromr stays -1)
		r.rows.positions(fromr, j.pairR)
	}
	pos := b.Pos[at : at+n]
	for x, k := range j.pairL { // (a joined row's position: its left row's, read above, or its right row's)
		switch {
		case j.swap != nil && k >= 0: // (its left row's ordinal: JoinSpec.Swap)
			pos[x] = j.swap.ord[k]
		case k >= 0:
			pos[x] = froml[x]
		default:
			pos[x] = fromr[x]
		}
	}
	if b.Kinds != nil {
		copy(b.Kinds[at:at+n], j.pairK)
	}
	b.N += n
	j.pairL, j.pairR, j.pairK = j.pairL[:0], j.pairR[:0], j.pairK[:0]
}

// flush writes the queued pairs (materialize) and emits the output
// (joinOutput.flush).
func (j *Join) flush(ctx context.Context) error {
	j.materialize()
	if err := j.joinOutput.flush(ctx); err != nil {
		return err
	}
	j.freeLow() // (no pair queued, the output batch sent: nothing reads a dead row's value)
	return nil
}

// late is joinOutput.late after the queued pairs are written, so that the
// batches of joined rows are cut where they were before the queue.
func (j *Join) late(ctx context.Context, port int, b *vector.Batch, i int) error {
	j.materialize()
	return j.joinOutput.late(ctx, port, b, i)
}

// emitPadded writes row k of side s with the other side's columns NULL.
func (j *Join) emitPadded(ctx context.Context, s, k int, kind vector.RowKind) error {
	if s == 0 {
		return j.emit(ctx, k, -1, kind)
	}
	return j.emit(ctx, -1, k, kind)
}

// compactFloor is the fewest dead rows a side is compacted for: a side
// whose live rows are mostly held ones (an interval join's side whose rows
// leave as soon as they are handled, its held rows those the watermark
// holds back) would otherwise copy about as many live rows as it drops,
// every thousand rows (the benchmark suite's payments).
const compactFloor = 4096

// probeFloor is compactFloor for the probe side of a join that oneSided
// releases by runs: its live rows are only the held ones (a few seconds of
// an input), each of its rows dies as it is handled, and a compaction
// copies every held row and renumbers its queue, so it compacts a quarter
// as often (its store at most about probeFloor rows above the held ones).
const probeFloor = 4 * compactFloor

// compact gives back the dropped rows' bytes (settle) and compacts the
// sides (compactSides).
func (j *Join) compact() error {
	if err := j.settle(); err != nil {
		return err
	}
	j.compactSides()
	return nil
}

// freeFloor is the fewest arena chunks (Rows.Freeable: 64 KiB each) a
// lookup join's left side lets go at once (Join.freeLow).
const freeFloor = 8

// freeLow lets go the arena chunks of a lookup join's left side that hold
// only dead rows' values, once freeFloor of them do (Rows.FreeBelow): its
// rows are held until the watermark passes them and then dropped, about in
// the order they came, so its text takes about the held rows' bytes rather
// than up to four times them until compactSides compacts it (Nexmark q20's
// and q23's held bids, issue 26 item 4). It copies no row. Join.flush calls
// it once the queued pairs are written and the output batch sent, so that
// nothing reads the dead rows' values any more.
func (j *Join) freeLow() {
	if !j.spec.Lookup || j.spec.Swap || j.shared {
		return
	}
	sd := &j.side[0]
	for sd.low < len(sd.dead) && sd.dead[sd.low] {
		sd.low++
	}
	if sd.rows.Freeable(sd.low) < freeFloor {
		return
	}
	sd.rows.FreeBelow(sd.low)
}

// compactSides drops the dead rows of a side once they are three times the
// live ones and at least compactFloor, remapping the index and the held
// rows: a live row is copied once for every three rows dropped (once for
// each one when it was as soon as they outnumbered the live ones), for a
// store at most about four times the live rows.
func (j *Join) compactSides() {
	st := j.oneSided()
	for s := range 2 {
		sd := &j.side[s]
		floor := compactFloor
		if st >= 0 && s != st {
			floor = probeFloor
		}
		if sd.ndead < floor || sd.ndead*4 < sd.rows.Len()*3 {
			continue
		}
		// the queued pairs name rows by index: written (their strings
		// copied into the batch) before Compact moves the rows
		j.materialize()
		moved := sd.rows.CompactDead(sd.dead)
		n := sd.rows.Len()
		for k := 0; k < len(moved); { // (a run of rows moved by one offset at a time: Rows.moveRows)
			to := moved[k]
			if to < 0 || to == k {
				k++
				continue
			}
			e := k + 1
			for e < len(moved) && moved[e] == to+e-k {
				e++
			}
			sd.moveRows(to, k, e-k)
			k = e
		}
		sd.dead = sd.dead[:n]
		clear(sd.dead) // (the kept rows are rows 0..n-1, every one live)
		sd.matches.truncate(n)
		sd.padded.truncate(n)
		if sd.hash.n > 0 {
			sd.hash.truncate(n)
			sd.keyed.truncate(n)
		}
		if sd.kinds.n > 0 {
			sd.kinds.truncate(n)
		}
		if sd.partner.n > 0 {
			sd.partner.truncate(n)
		}
		if sd.size.n > 0 {
			sd.size.truncate(n)
		}
		sd.ndead, sd.low = 0, 0
		sd.index.remap(moved, n)
		j.pending.remap(s, moved)
		j.expiry.remap(s, moved)
		j.procExpiry.remap(s, moved)
	}
}

// moveRows moves the per-row state of rows from..from+m-1 to to..to+m-1
// (to < from: compactSides' kept rows, as Rows.Compact moved them), a
// column's range at a time.
func (sd *joinSide) moveRows(to, from, m int) {
	sd.matches.move(to, from, m)
	sd.padded.move(to, from, m)
	if sd.hash.n > 0 {
		sd.hash.move(to, from, m)
		sd.keyed.move(to, from, m)
	}
	if sd.kinds.n > 0 {
		sd.kinds.move(to, from, m)
	}
	if sd.partner.n > 0 {
		sd.partner.move(to, from, m)
	}
	if sd.size.n > 0 {
		sd.size.move(to, from, m)
	}
}

// twoInputs is the watermark state of a two-input operator's inputs (Join,
// Temporal): each input's watermark (epoch ms; wmSet once it has one) and
// whether it has ended.
type twoInputs struct {
	wm    [2]int64
	wmSet [2]bool
	done  [2]bool
}

// advance records that input port's watermark is wm (watermarks never go
// down: a smaller one is ignored).
func (c *twoInputs) advance(port int, wm int64) {
	if !c.wmSet[port] || wm > c.wm[port] {
		c.wm[port], c.wmSet[port] = wm, true
	}
}

// rewind sets input port's watermark to wm (set false: none), also below
// the one it had (Join.Rewind).
func (c *twoInputs) rewind(port int, wm int64, set bool) {
	c.wm[port], c.wmSet[port] = wm, set
}

// bound is the time below which held rows are released (SPEC 2.7): the
// smallest watermark of the inputs with event time (timed) that have not
// ended; MaxInt64 when all have ended, MinInt64 while one has no watermark
// yet.
func (c *twoInputs) bound(timed [2]bool) int64 {
	b := int64(math.MaxInt64)
	for s := range 2 {
		if !timed[s] || c.done[s] {
			continue
		}
		if !c.wmSet[s] {
			return math.MinInt64
		}
		b = min(b, c.wm[s])
	}
	return b
}

// joinOutput is a join operator's output: its joined rows (port JoinOut)
// and each input's late rows (JoinLateLeft, JoinLateRight), gathered into
// batches and given to out. The batch of joined rows is the emitter's
// while Emit runs: it may take its rows by exchanging them with an empty
// batch of its own of the same layout (vector.Batch.SwapRows), since the
// join reads outB's vectors afresh each time it writes rows and resets it
// after Emit (executor's joinSource does, instead of copying every column).
type joinOutput struct {
	out   Emitter
	outB  *vector.Batch
	lateB [2]*vector.Batch
	// from holds, for each row of outB, the source positions of its left
	// and right input rows (Sources; newSources)
	from [2][]int64
	// batches counts the batches of joined rows emitted (Join.SetPace).
	batches int
	// rewrite emits the outputs a Kafka replay's rows wrote before again,
	// in batches of their own (old), instead of leaving them out
	// (SetRewrite, joinreplay.go)
	rewrite, old bool
}

// Sources returns, while the join emits a batch of joined rows
// (Emitter.Emit, port JoinOut), the source positions (vector.Batch.Pos of
// the batch each came in: a file's line) of each row's left and right input
// rows, -1 for a side padded with NULLs: the input rows a failed call
// after the join names (SPEC 1's errors output, 2.10; the executor's
// joinSource). A joined row's own position (vector.Batch.Pos) is its left
// row's, its right row's when the left is padded, and under JoinSpec.Swap
// its left row's ordinal, not a line: it orders, these name.
func (o *joinOutput) Sources() (l, r []int64) {
	if o.from[0] == nil { // (a probe copy's: ProbeCopy)
		return nil, nil
	}
	n := o.outB.N
	return o.from[0][:n], o.from[1][:n]
}

// newSources makes joinOutput.from, a batch's worth.
func newSources() [2][]int64 {
	return [2][]int64{make([]int64, vector.Cap), make([]int64, vector.Cap)}
}

// late sends row i of b, from input port, to its late port.
func (o *joinOutput) late(ctx context.Context, port int, b *vector.Batch, i int) error {
	lb := o.lateB[port]
	lb.AppendRows(b, i, i+1)
	if lb.N == vector.Cap {
		return o.flush(ctx)
	}
	return nil
}

// flush emits the rows gathered so far: joined rows first, then late rows.
func (o *joinOutput) flush(ctx context.Context) error {
	if o.outB.N > 0 {
		if err := o.out.Emit(ctx, JoinOut, o.outB); err != nil {
			return err
		}
		o.outB.Reset()
		o.batches++
	}
	for s, lb := range o.lateB {
		if lb.N > 0 {
			if err := o.out.Emit(ctx, JoinLateLeft+s, lb); err != nil {
				return err
			}
			lb.Reset()
		}
	}
	return nil
}

// satAdd is a + b, clamped to the int64 range.
func satAdd(a, b int64) int64 {
	c := a + b
	switch {
	case b > 0 && c < a:
		return math.MaxInt64
	case b < 0 && c > a:
		return math.MinInt64
	}
	return c
}

// satSub is a - b, clamped to the int64 range.
func satSub(a, b int64) int64 {
	if b == math.MinInt64 {
		return satAdd(satAdd(a, math.MaxInt64), 1)
	}
	return satAdd(a, -b)
}
