package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"streamql/tests/kafkatest"
)

// TestKafkaGroupResumesWhateverStartupMode (issue 30 item 20): with a group
// id, a partition that has committed offsets resumes from them whatever
// 'scan.startup.mode' says ('earliest-offset', 'latest-offset',
// 'specific-offsets'), the mode deciding only for partitions without a
// commit, as Kafka's auto.offset.reset. A job into an exactly-once sink,
// killed with SIGKILL after its rows are committed and started again, writes
// the rows produced since and none of the old ones twice. Also: a
// 'specific-offsets' partition the topic does not have is an error.
func TestKafkaGroupResumesWhateverStartupMode(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	kafkatest.Brokers(t)
	in := kafkatest.CreateTopic(t, 2, nil)
	_, errs, code := runSQLIn(t, t.TempDir(), nil, kafkaStream(t, "src", "id BIGINT", in, ", 'scan.startup.mode'='specific-offsets', 'scan.startup.specific-offsets'='partition:0,offset:0;partition:5,offset:3', 'scan.bounded.mode'='latest-offset'")+"SELECT * FROM src;\n")
	if code == 0 || !strings.Contains(errs, "partition 5") || !strings.Contains(errs, "2 partition(s)") {
		t.Errorf("a specific offset for partition 5 of a 2-partition topic: exit %d %q; want an error naming it", code, errs)
	}
	if testing.Short() {
		t.Skip("kills and restarts jobs in a group (about a minute per mode): not with -short")
	}
	for _, mode := range []string{"earliest-offset", "latest-offset", "specific-offsets"} {
		t.Run(mode, func(t *testing.T) {
			in, out := kafkatest.CreateTopic(t, 2, nil), kafkatest.CreateTopic(t, 1, nil)
			group, prefix := kafkatest.Name(t, "group"), kafkatest.Name(t, "txn")
			// (a session timeout of 6 s instead of Kafka's 45 s: the group
			// evicts the killed process's member sooner, and the restarted one
			// gets its partitions without waiting most of a minute)
			extra := ", 'properties.group.id'='" + group + "', 'scan.startup.mode'='" + mode + "', 'properties.session.timeout.ms'='6000', 'properties.heartbeat.interval.ms'='1000'"
			if mode == "specific-offsets" {
				extra += ", 'scan.startup.specific-offsets'='partition:0,offset:0;partition:1,offset:0'"
			}
			sql := kafkaStream(t, "src", "id BIGINT", in, extra) +
				kafkaStream(t, "dst", "id BIGINT", out, ", 'sink.delivery-guarantee'='exactly-once', 'sink.transactional-id-prefix'='"+prefix+"'") +
				"INSERT INTO dst SELECT id FROM src;\n"
			q := filepath.Join(t.TempDir(), "q.sql")
			if err := os.WriteFile(q, []byte(sql), 0o644); err != nil {
				t.Fatal(err)
			}
			ids := func(from, to int) []string {
				var v []string
				for i := from; i < to; i++ {
					v = append(v, fmt.Sprint(i))
				}
				return v
			}
			// waitFor waits until read_committed sees n records of dst.
			waitFor := func(p *started, n int) map[string]int {
				deadline := time.Now().Add(60 * time.Second)
				for {
					got := rowsOf(kafkatest.ReadAll(t, out, kafkatest.ReadOptions{ReadCommitted: true}))
					total := 0
					for _, k := range got {
						total += k
					}
					if total >= n || time.Now().After(deadline) {
						return got
					}
					select {
					case <-p.done:
						t.Fatalf("the job ended: exit %d %s", p.code, p.stderr.String())
					default:
					}
					time.Sleep(200 * time.Millisecond)
				}
			}
			first := start(t, t.TempDir(), nil, "-f", q)
			// joined the group (at the end of the empty topic, with latest-offset)
			firstIDs := kafkatest.WaitAssigned(t, group, in, 1, 2)
			if mode == "latest-offset" {
				time.Sleep(500 * time.Millisecond) // (and resolved that end: a ListOffsets request after the assignment)
			}
			produceValues(t, in, ids(0, 100), nil)
			waitFor(first, 100)
			first.cmd.Process.Signal(syscall.SIGKILL)
			<-first.done
			second := start(t, t.TempDir(), nil, "-f", q)
			kafkatest.WaitAssigned(t, group, in, 1, 2, firstIDs...) // it joins, and would read the topic again from its start
			produceValues(t, in, ids(100, 150), nil)
			waitFor(second, 150)
			kafkatest.WaitCommittedAt(t, group, in) // every row read has its output committed: anything read twice is written by now
			got := rowsOf(kafkatest.ReadAll(t, out, kafkatest.ReadOptions{ReadCommitted: true}))
			second.stop(t, syscall.SIGINT)
			twice := 0
			for _, k := range got {
				if k > 1 {
					twice++
				}
			}
			if len(got) != 150 || twice > 0 {
				t.Errorf("after SIGKILL and a restart: %d distinct ids (want 150), %d written more than once (want 0)", len(got), twice)
			}
		})
	}
}
