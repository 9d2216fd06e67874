package executor_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
	"streamql/executor/vector"
	"streamql/internal/sensorbench"
	"streamql/parser"
)

// The joined rows change hands without a copy (joinSource.Emit and Next,
// vector.Batch.SwapRows): the join's output batch's vectors go to the
// queue and on to the job, and the job's old ones come back to the join.

// TestJoinHandOffAllocatesNothingPerBatch: an interval join of the sensor
// rows with themselves on their time (no two rows share one: a partner a
// row) and a lookup join of them against a table of their 8 devices
// allocate nothing per batch in steady state, the joined rows' vectors and
// the queue's slots passed around instead of copied or grown (issue 23:
// zero allocations per row for append-only joins): 4 times the rows cost a
// small constant more at most (the interval join's state, bounded by its
// interval, and the lookup table are the same size either way).
func TestJoinHandOffAllocatesNothingPerBatch(t *testing.T) {
	for name, script := range map[string]string{
		"interval": `CREATE STREAM a (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE STREAM b (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
SELECT a.deviceNo, a.ts, b.temperature FROM a JOIN b ON a.ts = b.ts AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts;
`,
		"lookup": `CREATE STREAM a (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE STREAM d (deviceNo VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='devices.csv', 'format'='csv');
SELECT a.deviceNo, a.ts, d.n FROM a JOIN d ON a.deviceNo = d.deviceNo;
`,
	} {
		small, big := handOffMallocs(t, script, 100_000), handOffMallocs(t, script, 400_000)
		t.Logf("%s join: %d allocations for 100,000 rows, %d for 400,000", name, small, big)
		if big > small+50 {
			t.Errorf("%s join: %d allocations for 100,000 rows, %d for 400,000: %.3f per extra batch",
				name, small, big, float64(big-small)/(300_000/vector.Cap))
		}
	}
}

// handOffMallocs runs script over sensors.csv of rows sensor rows
// (sensorbench.CSV) and devices.csv (its 8 devices, numbered) with csv
// output, sequentially (GOMAXPROCS=1: the parallel readers' own chunks are
// TestParallelJoinInputsSteadyStateAllocs'), and returns the heap
// allocations of the run (dirMallocs).
func handOffMallocs(t *testing.T, script string, rows int) uint64 {
	t.Helper()
	dir := t.TempDir()
	var devices strings.Builder
	for d := 1; d <= 8; d++ {
		fmt.Fprintf(&devices, "设备%d,%d\n", d, d*10)
	}
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), sensorbench.CSV(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "devices.csv"), []byte(devices.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dirMallocs(t, script, dir, 1, 0)
}

// TestJoinHandOffKeepsStrings: an interval join whose joined rows carry
// VARCHAR values of both sides, held for the watermarks and released many
// batches at a time, while the join's state drops and compacts the rows
// those values were read from (every row leaves once its interval ends),
// writes every joined row with its own texts: the rows given on own their
// strings (joinSource.Emit copies them out of the state, whose memory the
// compaction reuses). The reference is computed here from the inputs: a
// partner a row, by id, at most 4 s later.
func TestJoinHandOffKeepsStrings(t *testing.T) {
	const rows = 100_000
	dir := t.TempDir()
	var orders, payments bytes.Buffer
	var want []string
	const t0 = 1610035289736
	for i := range rows {
		ot := t0 + int64(i)*10 + int64(i*7%20)
		note := fmt.Sprintf("note-%d-%s", i, strings.Repeat("x", i%13))
		pt := ot + int64(i*7919%4000)
		method := fmt.Sprintf("m%d%s", i%97, strings.Repeat("y", i%7))
		fmt.Fprintf(&orders, "%d,%d,%s\n", i, ot, note)
		fmt.Fprintf(&payments, "%d,%d,%s\n", i, pt, method)
		want = append(want, fmt.Sprintf("%d,%s,%s,%d", i, note, method, pt))
	}
	for name, b := range map[string]*bytes.Buffer{"orders.csv": &orders, "payments.csv": &payments} {
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `CREATE STREAM orders (id BIGINT, ts BIGINT, note VARCHAR, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'file', 'path' = 'orders.csv', 'format' = 'csv');
CREATE STREAM payments (orderId BIGINT, ts BIGINT, method VARCHAR, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'file', 'path' = 'payments.csv', 'format' = 'csv');
SELECT o.id, o.note, p.method, p.ts FROM orders o JOIN payments p
  ON o.id = p.orderId AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '5' SECOND;
`
	sc, err := parser.Parse("job.sql", script)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s := cli.NewSession(&out, io.Discard, strings.NewReader(""))
	s.Format, s.SideDir = "csv", t.TempDir()
	if code := s.ExecScript(context.Background(), sc, dir); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) == 0 || got[0] != "id,note,method,ts" {
		t.Fatalf("header %q, want id,note,method,ts", got[:min(1, len(got))])
	}
	got = got[1:]
	slices.Sort(got)
	slices.Sort(want)
	if len(got) != len(want) {
		t.Fatalf("%d joined rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("joined row %q, want %q (the first of the sorted rows that differ)", got[i], want[i])
		}
	}
}
