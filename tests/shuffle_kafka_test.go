package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"streamql/tests/kafkatest"
)

// TestKafkaShuffleKillsAndRestarts: `streamql test --shuffle` runs a case
// whose stream is Kafka (a consumer group, bounded at the latest offsets) as
// a process, kills it (SIGKILL) in the middle of its output and restarts it
// with the same consumer group (SPEC 4, "Finding out why"); the restarted
// process resumes from what the group committed (here, with a job shorter
// than the commit interval, nothing: it reads again from the start) and,
// with the killed one's output, holds every row of the first run, none that
// it lacks. Each run reads with consumer groups of its own, so the case
// passes again when run again (the --update run, the first run, the rerun).
func TestKafkaShuffleKillsAndRestarts(t *testing.T) {
	kafkatest.Brokers(t)
	if testing.Short() {
		t.Skip("runs streamql processes against the broker: not with -short")
	}
	topic := kafkatest.CreateTopic(t, 2, nil)
	const n = 6000
	var vals []string
	for i := range n {
		vals = append(vals, fmt.Sprintf("k%d,%d,%s", i%40, i, strings.Repeat("p", 120))) // (long rows: the output is written in several chunks)
	}
	produceValues(t, topic, vals, nil)
	root := t.TempDir()
	dir := writeCase(t, root, "kafka", map[string]string{
		"query.sql": kafkaStream(t, "src", "k VARCHAR, n BIGINT, pad VARCHAR", topic, ", 'format'='csv', 'properties.group.id'='shuffle', 'scan.bounded.mode'='latest-offset', 'properties.session.timeout.ms'='6000', 'properties.heartbeat.interval.ms'='500'") +
			"SELECT k, n, pad INTO SIDE 'even' FROM src WHERE n % 2 = 0;\nSELECT k, n, pad FROM src;\n",
	})
	os.RemoveAll(filepath.Join(dir, "expected"))
	if r := viaBinary(t, root, []string{"test", "--update", dir}); !strings.Contains(r.stdout, "expected/") && r.code != 1 {
		t.Fatalf("--update: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if lines := countLines(t, filepath.Join(dir, "expected", "main.csv")); lines != n/2+1 {
		t.Fatalf("expected/main.csv has %d lines, want %d", lines, n/2+1)
	}
	for _, seed := range []int{1} {
		r := viaBinary(t, root, []string{"test", "--shuffle", "1", "--seed", strconv.Itoa(seed), dir})
		if r.code != 0 {
			t.Fatalf("seed %d: exit %d\n%s%s", seed, r.code, r.stdout, r.stderr)
		}
		m := regexp.MustCompile(`killed after (\d+) of (\d+) lines of stdout and restarted \((\d+) lines of stdout\) gave the first run's rows`).FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("seed %d: no kill reported:\n%s", seed, r.stdout)
		}
		at, _ := strconv.Atoi(m[1])
		total, _ := strconv.Atoi(m[2])
		again, _ := strconv.Atoi(m[3])
		if at < 2 || at >= total || total != n/2+1 {
			t.Errorf("seed %d: killed after %d of %d lines: not in the middle of the %d", seed, at, total, n/2+1)
		}
		if again < 1 || again > total {
			t.Errorf("seed %d: the restarted process wrote %d lines of %d", seed, again, total)
		}
	}
}
