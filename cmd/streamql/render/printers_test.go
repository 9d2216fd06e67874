package render

import (
	"testing"

	"streamql/catalog"
)

// TestEveryPrintFormatHasPrinter: every output format of catalog's table has
// its printer (an output format added to the table without one fails), a
// line format exactly when it does not print tables, and no printer is
// registered for a name the table does not print.
func TestEveryPrintFormatHasPrinter(t *testing.T) {
	prints := map[string]bool{}
	for _, f := range catalog.Formats() {
		if !f.Prints {
			continue
		}
		prints[f.Name] = true
		p, ok := printers[f.Name]
		if !ok {
			t.Errorf("output format %s has no printer: register it in render's printers", f.Name)
			continue
		}
		if f.Tabular != (p.line == lineNone) {
			t.Errorf("output format %s: Tabular %v, but its printer's line format is %d", f.Name, f.Tabular, p.line)
		}
		if p.pipes && !f.Tabular {
			t.Errorf("output format %s draws pipe tables but is not Tabular", f.Name)
		}
	}
	for name := range printers {
		if !prints[name] {
			t.Errorf("render registers a printer for %s, which catalog's table does not print", name)
		}
	}
	seen := map[lineFormat]string{}
	for name, p := range printers {
		if p.line == lineNone {
			continue
		}
		if other, ok := seen[p.line]; ok {
			t.Errorf("output formats %s and %s print the same line format", name, other)
		}
		seen[p.line] = name
	}
}
