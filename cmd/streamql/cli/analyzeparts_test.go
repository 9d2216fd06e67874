package cli

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeLatenessByPartition: EXPLAIN ANALYZE of a window query over a
// partitioned source (here a file split in two partitions as --shuffle does,
// read through Kafka's per-partition watermarks) names the partitions whose
// watermark made the rows late (SPEC 4 "Finding out why", SPEC 2.5).
func TestAnalyzeLatenessByPartition(t *testing.T) {
	dir := t.TempDir()
	// partition 0: rows 1-4, partition 1: rows 5-8; 5000 is late in partition 0
	// (its watermark 70000), 6000 in partition 1 (its watermark 90000)
	data := "a,0\nb,70000\nc,5000\nd,80000\ne,0\nf,90000\ng,6000\nh,95000\n"
	os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(data), 0o644)
	script := filepath.Join(dir, "q.sql")
	os.WriteFile(script, []byte(`CREATE STREAM ev (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='ev.csv');
EXPLAIN ANALYZE SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
`), 0o644)
	v := &variant{maxBatch: 3, parts: 2, inOrder: true, rng: rand.New(rand.NewPCG(1, 1))}
	var out, errb strings.Builder
	code := runHooked(context.Background(), runHooks{sourceHook: v.hook}, []string{"--format", "csv", script}, strings.NewReader(""), &out, &errb)
	if code != 0 || !v.split {
		t.Fatalf("exit %d, split %v: %s", code, v.split, errb.String())
	}
	want := "2 rows late; lateness largest 1.4 min, median 1.1 min, by the watermark of stream ev (each row by its partition's: partition 0: 1 row, partition 1: 1 row)"
	if !strings.Contains(out.String(), want) {
		t.Errorf("no %q in\n%s", want, out.String())
	}
}
