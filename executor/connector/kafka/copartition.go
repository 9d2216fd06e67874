package kafka

import (
	"crypto/rand"
	"encoding/hex"
	"sort"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CoPartitionProtocol is the name of the group protocol of
// CoPartitionBalancer, as the members of a consumer group announce it.
const CoPartitionProtocol = "streamql-copartition"

// CoPartitionBalancer returns the group balancer of a job's sources in a
// consumer group (SPEC 2.5): Kafka Streams' co-partitioning. Every member
// names its process in its join metadata (process: the same string for
// every source of one job in one process, NewProcessKey), and the balancer
// gives partition i of every topic of the group to the same process: to
// each of that process's members that subscribe to the topic. So the two
// inputs of a join, co-partitioned topics (same partition count, keyed by
// the join key), read partition i of both in one process, and a rebalance
// moves both together.
//
// It is cooperative and sticky by partition number: a partition number
// stays with the process that owns it (any topic's partition of that
// number) while the processes stay balanced (each holds the floor or the
// ceiling of numbers/processes), and one that moves is first revoked from
// every member of its old process (one rebalance) and given to the new
// process in the next, when no member of another process claims it, so a
// partition of one topic is never read by two processes at once and
// partition i of both topics comes to a process in the same generation.
// A topic no member of the chosen process subscribes to gives its
// partition to the least loaded process that does.
func CoPartitionBalancer(process string) kgo.GroupBalancer {
	return &coPartitionBalancer{process: process}
}

// NewProcessKey returns a random key naming one process (one job) among a
// consumer group's members, for CoPartitionBalancer.
func NewProcessKey() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fallbackBalancer is kgo's cooperative-sticky balancer, which a job's
// group sources announce after CoPartitionBalancer: a group takes the first
// protocol every member announces, so it balances with this one only when
// a member does not announce CoPartitionProtocol (a process of an older
// streamql version, or another client). Every member parses its
// assignment with the protocol the group chose (ParseSyncAssignment), so
// each process of this version learns of the fallback at the rebalance
// that made it: fell is set, and the source's Next stops a job whose
// group sources must be co-partitioned (kafkaJob.mixedGroup), instead of
// reading partitions the group gave each topic out independently.
type fallbackBalancer struct {
	kgo.GroupBalancer
	fell *atomic.Bool
}

// ParseSyncAssignment implements kgo.GroupBalancer: it notes the fallback.
func (b fallbackBalancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	b.fell.Store(true)
	return b.GroupBalancer.ParseSyncAssignment(assignment)
}

type coPartitionBalancer struct{ process string }

func (*coPartitionBalancer) ProtocolName() string { return CoPartitionProtocol }
func (*coPartitionBalancer) IsCooperative() bool  { return true }

// JoinGroupMetadata writes the consumer metadata (version 3, with the
// partitions owned, for the cooperative protocol) and the process key as
// its user data.
func (b *coPartitionBalancer) JoinGroupMetadata(interests []string, current map[string][]int32, generation int32) []byte {
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Version = 3
	meta.Topics = interests
	meta.Generation = generation
	for topic, parts := range current {
		o := kmsg.NewConsumerMemberMetadataOwnedPartition()
		o.Topic, o.Partitions = topic, parts
		meta.OwnedPartitions = append(meta.OwnedPartitions, o)
	}
	sort.Slice(meta.OwnedPartitions, func(i, j int) bool { return meta.OwnedPartitions[i].Topic < meta.OwnedPartitions[j].Topic })
	meta.UserData = []byte(b.process)
	return meta.AppendTo(nil)
}

func (*coPartitionBalancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	return kgo.ParseConsumerSyncAssignment(assignment)
}

func (b *coPartitionBalancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	cb, err := kgo.NewConsumerBalancer(b, members)
	if err != nil {
		return nil, nil, err
	}
	return cb, cb.MemberTopics(), nil
}

// Balance implements kgo.ConsumerBalancerBalance: see CoPartitionBalancer.
func (*coPartitionBalancer) Balance(cb *kgo.ConsumerBalancer, topics map[string]int32) kgo.IntoSyncAssignment {
	return coPartitionPlan(cb, topics)
}

// tpKey is a topic's partition.
type tpKey struct {
	topic string
	part  int32
}

// coPartitionPlan is CoPartitionBalancer's balance: see there.
func coPartitionPlan(cb *kgo.ConsumerBalancer, topics map[string]int32) *kgo.BalancePlan {
	procOf := map[string]string{} // member ID => process key
	var procs []string
	procIdx := map[string]int{}
	subs := map[string]map[string][]*kmsg.JoinGroupResponseMember{} // process => topic => its members
	owner := map[tpKey]string{}                                     // partition => process of its newest claim
	ownerGen := map[tpKey]int32{}
	cb.EachMember(func(m *kmsg.JoinGroupResponseMember, meta *kmsg.ConsumerMemberMetadata) {
		p := string(meta.UserData)
		if p == "" {
			p = "member:" + m.MemberID // (a member of another client: a process of its own)
		}
		procOf[m.MemberID] = p
		if _, ok := procIdx[p]; !ok {
			procIdx[p] = len(procs)
			procs = append(procs, p)
			subs[p] = map[string][]*kmsg.JoinGroupResponseMember{}
		}
		for _, t := range meta.Topics {
			subs[p][t] = append(subs[p][t], m)
		}
		for _, o := range meta.OwnedPartitions {
			for _, part := range o.Partitions {
				k := tpKey{o.Topic, part}
				if g, ok := ownerGen[k]; !ok || meta.Generation > g {
					owner[k], ownerGen[k] = p, meta.Generation
				}
			}
		}
	})
	sort.Strings(procs)
	for i, p := range procs {
		procIdx[p] = i
	}
	var names []string
	var n int32
	for t := range cb.MemberTopics() {
		names = append(names, t)
		if topics[t] > n {
			n = topics[t]
		}
	}
	sort.Strings(names)
	plan := cb.NewPlan()
	if len(procs) == 0 || n == 0 {
		return plan
	}

	// Each partition number goes to one process: sticky first, up to the
	// floor, then up to the ceiling for as many processes as get one, then
	// the rest to the least loaded.
	floor, extra := int(n)/len(procs), int(n)%len(procs)
	count := make([]int, len(procs))
	at := make([]int, n) // partition number => process index, -1 unset
	prev := make([]int, n)
	for i := range at {
		at[i], prev[i] = -1, -1
		for _, t := range names {
			if p, ok := owner[tpKey{t, int32(i)}]; ok {
				prev[i] = procIdx[p]
				break
			}
		}
	}
	for i := range at {
		if p := prev[i]; p >= 0 && count[p] < floor {
			at[i] = p
			count[p]++
		}
	}
	for i := range at {
		if p := prev[i]; at[i] < 0 && p >= 0 && count[p] == floor && extra > 0 {
			at[i] = p
			count[p]++
			extra--
		}
	}
	for i := range at {
		if at[i] >= 0 {
			continue
		}
		best := 0
		for p := range procs {
			if count[p] < count[best] {
				best = p
			}
		}
		at[i] = best
		count[best]++
	}

	for _, t := range names {
		for i := int32(0); i < topics[t]; i++ {
			p := procs[at[i]]
			ms := subs[p][t]
			if len(ms) == 0 { // the process does not read t: the least loaded that does
				best := -1
				for q, name := range procs {
					if len(subs[name][t]) > 0 && (best < 0 || count[q] < count[best]) {
						best = q
					}
				}
				if best < 0 {
					continue
				}
				count[best]++
				p = procs[best]
				ms = subs[p][t]
			}
			// Cooperative: a partition another process still claims is
			// revoked from it in this generation and given in the next.
			if o, ok := owner[tpKey{t, i}]; ok && o != p {
				continue
			}
			for _, m := range ms {
				plan.AddPartition(m, t, i)
			}
		}
	}
	return plan
}
