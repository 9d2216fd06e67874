package kafka

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"streamql/tests/kafkatest"
)

// cpMember is a member of a simulated group: its process, the topic it reads
// and what it owns.
type cpMember struct {
	id, process, topic string
	owned              []int32
	gen                int32
}

// cpBalance runs CoPartitionBalancer's leader side over members, as franz-go
// does (each member's JoinGroupMetadata, then MemberBalancer and Balance), and
// returns member ID => partitions of its topic.
func cpBalance(t *testing.T, members []*cpMember, topics map[string]int32) map[string][]int32 {
	t.Helper()
	var join []kmsg.JoinGroupResponseMember
	for _, m := range members {
		cur := map[string][]int32{}
		if len(m.owned) > 0 {
			cur[m.topic] = append([]int32(nil), m.owned...)
		}
		jm := kmsg.NewJoinGroupResponseMember()
		jm.MemberID = m.id
		jm.ProtocolMetadata = CoPartitionBalancer(m.process).JoinGroupMetadata([]string{m.topic}, cur, m.gen)
		join = append(join, jm)
	}
	sort.Slice(join, func(i, j int) bool { return join[i].MemberID < join[j].MemberID })
	mb, _, err := CoPartitionBalancer("leader").MemberBalancer(join)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(topics)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]int32{}
	for _, a := range res.IntoSyncAssignment() {
		got, err := CoPartitionBalancer("").ParseSyncAssignment(a.MemberAssignment)
		if err != nil {
			t.Fatal(err)
		}
		for _, parts := range got {
			out[a.MemberID] = append(out[a.MemberID], parts...)
		}
	}
	return out
}

// TestCoPartitionBalancerKeepsPartitionPairsTogether: random groups of
// processes, each with one member per topic of a join (two or three
// co-partitioned topics), join, leave and die at random; the group
// rebalances as a cooperative group does (a member keeps what the plan
// gives it, a partition another process still owns comes in the next
// round). After every round no partition is owned by two processes, and
// once the group settles every partition has an owner, partition i of
// every topic is owned by one process, the processes hold the floor or
// ceiling of partitions/processes, and a partition whose process stayed
// and was not over its share did not move.
func TestCoPartitionBalancerKeepsPartitionPairsTogether(t *testing.T) {
	for seed := int64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		ntopics := 2 + rng.Intn(2)
		nparts := int32(1 + rng.Intn(12))
		topics := map[string]int32{}
		var names []string
		for k := range ntopics {
			name := fmt.Sprintf("t%d", k)
			names = append(names, name)
			topics[name] = nparts
		}
		var members []*cpMember
		nextID := 0
		addProcess := func() {
			p := fmt.Sprintf("proc%d", nextID)
			for _, tp := range names {
				members = append(members, &cpMember{id: fmt.Sprintf("m%03d-%s", nextID, tp), process: p, topic: tp})
			}
			nextID++
		}
		for range 1 + rng.Intn(3) {
			addProcess()
		}
		gen := int32(1)
		settled := map[tpKey]string{} // the owners before the last change
		joined := ""                  // the process that joined in it
		for step := range 8 {
			// settle: rounds until nothing changes (cooperative: at most two)
			for round := 0; ; round++ {
				if round > 3 {
					t.Fatalf("seed %d step %d: the group does not settle", seed, step)
				}
				plan := cpBalance(t, members, topics)
				prior := map[tpKey]string{}
				for _, m := range members {
					for _, p := range m.owned {
						prior[tpKey{m.topic, p}] = m.process
					}
				}
				for _, m := range members {
					for _, p := range plan[m.id] {
						if o, ok := prior[tpKey{m.topic, p}]; ok && o != m.process {
							t.Fatalf("seed %d step %d: %s partition %d given to %s while %s still reads it (a cooperative move takes two rounds)", seed, step, m.topic, p, m.process, o)
						}
					}
				}
				changed := false
				for _, m := range members {
					got := plan[m.id]
					sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
					if fmt.Sprint(got) != fmt.Sprint(m.owned) {
						changed = true
					}
					m.owned, m.gen = got, gen
				}
				gen++
				own := map[tpKey]string{}
				for _, m := range members {
					for _, p := range m.owned {
						k := tpKey{m.topic, p}
						if o, ok := own[k]; ok && o != m.process {
							t.Fatalf("seed %d step %d: %s partition %d owned by %s and %s", seed, step, m.topic, p, o, m.process)
						}
						own[k] = m.process
					}
				}
				if !changed {
					break
				}
			}
			own := map[tpKey]string{}
			count := map[string]int{}
			procs := map[string]bool{}
			for _, m := range members {
				procs[m.process] = true
				for _, p := range m.owned {
					own[tpKey{m.topic, p}] = m.process
				}
			}
			for i := int32(0); i < nparts; i++ {
				first := own[tpKey{names[0], i}]
				if first == "" {
					t.Fatalf("seed %d step %d: %s partition %d has no owner", seed, step, names[0], i)
				}
				for _, tp := range names[1:] {
					if o := own[tpKey{tp, i}]; o != first {
						t.Fatalf("seed %d step %d: partition %d of %s is with %s, of %s with %q", seed, step, i, names[0], first, tp, o)
					}
				}
				count[first]++
			}
			lo, hi := int(nparts)/len(procs), (int(nparts)+len(procs)-1)/len(procs)
			for p := range procs {
				if count[p] < lo || count[p] > hi {
					t.Fatalf("seed %d step %d: %s holds %d partition numbers of %d over %d processes", seed, step, p, count[p], nparts, len(procs))
				}
			}
			// sticky: when a process left, no partition of the others moved;
			// when one joined, only the partition numbers it took moved
			moved := 0
			for k, p := range settled {
				if procs[p] && own[k] != p {
					moved++
				}
			}
			if joined == "" && moved > 0 || joined != "" && moved > count[joined]*len(names) {
				t.Fatalf("seed %d step %d: %d partitions moved between processes that stayed (joined: %q with %d)", seed, step, moved, joined, count[joined])
			}
			settled = own
			joined = ""
			// change the group: a process joins, or one leaves (or dies)
			if rng.Intn(2) == 0 || len(procs) == 1 {
				joined = fmt.Sprintf("proc%d", nextID)
				addProcess()
			} else {
				var ps []string
				for p := range procs {
					ps = append(ps, p)
				}
				sort.Strings(ps)
				gone := ps[rng.Intn(len(ps))]
				kept := members[:0]
				for _, m := range members {
					if m.process != gone {
						kept = append(kept, m)
					}
				}
				members = kept
			}
		}
	}
}

// TestKafkaCoPartitionBalancerMovesPairsTogether (a real broker): processes
// of two members each (one per topic of a join over two co-partitioned
// topics of 12 partitions, as a join's two sources are) join one consumer
// group, a third and a fourth join, and three leave; after each change the group settles
// with every partition of both topics assigned, partition i of both topics
// with the members of one process, and the partitions numbers spread over
// the processes evenly.
func TestKafkaCoPartitionBalancerMovesPairsTogether(t *testing.T) {
	const nparts = 12
	group := kafkatest.Name(t, "group")
	topics := []string{kafkatest.CreateTopic(t, nparts, nil), kafkatest.CreateTopic(t, nparts, nil)}
	type proc struct{ clients []*kgo.Client }
	procOf := map[string]string{} // client ID => process; random IDs, as
	// the members of real processes (all "kgo-" and a random id) sort
	// without regard to their process
	start := func(name string) *proc {
		p := &proc{}
		key := NewProcessKey()
		for _, topic := range topics {
			id := NewProcessKey()
			procOf[id] = name
			cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(kafkatest.Brokers(t), ",")...),
				kgo.ClientID(id),
				kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
				kgo.Balancers(CoPartitionBalancer(key), kgo.CooperativeStickyBalancer()),
				kgo.DisableAutoCommit())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cl.Close)
			p.clients = append(p.clients, cl)
		}
		return p
	}
	adm := kafkatest.Admin(t)
	// settled waits until the group is Stable with 2*procs members and
	// partition i of both topics with one process, each holding nparts/procs.
	settled := func(procs int, why string) {
		t.Helper()
		deadline := time.Now().Add(kafkatest.Timeout)
		last := "no answer"
		for time.Now().Before(deadline) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			dg, err := adm.DescribeGroups(ctx, group)
			cancel()
			if g, ok := dg[group]; err == nil && ok {
				at := map[string]map[int32]string{} // topic => partition => process
				for _, m := range g.Members {
					proc := procOf[m.ClientID]
					if c, ok := m.Assigned.AsConsumer(); ok {
						for _, ta := range c.Topics {
							if at[ta.Topic] == nil {
								at[ta.Topic] = map[int32]string{}
							}
							for _, p := range ta.Partitions {
								at[ta.Topic][p] = proc
							}
						}
					}
				}
				count := map[string]int{}
				ok := g.State == "Stable" && len(g.Members) == 2*procs
				for i := int32(0); i < nparts && ok; i++ {
					a, b := at[topics[0]][i], at[topics[1]][i]
					ok = a != "" && a == b
					count[a]++
				}
				for _, c := range count {
					ok = ok && c == nparts/procs
				}
				if ok {
					return
				}
				last = fmt.Sprintf("state %s, %d member(s), assigned %v", g.State, len(g.Members), at)
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%s: the group did not settle with both topics' partition i in one process, evenly over %d: %s", why, procs, last)
	}
	a := start("a")
	settled(1, "one process")
	b := start("b")
	settled(2, "a second process joined")
	c := start("c")
	settled(3, "a third process joined")
	start("d")
	settled(4, "a fourth process joined")
	for _, cl := range b.clients {
		cl.Close()
	}
	settled(3, "the second process left")
	for _, cl := range append(a.clients, c.clients...) {
		cl.Close()
	}
	settled(1, "the first and the third process left")
}
