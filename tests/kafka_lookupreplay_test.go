package tests

// A lookup join (SPEC 2.7: a Kafka probe side, a bounded file read whole
// first) in a consumer group across SIGKILLs (issue 23 item 6; the
// connector package doc's replay protocol, SPEC 2.5): the join keeps no
// probe row, so the probe topic is read in the group, each process its
// partitions, and commits the rows whose joined rows are written, as a
// stateless job does; every process reads the file whole. The crash harness
// (kafka_scale_test.go) kills, restarts, adds and removes processes, and the
// read_committed output holds each probe row's joined (or padded) row once.
// With event time on the probe side the join holds its rows until their
// watermark passes them: each partition then commits its oldest held row,
// and a restarted process reads the held rows again (executor/joinreplay.go).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaLookupJoinCrashesExactlyOnce: orders LEFT JOIN a customers file
// on the key, into an exactly-once Kafka sink; the output equals the join
// computed over the whole input (each order once, with its customer's name,
// or NULL for the keys the file lacks).
func TestKafkaLookupJoinCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	scaleOutCrashes(t, "exactly-once", scaleLookupJoinJob(t, false))
}

// TestKafkaLookupJoinHeldCrashesExactlyOnce: the same join with a WATERMARK
// on the orders (out of order by up to 490 ms under a 1 s delay): the join
// releases them in event-time order as their watermark passes, so every
// process holds rows when it is killed; each order is in the output once.
func TestKafkaLookupJoinHeldCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	scaleOutCrashes(t, "exactly-once", scaleLookupJoinJob(t, true))
}

// scaleLookupJoinJob is the lookup join over STREAMQL_SCALE_ROWS/4 orders
// (id, key k<id%1000>) on partition id%4 (the probe side needs no
// partitioning: a lookup join holds no row of it), against a file of the
// customers k0..k899 (the keys from k900 on have none: LEFT pads them). Done
// when the group's committed offsets reach the input's ends. timed: the
// orders have a time ts (10*id ms, minus up to 490 ms) and a WATERMARK, and
// each partition ends with a row far in the future that moves the watermark
// past every other row and stays held (done when the offsets reach it).
func scaleLookupJoinJob(t *testing.T, timed bool) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 4
	name := func(k int) string { return fmt.Sprintf("name%d", k*7%1000) }
	return scaleJob{
		outs: []string{"joined"},
		script: func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
			customers := filepath.Join(dir, "customers.csv")
			if _, err := os.Stat(customers); err != nil {
				var sb strings.Builder
				sb.WriteString("k,name\n")
				for k := range 900 {
					fmt.Fprintf(&sb, "k%d,%s\n", k, name(k))
				}
				if err := os.WriteFile(customers, []byte(sb.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cols := "id BIGINT, k VARCHAR"
			if timed {
				cols += ", ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
			}
			sql := kafkaStream(t, "orders", cols, in,
				groupMember(group, slot)) +
				"CREATE STREAM customers (k VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='" + customers + "', 'format'='csv', 'csv.header'='true');\n" +
				kafkaStream(t, "joined", "id BIGINT, name VARCHAR", outs["joined"], sink) +
				"INSERT INTO joined SELECT o.id, c.name FROM orders o LEFT JOIN customers c ON o.k = c.k;\n"
			return writeScript(t, dir, slot, sql)
		},
		chunk: func(in string, c, chunks int) []*kgo.Record {
			var rs []*kgo.Record
			for id := c * rows / chunks; id < (c+1)*rows/chunks; id++ {
				v := fmt.Sprintf("%d,k%d", id, id%1000)
				if timed {
					v += fmt.Sprintf(",%d", 10*id-id*7919%50*10)
				}
				rs = append(rs, &kgo.Record{Topic: in, Partition: int32(id % 4), Value: []byte(v)})
			}
			if timed && c == chunks-1 {
				for p := range int32(4) {
					rs = append(rs, &kgo.Record{Topic: in, Partition: p, Value: []byte(fmt.Sprintf("-1,end,%d", int64(1)<<40))})
				}
			}
			return rs
		},
		done: func(adm *kadm.Client, group, in string) (bool, error) {
			if !timed {
				return caughtUp(adm, group, in)
			}
			return heldAtEnd(adm, group, in)
		},
		check: func(t *testing.T, outs map[string]string, guarantee string) {
			// the reference: each order with its key's name, looked up in
			// the whole file (a map here), NULL (an empty csv field) past it
			want := map[string]int{}
			for id := range rows {
				v := ""
				if k := id % 1000; k < 900 {
					v = name(k)
				}
				want[fmt.Sprintf("%d,%s", id, v)]++
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

// heldAtEnd reports whether group's committed offsets of topic in (read
// require_stable) reached the last record of each partition: a row every
// process holds for good (a time far in the future).
func heldAtEnd(adm *kadm.Client, group, in string) (bool, error) {
	return committedWithin(adm, group, in, 1)
}
