package executor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/internal/sensorbench"
)

// TestPlanRunsTwice: one plan, built into operators and run twice in one
// process, gives the same outputs both times (issue 10: the plan is data the
// executor builds from; no run leaves state in it). The split job (SPEC 2.1)
// over a file with malformed rows (SPEC 1: the errors side output).
func TestPlanRunsTwice(t *testing.T) {
	dir := t.TempDir()
	data := append(sensorbench.CSV(3000), "d9,notanumber,1.0\nd9,5,\n"...)
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	job := sensorbench.Plan(t, sensorbench.SplitScript, dir)
	var names []string
	for _, o := range job.Outputs {
		names = append(names, o.Name)
	}
	var runs []string
	for range 2 {
		sink := &orderSink{names: names}
		stats, err := Run(context.Background(), job, &Env{}, func() (Sink, error) { return sink, nil })
		if err != nil {
			t.Fatal(err)
		}
		if stats.Rows != 3002 || len(sink.out) < 3000 {
			t.Fatalf("run read %d rows and wrote %d", stats.Rows, len(sink.out))
		}
		runs = append(runs, strings.Join(sink.out, "\n"))
	}
	if runs[0] != runs[1] {
		t.Errorf("the second run differs from the first:\n%.500s\n---\n%.500s", runs[0], runs[1])
	}
}
