package executor

import (
	"strings"
	"testing"
	"time"
)

// TestJoinInputsApartStop (issue 23 item 6; joinapart.go): when partition
// 1 comes to one input of a join of two Kafka streams in a consumer group
// and never to the other (a member of another version made the group fall
// back to 'cooperative-sticky', which gives each topic's partitions out
// independently), the job stops, once the inputs have held different
// partitions for longer than joinApartLimit, with an error naming the
// group and what to do, instead of waiting forever; when the other input
// gets it a few calls later (kafka's CoPartitionBalancer: the two members'
// callbacks come at different moments), the job runs on to its end. The
// clock moves 10 s at every reading (joinApartClock).
func TestJoinInputsApartStop(t *testing.T) {
	clock := time.Now()
	joinApartClock = func() time.Time { clock = clock.Add(10 * time.Second); return clock }
	t.Cleanup(func() { joinApartClock = time.Now })
	const q = "SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND"
	stopped, ran := 0, 0
	for seed := int64(1); seed <= 20; seed++ {
		for _, both := range []bool{false, true} {
			_, g, rng := jaSeed(t, q, seed)
			at := 2 + rng.Intn(10)
			moves := []jaMove{{at: at, s: int(seed % 2), p: 1, assign: true}}
			if both {
				moves = append(moves, jaMove{at: at + 2, s: 1 - int(seed%2), p: 1, assign: true})
			}
			g.stops = true
			g.jaRunMoves(q, 300, false, []int32{0}, moves) // (killed after 300 calls unless it stops)
			switch {
			case g.moved == 0:
				continue // (the run ended before the move)
			case both && g.err != nil:
				t.Fatalf("seed %d: partition 1 came to both inputs two calls apart: the job stopped: %v", seed, g.err)
			case both:
				ran++
			case g.err == nil:
				t.Fatalf("seed %d: partition 1 came to input %d alone: the job ran to its end, want it stopped\nlog:\n%s", seed, seed%2, strings.Join(g.log, "\n"))
			default:
				for _, want := range []string{"different partitions", "consumer group 'g'", "cooperative-sticky", "stop the group's processes"} {
					if !strings.Contains(g.err.Error(), want) {
						t.Fatalf("seed %d: error %q lacks %q", seed, g.err, want)
					}
				}
				stopped++
			}
		}
	}
	if stopped == 0 || ran == 0 {
		t.Fatalf("%d runs stopped, %d ran on: the test checks nothing", stopped, ran)
	}
}
