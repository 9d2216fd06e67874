package executor

import (
	"testing"

	"streamql/executor/connector"
)

// fakeCheckpoint holds the frontiers it is given, and notes what it was
// told to drop.
type fakeCheckpoint struct {
	fronts  map[int32]Frontier
	dropped []int32
}

func (f *fakeCheckpoint) Frontiers(dst map[int32]Frontier) {
	for p, x := range f.fronts {
		dst[p] = x
	}
}

func (f *fakeCheckpoint) Drop(p int32) {
	f.dropped = append(f.dropped, p)
	delete(f.fronts, p)
}

// TestReplayOverCheckpoints checks that the replay commits, per partition,
// the smallest hold frontier of its Checkpoints with that operator's
// watermark (when the operator keeps no time, the lowest one known: p's
// now, or a later row's), the smallest
// emitted frontier of those that hold rows back, and that Revoke and Assign
// drop the partition in every Checkpoint.
func TestReplayOverCheckpoints(t *testing.T) {
	for order := range 2 {
		pw := &partWatermarks{}
		pw.seed(0, 500, true)
		pw.seed(1, 700, true)
		timed := &fakeCheckpoint{fronts: map[int32]Frontier{0: {Off: 40, Timed: true, WM: 100, WMSet: true}, 1: {Off: 9, Timed: true}}}
		untimed := &fakeCheckpoint{fronts: map[int32]Frontier{0: {Off: 30}, 1: {Off: 12, Emitted: true}}}
		r := &replay{pw: pw, dirty: true}
		if order == 0 { // (the order of the Checkpoints does not matter)
			r.add(untimed)
			r.add(timed)
		} else {
			r.add(timed)
			r.add(untimed)
		}
		var _ connector.Replay = r
		cases := []struct {
			p          int32
			used       int64
			off, wm, e int64
			wmSet      bool
		}{
			{p: 0, used: 50, off: 30, wm: 100, wmSet: true, e: 50}, // the untimed one's row is first: the lowest watermark known before it; none held back
			{p: 0, used: 20, off: 20, wm: 500, wmSet: true, e: 20}, // nothing held below used
			{p: 1, used: 50, off: 9, wm: 0, wmSet: false, e: 12},   // the timed one's row, whose partition had no watermark yet
			{p: 2, used: 5, off: 5, e: 5},                          // a partition no operator holds
		}
		for _, c := range cases {
			off, wm, set := r.Hold(c.p, c.used)
			if off != c.off || wm != c.wm || set != c.wmSet {
				t.Errorf("Hold(%d, %d) = %d, %d, %v; want %d, %d, %v", c.p, c.used, off, wm, set, c.off, c.wm, c.wmSet)
			}
			if e := r.Emitted(c.p, c.used); e != c.e {
				t.Errorf("Emitted(%d, %d) = %d; want %d", c.p, c.used, e, c.e)
			}
		}
		r.Revoke(0)
		r.Assign(1, 3, connector.ReplayMark{}, false)
		for _, cp := range []*fakeCheckpoint{timed, untimed} {
			if len(cp.dropped) != 2 || cp.dropped[0] != 0 || cp.dropped[1] != 1 {
				t.Errorf("a Checkpoint was told to drop %v; want [0 1]", cp.dropped)
			}
		}
		if off, _, _ := r.Hold(1, 50); off != 50 {
			t.Errorf("after the drops Hold(1, 50) = %d; want 50", off)
		}
	}
}
