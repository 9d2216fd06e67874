package tests

// An interval join of two Kafka topics in a consumer group across SIGKILLs
// (issue 23 item 6; the connector package doc's replay protocol, SPEC 2.5):
// the crash harness (kafka_scale_test.go) kills and restarts the process at
// random moments; each input's partitions commit the oldest row still in the
// join's state, a restarted process reads those rows again into state, and
// the read_committed output holds every joined row exactly once.

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/tests/kafkatest"
)

// TestKafkaIntervalJoinCrashesExactlyOnce: orders and payments, two topics
// of 4 partitions keyed alike, joined when a payment comes within 2 s of
// its order; the process is SIGKILLed and restarted at random moments while
// the input is written. The read_committed output equals the join computed
// over the whole input (each order's own payment, when it came in time):
// no row lost or doubled (STREAMQL_SCALE_SEED replays a schedule).
func TestKafkaIntervalJoinCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	kafkatest.Brokers(t)
	if testing.Short() {
		t.Skip("runs streamql processes against the broker for ~40 s: not with -short")
	}
	scaleOutCrashes(t, "exactly-once", scaleIntervalJoinJob(t))
}

// scaleIntervalJoinJob is the interval join over STREAMQL_SCALE_ROWS/10
// orders (id, key k<id%1000>, ts = 10*id ms) on partition key%4, and as many
// payments (pid = id, the order's key, ts = the order's + (7*id)%2500 ms)
// in the payments topic's same partition: orders of one key are 10 s apart,
// so payment id joins order id only, when it came within 2 s. Each topic
// ends with a row per partition far in the future that joins nothing and
// moves the watermark past every other row. Done when the group's committed
// offsets of both topics reach those last rows (held in state for good).
func scaleIntervalJoinJob(t *testing.T) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 10
	payments := kafkatest.CreateTopic(t, 4, nil)
	part := func(id int) int32 { return int32(id % 1000 % 4) }
	delay := func(id int) int { return 7 * id % 2500 }
	return scaleJob{
		outs:       []string{"joined"},
		oneProcess: true,
		script: func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
			opts := func(s string) string {
				return groupMember(group, slot+"-"+s)
			}
			sql := kafkaStream(t, "orders", "id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", in, opts("o")) +
				kafkaStream(t, "payments", "pid BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '3' SECOND", payments, opts("p")) +
				kafkaStream(t, "joined", "id BIGINT, pid BIGINT", outs["joined"], sink) +
				"INSERT INTO joined SELECT o.id, p.pid FROM orders o JOIN payments p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '2' SECOND;\n"
			return writeScript(t, dir, slot, sql)
		},
		chunk: func(in string, c, chunks int) []*kgo.Record {
			var rs []*kgo.Record
			for id := c * rows / chunks; id < (c+1)*rows/chunks; id++ {
				rs = append(rs, &kgo.Record{Topic: in, Partition: part(id), Value: []byte(fmt.Sprintf("%d,k%d,%d", id, id%1000, 10*id))},
					&kgo.Record{Topic: payments, Partition: part(id), Value: []byte(fmt.Sprintf("%d,k%d,%d", id, id%1000, 10*id+delay(id)))})
			}
			if c == chunks-1 {
				for p := range int32(4) {
					rs = append(rs, &kgo.Record{Topic: in, Partition: p, Value: []byte(fmt.Sprintf("-1,end-o,%d", int64(1)<<40))},
						&kgo.Record{Topic: payments, Partition: p, Value: []byte(fmt.Sprintf("-1,end-p,%d", int64(1)<<40))})
				}
			}
			return rs
		},
		done: func(adm *kadm.Client, group, in string) (bool, error) {
			for _, topic := range []string{in, payments} { // (the last row stays in state)
				if done, err := heldAtEnd(adm, group, topic); !done || err != nil {
					return false, err
				}
			}
			return true, nil
		},
		check: func(t *testing.T, outs map[string]string, guarantee string) {
			want := map[string]int{}
			for id := range rows {
				if delay(id) <= 2000 {
					want[fmt.Sprintf("%d,%d", id, id)]++
				}
			}
			rc := guarantee == "exactly-once"
			dups, over := compareCounts(t, "joined rows", readRows(t, outs["joined"], rc), want, rc)
			if rc && len(over) > 0 {
				t.Logf("rows written more than once, where (partition@offset, producer id/epoch):%s", recordsOf(t, outs["joined"], rc, over))
			}
			t.Logf("%s: %d joined rows, %d duplicate records", guarantee, len(want), dups)
		},
	}
}
