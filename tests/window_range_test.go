package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowOutsideInt64UnderEachPolicy: a row whose time has a window that
// does not fit in a BIGINT (its end would wrap, SPEC 2.4, issue 30) is a
// malformed row of its stream, under the stream's 'errors' policy (SPEC 1),
// both for a window aggregate (HOP) and for a window TVF without
// aggregation (TUMBLE): 'fail' ends the job with the row's position and the
// reason, 'skip' drops it and counts it, 'side' writes it to the errors
// output with its text and the reason; the other rows' results are the same
// under 'skip' and 'side'. The aggregate reaches the policy and the source's
// positions through the executor (aggregate.Options.Malformed, Wire).
func TestWindowOutsideInt64UnderEachPolicy(t *testing.T) {
	const huge = "9223372036854775000"
	queries := []struct {
		name, query, fn string
		rows            string // the rows of the two good input rows, csv with its header
	}{
		{"aggregate", "SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(HOP(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end;", "HOP",
			"window_start,window_end,n\n0,2000,2\n1000,3000,2\n"},
		{"tvf", "SELECT deviceNo, ts, window_start FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' SECOND));", "TUMBLE",
			"deviceNo,ts,window_start\nd,1000,1000\nd,1500,1000\n"},
	}
	for _, q := range queries {
		reason := "column ts: " + huge + " has a " + q.fn + " window that does not fit in a BIGINT (would wrap)"
		for _, policy := range []string{"fail", "skip", "side"} {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte("d,1000,1.0\nd,1500,3.0\nd,"+huge+",2.0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			script := filepath.Join(dir, "q.sql")
			text := "CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts)\n" +
				"  WITH ('connector' = 'file', 'path' = 's.csv', 'format' = 'csv', 'errors' = '" + policy + "');\n" + q.query + "\n"
			if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			sideDir := t.TempDir()
			r := inProcess(t, dir, []string{"--format", "csv", "--side-dir", sideDir, script})
			errs, _ := os.ReadFile(filepath.Join(sideDir, "errors.csv"))
			what := q.name + " under 'errors'='" + policy + "'"
			switch policy {
			case "fail":
				if r.code == 0 || !strings.Contains(r.stderr, "s.csv:3: malformed row in stream sensors: "+reason) || !strings.Contains(r.stderr, "'errors'='fail'") {
					t.Errorf("%s: exit %d, stderr %q; want a failure at s.csv:3 with %q", what, r.code, r.stderr, reason)
				}
			case "skip":
				if r.code != 0 || r.stdout != q.rows || !strings.Contains(r.stderr, "stream sensors: 1 malformed row(s) skipped") || len(errs) > 0 {
					t.Errorf("%s: exit %d, stdout %q, stderr %q, errors %q; want %q and one row skipped", what, r.code, r.stdout, r.stderr, errs, q.rows)
				}
			case "side":
				want := "stream,position,raw,error\nsensors,s.csv:3,\"d," + huge + ",2.0\"," + reason
				if r.code != 0 || r.stdout != q.rows || !strings.HasPrefix(string(errs), want) || !strings.Contains(r.stderr, "1 malformed row(s) sent to side output 'errors'") {
					t.Errorf("%s: exit %d, stdout %q, stderr %q, errors %q; want %q and the errors output starting %q", what, r.code, r.stdout, r.stderr, errs, q.rows, want)
				}
			}
		}
	}
}
