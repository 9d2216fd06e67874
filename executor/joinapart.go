package executor

import (
	"fmt"
	gomaps "maps" // (the package's tests declare a func maps)
	"slices"
	"time"
)

// joinApartLimit is how long the two inputs of a join of two Kafka streams
// in a consumer group may hold different partitions (joinSource.apart)
// before the job stops: a rebalance gives partition i of both topics to a
// process in one generation (kafka's CoPartitionBalancer), and the two
// members' callbacks come within the group's rebalance, seconds apart.
// It is the backstop of the balancer's own check, which stops the job at
// the rebalance that made the group fall back to 'cooperative-sticky'
// (kafka's fallbackBalancer, kafkaJob.mixedGroup); fixed, not an option:
// it is no property of either input's stream (a 'scan.…' option of one
// input would not fit it), and no Kafka client property ('properties.…')
// says how far apart a group's two members may hold partitions.
var joinApartLimit = 2 * time.Minute

// joinApartClock is the processing time joinApartLimit is measured by (a
// test's own otherwise).
var joinApartClock = time.Now

// noteApart notes, after an assignment change of an input of a join read
// in a consumer group (joinSource.rewind), whether its two inputs now hold
// different partitions (joinReplay.owned), and since when: a group whose
// members do not all use kafka's CoPartitionBalancer (a process of an
// older streamql version, or another client, announces only
// 'cooperative-sticky', and the group takes the protocol every member
// has) gives each topic's partitions out independently, and the join
// would wait forever for the rows of partitions its other input never
// gets (issue 23 item 6). The sources find the fallback itself first
// (kafka's fallbackBalancer); this check also stops a join whose inputs
// disagree for any other reason.
func (js *joinSource) noteApart() {
	if js.rep[0] == nil || js.rep[1] == nil {
		return // (a lookup join's right side is read whole)
	}
	if gomaps.Equal(js.rep[0].owned, js.rep[1].owned) {
		js.apart = time.Time{}
		return
	}
	if js.apart.IsZero() {
		js.apart = joinApartClock()
	}
}

// checkApart returns the error that stops the job once its join's inputs
// have held different partitions for longer than joinApartLimit
// (noteApart), nil before, or once they hold the same again.
func (js *joinSource) checkApart() error {
	if js.apart.IsZero() || js.in[0].done || js.in[1].done {
		return nil
	}
	if gomaps.Equal(js.rep[0].owned, js.rep[1].owned) {
		js.apart = time.Time{}
		return nil
	}
	d := joinApartClock().Sub(js.apart)
	if d <= joinApartLimit {
		return nil
	}
	var parts [2][]int32
	for s, r := range js.rep {
		for p := range r.owned {
			parts[s] = append(parts[s], p)
		}
		slices.Sort(parts[s])
	}
	l, r := js.both.Inputs[0], js.both.Inputs[1]
	group := ""
	if k := l.Stream.Kafka(); k != nil {
		group = k.GroupID
	}
	return fmt.Errorf("the %s of %s and %s: for %s its inputs have held different partitions (%s: %v, %s: %v), so it waits for rows its other input never reads: a member of consumer group '%s' does not co-partition its topics (a process of another streamql version, or another client, makes the group fall back to the 'cooperative-sticky' balancer, which gives each topic's partitions out independently); stop the group's processes that do not run this version and restart this one, or give this job a group of its own with 'properties.group.id'",
		js.both.Kind(), l.Name, r.Name, d.Round(time.Second), l.Name, parts[0], r.Name, parts[1], group)
}
