package op

import (
	"cmp"
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// RankFunc is the ranking function of a Top-N (SPEC 2.9): ROW_NUMBER, RANK
// or DENSE_RANK.
type RankFunc uint8

// The ranking functions, as SQL names them.
const (
	RowNumber RankFunc = iota // 1, 2, 3, … whatever the ties (ties in arrival order)
	Rank                      // ties share a rank; the next rank skips (1, 1, 3)
	DenseRank                 // ties share a rank; the next does not skip (1, 1, 2)
)

// String returns the function's SQL name.
func (f RankFunc) String() string {
	switch f {
	case Rank:
		return "RANK"
	case DenseRank:
		return "DENSE_RANK"
	}
	return "ROW_NUMBER"
}

// ranking is the part of a Top-N that orders one partition's rows: a sorted
// list of stored rows whose rank is at most n (SPEC 2.9), ties in arrival
// order (or, with newerFirst, the newer row first: deduplication keeping the
// last row, as Flink's).
type ranking struct {
	ord        order
	n          int64
	fn         RankFunc
	newerFirst bool
}

// place returns where row i of b goes in list (sorted rows of rows), and
// whether its rank there is at most n.
func (rk *ranking) place(list []int32, rows *Rows, b *vector.Batch, i int) (int, bool) {
	if n := len(list); n > 0 && int64(n) >= rk.n && rk.fn != DenseRank { // a full list: most rows go after its last
		c := rk.ord.cmpIn(b, i, rows, int(list[n-1]))
		if c > 0 || c == 0 && rk.fn == RowNumber && !rk.newerFirst {
			return n, false
		}
	}
	lo, _ := slices.BinarySearchFunc(list, 0, func(k int32, _ int) int { // first row not below
		if rk.ord.cmpIn(b, i, rows, int(k)) > 0 {
			return -1
		}
		return 1
	})
	pos := lo
	if !rk.newerFirst {
		pos, _ = slices.BinarySearchFunc(list[lo:], 0, func(k int32, _ int) int { // first row above
			if rk.ord.cmpIn(b, i, rows, int(k)) >= 0 {
				return -1
			}
			return 1
		})
		pos += lo
	}
	switch rk.fn {
	case Rank:
		return pos, int64(lo)+1 <= rk.n
	case DenseRank:
		dense := int64(1) // 1 + the distinct values below the row
		for j := 0; j < lo; j++ {
			if j == 0 || rk.ord.cmp(rows, int(list[j-1]), int(list[j])) != 0 {
				dense++
			}
		}
		return pos, dense <= rk.n
	}
	return pos, int64(pos) < rk.n
}

// ranks writes the rank of each row of list into dst and returns it.
func (rk *ranking) ranks(list []int32, rows *Rows, dst []int64) []int64 {
	dst = dst[:0]
	var r int64
	for j, k := range list {
		switch {
		case j == 0:
			r = 1
		case rk.fn == RowNumber:
			r = int64(j) + 1
		case rk.ord.cmp(rows, int(list[j-1]), int(k)) != 0:
			if rk.fn == Rank {
				r = int64(j) + 1
			} else {
				r++
			}
		}
		dst = append(dst, r)
	}
	return dst
}

// cut returns how many rows of list (with their ranks) have a rank of at
// most n.
func (rk *ranking) cut(ranks []int64) int {
	n := len(ranks)
	for n > 0 && ranks[n-1] > rk.n {
		n--
	}
	return n
}

// TopNSpec describes a Top-N over an append-only input (SPEC 2.9): per
// partition (Keys, NULL one value), the rows ranked by Order whose rank by
// Func is at most N, as an updating relation.
type TopNSpec struct {
	Types []catalog.Type // the input's columns
	Keys  []int          // PARTITION BY columns (none: the whole stream)
	Order []SortKey      // ORDER BY
	N     int64          // the largest rank kept (rn <= N), at least 1
	Func  RankFunc
	// RankNumber adds the rank as a last BIGINT column; without it the
	// output has the input's columns only (Flink's no-ranking-number
	// optimisation: a row's rank changing is no change).
	RankNumber bool
	// NewerFirst ranks the newer of two rows equal in Order first
	// (deduplication keeping the last row: ORDER BY t DESC, rn = 1);
	// otherwise ties go in arrival order (SPEC 2.9).
	NewerFirst bool
	// TTL drops a partition untouched for TTL ms of processing time
	// ('table.exec.state.ttl', SPEC 2.8); 0 keeps state for ever. Now is
	// the clock in epoch ms (nil: the system's).
	TTL int64
	Now func() int64
	// PosOrder makes Final give the partitions in the order of their first
	// rows' positions (vector.Batch.Pos; equal ones in the order of their
	// first rows), not of their first rows: the rows of a lookup join that
	// read its sides the other way round (JoinSpec.Swap), whose positions
	// are their left rows' ordinals. A Quiet Top-N then keeps the positions.
	PosOrder bool
}

// TopNOut is a Top-N's output port.
const TopNOut = 0

// TopN is the updating Top-N operator (SPEC 2.9, 2.8): each input row that
// enters a partition's top N emits the changes it makes, as Flink's
// AppendOnlyTopNFunction does: with the rank column, one change per rank
// that changed (-U the old row and rank, +U the new; +I a rank that was
// empty, -D one that no longer is); without it, -D for each row that left
// the top N and +I for the new row. Deduplication keeping the last row
// (NewerFirst, N 1, ROW_NUMBER, no rank column) emits as Flink's
// deduplication does (DeduplicateFunctionHelper.updateDeduplicateResult):
// +I for a key's first row, then -U the old row and +U the new. Its state
// is the top rows of each partition (a row that leaves never comes back:
// the input only inserts), charged to its Account: a row that leaves frees
// its slot in the store for the next (liveRows), and the partitions, their
// lists and their keys are fixed-width values in shared blocks (no pointer,
// no allocation per partition), so the state is the rows held and about
// topPartBytes per partition. It has one input port (0).
type TopN struct {
	spec   TopNSpec
	rk     ranking
	out    Emitter
	acct   Account
	rows   liveRows
	order  []int32 // the partitions held, in the order of their first rows
	nparts int
	key    []byte
	ob     *outBatch
	old    []int32
	oldR   []int64
	newR   []int64
	clock  ttlClock
	swept  int64
	// wordCol is the first ORDER BY column when it is BIGINT, TIMESTAMP,
	// DOUBLE or BOOLEAN and the function is not DENSE_RANK, else -1: each
	// partition keeps its rows' values of it as order words (orderWord), so
	// that placing a row reads no stored row unless it ties on that value,
	// and a row after a full partition's last is out at once (lookAhead)
	wordCol int
	// found, after, words and wok are Push's look-ahead over a batch: each
	// row's partition (-1: none yet), whether it is out of it at once, its
	// order word and whether it has one (its value is not NULL)
	found []int32
	after []bool
	words []uint64
	wok   []bool
	// slots index the partitions by a word: the key's value when the key is
	// one BIGINT or TIMESTAMP column (intKey: the column; a NULL key's
	// partition is nullPart), a seeded hash of the values when every key
	// column is BIGINT or TIMESTAMP (intsKey: the key is not stored, it is
	// compared with the partition's first row), else the seeded hash of the
	// key's bytes (kept in keys); open addressing, linear probing, at most
	// three quarters full, rebuilt when partitions leave (keepOrder). A
	// slot holds its partition's bound, so that a row out of a full
	// partition of an int key costs one slot read
	slots    []topSlot
	used     int
	intKey   int
	intsKey  bool
	nullPart int32 // -1: none
	// nullBound is nullPart's bound, as a slot holds it
	nullBound uint64
	seed      maphash.Seed
	mixSeed   uint64
	// parts holds the partitions, partBlock to a block, a partition named
	// by its index (id); touched, with a TTL, when each was last touched;
	// lblocks and wblocks hold their lists and words at
	// id*stride (with ROW_NUMBER and N below 64: stride N, N+1 with the rank
	// column, whose insert holds N+1 rows before the cut), bigL and
	// bigW, by id, those of a larger N or of RANK and DENSE_RANK (whose
	// ties may hold more rows); free holds forgotten ids for reuse
	parts   [][]topPart
	touched [][]int64
	lblocks [][]int32
	wblocks [][]uint64
	bigL    [][]int32
	bigW    [][]uint64
	stride  int
	free    []int32
	// keys holds the partitions' key bytes (neither intKey nor intsKey):
	// the values of one arena (rowCol's chunks), addressed by topPart.key
	keys   rowCol
	relist []topSlot // keepOrder's scratch, reused
	// dedupLast: deduplication keeping the last row, whose changes are
	// -U/+U (Flink's deduplication)
	dedupLast bool
	// quiet: the changes are not emitted (Quiet)
	quiet bool
	// pkeys and ppos, block for block with parts: each partition's key
	// address (byte keys only, else nil) and first row's input position
	// (nil after Quiet)
	pkeys [][]topKey
	ppos  [][]int64
	noPos bool // the partitions keep no positions (Quiet)
	// fill writes, in Final, the columns the rows were stored without
	// (Fill), nil when they have all of them
	fill func(b *vector.Batch, i int, pos int64)
}

// Fill makes Final write each row's columns it was stored without through
// fill: into row i of the output batch, from the row's partition's position
// (its first row's vector.Batch.Pos, kept with PosOrder), before the row
// goes out. It is for a Top-N with PosOrder after a join that read its
// sides the other way round (JoinSpec.Swap) whose left keys are unique, the
// partition key holding the left key: the rows were pushed with the
// left-side columns NULL (but no key or ORDER BY column), and each
// partition's rows come from the one left row of its position, whose
// columns Join.LeftColumns gives (executor/rank). fill nil: no fill.
func (t *TopN) Fill(fill func(b *vector.Batch, i int, pos int64)) {
	if t.spec.PosOrder {
		t.fill = fill
	}
}

// Quiet makes the Top-N emit no changes when q is true (until Final): for a
// receiver that would discard them, a bounded input's, which takes the final
// table Final emits (SPEC 2.8), so that no change's row is copied (and its
// packed text unpacked) out of the state for nothing. The state is the same.
//
// A Top-N quiet from its start keeps no input positions either: a bounded
// input is not read again, so no replay asks which partitions came from
// which positions (DropWhere).
func (t *TopN) Quiet(q bool) {
	t.quiet = q
	if q && t.nparts == 0 && len(t.free) == 0 && !t.spec.PosOrder {
		t.ppos = nil
		t.noPos = true
	}
}

// partBits is log2 of the partitions in a block of TopN.parts.
const (
	partBits  = 10
	partBlock = 1 << partBits
	partMask  = partBlock - 1
)

// topSlot is a slot of TopN's index: a partition's word, its bound and its
// id plus one (0: empty). The bound is notFull unless the partition is
// full: it holds N rows, none NULL in TopN.wordCol, and the bound is its
// last row's order word, so that a row whose word is after it is out
// without reading the partition.
type topSlot struct {
	w     uint64
	bound uint64
	p     int32
}

// notFull is the bound of a slot whose partition is not full: no word is
// after it (a full partition whose bound is that word passes its rows to
// place, which decides as well).
const notFull = ^uint64(0)

// topPartBytes is what a partition costs besides its key and rows: the
// struct (16 bytes), its key's address (8, TopN.pkeys) and first row's
// position (8, TopN.ppos) when it keeps them, its index slots (24 bytes
// each, 1.3 to 2.7 a partition) and its place in TopN.order.
const topPartBytes = 84

// topPart is one partition's state: the count of its ranked rows (the rows
// are TopN.list's); its key's address, unless the key is ints, and its
// first row's input position are in blocks of their own (TopN.pkeys,
// TopN.ppos), so that a Top-N that keeps neither (int keys, a bounded
// input: Nexmark q18's 290,000 partitions) spends 16 bytes a partition.
type topPart struct {
	nulls int32 // rows of list whose TopN.wordCol value is NULL (no word)
	slot  int32 // its slot, -1 when it has none (TopN.nullPart)
	cnt   int32 // rows in its list
	gone  bool  // forgotten (TTL, DropWhere)
}

// topKey is the address of a partition's key bytes in TopN.keys.
type topKey struct {
	key uint32
	len int32
}

// keyOf returns partition id's key address (a Top-N whose keys are bytes).
func (t *TopN) keyOf(id int32) *topKey { return &t.pkeys[id>>partBits][id&partMask] }

// keyLen returns the bytes of partition id's key (0 for int keys, which are
// not stored).
func (t *TopN) keyLen(id int32) int64 {
	if t.pkeys == nil {
		return 0
	}
	return int64(t.keyOf(id).len)
}

// posOf returns the input position (vector.Batch.Pos) of partition id's
// first row, 0 without one or when the Top-N keeps none (Quiet; DropWhere).
func (t *TopN) posOf(id int32) int64 {
	if t.ppos == nil {
		return 0
	}
	return t.ppos[id>>partBits][id&partMask]
}

// touch records that partition id was touched at now (TTL).
func (t *TopN) touch(id int32, now int64) { t.touched[id>>partBits][id&partMask] = now }

// part returns partition id.
func (t *TopN) part(id int32) *topPart { return &t.parts[id>>partBits][id&partMask] }

// list returns the rows partition id (p) holds, by rank: capacity stride in
// its block, so that an insert before the cut does not move it (a row
// pushing another out of a full partition without the rank column goes in
// by replace, in place).
func (t *TopN) list(id int32, p *topPart) []int32 {
	if t.stride == 0 {
		return t.bigL[id][:p.cnt]
	}
	o := int(id&partMask) * t.stride
	return t.lblocks[id>>partBits][o : o+int(p.cnt) : o+t.stride]
}

// wordsOf returns the order words of partition id's rows (wordCol >= 0).
func (t *TopN) wordsOf(id int32, p *topPart) []uint64 {
	if t.stride == 0 {
		return t.bigW[id][:p.cnt]
	}
	o := int(id&partMask) * t.stride
	return t.wblocks[id>>partBits][o : o+int(p.cnt) : o+t.stride]
}

// setList records partition id's list and words after they changed (of
// one length; words nil without wordCol).
func (t *TopN) setList(id int32, p *topPart, list []int32, words []uint64) {
	p.cnt = int32(len(list))
	if t.stride == 0 {
		t.bigL[id] = list
		if t.wordCol >= 0 {
			t.bigW[id] = words
		}
	}
}

// keyIs reports whether partition p's key is row i of b's (t.key its
// bytes unless the key is ints).
func (t *TopN) keyIs(id int32, p *topPart, b *vector.Batch, i int) bool {
	if t.intsKey {
		if p.cnt == 0 {
			return false
		}
		k := int(t.list(id, p)[0])
		for _, c := range t.spec.Keys {
			v := b.Cols[c]
			if v.Null[i] != t.rows.Null(k, c) || !v.Null[i] && v.I[i] != t.rows.Int(k, c) {
				return false
			}
		}
		return true
	}
	k := t.keyOf(id)
	if int(k.len) != len(t.key) {
		return false
	}
	return string(t.keys.at(k.key, k.len)) == string(t.key)
}

// at returns the bytes of the arena at address o, n of them.
func (rc *rowCol) at(o uint32, n int32) []byte {
	if n == 0 {
		return noBytes
	}
	in := o & arenaMask
	return rc.chunks[o>>arenaBits][in : in+uint32(n) : in+uint32(n)]
}

// orderWord returns value i of v (type t) as a word whose unsigned order
// is the column's sort order (SortKey: DOUBLE as Java's Double.compare,
// -0.0 below 0.0, every NaN equal and last; desc reverses it), and false
// when the value is NULL (it has no word).
func orderWord(t catalog.Type, v *vector.Vec, i int, desc bool) (uint64, bool) {
	if v.Null[i] {
		return 0, false
	}
	var w uint64
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		w = uint64(v.I[i]) ^ 1<<63
	case catalog.Double:
		f := v.F[i]
		if f != f {
			f = math.NaN()
		}
		if w = math.Float64bits(f); w>>63 != 0 {
			w = ^w
		} else {
			w |= 1 << 63
		}
	case catalog.Boolean:
		if v.B[i] {
			w = 1
		}
	}
	if desc {
		w = ^w
	}
	return w, true
}

// NewTopN returns a Top-N that emits to out (port TopNOut, batches with
// Kinds) and charges its state to acct (nil: none). Errors: no ORDER BY, N
// below 1, a column out of range.
func NewTopN(spec TopNSpec, out Emitter, acct Account) (*TopN, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if acct == nil {
		acct = noAccount{}
	}
	t := &TopN{spec: spec, out: out, acct: acct, rows: newLiveRows(spec.Types), clock: spec.Now, wordCol: -1,
		slots: make([]topSlot, 64), intKey: -1, nullPart: -1, seed: maphash.MakeSeed(), mixSeed: uint64(rand.Int64()) | 1}
	t.intsKey = len(spec.Keys) > 1
	for _, k := range spec.Keys {
		if spec.Types[k] != catalog.BigInt && spec.Types[k] != catalog.Timestamp {
			t.intsKey = false
		}
	}
	if len(spec.Keys) == 1 {
		if k := spec.Keys[0]; spec.Types[k] == catalog.BigInt || spec.Types[k] == catalog.Timestamp {
			t.intKey = k
		}
	}
	switch spec.Types[spec.Order[0].Col] {
	case catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean:
		if spec.Func != DenseRank {
			t.wordCol = spec.Order[0].Col
		}
	}
	if spec.N < 64 && spec.Func == RowNumber { // (RANK's ties may hold more than N+1)
		t.stride = int(spec.N) // (a full partition's row goes in by replace)
		if spec.RankNumber {
			t.stride++ // (insert holds N+1 rows before the cut)
		}
	}
	t.dedupLast = spec.NewerFirst && spec.N == 1 && spec.Func == RowNumber && !spec.RankNumber
	t.rk = ranking{ord: order{types: spec.Types, keys: spec.Order}, n: spec.N, fn: spec.Func, newerFirst: spec.NewerFirst}
	t.rows.packText(payloadCols(len(spec.Types), spec.Keys, spec.Order))
	t.rows.dropPositions() // (its output's positions are read by no one: the partitions keep their first rows', DropWhere)
	types := spec.Types
	if spec.RankNumber {
		types = append(slices.Clip(types), catalog.BigInt)
	}
	t.ob = newOutBatch(types, TopNOut, true)
	return t, nil
}

// check fails on a spec without ORDER BY, with N below 1, or naming a
// column not in Types.
func (spec *TopNSpec) check() error {
	if len(spec.Order) == 0 {
		return fmt.Errorf("top-n: no ORDER BY")
	}
	if spec.N < 1 {
		return fmt.Errorf("top-n: N is %d, below 1", spec.N)
	}
	return checkCols(spec.Types, spec.Keys, spec.Order)
}

// payloadCols returns the columns of n that are neither keys nor ORDER BY
// columns: those a Top-N or a deduplication only copies out, whose text its
// store packs (Rows.packText).
func payloadCols(n int, keys []int, ord []SortKey) []int {
	var cols []int
	for c := range n {
		if !slices.Contains(keys, c) && !slices.ContainsFunc(ord, func(s SortKey) bool { return s.Col == c }) {
			cols = append(cols, c)
		}
	}
	return cols
}

// checkCols checks that every column named is one of types.
func checkCols(types []catalog.Type, keys []int, ord []SortKey) error {
	for _, c := range keys {
		if c < 0 || c >= len(types) {
			return fmt.Errorf("partition column %d of %d", c, len(types))
		}
	}
	for _, s := range ord {
		if s.Col < 0 || s.Col >= len(types) {
			return fmt.Errorf("order column %d of %d", s.Col, len(types))
		}
	}
	return nil
}

// Push implements Operator.
func (t *TopN) Push(ctx context.Context, _ int, b *vector.Batch) error {
	var now int64
	if t.spec.TTL > 0 {
		now = t.clock.now()
		if err := t.expire(now); err != nil {
			return err
		}
	}
	t.lookAhead(b, now)
	for i := 0; i < b.N; i++ {
		if t.after[i] {
			continue
		}
		id := t.found[i]
		if id < 0 {
			w, null := t.word(b, i)
			if id = t.find(w, null, b, i); id < 0 {
				var pos int64
				if b.Pos != nil {
					pos = b.Pos[i]
				}
				id = t.newPart(w, null, pos)
				if err := t.acct.Grow(t.keyLen(id) + topPartBytes + int64(t.stride)*12); err != nil {
					return err
				}
			}
		}
		p := t.part(id)
		if t.spec.TTL > 0 {
			t.touch(id, now)
		}
		var pos int
		var ok bool
		if t.wordCol >= 0 && t.wok[i] && p.nulls == 0 {
			pos, ok = t.placeWord(id, p, b, i, t.words[i])
		} else {
			pos, ok = t.rk.place(t.list(id, p), t.rows.Rows, b, i)
		}
		if !ok {
			continue
		}
		if err := t.insert(ctx, id, p, b, i, pos); err != nil {
			return err
		}
	}
	return t.ob.flush(ctx, t.out)
}

// newPart makes the partition of index word w (t.key its key bytes
// without intKey or intsKey; null: intKey's NULL), whose first row came
// from input position pos, and returns its id.
func (t *TopN) newPart(w uint64, null bool, pos int64) int32 {
	var id int32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		nb := len(t.parts)
		if nb == 0 || len(t.parts[nb-1]) == partBlock { // a new block
			t.parts = append(t.parts, make([]topPart, 0, partBlock))
			if t.intKey < 0 && !t.intsKey {
				t.pkeys = append(t.pkeys, make([]topKey, partBlock))
			}
			if !t.noPos {
				t.ppos = append(t.ppos, make([]int64, partBlock))
			}
			if t.spec.TTL > 0 {
				t.touched = append(t.touched, make([]int64, partBlock))
			}
			nb++
			if s := t.stride; s > 0 {
				t.lblocks = append(t.lblocks, make([]int32, partBlock*s))
				if t.wordCol >= 0 {
					t.wblocks = append(t.wblocks, make([]uint64, partBlock*s))
				}
			}
		}
		id = int32((nb-1)<<partBits + len(t.parts[nb-1]))
		blk := &t.parts[id>>partBits]
		*blk = append(*blk, topPart{})
		if t.stride == 0 {
			t.bigL = append(t.bigL, nil)
			if t.wordCol >= 0 {
				t.bigW = append(t.bigW, nil)
			}
		}
	}
	p := t.part(id)
	*p = topPart{slot: -1}
	if t.ppos != nil {
		t.ppos[id>>partBits][id&partMask] = pos
	}
	if t.stride == 0 {
		t.bigL[id] = t.bigL[id][:0]
		if t.wordCol >= 0 {
			t.bigW[id] = t.bigW[id][:0]
		}
	}
	if t.intKey < 0 && !t.intsKey {
		k := t.keyOf(id)
		k.len = int32(len(t.key))
		k.key, _ = t.keys.add(t.key)
	}
	if null {
		t.nullPart, t.nullBound = id, notFull
	} else {
		t.put(id, w, notFull)
	}
	t.order = append(t.order, id)
	t.nparts++
	return id
}

// lookAhead finds, before the batch b's rows are placed, the partition of
// each row that has one already (found; -1: none yet, found or made at its
// turn), marks it touched at now, computes each row's order word, and
// marks the rows that are out of a full partition by that word alone
// (after: it is after the partition's last row's, or equal to it with
// ROW_NUMBER and ties in arrival order). The lookups do not wait for each
// other's rows (issue 24: a row's partition and its rows were cache misses
// one after another), and a partition's bound only tightens while the
// batch's rows go in, so a row out by it at the batch's start is out at
// its turn.
func (t *TopN) lookAhead(b *vector.Batch, now int64) {
	if cap(t.found) < b.N {
		t.found, t.after = make([]int32, b.N), make([]bool, b.N)
		t.words, t.wok = make([]uint64, b.N), make([]bool, b.N)
	}
	t.found, t.after, t.words, t.wok = t.found[:b.N], t.after[:b.N], t.words[:b.N], t.wok[:b.N]
	c := t.wordCol
	var v *vector.Vec
	var typ catalog.Type
	desc := false
	if c >= 0 {
		v, typ, desc = b.Cols[c], t.spec.Types[c], t.spec.Order[0].Desc
	}
	// a row tied with a full partition's last row on the first ORDER BY
	// column is out only when that column is the whole ORDER BY: otherwise
	// the next columns may put it before the last row (placeWord decides)
	tieOut := t.rk.fn == RowNumber && !t.rk.newerFirst && len(t.spec.Order) == 1
	ttl := t.spec.TTL > 0
	for i := 0; i < b.N; i++ {
		if c >= 0 {
			t.words[i], t.wok[i] = orderWord(typ, v, i, desc)
		}
		w, null := t.word(b, i)
		id := int32(-1)
		full, bound := false, uint64(0)
		if null {
			if id = t.nullPart; id >= 0 {
				bound = t.nullBound
				full = bound != notFull
			}
		} else if q := t.slotOf(w, b, i); q >= 0 {
			s := &t.slots[q]
			id, bound = s.p-1, s.bound
			full = bound != notFull
		}
		t.found[i], t.after[i] = id, false
		if id < 0 {
			continue
		}
		if ttl {
			t.touch(id, now)
		}
		if full && t.wok[i] {
			x := t.words[i]
			t.after[i] = x > bound || x == bound && tieOut
		}
	}
}

// word returns row i of b's index word (TopN.slots), and whether its key
// is intKey's NULL (whose partition is nullPart); with neither intKey nor
// intsKey it leaves the key's bytes in t.key.
func (t *TopN) word(b *vector.Batch, i int) (uint64, bool) {
	if c := t.intKey; c >= 0 {
		v := b.Cols[c]
		return uint64(v.I[i]), v.Null[i]
	}
	if t.intsKey {
		h := t.mixSeed
		for _, c := range t.spec.Keys {
			v := b.Cols[c]
			x := uint64(v.I[i])
			if v.Null[i] {
				x = 0x5bd1e9955bd1e995 // (any value: a NULL's partition is found by keyIs's comparison)
			}
			hi, lo := bits.Mul64(h^x, 0x9e3779b97f4a7c15)
			h = hi ^ lo
		}
		return h, false
	}
	t.key = partKey(t.key[:0], t.spec.Types, t.spec.Keys, b, i)
	return maphash.Bytes(t.seed, t.key), false
}

// home is the first slot to probe for word w (before the mask).
func (t *TopN) home(w uint64) uint64 {
	if t.intKey < 0 {
		return w // (a hash already)
	}
	hi, lo := bits.Mul64(w^t.mixSeed, 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// slotOf returns the slot of the partition of row i of b, whose word is w
// (t.key its key bytes with neither intKey nor intsKey), -1 when there is
// none.
func (t *TopN) slotOf(w uint64, b *vector.Batch, i int) int {
	mask := uint64(len(t.slots) - 1)
	for q := t.home(w) & mask; ; q = (q + 1) & mask {
		s := &t.slots[q]
		if s.p == 0 {
			return -1
		}
		if s.w == w && (t.intKey >= 0 || t.keyIs(s.p-1, t.part(s.p-1), b, i)) {
			return int(q)
		}
	}
}

// find returns the partition of row i of b, whose word is w (null:
// intKey's NULL), -1 when there is none.
func (t *TopN) find(w uint64, null bool, b *vector.Batch, i int) int32 {
	if null {
		return t.nullPart
	}
	if q := t.slotOf(w, b, i); q >= 0 {
		return t.slots[q].p - 1
	}
	return -1
}

// put adds partition id, of word w and bound bound, to the index, doubling
// it when it would be more than three quarters full.
func (t *TopN) put(id int32, w, bound uint64) {
	if 4*(t.used+1) > 3*len(t.slots) {
		old := t.slots
		t.slots, t.used = make([]topSlot, 2*len(old)), 0
		for _, s := range old {
			if s.p != 0 {
				t.put(s.p-1, s.w, s.bound)
			}
		}
	}
	mask := uint64(len(t.slots) - 1)
	q := t.home(w) & mask
	for t.slots[q].p != 0 {
		q = (q + 1) & mask
	}
	p := t.part(id)
	t.slots[q] = topSlot{w: w, p: id + 1, bound: bound}
	p.slot = int32(q)
	t.used++
}

// placeWord is ranking.place by order words, for a row with word w in a
// partition without NULLs in wordCol (not DENSE_RANK): the stored rows are
// read only for the rows that tie on w, when ORDER BY has more columns.
func (t *TopN) placeWord(id int32, p *topPart, b *vector.Batch, i int, w uint64) (int, bool) {
	ws := t.wordsOf(id, p)
	lo, hi := 0, len(ws) // lo: the first word not below w
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ws[m] < w {
			lo = m + 1
		} else {
			hi = m
		}
	}
	hi = lo // hi: the first word above w
	for hi < len(ws) && ws[hi] == w {
		hi++
	}
	if hi > lo && len(t.spec.Order) > 1 { // ties on the first column: the others decide
		tied := t.list(id, p)[lo:hi]
		a, _ := slices.BinarySearchFunc(tied, 0, func(k int32, _ int) int {
			if t.rk.ord.cmpIn(b, i, t.rows.Rows, int(k)) > 0 {
				return -1
			}
			return 1
		})
		z, _ := slices.BinarySearchFunc(tied[a:], 0, func(k int32, _ int) int {
			if t.rk.ord.cmpIn(b, i, t.rows.Rows, int(k)) >= 0 {
				return -1
			}
			return 1
		})
		lo, hi = lo+a, lo+a+z
	}
	pos := hi
	if t.rk.newerFirst {
		pos = lo
	}
	if t.rk.fn == Rank {
		return pos, int64(lo)+1 <= t.rk.n
	}
	return pos, int64(pos) < t.rk.n
}

// setBound sets p's bound (topSlot) after its list changed (words: its
// order words).
func (t *TopN) setBound(p *topPart, words []uint64) {
	bound := notFull
	if t.wordCol >= 0 && p.nulls == 0 && p.cnt > 0 && int64(p.cnt) >= t.rk.n {
		bound = words[len(words)-1]
	}
	if p.slot >= 0 {
		t.slots[p.slot].bound = bound
	} else {
		t.nullBound = bound
	}
}

// insert adds row i of b to partition id (p) at pos and emits the changes.
func (t *TopN) insert(ctx context.Context, id int32, p *topPart, b *vector.Batch, i, pos int) error {
	list := t.list(id, p)
	if int64(len(list)) == t.rk.n && t.rk.fn == RowNumber && !t.spec.RankNumber {
		return t.replace(ctx, id, p, list, b, i, pos)
	}
	if t.spec.RankNumber {
		t.old = append(t.old[:0], list...)
		t.oldR = t.rk.ranks(t.old, t.rows.Rows, t.oldR)
	}
	k, n := t.rows.add(b, i)
	if err := t.acct.Grow(n + 12); err != nil {
		return err
	}
	list = insertShort(list, pos, int32(k))
	var words []uint64
	if t.wordCol >= 0 {
		words = insertShort(t.wordsOf(id, p), pos, t.words[i])
		if !t.wok[i] {
			p.nulls++
		}
	}
	t.setList(id, p, list, words)
	keep := len(list)
	if t.rk.fn == RowNumber {
		keep = min(keep, int(t.rk.n))
	}
	if t.spec.RankNumber || t.rk.fn != RowNumber {
		t.newR = t.rk.ranks(list, t.rows.Rows, t.newR)
		keep = t.rk.cut(t.newR)
		t.newR = t.newR[:keep]
	}
	dropped := list[keep:]
	switch {
	case t.dedupLast && len(dropped) == 1: // (Flink's deduplication: an update)
		if err := t.emit(ctx, dropped[0], 0, vector.UpdateBefore); err != nil {
			return err
		}
		if err := t.emitIn(ctx, b, i, vector.UpdateAfter); err != nil {
			return err
		}
	case !t.spec.RankNumber:
		for _, d := range dropped {
			if err := t.emit(ctx, d, 0, vector.Delete); err != nil {
				return err
			}
		}
		if err := t.emitIn(ctx, b, i, vector.Insert); err != nil {
			return err
		}
	default:
		for j := 0; j < max(len(t.old), keep); j++ {
			switch {
			case j >= keep:
				if err := t.emit(ctx, t.old[j], t.oldR[j], vector.Delete); err != nil {
					return err
				}
			case j >= len(t.old):
				if err := t.emit(ctx, list[j], t.newR[j], vector.Insert); err != nil {
					return err
				}
			case t.old[j] != list[j] || t.oldR[j] != t.newR[j]:
				if err := t.emit(ctx, t.old[j], t.oldR[j], vector.UpdateBefore); err != nil {
					return err
				}
				if err := t.emit(ctx, list[j], t.newR[j], vector.UpdateAfter); err != nil {
					return err
				}
			}
		}
	}
	for _, d := range dropped {
		if t.wordCol >= 0 && t.rows.Null(int(d), t.wordCol) {
			p.nulls--
		}
		t.release(d)
	}
	list = list[:keep]
	if t.wordCol >= 0 {
		words = words[:keep]
	}
	t.setList(id, p, list, words)
	t.setBound(p, words)
	return nil
}

// replace is insert for a full partition of ROW_NUMBER without the rank
// column, where the row at pos pushes the last one out: the last row is
// emitted (-D, or -U for deduplication), then the new one (+I, +U), and
// the new row is written over the last one's slot in the store, which
// moves to pos (list and its words shift by one): no slot is released
// and taken again.
func (t *TopN) replace(ctx context.Context, id int32, p *topPart, list []int32, b *vector.Batch, i, pos int) error {
	n := len(list)
	last := list[n-1]
	gone, come := vector.Delete, vector.Insert
	if t.dedupLast {
		gone, come = vector.UpdateBefore, vector.UpdateAfter // (Flink's deduplication: an update)
	}
	if err := t.emit(ctx, last, 0, gone); err != nil {
		return err
	}
	if err := t.emitIn(ctx, b, i, come); err != nil {
		return err
	}
	if t.wordCol >= 0 {
		if t.rows.Null(int(last), t.wordCol) {
			p.nulls--
		}
		if !t.wok[i] {
			p.nulls++
		}
	}
	before := t.rows.rowBytes(int(last))
	after := t.rows.Set(int(last), b, i)
	for j := n - 1; j > pos; j-- {
		list[j] = list[j-1]
	}
	list[pos] = last
	var words []uint64
	if t.wordCol >= 0 {
		words = t.wordsOf(id, p)
		for j := n - 1; j > pos; j-- {
			words[j] = words[j-1]
		}
		words[pos] = t.words[i]
	}
	t.setBound(p, words)
	return t.acct.Grow(after - before)
}

// insertShort is slices.Insert of one value, written out for a partition's
// short list (no call to copy memory).
func insertShort[T int32 | uint64](s []T, pos int, x T) []T {
	if len(s) == cap(s) {
		return slices.Insert(s, pos, x)
	}
	s = s[:len(s)+1]
	for j := len(s) - 1; j > pos; j-- {
		s[j] = s[j-1]
	}
	s[pos] = x
	return s
}

// emit writes stored row k, with rank r when the output has the rank
// column, as a change of kind.
func (t *TopN) emit(ctx context.Context, k int32, r int64, kind vector.RowKind) error {
	if t.quiet {
		return nil
	}
	t.ob.addRanked(t.rows.Rows, int(k), kind, t.rankCol(), r)
	return t.ob.full(ctx, t.out)
}

// emitIn writes row i of the input batch b (the row just stored, without
// the rank column: its columns are the output's, and in b they are still in
// the cache) as a change of kind.
func (t *TopN) emitIn(ctx context.Context, b *vector.Batch, i int, kind vector.RowKind) error {
	if t.quiet {
		return nil
	}
	t.ob.addIn(b, i, kind)
	return t.ob.full(ctx, t.out)
}

// rankCol is the output's rank column, -1 when it has none.
func (t *TopN) rankCol() int {
	if t.spec.RankNumber {
		return len(t.spec.Types)
	}
	return -1
}

// release frees stored row k (no partition holds it any more).
func (t *TopN) release(k int32) {
	_ = t.acct.Grow(-t.rows.release(k) - 12)
}

// forget drops partition id without a change (its rows leave the result
// unretracted, as Flink's state TTL forgets): its rows are released, and
// keepOrder takes it out of the order and the index.
func (t *TopN) forget(id int32) {
	p := t.part(id)
	for _, k := range t.list(id, p) {
		t.release(k)
	}
	p.gone = true
	t.nparts--
	_ = t.acct.Grow(-t.keyLen(id) - topPartBytes - int64(t.stride)*12)
}

// expire drops the partitions untouched for the TTL (at most once per half
// TTL); their rows leave the result without a change (Flink's state TTL:
// expired state is forgotten, not retracted).
func (t *TopN) expire(now int64) error {
	if now-t.swept < t.spec.TTL/2 {
		return nil
	}
	t.swept = now
	for _, id := range t.order {
		if now-t.touched[id>>partBits][id&partMask] >= t.spec.TTL {
			t.forget(id)
		}
	}
	t.keepOrder()
	return nil
}

// keepOrder takes the partitions forgotten out of t.order and the index,
// and keeps their ids for reuse (newPart); the keys of the partitions
// kept move to the start of their arena (the forgotten ones' are let go).
func (t *TopN) keepOrder() {
	kept := t.order[:0]
	for _, id := range t.order {
		if t.part(id).gone {
			t.free = append(t.free, id)
			continue
		}
		kept = append(kept, id)
	}
	if len(kept) == len(t.order) {
		return
	}
	t.order = kept
	if t.nullPart >= 0 && t.part(t.nullPart).gone {
		t.nullPart = -1
	}
	live := t.relist[:0] // (the partitions kept in the index, with their words)
	for _, s := range t.slots {
		if s.p != 0 && !t.part(s.p-1).gone {
			live = append(live, s)
		}
	}
	clear(t.slots)
	t.used = 0
	if t.intKey < 0 && !t.intsKey {
		keys := t.keys
		t.keys = rowCol{}
		for _, id := range kept {
			k := t.keyOf(id)
			k.key, _ = t.keys.add(keys.at(k.key, k.len))
		}
	}
	for _, s := range live {
		t.put(s.p-1, s.w, s.bound)
	}
	t.relist = live[:0]
}

// DropWhere forgets, without a change, every partition whose first row's
// input position (vector.Batch.Pos when it came; 0 without one) satisfies
// drop, as the state TTL forgets (expire). The executor's replay of a Kafka
// group source (executor/replay.go) drops the partitions of a Kafka
// partition that left the process or is read again: each Top-N partition
// holds rows of one Kafka partition only when the topic is partitioned by
// the PARTITION BY key (SPEC 2.5).
func (t *TopN) DropWhere(drop func(pos int64) bool) {
	for _, id := range t.order {
		if drop(t.posOf(id)) {
			t.forget(id)
		}
	}
	t.keepOrder()
}

// Final emits the result as it stands, as inserts: each partition's rows by
// rank (with the rank column when the output has it), partitions in the
// order of their first rows. It is the materialized result of the changelog
// emitted so far (SPEC 2.8: a bounded input's final table), and ends Quiet.
func (t *TopN) Final(ctx context.Context) error {
	t.quiet = false
	if err := t.ob.flush(ctx, t.out); err != nil {
		return err
	}
	if t.spec.PosOrder && t.ppos != nil {
		slices.SortStableFunc(t.order, func(a, b int32) int { return cmp.Compare(t.posOf(a), t.posOf(b)) })
	}
	for _, id := range t.order {
		list := t.list(id, t.part(id))
		t.newR = t.rk.ranks(list, t.rows.Rows, t.newR)
		for j, k := range list {
			if t.fill != nil {
				t.ob.addRanked(t.rows.Rows, int(k), vector.Insert, t.rankCol(), t.newR[j])
				t.fill(t.ob.b, t.ob.b.N-1, t.posOf(id))
				if err := t.ob.full(ctx, t.out); err != nil {
					return err
				}
				continue
			}
			if err := t.emit(ctx, k, t.newR[j], vector.Insert); err != nil {
				return err
			}
		}
	}
	return t.ob.flush(ctx, t.out)
}

// Watermark implements Operator: the Top-N has no time of its own; the
// watermark passes on.
func (t *TopN) Watermark(ctx context.Context, _ int, wm int64) error {
	return t.ob.passWatermark(ctx, t.out, wm)
}

// Finish implements Operator: what is gathered is emitted.
func (t *TopN) Finish(ctx context.Context, _ int) error { return t.ob.flush(ctx, t.out) }

// Partitions returns the number of partitions held (EXPLAIN ANALYZE, tests).
func (t *TopN) Partitions() int { return t.nparts }
