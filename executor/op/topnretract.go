package op

import (
	"context"
	"hash/maphash"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// RetractTopN is the Top-N over an updating input (SPEC 2.8, 2.9; Flink's
// RetractableTopNFunction): a Top-N over an unbounded GROUP BY, a CDC or
// upsert stream, whose rows come as changes. A +I or +U row enters its
// partition, a -U or -D row takes back an equal row it holds (one with
// every column equal, the first in rank order; none held: nothing, as
// Flink's "retract a non-existent record", which its lenient default logs
// and skips). A row taken back from the top N lets the next row in, so each
// partition keeps every live row of its input, not only its top N: the
// state is the input's live rows (for a GROUP BY, one per group), charged
// to its Account. After each input row it emits what changed in the
// partition's top N (rank at most N by Func): without the rank column, -D
// for each row that left it and then +I for each that entered; with it,
// for each rank position whose row or rank changed, -U the old and +U the
// new (-D a position emptied, +I one filled), as Flink's does. PosOrder is
// not used. It has one input port (0).
//
// A partition's rows are kept in rank order (ties in arrival order, or
// the newer first with NewerFirst) in runs of at most rankRun rows
// (rankList), and each held row is found by a hash of its values: placing
// a row or taking one back costs a binary search and moving at most a
// run's row numbers, not a scan of the partition (a Top-10 of the running
// counts of 10,000 groups, whose counts tie, took back each -U row after
// comparing it with every row of its count). Partitions are found by a
// seeded hash of their key in a FlatIndex, their keys in buffers that a
// forgotten partition's successor reuses, so that in steady state a new
// partition allocates nothing.
//
// State TTL ('table.exec.state.ttl', SPEC 2.8; TopNSpec.TTL, in ms of
// processing time read from TopNSpec.Now once per pushed batch): a
// partition that no input row (an insert or a retraction) has touched for
// TTL ms is forgotten, as op.TopN forgets one and Flink's state TTL clears
// the partition's sorted map and rows: its rows leave the state without a
// change emitted (they stay in the result downstream), a later retraction
// of one of them takes back nothing (Flink's RetractableTopNFunction with
// its default lenient flag logs "the state is cleared because of state
// ttl" and skips it, rather than failing with "Can not retract a
// non-existent record"), and the key's next insert starts the partition
// anew (+I). The rule holds at each row: a partition found untouched for
// the TTL is emptied before the row applies; a sweep every TTL/2 frees the
// partitions no row came back for.
type RetractTopN struct {
	spec  TopNSpec
	rk    ranking
	out   Emitter
	acct  Account
	rows  liveRows
	clock ttlClock
	swept int64
	// index finds a partition by maphash of its key's bytes (seed); parts
	// holds the partitions, partBlock to a block (ids stable), order the
	// ids held in the order of their first rows, free the ids forgotten
	index  *FlatIndex[retractPart]
	seed   maphash.Seed
	parts  [][]retractPart
	order  []int32
	free   []int32
	nparts int
	// per held row (by its index in rows): its arrival number (ties), the
	// hash of its values (rowHash) and the next held row of that hash; byHash
	// holds the first row of each hash
	seq     []uint64
	rhash   []uint64
	next    []int32
	byHash  map[uint64]int32
	nextSeq uint64
	// wordCol is the first ORDER BY column when it is BIGINT, TIMESTAMP,
	// DOUBLE or BOOLEAN (orderWord), else -1: each held row keeps its value
	// of it as an order word (words; wok false for NULL, which has none),
	// so that most comparisons read no stored row; inW and inOK are the
	// input row's
	wordCol int
	words   []uint64
	wok     []bool
	inW     uint64
	inOK    bool
	// spare holds emptied runs for reuse (rankList)
	spare [][]int32
	// hashCols are the columns rowHash reads (all but ARRAY, MAP and ROW,
	// which same does not compare)
	hashCols  []int
	key, rkey []byte
	ob        *outBatch
	// scratch: a partition's top rows and their ranks before and after
	// the change of one input row
	before, after []int32
	rb, ra        []int64
	// quiet: no change is made (a bounded input's Top-N gives its Final
	// result only)
	quiet bool
}

// retractPart is one partition of a RetractTopN.
type retractPart struct {
	list    rankList
	key     []byte // its key's bytes (partKey), a buffer kept for the id's next partition
	hash    uint64 // maphash of key
	touched int64  // processing time of its last row (TTL)
}

// retractPartBytes is what a partition costs besides its key's bytes and
// its rows: the struct (72 bytes), its first run's header (24) and its
// place in order (4). Its index slots (FlatSlotBytes each) are charged as
// the index's table grows.
const retractPartBytes = 100

// retractRowBytes is what a held row costs besides its values: its place
// in its partition's list (4), its arrival number, hash and chain link
// (20), its order word (9) and its entry in the hash map (24).
const retractRowBytes = 57

// Quiet makes the Top-N make no change as rows come (q true): the result
// of a bounded input is given once, by Final.
func (t *RetractTopN) Quiet(q bool) { t.quiet = q }

// Final emits the result as it stands, as inserts: each partition's top
// rows by rank (with the rank column when the output has it), partitions in
// the order of their first rows, as TopN.Final does (SPEC 2.8: a bounded
// input's final table).
func (t *RetractTopN) Final(ctx context.Context) error {
	for _, id := range t.order {
		t.after, t.ra = t.top(&t.part(id).list, t.after, t.ra)
		for j, k := range t.after {
			if err := t.emit(ctx, k, t.ra[j], vector.Insert); err != nil {
				return err
			}
		}
	}
	return t.ob.flush(ctx, t.out)
}

// NewRetractTopN returns the Top-N of spec over an updating input, emitting
// into out, its state charged to acct (nil: none). It fails on a spec
// without ORDER BY, with N below 1, or naming a column not in spec.Types.
func NewRetractTopN(spec TopNSpec, out Emitter, acct Account) (*RetractTopN, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if acct == nil {
		acct = noAccount{}
	}
	seed := maphash.MakeSeed()
	t := &RetractTopN{spec: spec, out: out, acct: acct, rows: newLiveRows(spec.Types), clock: spec.Now,
		index: NewFlatIndex[retractPart](true, 1), seed: seed, byHash: map[uint64]int32{}}
	t.rk = ranking{ord: order{types: spec.Types, keys: spec.Order}, n: spec.N, fn: spec.Func, newerFirst: spec.NewerFirst}
	t.wordCol = -1
	switch spec.Types[spec.Order[0].Col] {
	case catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean:
		t.wordCol = spec.Order[0].Col
	}
	for c, typ := range spec.Types {
		if !typ.IsNested() {
			t.hashCols = append(t.hashCols, c)
		}
	}
	types := spec.Types
	if spec.RankNumber {
		types = append(slices.Clip(types), catalog.BigInt)
	}
	t.ob = newOutBatch(types, TopNOut, true)
	return t, t.acct.Grow(int64(t.index.Slots()) * FlatSlotBytes)
}

// part returns partition id.
func (t *RetractTopN) part(id int32) *retractPart { return &t.parts[id>>partBits][id&partMask] }

// Push implements Operator: each row of b, in order, changes its partition
// (b.Kinds: Insert when nil), and the changes of its top N are emitted.
func (t *RetractTopN) Push(ctx context.Context, _ int, b *vector.Batch) error {
	var now int64
	ttl := t.spec.TTL > 0
	if ttl {
		now = t.clock.now()
		t.expire(now)
	}
	for i := 0; i < b.N; i++ {
		t.key = partKey(t.key[:0], t.spec.Types, t.spec.Keys, b, i)
		h := maphash.Bytes(t.seed, t.key)
		p := t.lookup(h)
		retract := b.KindAt(i).Retracts()
		if p == nil {
			if retract {
				continue // (nothing to take back)
			}
			var err error
			if p, err = t.newPart(h, now); err != nil {
				return err
			}
		} else if ttl {
			if now-p.touched >= t.spec.TTL {
				t.empty(p) // (untouched for the TTL: forgotten, as the sweep would have)
			}
			p.touched = now
		}
		list := &p.list
		var r, o int
		gone := int32(-1)
		if retract {
			if r, o, gone = t.find(list, b, i); gone < 0 {
				continue
			}
		} else {
			if c := t.wordCol; c >= 0 {
				t.inW, t.inOK = orderWord(t.spec.Types[c], b.Cols[c], i, t.spec.Order[0].Desc)
			}
			r, o = list.search(func(k int32) bool { // (the rows it goes after: ties in arrival order, or the newer first)
				c := t.cmpIn(b, i, k)
				return c > 0 || c == 0 && !t.rk.newerFirst
			})
		}
		// with ROW_NUMBER, a row taken out of or placed at index N or after
		// (past the top) changes nothing in it; otherwise (and with RANK and
		// DENSE_RANK, whose ties at the boundary may let a row in) the top
		// before and after the change are compared
		changes := !t.quiet && (t.rk.fn != RowNumber || !list.from(r, o, t.spec.N))
		if changes {
			t.before, t.rb = t.top(list, t.before, t.rb)
		}
		if retract {
			t.spare = list.remove(r, o, t.spare)
		} else {
			k, grew := t.rows.add(b, i)
			if err := t.acct.Grow(grew + retractRowBytes); err != nil {
				return err
			}
			t.hold(int32(k), b, i)
			t.spare = list.insert(r, o, int32(k), t.spare)
		}
		if changes {
			t.after, t.ra = t.top(list, t.after, t.ra)
			if err := t.emitChanges(ctx); err != nil {
				return err
			}
		}
		if gone >= 0 {
			t.release(gone)
		}
	}
	return t.ob.flush(ctx, t.out)
}

// lookup returns the partition of key word h (its key in t.key), nil when
// none is held.
func (t *RetractTopN) lookup(h uint64) *retractPart {
	x := t.index
	mask := x.Mask()
	for s := x.Home(h) & mask; ; s = (s + 1) & mask {
		w, p := x.Slot(s)
		if p == nil {
			return nil
		}
		if w == h && string(p.key) == string(t.key) {
			return p
		}
	}
}

// newPart makes the partition of key word h (its key in t.key), touched at
// now, reusing a forgotten partition's id and buffers, and charges it.
func (t *RetractTopN) newPart(h uint64, now int64) (*retractPart, error) {
	var id int32
	if n := len(t.free); n > 0 {
		id, t.free = t.free[n-1], t.free[:n-1]
	} else {
		nb := len(t.parts)
		if nb == 0 || len(t.parts[nb-1]) == partBlock {
			t.parts = append(t.parts, make([]retractPart, 0, partBlock))
			nb++
		}
		id = int32((nb-1)<<partBits + len(t.parts[nb-1]))
		t.parts[nb-1] = append(t.parts[nb-1], retractPart{})
	}
	p := t.part(id)
	p.key = append(p.key[:0], t.key...)
	p.hash, p.touched = h, now
	t.order = append(t.order, id)
	t.nparts++
	pre := int64(t.index.Doubles()) * FlatSlotBytes // (the doubled table, the old one live beside it while it fills)
	if err := t.acct.Grow(int64(cap(p.key)) + retractPartBytes + pre); err != nil {
		return p, err
	}
	before := t.index.Slots()
	t.index.Put(h, p)
	if pre > 0 {
		_ = t.acct.Grow(-int64(before) * FlatSlotBytes)
	}
	return p, nil
}

// hold records held row k, row i of b: its arrival number and its hash.
func (t *RetractTopN) hold(k int32, b *vector.Batch, i int) {
	if int(k) >= len(t.seq) {
		n := max(int(k)+1, 2*len(t.seq))
		t.seq = append(t.seq, make([]uint64, n-len(t.seq))...)
		t.rhash = append(t.rhash, make([]uint64, n-len(t.rhash))...)
		t.next = append(t.next, make([]int32, n-len(t.next))...)
		if t.wordCol >= 0 {
			t.words = append(t.words, make([]uint64, n-len(t.words))...)
			t.wok = append(t.wok, make([]bool, n-len(t.wok))...)
		}
	}
	t.nextSeq++
	if c := t.wordCol; c >= 0 {
		t.words[k], t.wok[k] = orderWord(t.spec.Types[c], b.Cols[c], i, t.spec.Order[0].Desc)
	}
	h := t.rowHash(b, i)
	t.seq[k], t.rhash[k] = t.nextSeq, h
	t.next[k] = -1
	if first, ok := t.byHash[h]; ok {
		t.next[k] = first
	}
	t.byHash[h] = k
}

// rowHash returns the hash of row i of b's values (those same compares;
// NULL, NaN and text as grouping encodes them).
func (t *RetractTopN) rowHash(b *vector.Batch, i int) uint64 {
	t.rkey = partKey(t.rkey[:0], t.spec.Types, t.hashCols, b, i)
	return maphash.Bytes(t.seed, t.rkey)
}

// release frees held row k (taken out of its partition's list already):
// its hash chain, its slot in the store, and its charge.
func (t *RetractTopN) release(k int32) {
	h := t.rhash[k]
	if first := t.byHash[h]; first == k {
		if t.next[k] < 0 {
			delete(t.byHash, h)
		} else {
			t.byHash[h] = t.next[k]
		}
	} else {
		for j := first; j >= 0; j = t.next[j] {
			if t.next[j] == k {
				t.next[j] = t.next[k]
				break
			}
		}
	}
	_ = t.acct.Grow(-t.rows.release(k) - retractRowBytes)
}

// find returns where the held row equal to row i of b in every column is
// in list (run r, offset o) and its index k, the first in rank order when
// several are; k is -1 when none is.
func (t *RetractTopN) find(list *rankList, b *vector.Batch, i int) (r, o int, k int32) {
	k = -1
	first, ok := t.byHash[t.rowHash(b, i)]
	if !ok {
		return 0, 0, -1
	}
	for j := first; j >= 0; j = t.next[j] {
		if !t.same(b, i, int(j)) || k >= 0 && (t.seq[j] < t.seq[k]) == t.rk.newerFirst {
			continue // (another row, or after the one found: duplicates rank by arrival)
		}
		if jr, jo, in := t.locate(list, j); in { // (an equal row of another partition is not this one's)
			r, o, k = jr, jo, j
		}
	}
	return r, o, k
}

// locate returns where held row k is in list, false when list does not
// hold it: a binary search by ORDER BY, then arrival (rankList's order).
func (t *RetractTopN) locate(list *rankList, k int32) (int, int, bool) {
	r, o := list.search(func(j int32) bool {
		c := t.cmp(j, k)
		if c != 0 {
			return c < 0
		}
		if t.rk.newerFirst {
			return t.seq[j] > t.seq[k]
		}
		return t.seq[j] < t.seq[k]
	})
	return r, o, r < len(list.runs) && o < len(list.runs[r]) && list.runs[r][o] == k
}

// top copies the rows of list whose rank is at most N into ids, and their
// ranks into ranks (ranking.ranks, stopping at the first rank above N).
func (t *RetractTopN) top(list *rankList, ids []int32, ranks []int64) ([]int32, []int64) {
	ids, ranks = ids[:0], ranks[:0]
	var r int64
	j, prev := 0, int32(-1)
	for _, run := range list.runs {
		for _, k := range run {
			switch {
			case j == 0:
				r = 1
			case t.rk.fn == RowNumber:
				r = int64(j) + 1
			case t.cmp(prev, k) != 0:
				if t.rk.fn == Rank {
					r = int64(j) + 1
				} else {
					r++
				}
			}
			if r > t.spec.N {
				return ids, ranks
			}
			ids, ranks = append(ids, k), append(ranks, r)
			j, prev = j+1, k
		}
	}
	return ids, ranks
}

// cmpIn compares row i of b (its order word in t.inW, t.inOK) with held
// row k in the order (ranking.ord), by their order words when both have
// one and they differ or are the whole ORDER BY.
func (t *RetractTopN) cmpIn(b *vector.Batch, i int, k int32) int {
	if t.wordCol >= 0 && t.inOK && t.wok[k] {
		if w := t.words[k]; t.inW != w {
			if t.inW < w {
				return -1
			}
			return 1
		}
		if len(t.spec.Order) == 1 {
			return 0
		}
	}
	return t.rk.ord.cmpIn(b, i, t.rows.Rows, int(k))
}

// cmp compares held rows j and k in the order, as cmpIn.
func (t *RetractTopN) cmp(j, k int32) int {
	if t.wordCol >= 0 && t.wok[j] && t.wok[k] {
		if a, b := t.words[j], t.words[k]; a != b {
			if a < b {
				return -1
			}
			return 1
		}
		if len(t.spec.Order) == 1 {
			return 0
		}
	}
	return t.rk.ord.cmp(t.rows.Rows, int(j), int(k))
}

// same reports whether row i of b and held row k are equal in every
// column (NULL equal to NULL; ARRAY, MAP and ROW values not compared).
func (t *RetractTopN) same(b *vector.Batch, i, k int) bool {
	for _, c := range t.hashCols {
		if cmpCells(t.spec.Types[c], cellOf(b.Cols[c], i), storedCell(t.rows.Rows, k, c)) != 0 {
			return false
		}
	}
	return true
}

// emitChanges emits what changed between t.before and t.after (the
// partition's top rows and ranks around one input row).
func (t *RetractTopN) emitChanges(ctx context.Context) error {
	if !t.spec.RankNumber {
		for _, k := range t.before {
			if !slices.Contains(t.after, k) {
				if err := t.emit(ctx, k, 0, vector.Delete); err != nil {
					return err
				}
			}
		}
		for _, k := range t.after {
			if !slices.Contains(t.before, k) {
				if err := t.emit(ctx, k, 0, vector.Insert); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for j := range max(len(t.before), len(t.after)) {
		switch {
		case j >= len(t.after):
			if err := t.emit(ctx, t.before[j], t.rb[j], vector.Delete); err != nil {
				return err
			}
		case j >= len(t.before):
			if err := t.emit(ctx, t.after[j], t.ra[j], vector.Insert); err != nil {
				return err
			}
		case t.before[j] != t.after[j] || t.rb[j] != t.ra[j]:
			if err := t.emit(ctx, t.before[j], t.rb[j], vector.UpdateBefore); err != nil {
				return err
			}
			if err := t.emit(ctx, t.after[j], t.ra[j], vector.UpdateAfter); err != nil {
				return err
			}
		}
	}
	return nil
}

// emit writes held row k, with rank r when the output has the rank
// column, as a change of kind.
func (t *RetractTopN) emit(ctx context.Context, k int32, r int64, kind vector.RowKind) error {
	rc := -1
	if t.spec.RankNumber {
		rc = len(t.spec.Types)
	}
	t.ob.addRanked(t.rows.Rows, int(k), kind, rc, r)
	return t.ob.full(ctx, t.out)
}

// empty releases every row of partition p, without a change (the state
// TTL's forgetting; its rows stay in the result downstream).
func (t *RetractTopN) empty(p *retractPart) {
	for _, run := range p.list.runs {
		for _, k := range run {
			t.release(k)
		}
	}
	t.spare = p.list.clear(t.spare)
}

// expire forgets the partitions untouched for the TTL at now, at most once
// per half TTL: their rows are released without a change, their ids and
// buffers kept for new partitions, and the index rebuilt without them.
func (t *RetractTopN) expire(now int64) {
	if now-t.swept < t.spec.TTL/2 {
		return
	}
	t.swept = now
	kept := t.order[:0]
	for _, id := range t.order {
		p := t.part(id)
		if now-p.touched < t.spec.TTL {
			kept = append(kept, id)
			continue
		}
		t.empty(p)
		t.free = append(t.free, id)
		t.nparts--
		_ = t.acct.Grow(-int64(cap(p.key)) - retractPartBytes)
	}
	if len(kept) == len(t.order) {
		return
	}
	t.order = kept
	t.index.Reset()
	for _, id := range kept {
		p := t.part(id)
		t.index.Put(p.hash, p)
	}
}

// DropWhere forgets, without a change, every held row whose input position
// (vector.Batch.Pos when it came) drop is true for: the executor's replay
// of a Kafka group source (executor/replay.go) drops the rows of a Kafka
// partition that left the process or is read again (a Top-N partition
// holds rows of one Kafka partition when the topic is partitioned by its
// PARTITION BY key, SPEC 2.5). A partition left empty keeps its key.
func (t *RetractTopN) DropWhere(drop func(pos int64) bool) {
	for _, id := range t.order {
		l := &t.part(id).list
		for r := len(l.runs) - 1; r >= 0; r-- {
			run := l.runs[r]
			for o := len(run) - 1; o >= 0; o-- {
				if k := run[o]; drop(t.rows.Pos(int(k))) {
					t.spare = l.remove(r, o, t.spare)
					t.release(k)
				}
			}
		}
	}
}

// Watermark implements Operator: the Top-N has no time of its own; the
// watermark passes on.
func (t *RetractTopN) Watermark(ctx context.Context, _ int, wm int64) error {
	return t.ob.passWatermark(ctx, t.out, wm)
}

// Finish implements Operator: what is gathered is emitted.
func (t *RetractTopN) Finish(ctx context.Context, _ int) error { return t.ob.flush(ctx, t.out) }

// Partitions returns the number of partitions held (tests).
func (t *RetractTopN) Partitions() int { return t.nparts }

// rankList is one partition's held rows (their indexes in the store) in
// rank order, in runs of at most rankRun rows: placing a row or taking one
// out moves the row numbers of one run, and finding a place is a binary
// search over the runs' last rows, then within a run. No run is empty but
// the first, when the list is.
type rankList struct {
	runs [][]int32
	n    int
}

// rankRun is the most rows a run of a rankList holds: a run that passes
// it is split in two.
const rankRun = 512

// search returns the first place (run r, offset o) of l whose row is not
// before the one sought: before(k) reports whether held row k comes before
// it, true for a prefix of l. The end of l is (the last run, its length).
func (l *rankList) search(before func(k int32) bool) (r, o int) {
	if l.n == 0 {
		return 0, 0
	}
	lo, hi := 0, len(l.runs)-1 // (the last run holds the place when no run's last row is not before)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if run := l.runs[m]; before(run[len(run)-1]) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	run := l.runs[lo]
	a, b := 0, len(run)
	for a < b {
		m := int(uint(a+b) >> 1)
		if before(run[m]) {
			a = m + 1
		} else {
			b = m
		}
	}
	return lo, a
}

// from reports whether place (r, o) of l is at index n or after.
func (l *rankList) from(r, o int, n int64) bool {
	at := int64(o)
	for j := 0; j < r && at < n; j++ {
		at += int64(len(l.runs[j]))
	}
	return at >= n
}

// insert puts row k at (r, o), splitting a run that passes rankRun (its
// second half into a run of spare, which it returns less the one taken).
func (l *rankList) insert(r, o int, k int32, spare [][]int32) [][]int32 {
	if len(l.runs) == 0 {
		var run []int32
		if n := len(spare); n > 0 {
			run, spare = spare[n-1], spare[:n-1]
		}
		l.runs = append(l.runs, run)
	}
	run := slices.Insert(l.runs[r], o, k)
	l.n++
	if len(run) <= rankRun {
		l.runs[r] = run
		return spare
	}
	var tail []int32
	if n := len(spare); n > 0 {
		tail, spare = spare[n-1], spare[:n-1]
	} else {
		tail = make([]int32, 0, rankRun+1)
	}
	half := len(run) / 2
	tail = append(tail[:0], run[half:]...)
	l.runs[r] = run[:half]
	l.runs = slices.Insert(l.runs, r+1, tail)
	return spare
}

// remove takes out the row at (r, o); a run it empties goes to spare
// (unless it is the only one), which it returns.
func (l *rankList) remove(r, o int, spare [][]int32) [][]int32 {
	run := slices.Delete(l.runs[r], o, o+1)
	l.n--
	if len(run) > 0 || len(l.runs) == 1 {
		l.runs[r] = run
		return spare
	}
	spare = append(spare, run)
	l.runs = slices.Delete(l.runs, r, r+1)
	return spare
}

// clear empties l, its runs but the first going to spare, which it returns.
func (l *rankList) clear(spare [][]int32) [][]int32 {
	for r := 1; r < len(l.runs); r++ {
		spare = append(spare, l.runs[r][:0])
	}
	if len(l.runs) > 0 {
		l.runs = l.runs[:1]
		l.runs[0] = l.runs[0][:0]
	}
	l.n = 0
	return spare
}
