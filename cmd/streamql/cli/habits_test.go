package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDashC: -c SQL is -e SQL (psql, duckdb), mixed with -e in order.
func TestDashC(t *testing.T) {
	stdout, stderr, code := runArgs(t, "--format", "csv", "-c", "SELECT 1 AS a", "-e", "SELECT 2 AS b", "-cSELECT 3 AS c")
	if code != 0 || stdout != "a\n1\nb\n2\nc\n3\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-e", "-c"}, []string{"-e", "-c"}}, // a value stays
		{[]string{"--", "-c"}, []string{"--", "-c"}},
		{[]string{"--format", "csv", "-c", "x"}, []string{"--format", "csv", "-e", "x"}},
	} {
		if got := aliasArgs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("aliasArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestScriptsRunInCommandLineOrder: -f files and -e/-c SQL run in the order
// the command line gives them, whatever the flag (psql's rule), after the
// positional script files; a SET given first applies to the scripts after
// it.
func TestScriptsRunInCommandLineOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, text)
		return p
	}
	f1 := write("one.sql", "SELECT 1 AS f;\n")
	f2 := write("two.sql", "SELECT 2 AS f;\n")
	pos := write("pos.sql", "SELECT 0 AS p;\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", "SELECT 9 AS e", "-f", f1, "-c", "SELECT 8 AS e", "-f", f2}, "e\n9\nf\n1\ne\n8\nf\n2\n"},
		{[]string{"-f", f2, "-e", "SELECT 7 AS e", pos}, "p\n0\nf\n2\ne\n7\n"},
		{[]string{"--format", "table", "-e", "SET 'format' = 'csv'", "-f", f1}, "f\n1\n"},
	} {
		args := tc.args
		if args[0] != "--format" {
			args = append([]string{"--format", "csv"}, args...)
		}
		stdout, stderr, code := runArgs(t, args...)
		if code != 0 || stdout != tc.want {
			t.Errorf("%q: exit %d, stdout %q (want %q), stderr %q", tc.args, code, stdout, tc.want, stderr)
		}
	}
}

// TestREPLHabits: .mode is .format; exit, quit and \q alone on a line leave
// the REPL (not inside a statement, where they are SQL text).
func TestREPLHabits(t *testing.T) {
	for _, word := range []string{"exit", "QUIT", `\q`, "quit;"} {
		h := startREPL(t, "")
		h.line(".mode csv")
		if out := h.line("SELECT 1 AS a;"); !strings.Contains(out, "a\n1\n") {
			t.Errorf(".mode csv: %q", out)
		}
		h.send("SELECT 1 AS\n")
		h.waitPrompt()
		h.line(word) // inside a statement: its text
		h.line(";")
		if out := h.line("SELECT 2 AS b;"); !strings.Contains(out, "b\n2\n") {
			t.Errorf("%s inside a statement ended the REPL: %q", word, out)
		}
		if code := h.exit(word + "\n"); code != 0 {
			t.Errorf("%s: status %d", word, code)
		}
	}
}

// TestTestCommandUpdateNewCase: `streamql test DIR --update` makes a folder
// with query.sql alone a case, creating its expected/ from a run; without
// --update the folder is not a case, and is never passed over unseen: the
// no-case error names it, and beside other cases it is listed as SKIP and
// counted.
func TestTestCommandUpdateNewCase(t *testing.T) {
	root := t.TempDir()
	c := filepath.Join(root, "new")
	writeFile(t, filepath.Join(c, "query.sql"), "SELECT 1 AS a;\n")
	if code, _, errs := runTestCmd(t, root); code != 2 || !strings.Contains(errs, "found query.sql without expected/ in "+filepath.ToSlash(c)+": streamql test --update writes expected/") {
		t.Fatalf("without --update: exit %d, want 2 (no case) naming the new one: %s", code, errs)
	}
	old := filepath.Join(root, "old")
	writeFile(t, filepath.Join(old, "query.sql"), "SELECT 2 AS b;\n")
	writeFile(t, filepath.Join(old, "expected", "main.csv"), "b\n2\n")
	if code, out, _ := runTestCmd(t, root); code != 0 || !strings.Contains(out, "PASS "+filepath.ToSlash(old)) ||
		!strings.Contains(out, "SKIP "+filepath.ToSlash(c)+": query.sql without expected/") || !strings.Contains(out, "1 passed, 0 failed, 1 skipped") {
		t.Fatalf("beside a case, without --update: exit %d:\n%s", code, out)
	}
	if err := os.RemoveAll(old); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runTestCmd(t, root, "--update")
	if code != 1 || !strings.Contains(out, "new case: no expected/ folder") || !strings.Contains(out, "wrote main.csv") {
		t.Fatalf("--update: exit %d:\n%s", code, out)
	}
	if got := readFile(t, filepath.Join(c, "expected", "main.csv")); got != "a\n1\n" {
		t.Errorf("expected/main.csv %q", got)
	}
	if code, out, _ = runTestCmd(t, root); code != 0 {
		t.Fatalf("after --update: exit %d:\n%s", code, out)
	}
}

// TestTestCommandEmptyExpected: an expected/ folder without main.csv expects
// no main rows, as a missing side file expects no side rows: a case whose
// expected/ is empty fails when its query prints rows (it passed whatever the
// query printed), and passes when the query prints none; --update then writes
// main.csv.
func TestTestCommandEmptyExpected(t *testing.T) {
	for _, c := range []struct {
		query string
		pass  bool
	}{
		{"SELECT 1 AS a;\n", false},
		{"CREATE STREAM v (a BIGINT) WITH ('connector'='values');\nSELECT a FROM v;\n", true}, // a header, no rows
		{"CREATE STREAM v (a BIGINT) WITH ('connector'='values');\nINSERT INTO v VALUES (1), (2);\nSELECT a INTO SIDE 'x' FROM v WHERE a > 1;\nSELECT a FROM v;\n", false},
	} {
		root := t.TempDir()
		dir := filepath.Join(root, "case")
		writeFile(t, filepath.Join(dir, "query.sql"), c.query)
		if err := os.MkdirAll(filepath.Join(dir, "expected"), 0o755); err != nil {
			t.Fatal(err)
		}
		code, out, _ := runTestCmd(t, root)
		if c.pass {
			if code != 0 {
				t.Errorf("%q with an empty expected/: exit %d, want 0:\n%s", c.query, code, out)
			}
			continue
		}
		if code != 1 || !strings.Contains(out, "unexpected rows in") {
			t.Errorf("%q with an empty expected/: exit %d, want 1 and the unexpected rows:\n%s", c.query, code, out)
		}
		if code, out, _ = runTestCmd(t, root, "--update"); code != 1 || !strings.Contains(out, "wrote main.csv") {
			t.Errorf("--update: exit %d:\n%s", code, out)
		}
		if code, out, _ = runTestCmd(t, root); code != 0 {
			t.Errorf("after --update: exit %d:\n%s", code, out)
		}
	}
}
