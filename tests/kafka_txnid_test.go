package tests

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql/tests/kafkatest"
)

// TestKafkaExactlyOnceWithoutGroupDoNotFence (SPEC 2.5): two processes run
// at once with exactly-once Kafka sinks of one prefix and stream name and
// no consumer group (a stdin source, a values source). Each job's
// transactional id is its own (the prefix, the stream and a suffix unique
// to the job), so the second's producer does not fence the first's: both
// end with exit 0 and read_committed sees every row of both. (With one
// shared id the second fenced the first, whose commit then failed.)
func TestKafkaExactlyOnceWithoutGroupDoNotFence(t *testing.T) {
	out := kafkatest.CreateTopic(t, 1, nil)
	prefix := kafkatest.Name(t, "txn")
	sink := kafkaStream(t, "alerts", "id BIGINT, temperature DOUBLE", out, ", 'sink.delivery-guarantee'='exactly-once', 'sink.transactional-id-prefix'='"+prefix+"'")
	dir := t.TempDir()
	script := filepath.Join(dir, "a.sql")
	if err := os.WriteFile(script, []byte("CREATE STREAM sensors (id BIGINT, temperature DOUBLE) WITH ('connector'='stdin', 'format'='csv');\n"+sink+
		"INSERT INTO alerts SELECT id, temperature FROM sensors;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := exec.Command(binary, script)
	in, aErr := startWithStdin(t, a)
	if _, err := in.Write([]byte("1,71\n")); err != nil {
		t.Fatal(err)
	}
	// a's producer is initialized (its sink opens it at once): its
	// transactional id is known to the broker
	adm := kafkatest.Admin(t)
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	defer cancel()
	ids := func() []string {
		ls, err := adm.ListTransactions(ctx, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range ls.Sorted() {
			if strings.HasPrefix(x.TxnID, prefix) {
				got = append(got, x.TxnID)
			}
		}
		return got
	}
	for try := 0; len(ids()) == 0; try++ {
		if try == 200 {
			t.Fatalf("the first process's transactional producer did not start (stderr %s)", aErr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// the second process, whole, while the first is open
	b := "CREATE STREAM sensors (id BIGINT, temperature DOUBLE) WITH ('connector'='values');\nINSERT INTO sensors VALUES (2, 72), (3, 73);\n" + sink +
		"INSERT INTO alerts SELECT id, temperature FROM sensors;\n"
	if _, stderr, code := runSQLIn(t, t.TempDir(), nil, b); code != 0 {
		t.Fatalf("the second process: exit %d: %s", code, stderr)
	}
	if _, err := in.Write([]byte("4,74\n")); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := a.Wait(); err != nil {
		t.Fatalf("the first process: %v: %s", err, aErr.String())
	}
	// (the commit markers are written after the commits return: the last
	// stable offset reaches them a moment later)
	var got []string
	for try := 0; len(got) != 4 && try < 20; try++ {
		if try > 0 {
			time.Sleep(250 * time.Millisecond)
		}
		got = got[:0]
		for _, r := range kafkatest.ReadAll(t, out, kafkatest.ReadOptions{ReadCommitted: true}) {
			got = append(got, string(r.Value))
		}
	}
	if len(got) != 4 {
		t.Errorf("read_committed sees %q, want the 4 rows of both processes", got)
	}
	if n := len(ids()); n != 2 {
		t.Errorf("%d transactional ids with prefix %s, want one per job", n, prefix)
	}
}

// startWithStdin starts cmd with its stdin a pipe, returned, and its stderr
// kept; the process is killed when the test ends.
func startWithStdin(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, *strings.Builder) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	errb := new(strings.Builder)
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return in, errb
}
