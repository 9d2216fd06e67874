package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREPLPendingNotice: in the REPL a forgotten side branch runs with the next
// query over its stream and one stderr line says so, with the rows each
// branch took, INTO STREAM branches too (SPEC 2.1, issue 29 item 2).
func TestREPLPendingNotice(t *testing.T) {
	h := startREPL(t, "")
	h.line(createSensors)
	h.line("CREATE STREAM warm (d VARCHAR) WITH ('connector'='file', 'path'='" + t.TempDir() + "/warm.csv', 'format'='csv');")
	h.line("SELECT deviceNo INTO SIDE 'hot' FROM sensors WHERE temperature > 97;")
	h.line("SELECT deviceNo INTO STREAM warm FROM sensors WHERE temperature > 90;")
	before := len(h.stderr.String())
	out := h.line("SELECT COUNT(*) AS n FROM sensors;")
	if !strings.Contains(out, "│ 91 │") {
		t.Errorf("COUNT(*) after the branches:\n%s", out)
	}
	got := h.stderr.String()[before:]
	want := "2 pending side branches ran with this query: 'hot' took 5 rows, INTO STREAM warm took 4 rows\n"
	if strings.Count(got, "pending side branch") != 1 || !strings.Contains(got, want) {
		t.Errorf("stderr %q, want one line with %q", got, want)
	}
	// no branch pending: no notice
	before = len(h.stderr.String())
	h.line("SELECT COUNT(*) AS n FROM sensors;")
	if got := h.stderr.String()[before:]; strings.Contains(got, "pending") {
		t.Errorf("a notice without pending branches: %q", got)
	}
}

// TestScriptPendingNoNotice: a script in a pipe keeps its stderr (the notice
// is for the REPL and terminals), and its end still runs pending branches.
func TestScriptPendingNoNotice(t *testing.T) {
	stdout, stderr, code := runArgs(t, "--format", "csv", "-e", valuesDDL+"SELECT x INTO SIDE 'one' FROM t WHERE x = 1; SELECT s FROM t;")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "one,1\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestREPLPendingNoticeJoin: the branches pending on a stream that the next
// query joins run with it, routing that input's rows before the join
// (SPEC 2.1, 2.7), and the notice names them with the rows each took.
func TestREPLPendingNoticeJoin(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "o.csv"), []byte("1,a\n2,b\n3,a\n4,c\n5,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.csv"), []byte("a,10\nb,20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startREPL(t, "")
	h.line("CREATE STREAM o (id BIGINT, k VARCHAR) WITH ('connector'='file', 'path'='" + dir + "/o.csv', 'format'='csv');")
	h.line("CREATE STREAM p (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='" + dir + "/p.csv', 'format'='csv');")
	h.line("SELECT id INTO SIDE 'odd' FROM o WHERE id % 2 = 1;")
	before := len(h.stderr.String())
	out := h.line("SELECT COUNT(*) AS n FROM o JOIN p ON o.k = p.k;")
	if !strings.Contains(out, "│ 1 │") {
		t.Errorf("COUNT(*) of the join of the rows no branch took (id 2):\n%s", out)
	}
	got := h.stderr.String()[before:]
	want := "1 pending side branch ran with this query: 'odd' took 3 rows\n"
	if strings.Count(got, "pending side branch") != 1 || !strings.Contains(got, want) {
		t.Errorf("stderr %q, want one line with %q", got, want)
	}
}
