package kafka

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/executor/connector"
)

// assignsReplay is a Replay that notes the assignments it is told of, and
// holds every partition's first row (offset 0, no watermark: an
// aggregate after a join), with Emitted at the rows used and Fired at
// fired.
type assignsReplay struct {
	fired   int64
	assigns []string
}

func (r *assignsReplay) Hold(p int32, used int64) (int64, int64, bool) { return 0, 0, false }
func (r *assignsReplay) Emitted(p int32, used int64) int64             { return used }
func (r *assignsReplay) Fired(p int32) (int64, bool)                   { return r.fired, true }
func (r *assignsReplay) Assign(p int32, from int64, m connector.ReplayMark, ok bool) {
	r.assigns = append(r.assigns, fmt.Sprintf("p%d from %d e=%d f=%d %v", p, from, m.Emitted, m.Fired, ok))
}
func (r *assignsReplay) Revoke(int32)                {}
func (r *assignsReplay) Torn() bool                  { return false }
func (r *assignsReplay) Windows(int32) (int64, bool) { return 0, false }

// TestKafkaAbortRewindsEveryGroupSource (issue 23 item 6): a transaction
// aborted because the group moved on (errRebalanced) rewinds every group
// source of the job to its last commit, also one whose offsets it did not
// carry (nothing moved since that source's last commit: a join's input
// the join did not read meanwhile), and each source's Replay hears of it
// before any source gives another row (kafka.go's rewindAborted). Before,
// only the sources with offsets in the transaction rewound: the orders of
// an interval join were read again from the first row while the payments
// kept in the join's state only the rows not yet let go, so the pairs of
// the others were lost and the aggregate after the join counted its keys
// again from 1 (TestKafkaJoinAggregateScalesOutCrashesExactlyOnce, CI on
// 6b039f5). A source that reached its end, polled no more, is rewound only
// when the transaction carried its offsets.
func TestKafkaAbortRewindsEveryGroupSource(t *testing.T) {
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1")) // (no consumer: SetOffsets changes nothing of it)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	j := &kafkaJob{}
	mark := func(e, f int64) connector.ReplayMark {
		return connector.ReplayMark{Emitted: e, Fired: f, FiredSet: true}
	}
	source := func(topic string, used, e, f int64, ended bool) (*kafkaSource, *assignsReplay) {
		r := &assignsReplay{fired: f}
		s := &kafkaSource{group: "g", topic: topic, job: j, cl: cl, replay: r, ended: ended,
			assigned: map[int32]bool{0: true, 1: true}, used: map[int32]int64{0: used, 1: used}, next: map[int32]int64{0: used, 1: used},
			committed: map[int32]int64{0: 0, 1: 0}, marks: map[int32]connector.ReplayMark{0: mark(e, f), 1: mark(e, f)},
			given: map[int32]int64{}, doneParts: map[int32]bool{}}
		j.sources = append(j.sources, s)
		return s, r
	}
	orders, ro := source("orders", 1300, 1200, 46_960, false)     // read on since its commit
	payments, rp := source("payments", 1200, 1200, 46_960, false) // nothing moved since its commit
	ended, re := source("ended", 900, 900, 46_960, true)          // reached its end, polled no more
	var with []groupOffsets
	for _, s := range j.sources {
		if offs, torn := s.toCommit(); torn {
			t.Fatalf("%s: torn", s.topic)
		} else if len(offs) > 0 {
			with = append(with, groupOffsets{s, offs})
		}
	}
	if len(with) != 1 || with[0].src != orders {
		t.Fatalf("the sources with offsets to commit: %d, want orders alone (the case rewound short before)", len(with))
	}
	rewindAborted(j.sources, with)
	want := []string{"p0 from 0 e=1200 f=46960 true", "p1 from 0 e=1200 f=46960 true"}
	for _, c := range []struct {
		s  *kafkaSource
		r  *assignsReplay
		ok bool
	}{{orders, ro, true}, {payments, rp, true}, {ended, re, false}} {
		got := slices.Clone(c.r.assigns)
		slices.Sort(got)
		if !c.ok {
			if len(got) != 0 || c.s.used[0] != 900 {
				t.Errorf("%s (ended, not in the transaction) was rewound: %q, used %v", c.s.topic, got, c.s.used)
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: its Replay was told %q right after the abort, want %q (read again from its commit)", c.s.topic, got, want)
		}
		if c.s.used[0] != 0 || c.s.next[1] != 0 {
			t.Errorf("%s: used %v, next %v after the abort, want both partitions back at offset 0", c.s.topic, c.s.used, c.s.next)
		}
	}
}
