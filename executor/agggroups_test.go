package executor

import (
	"testing"
	"unsafe"
)

// TestGroupCellLines: a groupCell is a whole number of cache lines, and the
// fields a change of a one-call group reads (its key and accumulator slices,
// live, mini-batch's mark, had and pre, its key's value and the accumulator's count) are
// two whole lines
// (issue 24: a group's loads are the updating GROUP BY's cache misses).
func TestGroupCellLines(t *testing.T) {
	var c groupCell
	if n := unsafe.Sizeof(c); n%64 != 0 {
		t.Fatalf("groupCell is %d bytes, not a whole number of 64-byte lines", n)
	}
	from := unsafe.Offsetof(c.g) + unsafe.Offsetof(c.g.vals)
	to := unsafe.Offsetof(c.st) + 8 // the count, State's first word
	if from%64 != 0 || to-from > 128 {
		t.Fatalf("the hot fields span bytes %d to %d of a cell: more than two lines", from, to)
	}
	for _, off := range []uintptr{unsafe.Offsetof(c.g.states), unsafe.Offsetof(c.g.live), unsafe.Offsetof(c.g.mark), unsafe.Offsetof(c.g.had), unsafe.Offsetof(c.g.pre), unsafe.Offsetof(c.g.val0)} {
		if off < unsafe.Offsetof(c.g.vals) || off >= to {
			t.Fatalf("a hot field at %d is outside bytes %d to %d", off, from, to)
		}
	}
}
