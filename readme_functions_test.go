package streamql_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"streamql/catalog/functions"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's generated function list")

const (
	fnBegin = "<!-- functions: generated from catalog/functions.Functions by TestREADMEFunctions; go test -run TestREADMEFunctions -update-readme . -->\n"
	fnEnd   = "<!-- end of functions -->\n"
)

// functionList renders the function table (SPEC 2.10) as the README's list:
// one line per group, each function with its aliases.
func functionList() string {
	var sb strings.Builder
	for _, g := range functions.Groups {
		var names []string
		for _, f := range functions.Functions {
			if f.Group != g.Key {
				continue
			}
			n := "`" + f.Name + "`"
			if len(f.Aliases) > 0 {
				n += " (" + strings.Join(f.Aliases, ", ") + ")"
			}
			if f.Volatile {
				n += "*"
			}
			names = append(names, n)
		}
		sb.WriteString("- " + g.Title + ": " + strings.Join(names, ", ") + "\n")
	}
	return sb.String()
}

// TestREADMEFunctions: the README's function list is the one the function
// table gives (-update-readme rewrites it).
func TestREADMEFunctions(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, fnBegin), strings.Index(text, fnEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no generated function list (%q ... %q)", fnBegin, fnEnd)
	}
	want := text[:i+len(fnBegin)] + functionList() + text[j:]
	if want == text {
		return
	}
	if *updateReadme {
		if err := os.WriteFile("README.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's function list is stale: go test -run TestREADMEFunctions -update-readme .")
}
