package tests

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"streamql/tests/kafkatest"
)

// TestKafkaConsumerRidesOutBrokerRestart (issue 30 item 17): a job reading a
// topic in a group rides out its broker stopping and starting again: it
// keeps running and, once the broker is back, reads the rows produced since;
// a job whose limit ('properties.request.timeout.ms' 2 s: 4 s without an
// answer) passes during the outage fails, naming its stream and topic (not
// an empty topic name). Against a real broker of the test's own, stopped and started.
func TestKafkaConsumerRidesOutBrokerRestart(t *testing.T) {
	kafkatest.Brokers(t)
	if testing.Short() {
		t.Skip("starts a broker of its own and restarts it: not with -short")
	}
	broker := ownBroker(t)
	topic := kafkatest.CreateTopic(t, 2, nil)
	ids := func(from, to int) []string {
		var v []string
		for i := from; i < to; i++ {
			v = append(v, fmt.Sprint(i))
		}
		return v
	}
	produceValues(t, topic, ids(0, 100), nil)
	job := func(name, timeoutMs string) (*started, string) {
		work := t.TempDir()
		out := filepath.Join(work, "out.csv")
		sql := kafkaStream(t, "src", "id BIGINT", topic, ", 'properties.group.id'='"+kafkatest.Name(t, name)+"', 'properties.request.timeout.ms'='"+timeoutMs+"'") +
			"CREATE STREAM dst (id BIGINT) WITH ('connector'='file', 'path'='" + out + "');\n" +
			"INSERT INTO dst SELECT id FROM src;\n"
		return start(t, work, nil, "-e", sql), out
	}
	rows := func(path string) map[string]bool {
		b, _ := os.ReadFile(path)
		m := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			m[l] = true
		}
		return m
	}
	waitRows := func(p *started, path string, n int) {
		t.Helper()
		deadline := time.Now().Add(120 * time.Second)
		for len(rows(path)) < n {
			select {
			case <-p.done:
				t.Fatalf("the job ended (exit %d): %s", p.code, p.stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d rows after 120 s: %s", len(rows(path)), n, p.stderr.String())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	rider, riderOut := job("rider", "150000") // 300 s without an answer
	quitter, quitterOut := job("quitter", "2000")
	waitRows(rider, riderOut, 100)
	waitRows(quitter, quitterOut, 100)
	broker("stop")
	select {
	case <-quitter.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the job with a 4 s limit still runs 60 s into the outage: %s", quitter.stderr.String())
	}
	if e := quitter.stderr.String(); quitter.code != 1 || !strings.Contains(e, "stream src") || !strings.Contains(e, "topic '"+topic+"'") || strings.Contains(e, "topic ''") {
		t.Errorf("the job past its limit: exit %d, stderr %q; want 1 naming stream src and topic %s", quitter.code, e, topic)
	}
	select {
	case <-rider.done:
		t.Fatalf("the job ended during the outage (exit %d): %s", rider.code, rider.stderr.String())
	default:
	}
	broker("start")
	produceValues(t, topic, ids(100, 200), nil)
	waitRows(rider, riderOut, 200)
	rider.stop(t, syscall.SIGINT)
	if rider.code != 130 {
		t.Errorf("the job that rode out the restart exited %d on SIGINT: %s", rider.code, rider.stderr.String())
	}
}

// lastChars returns the last n bytes of s.
func lastChars(s string, n int) string { return s[max(0, len(s)-n):] }

// ownBroker starts a Kafka broker of the test's own (scripts/kafka-broker in
// a temporary folder, so the shared one is not disturbed), points
// STREAMQL_KAFKA_BROKERS at it for the test, stops it at the test's end, and
// returns a function that runs `kafka-broker cmd` (stop, start) on it.
func ownBroker(t *testing.T) func(cmd string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "scripts", "kafka-broker"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	broker := func(cmd string) string {
		t.Helper()
		c := exec.Command(script, cmd, dir)
		c.Env = append(os.Environ(), "STREAMQL_KAFKA_START_TIMEOUT=300") // (a loaded machine)
		out, err := c.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%v: %s", err, lastChars(string(ee.Stderr), 400))
			}
			t.Fatalf("kafka-broker %s %s: %v", cmd, dir, err)
		}
		return strings.TrimSpace(string(out))
	}
	env := broker("start")
	t.Cleanup(func() { exec.Command(script, "stop", dir).Run() })
	addr, ok := strings.CutPrefix(env, kafkatest.EnvBrokers+"=")
	if !ok {
		t.Fatalf("kafka-broker start printed %q", env)
	}
	t.Setenv(kafkatest.EnvBrokers, addr)
	return func(cmd string) { broker(cmd) }
}
