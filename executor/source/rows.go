package source

import (
	"sort"

	"streamql/executor/records"
	"streamql/executor/vector"
)

// The rows a source's wrapper takes out of a batch it read (a computed
// event time that is NULL here; a row too far in the future, the
// executor's maxfuture.go), replaced by malformed rows at their places.

// DropRows takes the rows of b not in keep (ascending indexes) out of it,
// moving the kept ones down in place, and merges drops (malformed rows in
// place of the dropped rows dropAt, their Index counted in kept rows) with
// the connector's own malformed rows of the batch, (*bad)[before:], in the
// order they stood in.
// It appends to at, per merged row from before on, -1 for a connector's row
// and the drop's number otherwise, and returns it.
func DropRows(b *vector.Batch, bad *[]records.BadRow, before int, keep []int32, drops []records.BadRow, dropAt []int, at []int) []int {
	own := append([]records.BadRow(nil), (*bad)[before:]...)
	orig := make([]int, len(own)) // the good rows before each, in b as it came
	for k := range own {
		orig[k] = own[k].Index
		// an own bad row after good row j now stands after the kept rows below j
		j := own[k].Index
		own[k].Index = sort.Search(len(keep), func(n int) bool { return int(keep[n]) >= j })
	}
	merged := (*bad)[:before]
	a, d := 0, 0
	for a < len(own) || d < len(drops) {
		if d == len(drops) || a < len(own) && orig[a] <= dropAt[d] {
			merged = append(merged, own[a])
			at = append(at, -1)
			a++
		} else {
			merged = append(merged, drops[d])
			at = append(at, d)
			d++
		}
	}
	*bad = merged
	for n, i := range keep {
		if int(i) != n {
			moveRow(b, n, int(i))
		}
	}
	b.N = len(keep)
	return at
}

// moveRow copies row from of b onto row to (to < from).
func moveRow(b *vector.Batch, to, from int) {
	for _, v := range b.Cols {
		v.Null[to] = v.Null[from]
		switch {
		case v.I != nil:
			v.I[to] = v.I[from]
		case v.F != nil:
			v.F[to] = v.F[from]
		case v.B != nil:
			v.B[to] = v.B[from]
		case v.S != nil:
			v.S[to] = v.S[from]
		}
		if v.Text != nil {
			v.Text[to] = v.Text[from]
		}
	}
	if b.Pos != nil {
		b.Pos[to] = b.Pos[from]
	}
	if b.Line != nil {
		b.Line[to] = b.Line[from]
	}
	if b.Kinds != nil {
		b.Kinds[to] = b.Kinds[from]
	}
}
