package tests

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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

// TestWindowOutsideInt64KeepsWatermark: a row whose window does not fit in a
// BIGINT is malformed, so it does not move the watermark (SPEC 1, "Bad
// input"): the rows after it are not late, and every window aggregate
// (TUMBLE, HOP, CUMULATE, SESSION) and window TVF gives the same rows as
// over the input without it, under 'skip' and 'side', for a bad row at
// either end of int64 at a random place, on a small file (sequential) and a
// big one (the parallel aggregate's chunks, sent back to the sequential
// path). The TUMBLE counts are also checked against a count per window
// computed here. The watermark went to the bad row's time, and every later
// row was late.
func TestWindowOutsideInt64KeepsWatermark(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	queries := map[string]string{
		"TUMBLE":   "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;",
		"HOP":      "SELECT window_start, COUNT(*) AS n, SUM(v) AS v FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP BY window_start, window_end;",
		"CUMULATE": "SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) GROUP BY window_start, window_end;",
		"SESSION":  "SELECT k, window_start, window_end, COUNT(*) AS n FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '700' MILLISECOND)) GROUP BY k, window_start, window_end;",
		"TVF":      "SELECT k, ts, window_start FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE v > 5;",
	}
	for _, big := range []bool{false, true} {
		n := 60
		if big {
			n = 40000 // (over two chunks of the parallel aggregate)
		}
		var good []string
		counts := map[int64]int{}
		ts := int64(10_000)
		for range n {
			ts += int64(rng.IntN(300))
			good = append(good, fmt.Sprintf("k%d,%d,%d", rng.IntN(3), ts, rng.IntN(10)))
			counts[ts-ts%1000]++
		}
		for name, q := range queries {
			if big && name != "TUMBLE" && name != "HOP" {
				continue
			}
			for _, bad := range []string{"9223372036854775807", "-9223372036854775808"} {
				if name == "SESSION" && bad[0] == '-' {
					continue // (a session from the least BIGINT fits: a late row)
				}
				at := rng.IntN(len(good)-1) + 1
				with := append(append(append([]string(nil), good[:at]...), "k1,"+bad+",9"), good[at:]...)
				var outs [2]string
				for _, policy := range []string{"skip", "side"} {
					for k, rows := range [][]string{good, with} {
						dir := t.TempDir()
						if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
							t.Fatal(err)
						}
						script := filepath.Join(dir, "q.sql")
						text := "CREATE STREAM s (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n" +
							"  WITH ('connector' = 'file', 'path' = 's.csv', 'format' = 'csv', 'errors' = '" + policy + "');\n" + q + "\n"
						if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
							t.Fatal(err)
						}
						r := inProcess(t, dir, []string{"--format", "csv", script})
						what := fmt.Sprintf("%s (big %v) under '%s' with the row at %s as row %d", name, big, policy, bad, at+1)
						if r.code != 0 || strings.Contains(r.stderr, "late") {
							t.Fatalf("%s: exit %d, stderr %q", what, r.code, r.stderr)
						}
						if k == 1 && !strings.Contains(r.stderr, "stream s: 1 malformed row(s)") {
							t.Fatalf("%s: stderr %q, want the row malformed", what, r.stderr)
						}
						outs[k] = r.stdout
						if name == "TUMBLE" {
							var want strings.Builder
							want.WriteString("window_start,n\n")
							starts := slices.Sorted(maps.Keys(counts))
							for _, s := range starts {
								fmt.Fprintf(&want, "%d,%d\n", s, counts[s])
							}
							if r.stdout != want.String() {
								t.Fatalf("%s:\n%s\nwant, counted here:\n%s", what, r.stdout, want.String())
							}
						}
					}
					if outs[0] != outs[1] {
						t.Fatalf("%s (big %v) under '%s' with the row at %s as row %d:\n%s\nwant, as without it:\n%s", name, big, policy, bad, at+1, outs[1], outs[0])
					}
				}
			}
		}
	}
}

// TestRelationRefusalGoesToItsStreamsErrors: a row that the query reading
// a relation refuses (a UNION ALL of two streams carries no stream's
// watermark, so the window over it checks its rows itself: a time whose
// window does not fit in a BIGINT, SPEC 2.4) goes by the errors options of
// the stream the relation's rows come from (plan.ErrorsStream: its first
// SELECT's), as the same refusal over the stream does: its side output as
// renamed ('errors.side'), 'skip', 'fail'. A relation has no errors
// options of its own; the row went to a side output with an empty name, which the
// command line refused to write ("cannot be a file name"), losing the
// job. Each shape reads the union in FROM, through a WITH name and through
// a view, or an interval join in FROM (its rows' time is its left
// input's, whose options they go by); the good rows' windows are the same
// under 'side' and 'skip'.
func TestRelationRefusalGoesToItsStreamsErrors(t *testing.T) {
	const huge = "9223372036854775000"
	const union = "window_start,n\n0,3\n1000,3\n" // (s's 1000 and 1500 and v's 1200, each in two HOP windows)
	shapes := map[string]struct{ q, rows, fn string }{
		"subquery": {"SELECT window_start, COUNT(*) AS n FROM TABLE(HOP(TABLE (SELECT d, ts FROM s UNION ALL SELECT d, ts FROM v), DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end;", union, "HOP"},
		"WITH":     {"WITH u AS (SELECT d, ts FROM s UNION ALL SELECT d, ts FROM v) SELECT window_start, COUNT(*) AS n FROM TABLE(HOP(TABLE u, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end;", union, "HOP"},
		"view":     {"CREATE VIEW u AS SELECT d, ts FROM s UNION ALL SELECT d, ts FROM v;\nSELECT window_start, COUNT(*) AS n FROM TABLE(HOP(TABLE u, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end;", union, "HOP"},
		// an interval join's rows, whose time is its left input's (s's): the
		// pairs (1000,1000), (1000,1500), (1500,1500) and the huge row's
		"join": {"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE (SELECT s.d, s.ts FROM s JOIN s2 ON s.d = s2.d AND s.ts BETWEEN s2.ts - INTERVAL '1' SECOND AND s2.ts), DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;", "window_start,n\n1000,3\n", "TUMBLE"},
	}
	for name, sh := range shapes {
		q, rows := sh.q, sh.rows
		reason := "column ts: " + huge + " has a " + sh.fn + " window that does not fit in a BIGINT (would wrap)"
		for _, policy := range []string{"side", "skip", "fail"} {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte("d,1000\nd,1500\nd,"+huge+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			text := "CREATE STREAM s (d VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector' = 'file', 'path' = 's.csv', 'format' = 'csv', 'errors' = '" + policy + "', 'errors.side' = 'bad');\n" +
				"CREATE STREAM s2 (d VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector' = 'file', 'path' = 's.csv', 'format' = 'csv', 'errors.side' = 'bad2');\n" +
				"CREATE STREAM v (d VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector' = 'values');\nINSERT INTO v VALUES ('x', 1200);\n" + q + "\n"
			script := filepath.Join(dir, "q.sql")
			if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			sideDir := t.TempDir()
			r := inProcess(t, dir, []string{"--format", "csv", "--side-dir", sideDir, script})
			bad, _ := os.ReadFile(filepath.Join(sideDir, "bad.csv"))
			what := name + " under 'errors'='" + policy + "'"
			switch policy {
			case "side":
				if r.code != 0 || r.stdout != rows || !strings.Contains(string(bad), reason) || !strings.Contains(r.stderr, "1 malformed row(s) sent to side output 'bad'") {
					t.Errorf("%s: exit %d, stdout %q, stderr %q, bad.csv %q; want %q and the row in side output 'bad'", what, r.code, r.stdout, r.stderr, bad, rows)
				}
			case "skip":
				if r.code != 0 || r.stdout != rows || len(bad) > 0 || !strings.Contains(r.stderr, "1 malformed row(s) skipped") {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want %q and one row skipped", what, r.code, r.stdout, r.stderr, rows)
				}
			case "fail":
				if r.code == 0 || !strings.Contains(r.stderr, reason) || !strings.Contains(r.stderr, "'errors'='fail'") {
					t.Errorf("%s: exit %d, stderr %q; want a failure with %q", what, r.code, r.stderr, reason)
				}
			}
		}
	}
}
