package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestREPLExplainAnalyze: EXPLAIN ANALYZE in the REPL (SPEC 3, SPEC 4 REPL)
// prints the split example's plan with the rows each branch took, counted
// here from sensors.csv by SPEC 2.1's first-match rule (below 10 to low-tmp,
// above 70 to high-tmp, the rest to main), uses up the pending branches, and
// a Ctrl-C during it prints the counts so far and "interrupted", and the REPL
// goes on.
func TestREPLExplainAnalyze(t *testing.T) {
	f, err := os.Open(filepath.Join(queriesDir, "sensors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		temp, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		switch {
		case err != nil:
			want["errors"]++
		case temp < 10:
			want["low-tmp"]++
		case temp > 70:
			want["high-tmp"]++
		default:
			want["main"]++
		}
	}
	f.Close()

	h := startREPL(t, "")
	h.line(".format tsv")
	h.line(createSensors)
	h.line("SELECT deviceNo, temperature INTO SIDE 'low-tmp'  FROM sensors WHERE temperature < 10;")
	h.line("SELECT deviceNo, temperature INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;")
	out := h.line("EXPLAIN ANALYZE SELECT * FROM sensors;")
	for _, name := range []string{"main", "low-tmp", "high-tmp"} {
		if l := lineWith(out, "Sink "+name+" ("); !strings.HasSuffix(l, fmt.Sprintf("\t%d rows", want[name])) {
			t.Errorf("output %s: %q, want %d rows\n%s", name, l, want[name], out)
		}
	}
	if l := lineWith(out, "Decode csv"); !strings.HasSuffix(l, fmt.Sprintf("\t%d malformed row(s)", want["errors"])) {
		t.Errorf("malformed rows: %q, want %d", l, want["errors"])
	}
	if out := h.line("SHOW SIDES;"); strings.Contains(out, "low-tmp") {
		t.Errorf("EXPLAIN ANALYZE left its branches pending:\n%s", out)
	}

	// Ctrl-C during EXPLAIN ANALYZE of an endless file
	fifo, written := endlessFIFO(t)
	h.line("CREATE STREAM endless (n BIGINT) WITH ('connector'='file', 'path'='" + fifo + "', 'format'='csv');")
	h.send("EXPLAIN ANALYZE SELECT n FROM endless WHERE n % 50000 = 0;\n")
	for written.Load() < 200000 {
		time.Sleep(time.Millisecond)
	}
	h.sigs <- os.Interrupt
	out = h.waitPrompt()
	if !strings.Contains(out, "interrupted") {
		t.Fatalf("Ctrl-C during EXPLAIN ANALYZE printed:\n%s", out)
	}
	l := lineWith(out, "Sink main (")
	_, rows, _ := strings.Cut(l, "\t")
	if n, err := strconv.Atoi(strings.TrimSuffix(rows, " rows")); err != nil || n < 3 {
		t.Errorf("the counts so far: %q (want 3 rows or more: n reached 200000)\n%s", l, out)
	}
	if out := h.line("SELECT deviceNo FROM sensors LIMIT 1;"); !strings.Contains(out, "设备8") {
		t.Fatalf("after the interrupted EXPLAIN ANALYZE:\n%s", out)
	}
}

// lineWith returns the first line of out that contains s, or "".
func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
