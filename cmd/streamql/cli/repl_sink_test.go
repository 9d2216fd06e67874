package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hotter counts the rows of queries/sensors.csv hotter than min degrees.
func hotter(t *testing.T, min float64) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(queriesDir, "sensors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(l, ",")
		if v, err := strconv.ParseFloat(strings.TrimSpace(f[len(f)-1]), 64); err == nil && v > min {
			n++
		}
	}
	return n
}

// TestREPLSinks checks that INSERT INTO and INTO STREAM write a file sink from
// the REPL (SPEC 2.5): nothing of the main output on the terminal, the file
// holding the header and the rows, and a planning error leaves the REPL going.
func TestREPLSinks(t *testing.T) {
	h := startREPL(t, "")
	h.line(createSensors)
	out := filepath.Join(t.TempDir(), "hot.csv")
	h.line("CREATE STREAM hot (deviceNo VARCHAR, temperature DOUBLE) WITH ('connector'='file', 'path'='" + out + "');")
	if got := h.line("INSERT INTO hot SELECT deviceNo, temperature FROM sensors WHERE temperature > 90;"); strings.Contains(got, "│") || strings.Contains(got, "error") {
		t.Fatalf("INSERT INTO printed:\n%s", got)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 1+hotter(t, 90) || lines[0] != "deviceNo,temperature" {
		t.Fatalf("hot.csv after INSERT INTO:\n%s", b)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "设备") || strings.Count(l, ",") != 1 {
			t.Errorf("row %q", l)
		}
	}
	// INTO STREAM waits like a side branch and runs with RUN, replacing the file
	h.line("SELECT deviceNo, temperature INTO STREAM hot FROM sensors WHERE temperature > 95;")
	if got := h.line("RUN;"); strings.Contains(got, "│") || strings.Contains(got, "error") {
		t.Fatalf("RUN printed:\n%s", got)
	}
	b2, _ := os.ReadFile(out)
	if n := strings.Count(string(b2), "\n"); n != 1+hotter(t, 95) || !strings.HasPrefix(string(b2), "deviceNo,temperature\n") {
		t.Errorf("hot.csv after INTO STREAM with a stricter WHERE:\n%s", b2)
	}
	if got := h.line("INSERT INTO hot SELECT deviceNo FROM sensors;"); !strings.Contains(got, "error: INSERT INTO hot: the query gives 1 column(s)") {
		t.Fatalf("a count mismatch printed:\n%s", got)
	}
	if got := h.line("SELECT deviceNo FROM sensors LIMIT 1;"); !strings.Contains(got, "设备8") {
		t.Fatalf("after the error, a query printed:\n%s", got)
	}
}
