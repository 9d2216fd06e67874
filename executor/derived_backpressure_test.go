package executor_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"streamql/cmd/streamql/cli"
	"streamql/executor"
)

// The back-pressure between a derived relation's jobs and the job reading it
// (derived.go, derivedBatches): a part's job waits while the reading job has
// not given its batches back. Each case below reads derived relations in a
// way that could wait forever if a part's job could block the reading job
// (both inputs of a join from the same view, a join that reads the input
// behind in event time while the other one's job is stopped with its
// batches out, a UNION ALL merged in event-time order whose parts differ in
// size by a thousand times, a lookup join whose right side is a GROUP BY of
// a view), with one batch a part (every job waits for the other at each
// batch) and with the default, under a time limit. The results are checked against a reference
// computed here in Go.

// bpRow is one row of the test's streams: key, event time in ms, value.
type bpRow struct {
	k  string
	ts int64
	v  int64
}

// bpRows returns n rows of keys k0..k(keys-1), event times from start in
// steps of step ms (in order), values 0..n-1.
func bpRows(n, keys int, start, step int64) []bpRow {
	rows := make([]bpRow, n)
	for i := range rows {
		rows[i] = bpRow{k: fmt.Sprintf("k%d", (i*7)%keys), ts: start + int64(i)*step, v: int64(i)}
	}
	return rows
}

func bpFile(rows []bpRow) string {
	var sb strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&sb, "%s,%d,%d\n", r.k, r.ts, r.v)
	}
	return sb.String()
}

const bpDDL = `CREATE STREAM a (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');
CREATE STREAM b (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');
`

// bpRun runs script over files in a temporary folder in-process (csv
// output) and returns its output's data lines sorted; it fails the test when
// the run takes more than limit (a deadlock) or exits non-zero.
func bpRun(t *testing.T, files map[string]string, script string, limit time.Duration) []string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	go func() {
		var out, errs bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", "csv", "-f", path}, strings.NewReader(""), &out, &errs)
		done <- result{out.String(), errs.String(), code}
	}()
	select {
	case r := <-done:
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.errs)
		}
		lines := strings.Split(strings.TrimSpace(r.out), "\n")[1:]
		slices.Sort(lines)
		return lines
	case <-time.After(limit):
		t.Fatalf("no end after %v (a deadlock between a derived relation's jobs and the job reading it?):\n%s", limit, script)
		return nil
	}
}

func TestDerivedBackPressureNoDeadlock(t *testing.T) {
	a := bpRows(20_000, 50, 0, 10)
	b := bpRows(30, 50, 0, 1000)
	far := bpRows(5_000, 50, 10_000_000, 10) // (a's times far ahead of b's)
	files := map[string]string{"a.csv": bpFile(a), "b.csv": bpFile(b)}
	farFiles := map[string]string{"a.csv": bpFile(far), "b.csv": bpFile(a)}

	// reference: a self-join of a on the key within 50 ms, counted
	selfJoin := func(rows []bpRow) []string {
		n, s := int64(0), int64(0)
		for _, x := range rows {
			for _, y := range rows {
				if x.k == y.k && y.ts >= x.ts-50 && y.ts <= x.ts+50 {
					n++
					s += y.v
				}
			}
		}
		return []string{fmt.Sprintf("%d,%d", n, s)}
	}
	// the rows of a with each key's count in b
	lookup := func(l, r []bpRow) []string {
		cnt := map[string]int64{}
		for _, y := range r {
			cnt[y.k]++
		}
		var out []string
		for _, x := range l {
			if c, ok := cnt[x.k]; ok {
				out = append(out, fmt.Sprintf("%d,%d", x.v, c))
			}
		}
		slices.Sort(out)
		return out
	}
	// the interval join of l and r on the key within 1 s, counted
	interval := func(l, r []bpRow) []string {
		byKey := map[string][]bpRow{}
		for _, y := range r {
			byKey[y.k] = append(byKey[y.k], y)
		}
		n := int64(0)
		for _, x := range l {
			for _, y := range byKey[x.k] {
				if y.ts >= x.ts-1000 && y.ts <= x.ts+1000 {
					n++
				}
			}
		}
		return []string{fmt.Sprint(n)}
	}
	perKey := func(parts ...[]bpRow) []string {
		n := map[string]int64{}
		for _, rows := range parts {
			for _, x := range rows {
				n[x.k]++
			}
		}
		var out []string
		for k, c := range n {
			out = append(out, fmt.Sprintf("%s,%d", k, c))
		}
		slices.Sort(out)
		return out
	}
	// an interval join of views va (over a) and vb (over b) as x and y, from
	// the join from
	farJoin := func(from string) string {
		return "CREATE VIEW va AS SELECT k, ts, v FROM a;\nCREATE VIEW vb AS SELECT k, ts, v FROM b;\n" +
			"SELECT COUNT(*) AS n FROM " + from + " ON x.k = y.k AND y.ts BETWEEN x.ts - INTERVAL '1' SECOND AND x.ts + INTERVAL '1' SECOND;"
	}
	cases := []struct {
		name   string
		files  map[string]string
		script string
		want   []string
	}{
		{"both inputs of a join from one view", files,
			"CREATE VIEW v AS SELECT k, ts, v FROM a;\n" +
				"SELECT COUNT(*) AS n, SUM(y.v) AS s FROM v x JOIN v y ON x.k = y.k AND y.ts BETWEEN x.ts - INTERVAL '0.05' SECOND AND x.ts + INTERVAL '0.05' SECOND;",
			selfJoin(a)},
		{"a join's inputs far apart in event time, both views", farFiles, farJoin("va x JOIN vb y"), interval(far, a)},
		{"the same, the input ahead on the right", farFiles, farJoin("vb y JOIN va x"), interval(far, a)},
		{"a UNION ALL merged in event time, parts 20,000 and 30 rows", files,
			"CREATE VIEW u AS SELECT k, ts, v FROM a UNION ALL SELECT k, ts, v FROM b;\n" +
				"SELECT k, COUNT(*) AS n FROM u GROUP BY k;",
			perKey(a, b)},
		{"a lookup join whose right side is a GROUP BY of a view", files,
			"CREATE VIEW vb AS SELECT k, ts, v FROM b;\n" +
				"SELECT x.v, c.n FROM (SELECT k, v FROM a) x JOIN (SELECT k, COUNT(*) AS n FROM vb GROUP BY k) c ON x.k = c.k;",
			lookup(a, b)},
		{"a GROUP BY of a view", files,
			"CREATE VIEW v AS SELECT k, ts, v FROM a WHERE v >= 0;\nSELECT k, COUNT(*) AS n FROM v GROUP BY k;",
			perKey(a)},
	}
	for _, batches := range []int{1, 3} {
		restore := executor.SetDerivedBatches(batches)
		for _, c := range cases {
			got := bpRun(t, c.files, bpDDL+c.script+"\n", 60*time.Second)
			if !slices.Equal(got, c.want) {
				t.Errorf("%d batch(es) a part: %s: got %d lines %.300q, want %d lines %.300q", batches, c.name, len(got), got, len(c.want), c.want)
			}
		}
		restore()
	}
}

// TestDerivedBatchesBounded: the rows a derived relation's part gives go
// through at most derivedBatches batches (3), reused, however many rows it
// gives: a view of 20,000 rows (20 batches of 1,024) read by a GROUP BY, and a
// UNION ALL of two parts, make at most 3 batches a part. (Each batch was a
// new one: 20 and more.)
func TestDerivedBatchesBounded(t *testing.T) {
	a := bpRows(20_000, 50, 0, 10)
	files := map[string]string{"a.csv": bpFile(a), "b.csv": bpFile(a)}
	for _, c := range []struct {
		script string
		parts  int64
	}{
		{"CREATE VIEW v AS SELECT k, ts, v FROM a WHERE v >= 0;\nSELECT k, COUNT(*) AS n FROM v GROUP BY k;", 1},
		{"CREATE VIEW u AS SELECT k, ts, v FROM a UNION ALL SELECT k, ts, v FROM b;\nSELECT k, COUNT(*) AS n FROM u GROUP BY k;", 2},
	} {
		before := executor.DerivedBatchesMade()
		if got := bpRun(t, files, bpDDL+c.script+"\n", 60*time.Second); len(got) != 50 {
			t.Fatalf("%s: %d groups, want 50", c.script, len(got))
		}
		if made := executor.DerivedBatchesMade() - before; made < 1 || made > 3*c.parts {
			t.Errorf("%s: %d batches made for 20,000 rows a part over %d part(s); want 1 to %d", c.script, made, c.parts, 3*c.parts)
		}
	}
}

// TestJoinInputBranchesInPortStage: a join input whose stream has side
// branches routes its rows in the input's port stage (joinroute.go,
// plan.Derived.RoutedPart): no derived relation's part runs for it, so
// none makes a batch of main rows (derived.go), on either input, however
// many rows it routes; branches the port stage does not run (a semi join's
// build side is read whole first) still run as a derived relation's part,
// which does make them. Both give the join the rows no branch took.
func TestJoinInputBranchesInPortStage(t *testing.T) {
	a := bpRows(5_000, 20, 0, 10)
	b := bpRows(3_000, 20, 5, 10)
	files := map[string]string{"a.csv": bpFile(a), "b.csv": bpFile(b)}
	join := "SELECT x.v, y.v FROM a x JOIN b y ON x.k = y.k AND x.ts BETWEEN y.ts - INTERVAL '1' SECOND AND y.ts;\n"
	for _, c := range []struct {
		name, branches string
		port           bool
	}{
		{"a filter on the left input", "SELECT v INTO SIDE 'odd' FROM a WHERE v % 2 = 1;\n", true},
		{"on both inputs, a Top-2 on the right", "SELECT v INTO SIDE 'odd' FROM a WHERE v % 2 = 1;\n" +
			"SELECT k, v INTO SIDE 'top' FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM b WHERE v % 3 = 0) WHERE rn <= 2;\n", true},
		{"a semi join's branch", "SELECT v INTO SIDE 'some' FROM a WHERE k IN (SELECT k FROM b WHERE v < 3);\n", false},
	} {
		before := executor.DerivedBatchesMade()
		got := bpRun(t, files, bpDDL+c.branches+join, 60*time.Second)
		made := executor.DerivedBatchesMade() - before
		if c.port && made != 0 || !c.port && made == 0 {
			t.Errorf("%s: %d batches of a derived part's main rows (routed in the port stage: %v)", c.name, made, c.port)
		}
		if len(got) == 0 {
			t.Errorf("%s: no output", c.name)
		}
	}
}
