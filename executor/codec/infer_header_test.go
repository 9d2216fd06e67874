package codec

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCSVHasHeaderProperty (SPEC 1: a csv file read without a column list
// takes its names from its header): for random tables of text, BIGINT,
// DOUBLE, BOOLEAN and TIMESTAMP columns (some values empty), written with a
// header line of names or without one, CSVHasHeader finds the header
// exactly when one was written, or, without one, when no column of a type
// other than text has a value in the first row (a file of text only keeps
// its first line as names, as before). The reference decides from how the
// file was written, not by reading it.
func TestCSVHasHeaderProperty(t *testing.T) {
	dir := t.TempDir()
	gens := []func(r *rand.Rand) string{
		func(r *rand.Rand) string { return "x" + strings.Repeat("y", r.IntN(3)) + fmt.Sprint(r.IntN(9)) },     // text
		func(r *rand.Rand) string { return fmt.Sprint(r.Int64N(2_000_000_000_000) - 1_000) },                  // BIGINT
		func(r *rand.Rand) string { return fmt.Sprintf("%.2f", r.Float64()*100) },                             // DOUBLE
		func(r *rand.Rand) string { return []string{"true", "false", "TRUE"}[r.IntN(3)] },                     // BOOLEAN
		func(r *rand.Rand) string { return fmt.Sprintf("2021-01-%02d 12:48:%02d", 1+r.IntN(28), r.IntN(60)) }, // TIMESTAMP
	}
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 15))
		ncol, nrow := 1+r.IntN(5), 1+r.IntN(30)
		kinds := make([]int, ncol)
		for c := range kinds {
			kinds[c] = r.IntN(len(gens))
		}
		header := r.IntN(2) == 0
		var b strings.Builder
		if header {
			for c := range ncol {
				if c > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "col_%d", c)
			}
			b.WriteByte('\n')
		}
		// typedFirst: the first row (the first line not blank: a row of one
		// empty value is a blank line, which csv skips) has a value in a
		// column of a type other than text
		typedFirst, first := false, true
		for range nrow {
			line := ""
			for c, k := range kinds {
				if c > 0 {
					line += ","
				}
				if r.IntN(6) == 0 {
					continue // (an empty value)
				}
				line += gens[k](r)
				if first && k != 0 {
					typedFirst = true
				}
			}
			first = first && line == ""
			b.WriteString(line + "\n")
		}
		want := header || !typedFirst
		path := filepath.Join(dir, fmt.Sprintf("f%d.csv", seed))
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := CSVHasHeader(path, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		// (a column whose other rows are all empty infers as text, so a
		// typed first value there reads as a name: the reference allows it)
		if got != want && !(got && !header && onlyFirstTyped(b.String(), header)) {
			t.Errorf("seed %d: header %v, CSVHasHeader says %v, of\n%s", seed, header, got, b.String())
		}
	}
}

// onlyFirstTyped reports whether, in a file written without a header, every
// column with a typed value in the first row has no value in the others
// (so that only the first row says its type).
func onlyFirstTyped(text string, header bool) bool {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l != "" { // (csv skips blank lines)
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return true
	}
	first := strings.Split(lines[0], ",")
	for c, v := range first {
		if v == "" || strings.HasPrefix(v, "x") {
			continue
		}
		for _, l := range lines[1:] {
			if f := strings.Split(l, ","); c < len(f) && f[c] != "" {
				return false
			}
		}
	}
	return true
}

// TestCSVHasHeaderCases: the files a user reads by name: a header of names
// over typed values, a headerless file of readings (queries/sensors.csv's
// shape), a file of text only, one line, an empty file, a header over a
// one-row file, a tab delimiter.
func TestCSVHasHeaderCases(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text  string
		delim byte
		want  bool
	}{
		{"deviceNo,ts,temperature\n设备8,1610035289736,84.3\n", 0, true},
		{"设备8,1610035289736,84.3\n设备5,1610035371758,38.8\n", 0, false},
		{"name,city\nann,paris\nbob,rome\n", 0, true},
		{"x\n", 0, true},
		{"", 0, true},
		{"\ufeff1,2\n3,4\n", 0, false},
		{"id\tok\n1\ttrue\n", '\t', true},
		{"1\ttrue\n2\tfalse\n", '\t', false},
		{"a,2021\nb,2022\n", 0, false}, // (a year as a name reads as data, as DuckDB's sniffer takes it)
	} {
		path := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := CSVHasHeader(path, c.delim, 0); err != nil || got != c.want {
			t.Errorf("%q: %v %v, want %v", c.text, got, err, c.want)
		}
	}
	if _, err := CSVHasHeader(filepath.Join(dir, "none.csv"), 0, 0); err == nil || !strings.Contains(err.Error(), "cannot infer the columns of") {
		t.Errorf("missing file: %v", err)
	}
}
