package cli

import (
	"strings"
	"testing"

	"streamql/catalog/functions"
)

// TestHelpFunctions: `.help functions` lists every function of the table with
// its signatures; `.help other` is an error at the argument.
func TestHelpFunctions(t *testing.T) {
	out, errs, code := runArgs(t, "-e", ".help functions")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range functions.Functions {
		if !strings.Contains(out, "  "+f.Name+" ") {
			t.Errorf(".help functions lacks %s", f.Name)
		}
		for _, s := range f.Signatures() {
			if !strings.Contains(out, s+"\n") {
				t.Errorf(".help functions lacks %s", s)
			}
		}
	}
	if _, errs, code := runArgs(t, "-e", ".help other"); code != 2 || !strings.Contains(errs, "takes no argument or 'functions'") {
		t.Errorf(".help other: exit %d, %s", code, errs)
	}
}

// TestShowFunctions: SHOW FUNCTIONS prints a row per function of the table,
// with its signatures, NULL rule and whether it is deterministic.
func TestShowFunctions(t *testing.T) {
	out, errs, code := runArgs(t, "--format", "tsv", "-e", "SHOW FUNCTIONS;")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if lines[0] != "name\tsignatures\tnull rule\tdeterministic\ton failure\tdescription" || len(lines) != len(functions.Functions)+1 {
		t.Fatalf("%d lines, header %q", len(lines), lines[0])
	}
	for _, want := range []string{"NOW\tNOW() → TIMESTAMP(3)\tnever NULL\tno\t", "SPLIT_INDEX\tSPLIT_INDEX(VARCHAR, VARCHAR, BIGINT) → VARCHAR\tNULL if any argument is NULL\tyes\t",
		"SUBSTRING (SUBSTR)\t"} {
		if !strings.Contains(out, "\n"+want) {
			t.Errorf("SHOW FUNCTIONS lacks %q", want)
		}
	}
}
