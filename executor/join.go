package executor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// keySet is the state of a hash join's build side (SPEC 2.2: the build side
// keeps distinct keys only, not rows): each key with the earliest event time of a
// build row that had it (0 for a bounded build side, whose time does not count),
// whether any build key was NULL, and how many build rows counted (for NOT IN's
// empty-subquery rule). For an unbounded build side it also keeps the build
// stream's watermark; a reader goroutine updates it under mu while the job probes.
type keySet struct {
	mu      sync.Mutex
	keys    map[string]int64
	hasNull bool
	rows    int64
	// event-time strategy only
	wm      int64 // the build watermark, valid when wmSet
	wmSet   bool
	ended   bool           // the build stream ended: its watermark is +inf
	live    *liveWatermark // nil without a live status
	filter  []bool
	vecs    []*vector.Vec
	key     []byte
	pending []ErrorRow // malformed build rows waiting for the job's goroutine
	// the build side's compiled expressions
	buildFilter, buildWM *expr.Kernel
	buildKeys            []*expr.Kernel
	// acct charges the distinct keys to the job's 'state.max-bytes' (SPEC 1);
	// grown is what absorb added since its last charge
	acct  *StateAccount
	grown int64
	// stats are the counters of the build side's operator (buildJoinBuild)
	stats *OpStats
}

// keyOverhead is the bytes a distinct key costs besides its own bytes: the map
// entry's string header, event time and the map's per-entry overhead (an
// estimate, for 'state.max-bytes').
const keyOverhead = 48

// newKeySet returns the empty state of j's build side, charging acct (nil: no
// limit) for its keys, its expressions compiled in the job's expression
// context exprs.
func newKeySet(j *plan.Join, acct *StateAccount, exprs *expr.Context) *keySet {
	return &keySet{keys: map[string]int64{}, filter: make([]bool, vector.Cap), vecs: make([]*vector.Vec, len(j.BuildKeys)), acct: acct,
		buildFilter: exprs.Compile(j.BuildFilter), buildWM: exprs.Compile(j.BuildWatermark), buildKeys: exprs.CompileAll(j.BuildKeys)}
}

// joinName names j's operator in messages, as EXPLAIN does.
func joinName(j *plan.Join) string {
	mode := "semi"
	if j.Mode == plan.Anti {
		mode = "anti"
	}
	return fmt.Sprintf("the %s join %s", mode, j.Text)
}

// absorb adds the build rows sel of b to the state. With the event-time strategy
// each row is checked against the build watermark before it (a late row never
// enters the state) and then advances the watermark (SPEC 2.2, 2.3). The caller
// holds mu when a mark operator (markJoin) may run concurrently. It returns a *StateLimitError
// when the new keys take the job's state past 'state.max-bytes'.
func (ks *keySet) absorb(j *plan.Join, b *vector.Batch, sel []int32) error {
	for _, i := range sel {
		ks.filter[i] = true
	}
	if ks.buildFilter != nil {
		w := ks.buildFilter.Eval(b, sel)
		for _, i := range sel {
			ks.filter[i] = w.B[i] && !w.Null[i]
		}
	}
	for k, e := range ks.buildKeys {
		ks.vecs[k] = e.Eval(b, sel)
	}
	var wmv *vector.Vec
	if j.EventTime() {
		wmv = ks.buildWM.Eval(b, sel)
	}
	for _, i := range sel {
		if ks.filter[i] {
			ks.insert(j, b, int(i))
		}
		if wmv != nil && !wmv.Null[i] && (!ks.wmSet || wmv.I[i] > ks.wm) {
			ks.wm, ks.wmSet = wmv.I[i], true
		}
	}
	ks.live.store(ks.wm, ks.wmSet) // once per batch
	grown := ks.grown
	ks.grown = 0
	return ks.acct.Grow(grown)
}

func (ks *keySet) insert(j *plan.Join, b *vector.Batch, i int) {
	var t int64
	if j.EventTime() {
		t = b.Cols[j.BuildTime].I[i]
		if ks.wmSet && t < ks.wm {
			return // a late build row (SPEC 2.2)
		}
	}
	ks.rows++
	var ok, null bool
	ks.key, ok, null = appendKey(ks.key[:0], j.KeyTypes, ks.vecs, i)
	if null {
		ks.hasNull = true
	}
	if !ok {
		return // (a NaN key matches nothing, but is no NULL: NOT IN still decides)
	}
	old, dup := ks.keys[string(ks.key)]
	if !dup {
		ks.grown += int64(len(ks.key)) + keyOverhead
	}
	if !dup || t < old {
		ks.keys[string(ks.key)] = t
	}
}

// appendKey encodes the key of row i into dst; ok is false when a key part is
// NULL or NaN, which never matches (SPEC 2.2, SPEC 2: NaN equals nothing), and
// null says a part is NULL. The two differ for NOT IN's three-valued rule
// (SPEC 2.2): x = NaN is false, not NULL, so a NaN takes no part in it.
func appendKey(dst []byte, types []catalog.Type, vecs []*vector.Vec, i int) (key []byte, ok, null bool) {
	ok = true
	for k, v := range vecs {
		if v.Null[i] {
			return dst, false, true
		}
		switch types[k] {
		case catalog.BigInt, catalog.Timestamp:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v.I[i]))
		case catalog.Double:
			f := v.F[i]
			if math.IsNaN(f) {
				ok = false // (the parts after it may still be NULL)
				continue
			}
			if f == 0 {
				f = 0 // -0 = 0
			}
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
		case catalog.Boolean:
			if v.B[i] {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
		case catalog.Varchar:
			dst = binary.AppendUvarint(dst, uint64(len(v.S[i])))
			dst = append(dst, v.S[i]...)
		}
	}
	return dst, ok, false
}

// readBuild reads the build side of j until it ends, pushing its rows into the
// join's build operator (build.go), which absorbs them into ks, at port.
// Malformed build rows follow the build stream's errors policy; with 'side' they
// are handed to emit (which may only queue them when called off the job's
// goroutine). locked makes each batch's update hold ks.mu (a concurrent reader).
func readBuild(ctx context.Context, j *plan.Join, port Port, src Source, ks *keySet, es *StreamErrors, emit func([]ErrorRow) error, locked bool, progress func()) error {
	st := j.Build
	op := buildJoinBuild(j, ks, locked)
	b := vector.NewBatch(j.BuildTypes)
	var bad []BadRow
	var errRows []ErrorRow
	step := newStep("")
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		bad = bad[:0]
		err := src.Next(b, &bad)
		if err == io.EOF {
			if err := op.Finish(ctx); err != nil {
				return err
			}
			progress()
			return nil
		}
		if errors.Is(err, ErrWaiting) {
			continue
		}
		if err != nil {
			return err
		}
		n := b.N
		if len(bad) > 0 {
			errRows = errRows[:0]
			es.Malformed += countBad(es.Policy, len(bad))
			if n, err = handleBad(st, src, bad, b.N, es.Policy, &errRows); err != nil {
				return err
			}
			if len(errRows) > 0 {
				if err := emit(errRows); err != nil {
					return err
				}
			}
		}
		step.SelectRows(b, 0, n)
		if err := op.Push(ctx, port, step); err != nil {
			return err
		}
		progress()
	}
}
