package streamql_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
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
//   - cmd/ imports no planner nor executor package but executor/format (the
//     encoders): it plans, runs and renders through internal/session
//     (session.Job, the output contract of frontend.go);
//   - the executor's base packages import nothing above them: executor/flow
//     (Operator, Step, Merger) only executor/vector, executor/state (the
//     state budget) no package of the module; an operator package
//     (executor/stateless, executor/route, executor/rank, executor/aggregate) imports them, the kernels or
//     executor/op, and the plan, and the
//     sink streams (executor/sinkstream) them and the connector registry,
//     never the executor that builds them; the execution strategies
//     (executor/strategy) only the chunk reader, the connector contract,
//     records, vectors and catalog: they drive the job through the
//     executor's Feed and never see an operator; the sources' decoding and
//     computed columns (executor/source) the connector contract, the
//     formats and the kernels.
//
// TestLayers checks that no import runs back up the README's layers, and
// TestCmdCallsNoEngineMethod that cmd/ calls the engine's methods through
// the session's functions, which the compiler inlines.
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
	// executor/format for encoders): it renders a session.Job's outputs from
	// session's output contract, and imports no planner nor executor package.
	for pkg, imports := range importsOf(t, "streamql/cmd/...") {
		for _, d := range imports {
			if d == "streamql/executor/format" {
				continue
			}
			if d == "streamql/planner" || strings.HasPrefix(d, "streamql/planner/") || d == "streamql/executor" || strings.HasPrefix(d, "streamql/executor/") {
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
	// the executor's base packages (issue 22 item 6) sit below its operators
	// and its runner, which import them: executor/flow (the contracts between
	// operators) imports executor/vector only, executor/state (the state
	// budget) no package of the module; the operator packages import the base
	// and the kernels, never the executor that builds them (executor/stateless:
	// LIMIT, the projections and the query fused over a Top-N; executor/route: the router's stages, their
	// gates operators it is given, never the join state; executor/rank: the main query's Top-N,
	// deduplication, OVER and ORDER BY over executor/op, reaching the replay
	// through its own interface; executor/aggregate: the window and updating
	// aggregate over the accumulators of executor/agg, reaching the replay
	// through its Replay); the sink streams (executor/sinkstream) import the
	// base and the connector registry; the execution strategies
	// (executor/strategy: decode ahead, parallel decode, the chunk pipelines)
	// the chunk reader and the connector contract, never an operator or the
	// executor, which drives them; the sources' decoding and computed
	// columns (executor/source) the connector contract, the format registry
	// and the kernels, never the executor that opens them
	for pkg, allowed := range map[string][]string{
		"streamql/executor/source":     {"streamql/catalog", "streamql/executor/codec", "streamql/executor/connector", "streamql/executor/expr", "streamql/executor/format", "streamql/executor/inbuf", "streamql/executor/records", "streamql/executor/textenc", "streamql/executor/vector", "streamql/planner/plan"},
		"streamql/executor/strategy":   {"streamql/executor/chunked", "streamql/executor/connector", "streamql/executor/records", "streamql/executor/vector", "streamql/catalog"},
		"streamql/executor/flow":       {"streamql/executor/vector"},
		"streamql/executor/state":      nil,
		"streamql/executor/stateless":  {"streamql/executor/flow", "streamql/executor/expr", "streamql/executor/vector", "streamql/planner/plan"},
		"streamql/executor/route":      {"streamql/executor/flow", "streamql/executor/expr", "streamql/executor/vector", "streamql/planner/plan"},
		"streamql/executor/sinkstream": {"streamql/executor/flow", "streamql/executor/connector", "streamql/executor/vector", "streamql/catalog", "streamql/planner/plan"},
		"streamql/executor/rank":       {"streamql/executor/flow", "streamql/executor/state", "streamql/executor/op", "streamql/executor/expr", "streamql/executor/connector", "streamql/executor/vector", "streamql/catalog", "streamql/planner/plan"},
		"streamql/executor/aggregate":  {"streamql/executor/flow", "streamql/executor/state", "streamql/executor/agg", "streamql/executor/expr", "streamql/executor/format", "streamql/executor/op", "streamql/executor/connector", "streamql/executor/vector", "streamql/executor/window", "streamql/catalog", "streamql/planner/plan"},
	} {
		for _, d := range importsOf(t, pkg)[pkg] {
			if (d == "streamql" || strings.HasPrefix(d, "streamql/")) && !slices.Contains(allowed, d) {
				t.Errorf("%s imports %s: it may import only %v of the module", pkg, d, allowed)
			}
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

// layers are the README's layout picture read as a stack, the bottom first:
// each package imports only packages of layers below its own, and of its own
// family (the packages under one folder: executor/op imports
// executor/vector). planner and executor share a layer and never import each
// other (the plan is data between them), so do parser and catalog, and the
// root package and internal/export. A package the table does not place
// fails the test: a new package takes its place here and in the README.
var layers = []struct {
	family string // an import path prefix (the package and those under it; "streamql" is the root package alone)
	layer  int
}{
	// leaves: the standard library only, then leaves that word their text
	// with termtext (sidename's errors)
	{"streamql/internal/termtext", 0},
	{"streamql/internal/sidename", 1}, {"streamql/internal/editdist", 1},
	{"streamql/internal/fsflags", 1}, {"streamql/internal/pipewrite", 1},
	{"streamql/internal/ptytest", 1}, {"streamql/internal/tune", 1},
	{"streamql/internal/benchsuite", 1}, {"streamql/tests/kafkatest", 1},
	{"streamql/scripts", 1},
	// the script's text, and the catalog its DDL declares
	{"streamql/parser", 2}, {"streamql/catalog", 2},
	// the plan as data
	{"streamql/planner/plan", 3},
	// what makes the plan, and what runs it
	{"streamql/planner", 4}, {"streamql/executor", 4},
	// the engine session, and a benchmark harness that plans as it does
	{"streamql/internal/session", 5}, {"streamql/internal/sensorbench", 5},
	// the session's clients: the public API, the Flink export
	{"streamql", 6}, {"streamql/internal/export", 6},
	// the command line
	{"streamql/cmd", 7},
	// end-to-end tests
	{"streamql/tests", 8},
}

// placeOf returns the family and layer of pkg (the longest family that
// holds it), or ok false.
func placeOf(pkg string) (family string, layer int, ok bool) {
	for _, l := range layers {
		if (pkg == l.family || l.family != "streamql" && strings.HasPrefix(pkg, l.family+"/")) && len(l.family) > len(family) {
			family, layer, ok = l.family, l.layer, true
		}
	}
	return family, layer, ok
}

// TestLayers: no import runs back up against the data flow of the README's
// layout picture (issue 22 item 6): every import of every package of the
// module goes to a lower layer, or within the package's own family.
func TestLayers(t *testing.T) {
	for pkg, imports := range importsOf(t, "streamql/...") {
		fam, layer, ok := placeOf(pkg)
		if !ok {
			t.Errorf("%s has no place in layering_test.go's layers (nor in the README's layout): give it one", pkg)
			continue
		}
		for _, d := range imports {
			if d != "streamql" && !strings.HasPrefix(d, "streamql/") {
				continue
			}
			dfam, dlayer, ok := placeOf(d)
			if !ok {
				continue // (reported as a package without a place)
			}
			if dlayer < layer || dfam == fam {
				continue
			}
			t.Errorf("%s (layer %d) imports %s (layer %d): an import runs back up the README's layout; move the code down or the import up", pkg, layer, d, dlayer)
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

// TestCmdCallsNoEngineMethod: cmd/ calls no method of a planner or executor
// type but through an interface (issue 22 item 6). It reaches those types
// through internal/session's names, and the compiler inlines a method of a
// package its caller does not import only through a function of one it does:
// p.KindAt(i) on a session.Part is a call per row where session.KindAt(p, i)
// is the executor's code in place, and a batch's Segments not inlined put its
// range loop's closure on the heap once a batch (the morsel pipeline's
// steady-state allocations grew with the rows). So cmd/ calls the session's
// functions (frontend.go), and this test reads every call of cmd/'s code
// with go/types over the compiled export data.
func TestCmdCallsNoEngineMethod(t *testing.T) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", `{{.ImportPath}} {{.Export}}`, "streamql/cmd/...").Output()
	if err != nil {
		t.Skipf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			exports[f[0]] = f[1]
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if e, ok := exports[path]; ok {
			return os.Open(e)
		}
		return nil, fmt.Errorf("no export data for %s", path)
	})
	engine := func(p *types.Package) bool {
		path := p.Path()
		return (path == "streamql/executor" || strings.HasPrefix(path, "streamql/executor/") || path == "streamql/planner" || strings.HasPrefix(path, "streamql/planner/")) && path != "streamql/executor/format"
	}
	list, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}`, "streamql/cmd/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		f := strings.Fields(l)
		pkg, dir := f[0], f[1]
		var files []*ast.File
		for _, n := range f[2:] { // (the files this platform builds)
			file, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check(pkg, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", pkg, err)
		}
		for sel, s := range info.Selections {
			if s.Kind() == types.FieldVal || types.IsInterface(s.Recv()) {
				continue
			}
			if m := s.Obj(); m.Pkg() != nil && engine(m.Pkg()) {
				t.Errorf("%s: %s calls %s.%s: call internal/session's function, which the compiler inlines", fset.Position(sel.Pos()), pkg, m.Pkg().Path(), m.Name())
			}
		}
	}
}
