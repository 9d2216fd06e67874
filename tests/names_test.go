package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// runScripts runs the scripts (name -> text, in the order of names) as
// `streamql --format csv name...` in a temporary directory.
func runScripts(t *testing.T, names []string, scripts map[string]string) (string, string, int) {
	t.Helper()
	dir := t.TempDir()
	var args []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(scripts[n]), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), append([]string{"--format", "csv"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), strings.ReplaceAll(errb.String(), dir+string(filepath.Separator), ""), code
}

// TestWatermarkErrorInDeclaringScript: a bad WATERMARK expression is an error at
// CREATE STREAM, with the declaring script's name, line, column and caret
// (issue 9, item 13), and nothing of the next script runs.
func TestWatermarkErrorInDeclaringScript(t *testing.T) {
	a := "-- declares s\nCREATE STREAM s (ts BIGINT, v VARCHAR,\n  WATERMARK FOR ts AS v - 1) WITH ('connector' = 'values');\n"
	b := "INSERT INTO s VALUES (1, 'x');\nSELECT * FROM s;\n"
	out, errs, code := runScripts(t, []string{"a.sql", "b.sql"}, map[string]string{"a.sql": a, "b.sql": b})
	want := "a.sql, line 3, column 23:\n    WATERMARK FOR ts AS v - 1) WITH ('connector' = 'values');\n                        ^"
	if code != 2 || out != "" || !strings.Contains(errs, want) || strings.Contains(errs, "b.sql") {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 2, no output, and\n%s", code, out, errs, want)
	}
	// a good watermark declared in a.sql works from b.sql
	a = "CREATE STREAM s (ts BIGINT, v VARCHAR,\n  WATERMARK FOR ts AS ts - 1) WITH ('connector' = 'values');\n"
	out, errs, code = runScripts(t, []string{"a.sql", "b.sql"}, map[string]string{"a.sql": a, "b.sql": b})
	if code != 0 || out != "ts,v\n1,x\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestReservedWordNames: a reserved word names a stream or a column only
// back-quoted, and then everywhere (issue 9, item 19); bare it is refused with
// the reserved-word message at the word.
func TestReservedWordNames(t *testing.T) {
	for _, w := range []string{"select", "from", "order", "key", "desc", "group", "table", "values", "interval", "where"} {
		q := "`" + w + "`"
		sql := fmt.Sprintf("CREATE STREAM %[1]s (%[1]s BIGINT, v VARCHAR) WITH ('connector' = 'values');\n"+
			"INSERT INTO %[1]s (%[1]s, v) VALUES (1, 'a'), (2, 'b');\n"+
			"SELECT %[1]s, v INTO SIDE 'low' FROM %[1]s WHERE %[1]s < 2;\n"+
			"SELECT %[1]s.%[1]s + 10 AS x FROM %[1]s;\n", q)
		out, errs, code := runSQL(t, nil, sql, "--format", "csv")
		if code != 0 || !strings.Contains(out, "main,12\n") || !strings.Contains(out, "low,1,a\n") {
			t.Errorf("%s back-quoted: exit %d, stdout %q, stderr %q", w, code, out, errs)
		}
		for _, bad := range []string{
			"CREATE STREAM " + w + " (a BIGINT) WITH ('connector' = 'values');",
			"CREATE STREAM s (" + w + " BIGINT) WITH ('connector' = 'values');",
		} {
			_, errs, code := runSQL(t, nil, bad, "--format", "csv")
			msg := strings.ToUpper(w) + " is a reserved word: write `" + w + "` to use it as a name"
			if code != 2 || !strings.Contains(errs, msg) {
				t.Errorf("%s: exit %d, stderr %q, want %q", bad, code, errs, msg)
			}
		}
	}
}

// TestSideBranchesPlanLinearly: declaring n side branches costs linear memory
// (issue 9, item 3: 20,000 branches took 103 s, each one checked against a job of
// all the pending ones).
func TestSideBranchesPlanLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("plans thousands of side branches")
	}
	script := func(n int) string {
		var b strings.Builder
		b.WriteString("CREATE STREAM s (a BIGINT, v VARCHAR) WITH ('connector' = 'values');\n")
		for i := range n {
			fmt.Fprintf(&b, "SELECT a, v INTO SIDE 'side%d' FROM s WHERE a = %d;\n", i%50, i)
		}
		return b.String()
	}
	cost := func(n int) uint64 {
		src := script(n)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		out, errs, code := runSQL(t, nil, src, "--format", "csv")
		runtime.ReadMemStats(&m1)
		if code != 0 {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
		}
		return m1.TotalAlloc - m0.TotalAlloc
	}
	b1, b4 := cost(1000), cost(4000)
	if float64(b4) > 6*float64(b1) {
		t.Errorf("1000 side branches allocated %d bytes, 4000 %d: %.1f times as much, want linear (at most 6)", b1, b4, float64(b4)/float64(b1))
	}
}
