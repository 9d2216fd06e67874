package op

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// bytesCheck is a Join that, after each call, checks its Account against
// the bytes of the rows its state still holds, counted again from the
// stored rows (Rows.rowBytes), not from what the join kept of them when
// they came (joinSide.size).
type bytesCheck struct {
	*Join
	t    *testing.T
	name string
	acct *countingAccount
}

func (c *bytesCheck) check(call string) {
	c.t.Helper()
	want := int64(0)
	for s := range 2 {
		sd := &c.side[s]
		for k := range sd.rows.Len() {
			if !sd.dead[k] {
				want += sd.rows.rowBytes(k)
			}
		}
	}
	if got := c.acct.bytes - c.freed; got != want {
		c.t.Fatalf("%s: after %s the state is charged %d bytes; its live rows take %d", c.name, call, got, want)
	}
}

func (c *bytesCheck) Push(ctx context.Context, port int, b *vector.Batch) error {
	err := c.Join.Push(ctx, port, b)
	c.check("Push")
	return err
}

func (c *bytesCheck) Watermark(ctx context.Context, port int, wm int64) error {
	err := c.Join.Watermark(ctx, port, wm)
	c.check("Watermark")
	return err
}

func (c *bytesCheck) Finish(ctx context.Context, port int) error {
	err := c.Join.Finish(ctx, port)
	c.check("Finish")
	return err
}

// TestJoinStateBytesFollowLiveRows: what a join charges to its Account
// ('state.max-bytes', SPEC 1) is, after every Push, Watermark and Finish,
// the bytes of the rows its state still holds (VARCHAR values of many
// lengths), through rows that leave as they are handled, expire, are
// retracted or go late, and through compactions (thousands of rows a
// side): interval joins of every kind, a regular join with a state TTL and
// one over an updating input; and nothing stays charged at the end.
func TestJoinStateBytesFollowLiveRows(t *testing.T) {
	types := [2][]catalog.Type{joinTypes, joinTypes}
	specs := map[string]JoinSpec{}
	for _, kind := range []JoinKind{Inner, Left, Right, Full} {
		for _, lh := range [][2]int64{{-20, 0}, {0, 0}, {5, 20}} {
			specs[fmt.Sprintf("%s interval [%d, %d]", kind, lh[0], lh[1])] = JoinSpec{Kind: kind, Types: types, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3}, Interval: true, Lo: lh[0], Hi: lh[1]}
		}
		specs[fmt.Sprintf("%s TTL", kind)] = JoinSpec{Kind: kind, Types: types, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3}, TTL: 40}
	}
	specs["INNER updating right"] = JoinSpec{Kind: Inner, Types: types, Keys: [2][]int{{0}, {0}}, Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Changes: [2]bool{false, true}}
	for seed := range 2 { // (each run is thousands of rows a side: enough to compact)
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		in := [2][]testRow{genSide(r, "l", 6000, 20), genSide(r, "right", 6000, 20)}
		d := int64(20)
		for i := range in[1] { // (values of many lengths)
			in[1][i].v += fmt.Sprint(make([]byte, r.IntN(40)))
		}
		kinds := make([]vector.RowKind, len(in[1]))
		for i := range kinds { // (for the updating input: every third row retracts the one before it)
			if i%3 == 2 {
				kinds[i], in[1][i] = vector.Delete, in[1][i-1]
			}
		}
		for name, spec := range specs {
			acct := &countingAccount{}
			j, err := NewJoin(spec, &countEmitter{}, acct)
			if err != nil {
				t.Fatal(err)
			}
			c := &bytesCheck{Join: j, t: t, name: fmt.Sprintf("seed %d %s", seed, name), acct: acct}
			var k []vector.RowKind
			if spec.Changes[1] {
				k = kinds
			}
			feed(t, c, in, k, d, rand.New(rand.NewPCG(uint64(seed), 5)))
			if acct.bytes != 0 && (spec.Interval || spec.TTL > 0) { // (a regular join without a TTL keeps every row)
				t.Errorf("%s: %d bytes still charged at the end", c.name, acct.bytes)
			}
		}
	}
}
