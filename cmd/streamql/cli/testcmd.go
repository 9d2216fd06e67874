package cli

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/pflag"

	"streamql/internal/termtext"
)

const testUsage = `usage: streamql test [DIR ...] [--update] [--timeout D] [--jobs N] [--shuffle [N] [--seed S]]

Runs every case folder under each DIR (default .): a folder with query.sql, its
inputs and expected/ (main.csv, <side>.csv, errors.csv, optionally exit and
stderr); a folder with query.sql alone is listed as SKIP, and --update makes it
a case, writing its expected/ from a run. Each case runs as
'streamql --format csv --side-dir TMP -f query.sql' in its folder; errors.csv is compared on its first three columns (stream,
position, raw). Prints PASS or FAIL per case, a unified diff per failing file,
and 'N passed, M failed'. Exit status: 0 all passed, 1 a case failed, 2 a bad
DIR or no case found. (A script named test runs with 'streamql ./test'.)
--shuffle reruns each passing case N more times (default 3) with other batch
sizes and its inputs split into partitions read in other orders; a difference
from the first run fails the case with a diff and the --seed that reproduces it.
A case that reads Kafka also runs as a process killed (SIGKILL) in the middle
of its output and restarted: the two must hold every row of the first run. A
case whose query reads the clock (PROCTIME(), NOW(), RAND()) is not rerun.
Each run reads Kafka with consumer groups of its own (the case's group.id and
a suffix), so a case reads its topics the same way every time.

flags:
`

// maxDiffLines caps the diff printed for one file, so one broken golden file
// does not bury the other cases' verdicts.
const maxDiffLines = 40

// runTest is `streamql test [DIR …] [--update]` (SPEC 4 "Tests of a user's own
// pipelines"): it takes the arguments after `test` and returns the exit status:
// 0 every case passed, 1 a case failed (also with --update, which rewrites the
// failing cases' expected/ files so that the next run passes), 2 a bad flag, a
// DIR that is not a folder, or no case found; 130 when ctx is cancelled.
func runTest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := pflag.NewFlagSet("streamql test", pflag.ContinueOnError)
	fl.SetOutput(stderr)
	update := fl.Bool("update", false, "write the outputs of failing cases into their expected/ folder")
	timeout := fl.Duration("timeout", 60*time.Second, "stop a case that runs longer than `D` and fail it (e.g. 30s)")
	jobs := fl.IntP("jobs", "j", runtime.NumCPU(), "run up to `N` cases at once (output stays in case order)")
	help := fl.BoolP("help", "h", false, "print this help and exit")
	shuffle := addShuffleFlags(fl)
	fl.Usage = func() {
		fmt.Fprint(stderr, testUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(shuffleArgs(args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		printError(stderr, "streamql test: %v; see streamql test --help", err)
		return exitPlanning
	}
	if *help {
		fmt.Fprint(stdout, testUsage)
		fl.SetOutput(stdout)
		fl.PrintDefaults()
		return exitOK
	}
	if *timeout <= 0 {
		printError(stderr, "streamql test: --timeout %v must be positive, e.g. --timeout 30s", *timeout)
		return exitPlanning
	}
	if *jobs < 1 {
		printError(stderr, "streamql test: --jobs %d must be at least 1", *jobs)
		return exitPlanning
	}
	sh, err := shuffle.opts(fl)
	if err != nil {
		printError(stderr, "streamql test: %v", err)
		return exitPlanning
	}
	dirs := fl.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	cases, skipped, err := findCases(dirs, *update)
	if err != nil {
		printError(stderr, "streamql test: %s", err.Error())
		return exitPlanning
	}
	if len(cases) == 0 {
		newOnes := ""
		if len(skipped) > 0 {
			newOnes = fmt.Sprintf("; found query.sql without expected/ in %s: streamql test --update writes expected/ from a run", strings.Join(skipped, ", "))
		}
		printError(stderr, "streamql test: no case found under %s; a case is a folder with query.sql and an expected/ folder (SPEC 4), give the folder that holds them%s", strings.Join(dirs, ", "), newOnes)
		return exitPlanning
	}

	// Cases run in parallel; their reports print in case order as they complete.
	results := make([]chan caseReport, len(cases))
	for i := range results {
		results[i] = make(chan caseReport, 1)
	}
	next := make(chan int)
	for w := 0; w < min(*jobs, len(cases)); w++ {
		go func() {
			for i := range next {
				r := runTestCase(ctx, cases[i], *timeout, *update)
				if sh != nil && len(r.problems) == 0 && !r.interrupted {
					r.problems, r.note = sh.shuffleCase(ctx, cases[i], *timeout, r.run)
				}
				results[i] <- r
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range cases {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	passed, failed, updated := 0, 0, 0
	for i := range cases {
		var r caseReport
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			fmt.Fprintf(stdout, "interrupted: %d passed, %d failed, %d not run\n", passed, failed, len(cases)-i)
			return exitInterrupt
		}
		if r.interrupted {
			fmt.Fprintf(stdout, "interrupted: %d passed, %d failed, %d not run\n", passed, failed, len(cases)-i)
			return exitInterrupt
		}
		if len(r.problems) == 0 {
			passed++
			fmt.Fprintf(stdout, "PASS %s%s\n", termtext.String(cases[i].name, termtext.Line), noteText(r.note))
			continue
		}
		failed++
		fmt.Fprintf(stdout, "FAIL %s\n", termtext.String(cases[i].name, termtext.Line))
		for _, p := range r.problems {
			fmt.Fprintln(stdout, indent(p))
		}
		if r.update != "" {
			fmt.Fprintln(stdout, indent(r.update))
			if r.updated {
				updated++
			}
		}
	}
	for _, name := range skipped {
		fmt.Fprintf(stdout, "SKIP %s: query.sql without expected/ (streamql test --update writes it from a run)\n", termtext.String(name, termtext.Line))
	}
	notRun := ""
	if len(skipped) > 0 {
		notRun = fmt.Sprintf(", %d skipped", len(skipped))
	}
	if *update && updated > 0 {
		fmt.Fprintf(stdout, "%d passed, %d failed%s (%d updated: run again to check)\n", passed, failed, notRun, updated)
	} else {
		fmt.Fprintf(stdout, "%d passed, %d failed%s\n", passed, failed, notRun)
	}
	if failed > 0 {
		return exitRuntime
	}
	return exitOK
}

// testCase is one case folder: name is its path as the user's DIR spells it
// (printed), dir its absolute path (run).
type testCase struct{ name, dir string }

// findCases walks each DIR and returns the case folders under it (a folder with
// query.sql and expected/, or with update also a new case: query.sql alone; a
// case's own subfolders are not searched), sorted by path and without
// repeats, and without update the new cases it skipped (their names), which
// runTest lists so that none passes unseen. The error names a DIR that is not
// a readable folder.
func findCases(dirs []string, update bool) (cases []testCase, skipped []string, err error) {
	seen := map[string]bool{}
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read folder %s: %v; give a folder that holds case folders (query.sql and expected/)", d, unwrapPath(err))
		}
		if !st.IsDir() {
			return nil, nil, fmt.Errorf("%s is not a folder; give a folder that holds case folders (query.sql and expected/)", d)
		}
		err = filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("cannot read folder %s: %v", path, unwrapPath(err))
			}
			if e.IsDir() && !update && isNewCase(path) {
				if abs, err := filepath.Abs(path); err == nil && !seen[abs] {
					seen[abs] = true
					skipped = append(skipped, filepath.ToSlash(filepath.Clean(path)))
				}
				return nil // (its subfolders may hold cases)
			}
			if !e.IsDir() || !isCase(path) && !(update && isNewCase(path)) {
				return nil
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				return err
			}
			if !seen[abs] {
				seen[abs] = true
				cases = append(cases, testCase{name: filepath.ToSlash(filepath.Clean(path)), dir: abs})
			}
			return filepath.SkipDir
		})
		if err != nil {
			return nil, nil, err
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].dir < cases[j].dir })
	return cases, skipped, nil
}

func isCase(dir string) bool {
	q, err := os.Stat(filepath.Join(dir, "query.sql"))
	if err != nil || q.IsDir() {
		return false
	}
	e, err := os.Stat(filepath.Join(dir, "expected"))
	return err == nil && e.IsDir()
}

// caseRun is what one run of a case produced: exit status, stdout (main.csv),
// stderr, and the side-dir files by name (errors.csv included).
type caseRun struct {
	code           int
	stdout, stderr string
	sides          map[string]string
	plans          casePlans // what its jobs' plans say (for --shuffle)
}

// caseReport is the verdict on one case: no problems means it passed.
type caseReport struct {
	problems    []string
	update      string // what --update wrote or why it did not
	updated     bool
	interrupted bool
	run         caseRun // the first run's outputs (for --shuffle)
	note        string  // said after PASS (--shuffle: not deterministic)
}

// runTestCase runs c in-process with a fresh side dir and compares its outputs
// with expected/ (the protocol of the acceptance cases, SPEC 4); with update it
// rewrites the expected files of a failing case.
func runTestCase(ctx context.Context, c testCase, timeout time.Duration, update bool) caseReport {
	run, problem := execCase(ctx, nil, c, timeout)
	switch {
	case ctx.Err() != nil:
		return caseReport{interrupted: true}
	case problem != "":
		r := caseReport{problems: []string{problem}}
		if update {
			r.update = "not updated: the run did not end"
		}
		return r
	}
	exp := filepath.Join(c.dir, "expected")
	if p := linksOut(c.dir); len(p) > 0 { // never read or write through a link out of the case folder
		r := caseReport{problems: p}
		if update {
			r.update = "not updated: expected/ has a link out of the case folder"
		}
		return r
	}
	if update && newCase(exp) { // --update creates a new case's expected/
		if err := os.Mkdir(exp, 0o755); err != nil {
			return caseReport{problems: []string{fmt.Sprintf("cannot create expected/: %v", unwrapPath(err))}}
		}
		r := caseReport{problems: []string{"new case: no expected/ folder"}, run: run}
		r.update, r.updated = updateCase(exp, run)
		return r
	}
	r := caseReport{problems: compareCase(exp, run), run: run}
	if len(r.problems) > 0 && update {
		r.update, r.updated = updateCase(exp, run)
	}
	return r
}

// execCase runs c once in-process, with a fresh side dir, as the protocol of
// the acceptance cases says (SPEC 4), and returns its outputs; problem is not
// empty when the run did not end (timed out) or its side dir could not be
// made. The source hook, if not nil (runHooks.sourceHook), reads its inputs.
func execCase(ctx context.Context, hook sourceHook, c testCase, timeout time.Duration) (run caseRun, problem string) {
	side, err := os.MkdirTemp("", "streamql-test-")
	if err != nil {
		return run, fmt.Sprintf("cannot make a temporary side dir: %v", err)
	}
	defer os.RemoveAll(side)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out, errb strings.Builder
	// Relative paths in a script resolve against the script's folder, so the
	// absolute script path runs the case as if in its folder (no process-wide chdir).
	var plans casePlans
	// (each run reads its Kafka topics as a new job: consumer groups of its own)
	code := runHooked(cctx, runHooks{sourceHook: hook, jobObserver: plans.add, groupSuffix: newGroupSuffix()}, []string{"--format", "csv", "--side-dir", side, "-f", filepath.Join(c.dir, "query.sql")},
		strings.NewReader(""), &out, &errb)
	if ctx.Err() != nil {
		return run, ""
	}
	// Paths in stderr read as in the case folder, and the side dir has one name,
	// so messages (and expected/stderr lines) do not depend on where the case lives.
	stderrText := strings.NewReplacer(c.dir+string(filepath.Separator), "", side, "<side-dir>").Replace(errb.String())
	if cctx.Err() != nil {
		p := fmt.Sprintf("timed out after %v (raise it with --timeout)", timeout)
		if s := strings.TrimSpace(stderrText); s != "" {
			p += "\nstderr: " + lastChars(s, 600)
		}
		return run, p
	}
	run = caseRun{code: code, stdout: out.String(), stderr: stderrText, sides: readSides(side), plans: plans}
	return run, ""
}

// readSides returns the side files of a run's side dir (.csv, regular), by name.
func readSides(side string) map[string]string {
	sides := map[string]string{}
	entries, _ := os.ReadDir(side)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".csv") && e.Type().IsRegular() {
			if b, err := os.ReadFile(filepath.Join(side, e.Name())); err == nil {
				sides[e.Name()] = string(b)
			}
		}
	}
	return sides
}

// compareCase checks run against the folder exp: exit status (expected/exit,
// absent 0), each expected/stderr line somewhere in stderr, each expected .csv
// (errors.csv on its first three columns), and no unexpected output (main or a
// side file) with more than its header line. It returns one text per problem, diffs included.
func compareCase(exp string, run caseRun) []string {
	var problems []string
	want := 0
	b, err := readExpected(exp, "exit")
	if err != nil && !isNotExist(err) {
		problems = append(problems, fmt.Sprintf("cannot read expected/exit: %v", unwrapPath(err)))
	}
	if err == nil {
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("expected/exit holds %q: write the exit status as a number", strings.TrimSpace(string(b))))
		}
		want = n
	}
	if run.code != want {
		problems = append(problems, fmt.Sprintf("exit status %d, want %d", run.code, want))
	}
	b, err = readExpected(exp, "stderr")
	if err != nil && !isNotExist(err) {
		problems = append(problems, fmt.Sprintf("cannot read expected/stderr: %v", unwrapPath(err)))
	}
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.Contains(run.stderr, l) {
				problems = append(problems, fmt.Sprintf("stderr lacks %q", l))
			}
		}
	}
	expected := map[string]bool{}
	for _, name := range expectedCSVs(exp) {
		expected[name] = true
		got, ok := run.output(name)
		from, to := "expected/"+name, "got/"+name
		var diff string
		var err error
		if name == "errors.csv" {
			// Compared on stream, position, raw: the reason's wording may change.
			var wantText []byte
			if wantText, err = readExpected(exp, name); err == nil {
				w, g := firstColumns(string(wantText), 3), firstColumns(got, 3)
				if w != g {
					diff = unifiedDiff(from+" (first 3 columns)", to+" (first 3 columns)", w, g)
				}
			}
		} else {
			diff, err = diffExpected(exp, name, from, to, got)
		}
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("cannot read expected/%s: %v", name, unwrapPath(err)))
		case !ok:
			problems = append(problems, "no output "+name)
		case diff != "":
			problems = append(problems, diff)
		}
	}
	if !expected["main.csv"] && hasRows(run.stdout) {
		// an expected/ without main.csv expects no main rows (an empty
		// expected/ passed whatever the query printed)
		problems = append(problems, "unexpected rows in main output\n"+
			unifiedDiff("expected/main.csv (absent)", "got/main.csv", "", run.stdout))
	}
	for _, name := range sortedKeys(run.sides) {
		if !expected[name] && hasRows(run.sides[name]) {
			problems = append(problems, "unexpected rows in side output "+name+"\n"+
				unifiedDiff("expected/"+name+" (absent)", "got/"+name, "", run.sides[name]))
		}
	}
	if len(problems) > 0 {
		if s := strings.TrimSpace(run.stderr); s != "" {
			problems = append(problems, "stderr: "+lastChars(s, 600))
		}
	}
	return problems
}

// output returns the text of the output file name: main.csv is stdout.
func (r caseRun) output(name string) (string, bool) {
	if name == "main.csv" {
		return r.stdout, true
	}
	s, ok := r.sides[name]
	return s, ok
}

// updateCase writes run into exp (--update): main.csv when it was expected or
// stdout is not empty, each side file that was expected or has rows, exit when
// non-zero; it removes expected .csv files the run did not produce and an exit
// file when the status is 0. expected/stderr is left alone (its lines are
// chosen by hand). It returns a line saying what it did and whether it wrote.
func updateCase(exp string, run caseRun) (string, bool) {
	var wrote, removed []string
	var failures []string
	write := func(name, text string) {
		if err := writeReplacing(filepath.Join(exp, name), text); err != nil {
			failures = append(failures, fmt.Sprintf("cannot write expected/%s: %v", name, unwrapPath(err)))
			return
		}
		wrote = append(wrote, name)
	}
	remove := func(name string) {
		if err := os.Remove(filepath.Join(exp, name)); err != nil {
			failures = append(failures, fmt.Sprintf("cannot remove expected/%s: %v", name, unwrapPath(err)))
			return
		}
		removed = append(removed, name)
	}
	expected := map[string]bool{}
	for _, name := range expectedCSVs(exp) {
		expected[name] = true
	}
	if expected["main.csv"] || run.stdout != "" {
		write("main.csv", run.stdout)
	}
	for _, name := range sortedKeys(run.sides) {
		if expected[name] || hasRows(run.sides[name]) {
			write(name, run.sides[name])
		}
	}
	for _, name := range sortedKeys(expected) {
		if _, ok := run.output(name); !ok {
			remove(name)
		}
	}
	exitPath := filepath.Join(exp, "exit")
	if run.code != 0 {
		write("exit", fmt.Sprintf("%d\n", run.code))
	} else if _, err := os.Stat(exitPath); err == nil {
		remove("exit")
	}
	sort.Strings(wrote)
	msg := "updated expected/: wrote " + orNone(wrote)
	if len(removed) > 0 {
		msg += "; removed " + strings.Join(removed, ", ")
	}
	if _, err := os.Stat(filepath.Join(exp, "stderr")); err == nil {
		msg += "; expected/stderr is not rewritten: edit its lines by hand"
	}
	if len(failures) > 0 {
		msg += "\n" + strings.Join(failures, "\n")
	}
	return msg, len(wrote)+len(removed) > 0
}

func expectedCSVs(exp string) []string {
	entries, _ := os.ReadDir(exp)
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".csv") && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// hasRows reports whether a csv output holds more than its header line.
func hasRows(text string) bool {
	return strings.Count(strings.TrimRight(text, "\n"), "\n") > 0
}

// firstColumns re-encodes csv text with each record cut to its first n fields;
// text that is not csv comes back as it is, so a diff still shows it.
func firstColumns(text string, n int) string {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return text
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	for _, rec := range recs {
		_ = w.Write(rec[:min(n, len(rec))])
	}
	w.Flush()
	return b.String()
}

// unifiedDiff is a unified diff of want against got (one line of context, at
// most maxDiffLines lines).
func unifiedDiff(from, to, want, got string) string {
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: diffLines(want), B: diffLines(got), FromFile: from, ToFile: to, Context: 1,
	})
	if err != nil {
		return fmt.Sprintf("%s and %s differ (%v)", from, to, err)
	}
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	if len(lines) > maxDiffLines {
		more := len(lines) - maxDiffLines
		lines = append(lines[:maxDiffLines], fmt.Sprintf("... %d more diff lines", more))
	}
	return strings.Join(lines, "\n")
}

// diffLines splits text into lines, each ending in "\n"; a last line without
// its line end is marked, so a missing final newline shows in the diff.
func diffLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if last := lines[len(lines)-1]; last == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] = last + " (no line end)\n"
	}
	return lines
}

// indent indents each line of a report by two spaces, with control characters
// shown as \xNN so data in a diff or in stderr never drives the terminal (SPEC 4
// Output).
func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "  " + termtext.String(l, termtext.Line)
	}
	return strings.Join(lines, "\n")
}

func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + strings.ToValidUTF8(s[len(s)-n:], "")
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
