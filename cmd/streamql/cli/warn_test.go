package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/parser"
)

// TestPlanningWarningOnStderr: a script (not the REPL) whose join's time
// bounds leave no interval runs, and stderr gets the planning warning
// before the job's rows: "warning: ", the message, the script's line and
// column, the source line and a caret under the condition (SPEC 4's form of
// a planning error); stdout gets the rows only.
func TestPlanningWarningOnStderr(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte("a,1000\na,2000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "CREATE STREAM s (k VARCHAR, t BIGINT, WATERMARK FOR t AS t) WITH ('connector'='file','path'='s.csv','format'='csv');\n" +
		"SELECT a.k FROM s a LEFT JOIN s b ON a.k = b.k AND b.t BETWEEN a.t + 5 AND a.t;\n"
	sc, err := parser.Parse("q.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	s := NewSession(&out, &errOut, nil)
	if code := s.ExecStmts(context.Background(), sc, dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(errOut.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "warning: the time bounds of this join leave no interval") ||
		lines[1] != "q.sql, line 2, column 52:" || !strings.Contains(lines[2], "b.t BETWEEN a.t + 5 AND a.t") ||
		strings.Index(lines[3], "^") != strings.Index(lines[2], "b.t BETWEEN") {
		t.Errorf("stdout %q stderr:\n%s\nwant the warning with its position and a caret under the condition", out.String(), errOut.String())
	}
	if strings.Contains(out.String(), "warning") || strings.Count(out.String(), "a") < 2 {
		t.Errorf("stdout %q, want the two padded rows only", out.String())
	}
}
