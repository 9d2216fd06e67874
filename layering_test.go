package streamql_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deps returns the packages that pkgs link (go list -deps), or skips the test
// when the go command is not at hand.
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	d := strings.Fields(string(out))
	if len(d) < 2 {
		t.Fatalf("go list -deps %v gave %q", pkgs, d)
	}
	return d
}

// TestLayering checks the import rules of the README's layout section:
//   - the library (root package) never links the command line (package doc);
//   - parser/ links no engine package (DESIGN: parser imports pos only; the
//     leaves internal/termtext, the terminal escaping rule, and
//     internal/sidename, the side-name rule, are not ones);
//   - the engine packages (catalog, planner, executor) link neither cmd/ nor
//     internal/session, which sits above them;
//   - executor/ and catalog/ link neither the TiDB parser nor parser/ nor the
//     planner (issue 10 item 4): they read the plan (planner/plan), the
//     catalog keeps the planner's form of a watermark opaque, and its errors
//     are its own *PosError;
//   - planner/plan, the plan as data, links no SQL parser either;
//   - catalog/ (the SQL types and their text rules, catalog/textconv) and
//     planner/plan link no executor package: the types sit below everything
//     that uses them;
//   - the planner links no executor package (issue 22 item 6): the function
//     table's declarations live in catalog/functions, and the constants it
//     folds go through planner/plan.Evaluator, which executor/expr installs;
//   - the executor does not import internal/termtext: what it reports is data
//     (executor.LateRows, Stats), and the session and the CLI word it;
//   - cmd/ imports no planner nor executor package but the few its renderers
//     and progress bar still read (cmdStillImports): it plans and reads
//     through internal/session.
func TestLayering(t *testing.T) {
	forbid := func(pkgs []string, prefixes ...string) {
		t.Helper()
		for _, d := range deps(t, pkgs...) {
			for _, p := range prefixes {
				if d == p || strings.HasPrefix(d, p+"/") {
					t.Errorf("%v links %s", pkgs, d)
				}
			}
		}
	}
	forbid([]string{"streamql"}, "streamql/cmd")
	forbid([]string{"streamql/parser"}, "streamql/catalog", "streamql/planner", "streamql/executor", "streamql/internal/session")
	forbid([]string{"streamql/catalog/...", "streamql/planner/...", "streamql/executor/..."}, "streamql/cmd", "streamql/internal/session")
	forbid([]string{"streamql/executor/...", "streamql/catalog/..."}, "github.com/pingcap", "streamql/parser")
	for _, d := range deps(t, "streamql/executor/...", "streamql/catalog/...") {
		if d == "streamql/planner" { // its plan/ is theirs to read
			t.Errorf("executor/ or catalog/ links %s", d)
		}
	}
	forbid([]string{"streamql/planner/plan"}, "github.com/pingcap", "streamql/parser")
	// the SQL types live in catalog, below the planner and the executor: catalog
	// and the plan link no executor package (the executor registers its text
	// encodings and connectors into catalog)
	forbid([]string{"streamql/catalog/...", "streamql/planner/plan"}, "streamql/executor")
	forbid([]string{"streamql/planner/..."}, "streamql/executor")
	// cmd/ reaches the engine through the root package and internal/session
	// (issue 22 item 6; DESIGN: cmd/ imports the root package, and
	// executor/format for encoders). Not yet behind them: the renderers and
	// the progress bar read the executor's batches and sinks and the plan
	// (cmdStillImports); every other engine package is forbidden.
	cmdStillImports := map[string]bool{"streamql/executor": true, "streamql/executor/vector": true, "streamql/planner/plan": true,
		"streamql/executor/format": true}
	for pkg, imports := range importsOf(t, "streamql/cmd/...") {
		for _, d := range imports {
			if (d == "streamql/planner" || strings.HasPrefix(d, "streamql/planner/") || d == "streamql/executor" || strings.HasPrefix(d, "streamql/executor/")) && !cmdStillImports[d] {
				t.Errorf("%s imports %s: reach the engine through the root package or internal/session", pkg, d)
			}
		}
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "streamql/executor/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); slices.Contains(f[1:], "streamql/internal/termtext") {
			t.Errorf("%s imports streamql/internal/termtext", f[0])
		}
	}
	// executor/connector/kafka (issue 22 item 5) plugs into the connector
	// contract only: it links neither the executor that opens it nor the
	// planner, the parser, the session or cmd/
	for _, d := range deps(t, "streamql/executor/connector/kafka") {
		if d == "streamql/executor" || d == "streamql/planner" || d == "streamql/parser" || d == "streamql/internal/session" || strings.HasPrefix(d, "streamql/cmd") {
			t.Errorf("executor/connector/kafka links %s", d)
		}
	}
}

// TestNoContextValues: no package carries configuration in a
// context.Context (issue 22 item 4, DESIGN "operator context at build
// time"): an operator or source gets what it needs when the job is built
// (executor's opContext and openOpts, connector.Env), the CLI's test runs
// their hooks as arguments (cli.runHooks); a context carries cancellation
// and deadlines only. Test files may use values to check that a context is
// passed on.
func TestNoContextValues(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bench") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "context.WithValue(") || strings.Contains(line, "ctx.Value(") {
				t.Errorf("%s:%d carries a value in a context: give it to the operator or source when the job is built: %s", path, n+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// importsOf returns the packages each package of pattern imports (go list
// .Imports: not its tests'), or skips the test when the go command is not at
// hand.
func importsOf(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, pattern).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		m[f[0]] = f[1:]
	}
	return m
}
