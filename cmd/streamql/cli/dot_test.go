package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeFiles writes name → text under dir (folders made as needed).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runArgs runs Run in-process with a time limit (a .read cycle must not hang).
func runArgs(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Run(context.Background(), args, strings.NewReader(""), &out, &errOut) }()
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%q did not end", args)
	}
	return out.String(), errOut.String(), code
}

const valuesDDL = `CREATE STREAM t (x BIGINT, s VARCHAR) WITH ('connector' = 'values');
INSERT INTO t VALUES (1, 'a'), (2, 'b');
`

// TestScriptDotCommands: dot commands on lines of their own in a script work as
// at the prompt and in their place among the statements (SPEC 4); .read reads
// relative to the reading script's folder, whatever the working directory.
func TestScriptDotCommands(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lib/ddl.sql": valuesDDL,
		"lib/inner.sql": `.read ddl.sql
SELECT x FROM t WHERE x = 1;
`,
		"main.sql": `-- dot commands between statements
.read lib/inner.sql
  .format json
SELECT x, s FROM t
  WHERE s <> '
.format tsv';
.timer on
SELECT x FROM t
;
	.format csv;
SELECT s FROM t WHERE x = 2;
`,
	})
	out, errs, code := runArgs(t, filepath.Join(dir, "main.sql"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `┌───┐
│ x │
├───┤
│ 1 │
└───┘
{"x":1,"s":"a"}
{"x":2,"s":"b"}
{"x":1}
{"x":2}
s
b
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if n := strings.Count(errs, " rows in "); n != 2 {
		t.Errorf(".timer on: %d timer lines after it, want 2:\n%s", n, errs)
	}

	// -e takes dot lines too
	out, errs, code = runArgs(t, "-e", ".format csv\nCREATE STREAM u (x BIGINT) WITH ('connector' = 'values');\nINSERT INTO u VALUES (7);\nSELECT x FROM u;")
	if code != 0 || out != "x\n7\n" {
		t.Errorf("-e: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// .schema takes a back-quoted name with a space; .streams lists the streams
	out, errs, code = runArgs(t, "--format", "csv", "-e", "CREATE STREAM `my s` (x BIGINT) WITH ('connector' = 'values');\n.schema `my s`\n.streams\n")
	if want := "column,type,watermark\nx,BIGINT,\"\"\nname,connector,bounded,columns\nmy s,values,"; code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf(".schema `my s`: exit %d, stdout %q, want it to start with %q; stderr %q", code, out, want, errs)
	}

	// .schema 'file' shows the file's inferred schema as DESCRIBE 'file' does
	// (SPEC 1), for any file name a query's FROM may read
	for _, name := range []string{"d.csv", "my d.csv", "d's.csv"} {
		file := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(file, []byte("dev,temp\na,1.5\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		lit := "'" + strings.ReplaceAll(file, "'", "''") + "'"
		want, werrs, wcode := runArgs(t, "--format", "csv", "-e", "DESCRIBE "+lit+";")
		out, errs, code = runArgs(t, "--format", "csv", "-e", ".schema "+lit+"\n")
		if wcode != 0 || code != 0 || out != want || !strings.Contains(out, "temp,DOUBLE") {
			t.Errorf(".schema %s: exit %d, stdout %q, stderr %q; DESCRIBE: exit %d, stdout %q, stderr %q", lit, code, out, errs, wcode, want, werrs)
		}
	}

	// .schema without a name lists the streams, then the views (SPEC 2.6)
	out, errs, code = runArgs(t, "--format", "csv", "-e", "CREATE STREAM s (x BIGINT) WITH ('connector' = 'values');\nCREATE VIEW w AS SELECT x FROM s;\n.schema\n")
	if want := "name,connector,bounded,columns\ns,values,true,x BIGINT\nname,columns,query\nw,x BIGINT,SELECT x FROM s\n"; code != 0 || out != want {
		t.Errorf(".schema: exit %d, stdout %q, want %q; stderr %q", code, out, want, errs)
	}
}

// TestScriptDotErrors: a bad dot line is an error positioned like a SQL error
// (message, line and column, the line, a caret); a syntax error in one means
// nothing runs (exit 2); a .read cycle is an error, not a hang.
func TestScriptDotErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ddl.sql":    valuesDDL,
		"a.sql":      ".read ddl.sql\nSELECT x FROM t;\n.read b.sql\n",
		"b.sql":      "-- b\n  .read 'a.sql'\n",
		"self.sql":   ".read ddl.sql\nSELECT x FROM t;\n.read self.sql\n",
		"fmt.sql":    ".read ddl.sql\nSELECT x FROM t;\n.format xml\n",
		"cmd.sql":    ".read ddl.sql\nSELECT x FROM t;\n  .bogus on\n",
		"timer.sql":  ".timer maybe\n",
		"miss.sql":   ".read ddl.sql\n.read nope.sql\nSELECT x FROM t;\n",
		"schema.sql": ".read ddl.sql\n.schema t\n.schema nope\n",
		"quit.sql":   ".read ddl.sql\n.format csv\nSELECT x FROM t;\n.quit\nSELECT s FROM t;\n",
		"instmt.sql": ".read ddl.sql\nSELECT x\n.format csv\nFROM t;\n",
	})
	for _, tc := range []struct {
		script  string
		code    int
		stdout  string // "" = nothing; "*" = anything
		errWant string
	}{
		{"a.sql", 2, "*", "error: .read cycle: " + filepath.Join(dir, "a.sql") + " is already being run (" +
			filepath.Join(dir, "a.sql") + " → " + filepath.Join(dir, "b.sql") + " → " + filepath.Join(dir, "a.sql") + "); remove one of the .read lines\n" +
			filepath.Join(dir, "b.sql") + ", line 2, column 9:\n    .read 'a.sql'\n          ^\n"},
		{"self.sql", 2, "*", filepath.Join(dir, "self.sql") + ", line 3, column 7:\n  .read self.sql\n        ^\n"},
		{"fmt.sql", 2, "", "error: unknown format 'xml'; use one of table, csv, tsv, json, plain, markdown\n" + filepath.Join(dir, "fmt.sql") + ", line 3, column 9:\n  .format xml\n          ^\n"},
		{"cmd.sql", 2, "", "error: unknown command .bogus; .help lists the commands\n" + filepath.Join(dir, "cmd.sql") + ", line 3, column 3:\n    .bogus on\n    ^\n"},
		{"timer.sql", 2, "", "error: .timer takes on or off, not 'maybe'\n" + filepath.Join(dir, "timer.sql") + ", line 1, column 8:"},
		{"miss.sql", 2, "", "error: cannot read script " + filepath.Join(dir, "nope.sql") + ": no such file or directory\n" + filepath.Join(dir, "miss.sql") + ", line 2, column 7:"},
		{"schema.sql", 2, "*", "error: unknown stream or view 'nope'; .schema without a name lists them (SPEC 2.6: views too)\n" + filepath.Join(dir, "schema.sql") + ", line 3, column 9:"},
		{"quit.sql", 0, "x\n1\n2\n", ""},
		{"instmt.sql", 2, "", "error: unknown stream or alias 'x' in 'x.format'"}, // a '.' inside a statement is SQL
	} {
		out, errs, code := runArgs(t, filepath.Join(dir, tc.script))
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", tc.script, code, tc.code, errs)
		}
		if tc.stdout != "*" && out != tc.stdout {
			t.Errorf("%s: stdout %q, want %q", tc.script, out, tc.stdout)
		}
		if !strings.Contains(errs, tc.errWant) {
			t.Errorf("%s: stderr:\n%s\nwant it to contain:\n%s", tc.script, errs, tc.errWant)
		}
	}
}

// TestSplitDots: dot lines are found only where a statement could start, and
// the SQL keeps its offsets.
func TestSplitDots(t *testing.T) {
	src := ".a 1\nSELECT x\n.b\nFROM t; .c;\n  .d 'it''s /* open\nSELECT '\n.e';\r\n.f\r\n/* .g */ .h;\n-- .i\n.j"
	sql, dots := splitDots(src)
	var got []string
	for _, d := range dots {
		if src[d.Offset] != '.' {
			t.Errorf("offset %d of %q is not a '.'", d.Offset, d.Text)
		}
		got = append(got, d.Text)
	}
	want := []string{".a 1", "  .d 'it''s /* open"[2:], ".f", ".j"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("dot lines %q, want %q", got, want)
	}
	if len(sql) != len(src) || strings.Count(sql, "\n") != strings.Count(src, "\n") {
		t.Errorf("offsets moved: %q", sql)
	}
	for _, d := range dots {
		if strings.TrimSpace(sql[d.Offset:d.Offset+len(d.Text)]) != "" {
			t.Errorf("%q not blanked: %q", d.Text, sql)
		}
	}
	if !strings.Contains(sql, "\n.b\n") || !strings.Contains(sql, "; .c;\n") || !strings.Contains(sql, "/* .g */ .h;") {
		t.Errorf("a '.' inside a statement or after ';' on its line was taken: %q", sql)
	}
}
