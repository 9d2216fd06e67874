package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shuffleViewHead declares the file stream the view and inline forms of
// TestShuffleWindowOverViewIsInline read, with the view.
const shuffleViewHead = `CREATE STREAM readings (
  dev  VARCHAR,
  ts   TIMESTAMP(3),
  temp DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '10' SECOND
) WITH ('connector' = 'file', 'path' = 'readings.csv', 'format' = 'csv');
CREATE VIEW warm AS SELECT dev, ts, temp FROM readings WHERE temp >= 10;
`

// TestShuffleWindowOverViewIsInline: a window over a filtering view of a
// file stream has the rows, late rows and firings of the same window
// written inline over the stream with the view's WHERE (SPEC 2.6: a filter
// keeps its input's watermark), also when `streamql test --shuffle` splits
// the file into partitions (SPEC 2.5: a row is late by its partition's
// watermark, windows fire by the partitions' minimum). Random readings
// (out of order, some behind the watermark), each seed's split read by
// both forms alike (one source each, a variant of the same seed); the
// reference is the inline form, planned over the stream itself. It was
// not so: the view's rows carried their partitions' watermarks as the
// stream's, so windows fired early and rows of the other partitions went
// to 'late' (queries/tests/window-over-view, seed 241383643).
func TestShuffleWindowOverViewIsInline(t *testing.T) {
	queries := map[string]string{
		"view": shuffleViewHead + `SELECT window_start, window_end, dev, COUNT(*) AS n, MAX(temp) AS max_t
  FROM TABLE(TUMBLE(TABLE warm, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, dev;
`,
		"inline": shuffleViewHead + `SELECT window_start, window_end, dev, COUNT(*) AS n, MAX(temp) AS max_t
  FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  WHERE temp >= 10
  GROUP BY window_start, window_end, dev;
`,
	}
	root := t.TempDir()
	cases := map[string]testCase{}
	for name, q := range queries {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "query.sql"), []byte(q), 0o644); err != nil {
			t.Fatal(err)
		}
		cases[name] = testCase{name: name, dir: dir}
	}
	ctx := context.Background()
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	split, late := 0, 0
	for s := range seeds {
		seed := uint64(241383643 + s)
		csv := randomReadings(rand.New(rand.NewPCG(seed, 7)))
		for _, c := range cases {
			if err := os.WriteFile(filepath.Join(c.dir, "readings.csv"), []byte(csv), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		runs := map[string]caseRun{}
		for name, c := range cases {
			v := newVariant(seed, true)
			if v.parts == 1 {
				v.parts = 2 + int(seed%3)
			}
			r, p := execCase(ctx, v.hook, c, time.Minute)
			if p != "" {
				t.Fatalf("seed %d, %s: %s", seed, name, p)
			}
			if r.code != 0 {
				t.Fatalf("seed %d, %s: exit status %d: %s", seed, name, r.code, r.stderr)
			}
			if v.split {
				split++
			}
			runs[name] = r
		}
		want, got := runs["inline"], runs["view"]
		// (stderr names the query's line, which differs between the forms)
		want.stderr, got.stderr = "", ""
		if diffs := compareRuns(want, got, true); len(diffs) > 0 {
			t.Fatalf("seed %d: the window over the view differs from the inline window:\n%s\nreadings.csv:\n%s", seed, strings.Join(diffs, "\n"), csv)
		}
		if hasRows(want.sides["late.csv"]) {
			late++
		}
	}
	if split < 2*seeds || late == 0 {
		t.Fatalf("the inputs did not exercise the fault: %d of %d runs split, %d of %d seeds with late rows", split, 2*seeds, late, seeds)
	}
}

// randomReadings returns 30 to 90 readings (dev,ts,temp) of 3 devices, in
// mostly rising time with some rows up to 40 s back (some behind the
// 10-second watermark), a third of them colder than the view's 10 degrees.
func randomReadings(rng *rand.Rand) string {
	var b strings.Builder
	at := time.Date(2021, 1, 7, 16, 0, 0, 0, time.UTC)
	for range 30 + rng.IntN(61) {
		ts := at
		if rng.IntN(5) == 0 {
			ts = at.Add(-time.Duration(rng.IntN(40)) * time.Second)
		} else {
			at = at.Add(time.Duration(rng.IntN(12)) * time.Second)
			ts = at
		}
		fmt.Fprintf(&b, "d%d,%s,%.1f\n", 1+rng.IntN(3), ts.Format("2006-01-02 15:04:05"), float64(rng.IntN(400))/10)
	}
	return b.String()
}
