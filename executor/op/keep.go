package op

import (
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// keepWith returns keep (nil: every column) with the columns cols and the
// columns more (-1: none) marked too, in a new slice: a join's key, time
// and stamp columns are held whatever JoinSpec.Keep says.
func keepWith(keep []bool, cols []int, more ...int) []bool {
	if keep == nil {
		return nil
	}
	out := slices.Clone(keep)
	for _, c := range append(slices.Clone(cols), more...) {
		if c >= 0 && c < len(out) {
			out[c] = true
		}
	}
	return out
}

// stateKeep returns the columns of input s the join's state holds (nil:
// every one): Keep with the key, time and stamp columns, but the stamp
// when DropStamp says no one reads it back.
func (spec *JoinSpec) stateKeep(s int) []bool {
	sc := spec.Stamp[s]
	if !spec.DropStamp[s] || sc < 0 || sc >= len(spec.Types[s]) || sc == spec.Time[s] || slices.Contains(spec.Keys[s], sc) {
		return keepWith(spec.Keep[s], spec.Keys[s], spec.Time[s], spec.Stamp[s])
	}
	keep := spec.Keep[s]
	if keep == nil {
		keep = make([]bool, len(spec.Types[s]))
		for c := range keep {
			keep[c] = true
		}
	}
	keep = keepWith(keep, spec.Keys[s], spec.Time[s])
	keep[sc] = false
	return keep
}

// keptTypes returns the layout a Rows holding only the columns keep marks
// (nil: all) has: types, with catalog.Unknown, a column of NULLs that takes
// a NULL flag a row, for each other column (CopyTo writes them NULL).
func keptTypes(types []catalog.Type, keep []bool) []catalog.Type {
	if keep == nil {
		return types
	}
	out := slices.Clone(types)
	for c := range out {
		if c < len(keep) && !keep[c] {
			out[c] = catalog.Unknown
		}
	}
	return out
}

// keepView shows an input's batches as a Rows of keptTypes stores them:
// the kept columns are the batch's, the others a vector of NULLs.
type keepView struct {
	b    vector.Batch
	keep []bool
}

// newKeepView returns the view of batches of types holding the columns
// keep marks; nil (whose of returns the batch itself) when keep is nil.
func newKeepView(types []catalog.Type, keep []bool) *keepView {
	if keep == nil {
		return nil
	}
	v := &keepView{b: vector.Batch{Cols: make([]*vector.Vec, len(types))}, keep: keep}
	nulls := vector.NewVec(catalog.Unknown)
	for i := range nulls.Null {
		nulls.Null[i] = true
	}
	for c := range v.b.Cols {
		v.b.Cols[c] = nulls
	}
	return v
}

// of returns b as the store keeps it (b itself for a nil view), valid
// until the next call; it allocates nothing.
func (v *keepView) of(b *vector.Batch) *vector.Batch {
	if v == nil {
		return b
	}
	for c, k := range v.keep {
		if k {
			v.b.Cols[c] = b.Cols[c]
		}
	}
	v.b.N, v.b.Pos, v.b.Kinds = b.N, b.Pos, b.Kinds
	return &v.b
}
