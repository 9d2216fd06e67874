package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// TestAnalyzeFitsTerminal: on a terminal narrower than EXPLAIN ANALYZE's
// table, each operator's analysis goes under it, wrapped, and no line is
// wider than the terminal (issue 29 item 6); in a pipe the two columns stay.
func TestAnalyzeFitsTerminal(t *testing.T) {
	sql := "CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file','path'='" + queriesDir + "/sensors.csv','format'='csv');" +
		"SELECT deviceNo INTO SIDE 'hot' FROM sensors WHERE temperature > 90; EXPLAIN ANALYZE SELECT * FROM sensors WHERE temperature < 50;"
	old := terminalWidth
	defer func() { terminalWidth = old }()
	terminalWidth = func(io.Writer) int { return 60 }
	stdout, stderr, code := runArgs(t, "-e", sql)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, l := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		if w := runewidth.StringWidth(l); w > 60 {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
	for _, want := range []string{"│       :- port 1 'hot' ", "            took 9 rows ", "│       :  +- Filter temperature > 90  (#5, append-only) ", "│ Scan sensors (connector=file,", "│     path="} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	terminalWidth = func(io.Writer) int { return 0 }
	stdout, _, _ = runArgs(t, "-e", sql)
	if !strings.Contains(stdout, "│ plan ") || !strings.Contains(stdout, "│ analyze ") {
		t.Errorf("not on a terminal: want the two columns:\n%s", stdout)
	}
}
