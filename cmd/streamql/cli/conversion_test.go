package cli

import (
	"strings"
	"testing"
)

// TestDecimalNotice: a DECIMAL column read as DOUBLE is said at CREATE in the
// REPL (once, on stderr) and in EXPLAIN, not on a script's stderr (issue 29
// item 7, SPEC 1).
func TestDecimalNotice(t *testing.T) {
	const ddl = "CREATE STREAM o (id BIGINT, price DECIMAL(10, 2), n NUMERIC) WITH ('connector'='values');"
	const note = "stream o: column price DECIMAL(10, 2) is read as DOUBLE (SPEC 1: streamql has no exact DECIMAL)"
	h := startREPL(t, "")
	h.line(ddl)
	if got := h.stderr.String(); strings.Count(got, "is read as DOUBLE") != 2 || !strings.Contains(got, note+"\n") || !strings.Contains(got, "column n NUMERIC is read as DOUBLE") {
		t.Errorf("REPL stderr after CREATE: %q", got)
	}
	stdout, stderr, code := runArgs(t, "--format", "csv", "-e", ddl+"EXPLAIN SELECT * FROM o;")
	if code != 0 || stderr != "" || !strings.Contains(stdout, note) {
		t.Errorf("EXPLAIN: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, _ = runArgs(t, "--format", "csv", "-e", "CREATE STREAM d (x DOUBLE) WITH ('connector'='values'); EXPLAIN SELECT * FROM d;")
	if strings.Contains(stdout, "is read as") {
		t.Errorf("a DOUBLE column noticed: %q", stdout)
	}
}
