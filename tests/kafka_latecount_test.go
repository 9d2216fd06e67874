package tests

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/tests/kafkatest"
)

// TestKafkaLateCountAfterARestart (SPEC 2.4's notices, 2.5's replay): a
// window job of a consumer group is killed with a window open and late rows
// after that window's first row; restarted, it reads them again from the
// committed hold frontier, and their late output, written by the run
// before, is not written again. Its end-of-job line counts the late rows it
// wrote, each late row once over the runs (as the malformed rows' summary
// and the join's and window Top-N's late counts do), not the replayed ones
// again.
func TestKafkaLateCountAfterARestart(t *testing.T) {
	kafkatest.Brokers(t)
	if testing.Short() {
		t.Skip("runs streamql processes against the broker: not with -short")
	}
	const base = int64(1_700_000_000_000)
	in, out := kafkatest.CreateTopic(t, 1, nil), kafkatest.CreateTopic(t, 1, nil)
	group := kafkatest.Name(t, "group")
	sql := kafkaStream(t, "sensors", "dev VARCHAR, ts BIGINT, temperature BIGINT, WATERMARK FOR ts AS ts", in, groupMember(group, "a")) +
		kafkaStream(t, "wins", "window_start BIGINT, n BIGINT", out, "") +
		"INSERT INTO wins SELECT window_start, COUNT(*) AS n\n" +
		"  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND))\n" +
		"  GROUP BY window_start, window_end;\n"
	q := writeScript(t, t.TempDir(), "a", sql)
	cl := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	adm := kafkatest.Admin(t)
	produce := func(secs ...int64) {
		t.Helper()
		var rows []winRow
		for _, s := range secs {
			rows = append(rows, winRow{"d", base + s*1000, 0, 0})
		}
		if err := produceWinRows(t, cl, in, rows); err != nil {
			t.Fatal(err)
		}
	}
	late := regexp.MustCompile(`(\d+) late row\(s\) of the query`)
	// The first run: windows [0, 10) and [10, 20) fire; [20, 30) stays
	// open, its first row (21 s) the hold frontier; 3 s and 4 s after it
	// are late.
	produce(1, 5, 12, 15, 21, 3, 22, 4, 23)
	c, stderr := startScript(t, q, "--format", "csv")
	waitEmitted(t, adm, group, in, 60*time.Second, stderr.String)
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()
	if got := strings.Count(stderr.String(), "late> "); got != 2 {
		t.Fatalf("the first run wrote %d late rows, want 2: %s", got, stderr.String())
	}
	// The second run reads 21 s .. 23 s again (3 s and 4 s late again, not
	// written again), then 8 s and 9 s, late, written.
	produce(26, 8, 31, 9, 45)
	c, stderr = startScript(t, q, "--format", "csv")
	waitEmitted(t, adm, group, in, 60*time.Second, stderr.String)
	stopByTerm(t, c, stderr)
	text := stderr.String()
	written := strings.Count(text, "late> ")
	m := late.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the second run printed no late rows line: %s", text)
	}
	counted, _ := strconv.Atoi(m[1])
	if written != 2 || counted != written {
		t.Errorf("the second run wrote %d late rows and its line counts %d, want 2 and 2 (each late row once): %s", written, counted, text)
	}
	if strings.Contains(text, fmt.Sprintf("d,%d", base+3000)) {
		t.Errorf("a replayed late row was written again: %s", text)
	}
}
