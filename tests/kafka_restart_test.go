package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql/cmd/streamql/cli"
	"streamql/tests/kafkatest"
)

// TestKafkaAtLeastOnceBrokerRestart (issue 12 item 7): an 'at-least-once'
// Kafka sink loses no row when the broker restarts in the middle of the job:
// a paced datagen stream of ids 1..N goes to a topic of a broker of the
// test's own (scripts/kafka-broker, so the shared one is not disturbed), the
// broker is stopped and started again while the job runs, and the job ends
// with exit 0 and every id in the topic.
func TestKafkaAtLeastOnceBrokerRestart(t *testing.T) {
	kafkatest.Brokers(t) // the skip (or, under CI=true, fail) rule of the Kafka tests
	if testing.Short() {
		t.Skip("starts a broker of its own and restarts it: not with -short")
	}
	broker := ownBroker(t)
	topic := kafkatest.CreateTopic(t, 2, nil)

	const n = 3000
	sql := fmt.Sprintf("CREATE STREAM g (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='%d', 'rows-per-second'='600', 'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='%d');\n", n, n) +
		kafkaStream(t, "ids", "id BIGINT", topic, "") +
		"INSERT INTO ids SELECT id FROM g;\n"
	q := filepath.Join(t.TempDir(), "q.sql")
	if err := os.WriteFile(q, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"-f", q}, strings.NewReader(""), &out, &errb)
		done <- result{code, errb.String()}
	}()
	time.Sleep(1500 * time.Millisecond)
	broker("stop")
	select {
	case r := <-done:
		t.Fatalf("the job ended (exit %d, %s) before the broker came back: the restart was not in the middle of the job", r.code, r.stderr)
	case <-time.After(time.Second):
	}
	broker("start")
	var r result
	select {
	case r = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the job did not end within 3 minutes of the broker's restart")
	}
	if r.code != 0 {
		t.Fatalf("the job exited %d across the broker restart: %s", r.code, r.stderr)
	}
	seen := map[string]bool{}
	for _, rec := range kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{}) {
		seen[string(rec.Value)] = true
	}
	var missing []int
	for i := 1; i <= n; i++ {
		if !seen[fmt.Sprint(i)] {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d ids are not in the topic after the broker restart (first: %v)", len(missing), n, missing[:min(len(missing), 10)])
	}
}
