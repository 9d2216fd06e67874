package executor

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner"
)

// keySet is the state of a hash join's build side: its distinct keys (SPEC 2.2:
// the build side keeps keys only, not rows), whether any build key was NULL, and
// how many build rows counted (for NOT IN's empty-subquery rule).
type keySet struct {
	keys    map[string]struct{}
	hasNull bool
	rows    int64
}

// appendKey encodes the key of row i into dst; ok is false when a key part is
// NULL or NaN, which never matches (SPEC 2.2, SPEC 2: NaN equals nothing).
func appendKey(dst []byte, types []catalog.Type, vecs []*vector.Vec, i int) ([]byte, bool) {
	for k, v := range vecs {
		if v.Null[i] {
			return dst, false
		}
		switch types[k] {
		case catalog.BigInt, catalog.Timestamp:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v.I[i]))
		case catalog.Double:
			f := v.F[i]
			if math.IsNaN(f) {
				return dst, false
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
	return dst, true
}

// buildKeys reads the bounded build side of j whole (SPEC 2.2) into a keySet.
// Malformed build rows follow the build stream's errors policy.
func buildKeys(ctx context.Context, j *planner.Join, src Source, sink Sink, stats *Stats) (*keySet, error) {
	st := j.Build
	b := vector.NewBatch(j.BuildTypes)
	ks := &keySet{keys: map[string]struct{}{}}
	var bad []BadRow
	sel := make([]int32, 0, vector.Cap)
	vecs := make([]*vector.Vec, len(j.BuildKeys))
	var key []byte
	var errRows []ErrorRow
	es := stats.stream(st)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bad = bad[:0]
		err := src.Next(b, &bad)
		if err == io.EOF {
			return ks, nil
		}
		if errors.Is(err, ErrWaiting) {
			continue
		}
		if err != nil {
			return nil, err
		}
		n := b.N
		if len(bad) > 0 {
			errRows = errRows[:0]
			if n, err = handleBad(st, src, bad, b.N, es, &errRows); err != nil {
				return nil, err
			}
			if err := sink.Errors(es.Side, errRows); err != nil {
				return nil, err
			}
		}
		sel = sel[:0]
		for i := 0; i < n; i++ {
			sel = append(sel, int32(i))
		}
		if j.BuildFilter != nil {
			w := j.BuildFilter.Eval(b, sel)
			kept := sel[:0]
			for _, i := range sel {
				if w.B[i] && !w.Null[i] {
					kept = append(kept, i)
				}
			}
			sel = kept
		}
		for k, e := range j.BuildKeys {
			vecs[k] = e.Eval(b, sel)
		}
		for _, i := range sel {
			ks.rows++
			var ok bool
			key, ok = appendKey(key[:0], j.KeyTypes, vecs, int(i))
			if !ok {
				ks.hasNull = true
				continue
			}
			if _, dup := ks.keys[string(key)]; !dup {
				ks.keys[string(key)] = struct{}{}
			}
		}
	}
}

// prober evaluates one branch's join for the rows of a probe batch.
type prober struct {
	j    *planner.Join
	ks   *keySet
	vecs []*vector.Vec
	key  []byte
	pass []bool
}

func newProber(j *planner.Join, ks *keySet) *prober {
	return &prober{j: j, ks: ks, vecs: make([]*vector.Vec, len(j.ProbeKeys)), pass: make([]bool, vector.Cap)}
}

// probe sets pass[i] for each row i in sel: whether the join lets the row through
// (SPEC 2.2: SEMI keeps matches, ANTI keeps the rest; NULL keys never match; NOT IN
// keeps SQL's three-valued rule).
func (p *prober) probe(b *vector.Batch, sel []int32) []bool {
	for k, e := range p.j.ProbeKeys {
		p.vecs[k] = e.Eval(b, sel)
	}
	var pf *vector.Vec
	if p.j.ProbeFilter != nil {
		pf = p.j.ProbeFilter.Eval(b, sel)
	}
	for _, i := range sel {
		var ok, match bool
		p.key, ok = appendKey(p.key[:0], p.j.KeyTypes, p.vecs, int(i))
		if ok {
			_, match = p.ks.keys[string(p.key)]
		}
		cond := pf == nil || (pf.B[i] && !pf.Null[i])
		switch {
		case p.j.Mode == planner.Semi:
			p.pass[i] = cond && match
		case p.j.NullAware && p.ks.rows == 0:
			p.pass[i] = true
		case p.j.NullAware:
			p.pass[i] = !(cond && match) && ok && !p.ks.hasNull
		default:
			p.pass[i] = !(cond && match)
		}
	}
	return p.pass
}
