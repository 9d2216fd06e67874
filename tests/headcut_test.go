package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"streamql/cmd/streamql/cli"
	"streamql/parser"
)

// SPEC 4: "When stdout is closed early (`| head`) the run ends quietly with
// status 0, and every `--side-dir` file holds its header and the rows routed
// before the last row written to stdout, ending on a whole row." A row is
// written when all its bytes were accepted by the write to stdout. The tests
// here give the session an io.Pipe whose reader takes k bytes and closes
// (the writer's Write then returns what the reader took, and EPIPE), and
// compute the side files' rows from the input alone: each input row carries
// its line number as its id, and every output's first column is the id.

// cutPred is a WHERE of a random case: col op v, NULL is false.
type cutPred struct {
	col string // n or x
	op  string
	v   int
}

func (p cutPred) sql() string { return fmt.Sprintf("%s %s %d", p.col, p.op, p.v) }

// holds evaluates p on a row whose n and x are given (nil: NULL).
func (p cutPred) holds(n *int64, x *float64) bool {
	var a float64
	switch {
	case p.col == "n" && n != nil:
		a = float64(*n)
	case p.col == "x" && x != nil:
		a = *x
	default:
		return false
	}
	v := float64(p.v)
	switch p.op {
	case ">":
		return a > v
	case "<":
		return a < v
	case ">=":
		return a >= v
	}
	return a <= v
}

// cutCase is one random job and where each input row goes.
type cutCase struct {
	input  string
	script string
	format string
	sides  []string          // side output names, in declaration order
	cols   map[string]string // each output's header (csv and tsv), by name ("main" too)
	route  []string          // per input row (id-1): its output, "errors", or "" (dropped)
}

// lineFormats are SPEC 4's line formats, tableFormats its table formats.
var (
	lineFormats  = []string{"csv", "tsv", "json", "plain"}
	tableFormats = []string{"table", "markdown"}
)

// randomCutCase returns a random case of rows input rows in one of formats.
func randomCutCase(r *rand.Rand, rows int, formats []string) cutCase {
	c := cutCase{format: formats[r.IntN(len(formats))], cols: map[string]string{}}
	keys := []string{"a", `"b,c"`, `q"t`, "ζeta", `""`, "long" + strings.Repeat("k", 30)}
	malformed := r.IntN(2) == 0
	nb := 1 + r.IntN(3)
	var preds []cutPred
	randPred := func() cutPred {
		if r.IntN(2) == 0 {
			return cutPred{"n", []string{">", "<", ">=", "<="}[r.IntN(4)], r.IntN(1000)}
		}
		return cutPred{"x", []string{">", "<", ">=", "<="}[r.IntN(4)], r.IntN(100)}
	}
	for range nb + 1 {
		preds = append(preds, randPred())
	}
	mainWhere := r.IntN(2) == 0
	var sb strings.Builder
	for id := 1; id <= rows; id++ {
		k := keys[r.IntN(len(keys))]
		nv, xv := int64(r.IntN(1100)-50), float64(r.IntN(12000))/100-10
		n, x := &nv, &xv
		ns, xs := strconv.FormatInt(nv, 10), fmt.Sprintf("%.2f", xv)
		if r.IntN(25) == 0 {
			n, ns = nil, ""
		}
		if r.IntN(25) == 0 {
			x, xs = nil, ""
		}
		bad := malformed && r.IntN(10) == 0
		if bad {
			ns = "abc"
		}
		fmt.Fprintf(&sb, "%d,%s,%s,%s\n", id, k, ns, xs)
		dest := ""
		switch {
		case bad:
			dest = "errors"
		default:
			for b := range nb {
				if preds[b].holds(n, x) {
					dest = fmt.Sprintf("s%d", b)
					break
				}
			}
			if dest == "" && (!mainWhere || preds[nb].holds(n, x)) {
				dest = "main"
			}
		}
		c.route = append(c.route, dest)
	}
	c.input = sb.String()
	var sc strings.Builder
	sc.WriteString("CREATE STREAM s (id BIGINT, k VARCHAR, n BIGINT, x DOUBLE) WITH ('connector'='file','path'='in.csv','format'='csv');\n")
	list := func(name string) string {
		cols := []string{"id"}
		for _, col := range []string{"k", "n", "x"} {
			if r.IntN(2) == 0 {
				cols = append(cols, col)
			}
		}
		c.cols[name] = strings.Join(cols, ",")
		return strings.Join(cols, ", ")
	}
	for b := range nb {
		name := fmt.Sprintf("s%d", b)
		c.sides = append(c.sides, name)
		fmt.Fprintf(&sc, "SELECT %s INTO SIDE '%s' FROM s WHERE %s;\n", list(name), name, preds[b].sql())
	}
	fmt.Fprintf(&sc, "SELECT %s FROM s", list("main"))
	if mainWhere {
		fmt.Fprintf(&sc, " WHERE %s", preds[nb].sql())
	}
	sc.WriteString(";\n")
	c.script = sc.String()
	c.cols["errors"] = "stream,position,raw,error"
	return c
}

// failSpy records whether a write to the pipe failed (the reader had gone).
type failSpy struct {
	w      io.Writer
	failed bool
}

func (s *failSpy) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.failed = true
	}
	return n, err
}

// cutExt is the side files' extension of a format (SPEC 4).
func cutExt(format string) string {
	switch format {
	case "plain", "table":
		return ".txt"
	case "markdown":
		return ".md"
	}
	return "." + format
}

var positionID = regexp.MustCompile(`in\.csv:(\d+)`)

// lineID returns the id of one output line of format (the first column of
// a row, or, for the errors output, the line of its position), or an error.
func lineID(format, line string, errs bool) (int, error) {
	if errs {
		m := positionID.FindStringSubmatch(line)
		if m == nil {
			return 0, fmt.Errorf("no position in errors line %q", line)
		}
		return strconv.Atoi(m[1])
	}
	s := line
	switch format {
	case "json":
		s = strings.TrimPrefix(s, `{"id":`)
	case "plain":
		s = strings.TrimPrefix(s, "(")
	}
	end := strings.IndexAny(s, ",\t})")
	if end < 0 {
		end = len(s)
	}
	return strconv.Atoi(s[:end])
}

// fileIDs reads an output's text (a side file's, or stdout's) and returns
// the ids of its whole rows and the bytes after the last whole one.
func fileIDs(format, name, text string, header string, errs bool) (ids []int, rest string, err error) {
	if format == "table" || format == "markdown" {
		return tableIDs(format, name, text, header, errs, name != "stdout")
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		rest = lines[len(lines)-1]
		lines = lines[:len(lines)-1]
	}
	if format == "csv" || format == "tsv" {
		if len(lines) == 0 {
			return nil, rest, nil
		}
		want := header
		if format == "tsv" {
			want = strings.ReplaceAll(header, ",", "\t")
		}
		if got := strings.TrimSuffix(lines[0], "\n"); got != want {
			return nil, rest, fmt.Errorf("%s: header %q, want %q", name, got, want)
		}
		lines = lines[1:]
	}
	for _, l := range lines {
		id, err := lineID(format, strings.TrimSuffix(l, "\n"), errs)
		if err != nil {
			return nil, rest, fmt.Errorf("%s: %v", name, err)
		}
		ids = append(ids, id)
	}
	return ids, rest, nil
}

// tableIDs is fileIDs for a table format: text is tables (SPEC 4: a box
// table, or a pipe table and a blank line), each of header (the column
// names, comma-separated) and rows, and the ids are its rows' first cells
// (the errors output's: its position's line). A side file (whole) is whole
// tables, at least one (its header, SPEC 4: also when it has no rows), each
// a valid one: every line of a box table as wide as its top border, and
// closed (bottom border, blank line); rest is then the text after the last
// whole table, if any. Stdout may stop anywhere and holds the main table's
// title; its rest is what follows the last whole row line.
func tableIDs(format, name, text, header string, errs, whole bool) (ids []int, rest string, err error) {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); !strings.HasSuffix(lines[n-1], "\n") {
		rest, lines = lines[n-1], lines[:n-1]
	}
	sep, top, mid, bottom := "│", "┌", "├", "└"
	if format == "markdown" {
		sep, top, mid, bottom = "|", "| ", "|---", ""
	}
	cells := func(l string) []string {
		f := strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, sep), sep), sep)
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		return f
	}
	const (
		out   = iota // between tables
		head         // the header's line next (box)
		under        // the line under the header next
		body         // rows, or the table's end
	)
	state, width, tables, wholeEnd := out, 0, 0, 0 // (wholeEnd: bytes of text up to the last whole table)
	at := 0
	for _, l := range lines {
		at += len(l)
		l = strings.TrimSuffix(l, "\n")
		if format == "table" && state != out && utf8.RuneCountInString(l) != width {
			return nil, rest, fmt.Errorf("%s: line %q is not as wide as its table's top border (%d)", name, l, width)
		}
		switch {
		case state == out && (l == "" || !whole && l == "main"):
		case state == out && strings.HasPrefix(l, top):
			width, state = utf8.RuneCountInString(l), head
			if format == "markdown" {
				state = under
				if got := strings.Join(cells(l), ","); got != header {
					return nil, rest, fmt.Errorf("%s: header %q, want %q", name, got, header)
				}
			}
		case state == head && strings.HasPrefix(l, sep):
			if got := strings.Join(cells(l), ","); got != header {
				return nil, rest, fmt.Errorf("%s: header %q, want %q", name, got, header)
			}
			state = under
		case state == under && strings.HasPrefix(l, mid):
			state = body
		case (state == body || state == under && format == "table") && (format == "table" && strings.HasPrefix(l, bottom) || format == "markdown" && l == bottom):
			state, wholeEnd = out, at // the table's end: its bottom border, or a blank line
			tables++
		case state == body && strings.HasPrefix(l, sep):
			var id int
			if errs {
				id, err = lineID(format, l, true)
			} else {
				id, err = strconv.Atoi(cells(l)[0])
			}
			if err != nil {
				return nil, rest, fmt.Errorf("%s: row %q: %v", name, l, err)
			}
			ids = append(ids, id)
		default:
			return nil, rest, fmt.Errorf("%s: line %q out of place in a table", name, l)
		}
	}
	if whole {
		switch {
		case tables == 0:
			return nil, rest, fmt.Errorf("%s: no table (not even its header)", name)
		case wholeEnd < len(text):
			return ids, text[wholeEnd:], nil
		}
	}
	return ids, rest, nil
}

// runCut runs c with procs CPUs and chunks of chunk bytes (0: default)
// into a pipe whose reader takes k bytes and closes it; it returns what the
// reader got, whether a write failed, stderr, the exit status and the side
// folder.
func runCut(t *testing.T, c cutCase, procs int, chunk int64, k int) (got []byte, failed bool, stderr string, code int, side string) {
	return runCutIn(t, c, procs, chunk, k, true)
}

// runCutIn is runCut, with the side outputs on stdout when !sideDir.
func runCutIn(t *testing.T, c cutCase, procs int, chunk int64, k int, sideDir bool) (got []byte, failed bool, stderr string, code int, side string) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte(c.input), 0o644); err != nil {
		t.Fatal(err)
	}
	side = filepath.Join(dir, "sides")
	pr, pw := io.Pipe()
	done := make(chan []byte)
	go func() {
		var buf bytes.Buffer
		io.CopyN(&buf, pr, int64(k))
		pr.CloseWithError(syscall.EPIPE) // the reader goes away: `| head -c k`
		done <- buf.Bytes()
	}()
	spy := &failSpy{w: pw}
	var errb bytes.Buffer
	s := cli.NewSession(spy, &errb, strings.NewReader(""))
	s.Format, s.Env.ChunkSize = c.format, chunk
	if sideDir {
		s.SideDir = side
		if err := os.Mkdir(side, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := parser.Parse("job.sql", c.script)
	if err != nil {
		t.Fatal(err)
	}
	code = s.ExecScript(context.Background(), script, dir)
	s.Stdout.Flush()
	pw.Close()
	got = <-done
	return got, spy.failed, errb.String(), code, side
}

var malformedNotice = regexp.MustCompile(`^stream s: \d+ malformed row\(s\) sent to side output 'errors'$`)

// checkCut checks the outputs of c cut after the reader got got (failed: a
// write to stdout failed) and returns the problems. With prior, c's script
// ran its job twice, got starts with prior, the first job's whole stdout,
// and the side files hold all of the first job's rows (appended to by the
// second, SPEC 4), then the second's as above.
func checkCut(c cutCase, got []byte, failed bool, stderr string, code int, side string, prior []byte) []string {
	var problems []string
	if prior != nil {
		if !bytes.HasPrefix(got, prior) {
			return []string{"stdout does not start with the first job's output"}
		}
		got = got[len(prior):]
	}
	if code != 0 {
		problems = append(problems, fmt.Sprintf("exit status %d, want 0", code))
	}
	if failed && stderr != "" && prior == nil { // SPEC 4: a job whose stdout closed early ends quietly (an earlier job's notices stay)
		problems = append(problems, fmt.Sprintf("stderr: %q", stderr))
	}
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l != "" && !malformedNotice.MatchString(l) {
			problems = append(problems, fmt.Sprintf("stderr: %q", l))
		}
	}
	var wantMain []int
	for i, d := range c.route {
		if d == "main" {
			wantMain = append(wantMain, i+1)
		}
	}
	mainIDs, _, err := fileIDs(c.format, "stdout", string(got), c.cols["main"], false)
	if err != nil && len(got) >= len(c.cols["main"])+1 {
		problems = append(problems, err.Error())
	}
	if len(mainIDs) > len(wantMain) || !slices.Equal(mainIDs, wantMain[:len(mainIDs)]) {
		problems = append(problems, fmt.Sprintf("stdout's rows %v are not the first main rows %v", mainIDs, wantMain))
	}
	// The side rows kept: all of them when no write failed, else those of
	// the input rows before the last main row the reader got whole.
	last := len(c.route) + 1
	if failed {
		last = 0
		if len(mainIDs) > 0 {
			last = mainIDs[len(mainIDs)-1]
		}
	}
	for _, name := range append(slices.Clone(c.sides), "errors") {
		var want []int
		for i, d := range c.route {
			if d == name && prior != nil {
				want = append(want, i+1) // the first job's
			}
		}
		for i, d := range c.route {
			if d == name && i+1 < last {
				want = append(want, i+1)
			}
		}
		path := filepath.Join(side, name+cutExt(c.format))
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) && name == "errors" { // (it opens at its first row)
			if len(want) > 0 {
				problems = append(problems, fmt.Sprintf("no %s, want rows %v", path, want))
			}
			continue
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if name == "errors" && len(want) == 0 && !slices.Contains(tableFormats, c.format) { // (SPEC 1: it exists only once a row reaches it; tables: not yet)
			problems = append(problems, fmt.Sprintf("%s exists (%d bytes) and holds no row routed before the cut", path, len(b)))
			continue
		}
		ids, rest, err := fileIDs(c.format, name, string(b), c.cols[name], name == "errors")
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case rest != "":
			problems = append(problems, fmt.Sprintf("%s ends inside a row: %q", name, rest))
		case (c.format == "csv" || c.format == "tsv") && len(b) == 0:
			problems = append(problems, fmt.Sprintf("%s has no header", name))
		case !slices.Equal(ids, want):
			problems = append(problems, fmt.Sprintf("%s holds rows %v,\nwant %v (the last main row written: %d)", name, ids, want, last))
		}
	}
	return problems
}

// TestHeadCutSideFiles is SPEC 4's rule over random inputs, random side
// branches, each line format, the sequential path (GOMAXPROCS=1) and the
// morsel pipeline (GOMAXPROCS=2 or 3, chunks of a few hundred bytes), and a
// reader that closes after a random number of bytes (the seed of a failing
// case is in its name).
func TestHeadCutSideFiles(t *testing.T) { testHeadCutSideFiles(t, lineFormats, 7) }

// TestHeadCutSideFilesTables is TestHeadCutSideFiles for table and
// markdown: a main row is written when its line in main's table reached
// stdout whole, and each side file holds whole tables (tableIDs) of its
// rows routed before the last one written.
func TestHeadCutSideFilesTables(t *testing.T) { testHeadCutSideFiles(t, tableFormats, 17) }

func testHeadCutSideFiles(t *testing.T, formats []string, stream uint64) {
	n := 120
	if testing.Short() {
		n = 30
	}
	cuts := 0 // the cases where a write to stdout failed
	for seed := range uint64(n) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, stream))
			rows := 50 + r.IntN(1200)
			if seed%8 >= 6 { // stdout's buffer (256 KiB) is written out several times before the cut
				rows = 20_000 + r.IntN(30_000)
			}
			c := randomCutCase(r, rows, formats)
			procs, chunk := cutPath(r, seed)
			// k: anywhere in stdout (a first run without a cut says how
			// long it is), or past its end
			all, _, _, _, _ := runCut(t, c, procs, chunk, 1<<30)
			k := r.IntN(len(all) + len(all)/8 + 1)
			if r.IntN(8) == 0 {
				k = r.IntN(40) // inside the header or the first rows
			}
			got, failed, stderr, code, side := runCut(t, c, procs, chunk, k)
			if failed {
				cuts++
			}
			if problems := checkCut(c, got, failed, stderr, code, side, nil); len(problems) > 0 {
				t.Fatalf("%s\nformat %s, GOMAXPROCS=%d, chunks of %d bytes, the reader took %d bytes (a write failed: %v):\n%s",
					c.script, c.format, procs, chunk, k, failed, strings.Join(problems, "\n"))
			}
		})
	}
	if cuts < n/2 {
		t.Fatalf("a write to stdout failed in %d cases of %d only", cuts, n)
	}
}

// eachCutSeed runs f as the subtest seed=N for n seeds (short with
// -short), each with a random source of its own (stream: the test's).
func eachCutSeed(t *testing.T, n, short int, stream uint64, f func(t *testing.T, seed uint64, r *rand.Rand)) {
	if testing.Short() {
		n = short
	}
	for seed := range uint64(n) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { f(t, seed, rand.New(rand.NewPCG(seed, stream))) })
	}
}

// cutPath returns the CPUs and chunk size (bytes) that case seed runs
// with: odd seeds on the morsel pipeline (2 or 3 workers, chunks of a few
// hundred bytes to 3 KiB), even ones on the sequential path.
func cutPath(r *rand.Rand, seed uint64) (procs int, chunk int64) {
	if seed%2 == 1 {
		return 2 + r.IntN(2), int64(200 + r.IntN(3000))
	}
	return 1, 0
}

// TestHeadCutBinary is the tester's repro through the binary and a real
// pipe: 200,000 rows, a reader that takes a few rows and closes. The pipe
// holds bytes the reader never took (write(2) accepted them): the side file
// must end before the first side row after the main row that ends at most
// the pipe's capacity (64 KiB on Linux) past what the reader took, and at or
// after the last main row it took whole.
func TestHeadCutBinary(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 1))
	var in strings.Builder
	var hot []bool
	for i := range 200_000 {
		temp := float64(r.IntN(1200))/10 - 20
		fmt.Fprintf(&in, "d%d,%d,%.1f\n", 1+r.IntN(9), 1600000000000+int64(i)*10, temp)
		hot = append(hot, temp > 80)
	}
	if err := os.WriteFile(filepath.Join(dir, "s2.csv"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `CREATE STREAM s (dev VARCHAR, ts BIGINT, temp DOUBLE) WITH ('connector'='file','path'='s2.csv','format'='csv');
SELECT ts INTO SIDE 'hot' FROM s WHERE temp > 80;
SELECT ts, temp FROM s;
`
	if err := os.WriteFile(filepath.Join(dir, "hd2.sql"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"csv", "json"} {
		for _, procs := range []string{"1", "2"} {
			side := filepath.Join(dir, "hdd-"+format+procs)
			cmd := exec.Command(binary, "--format", format, "--side-dir", side, "hd2.sql")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			out, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			capacity := 1 << 20 // what the pipe holds unread (F_GETPIPE_SZ; a bound if unknown)
			if n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, out.Fd(), 1032, 0); errno == 0 {
				capacity = int(n)
			}
			cmd.Stdout = pw
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			got := make([]byte, 300)
			n, _ := io.ReadFull(out, got)
			out.Close()
			err = cmd.Wait()
			if err != nil || errb.Len() > 0 {
				t.Fatalf("%s GOMAXPROCS=%s: %v, stderr %q", format, procs, err, errb.String())
			}
			// ts of input row i is 1600000000000 + 10 i: the main rows the
			// reader took whole, and the row at most the pipe's capacity
			// further (every main row is 19 bytes or longer)
			got = got[:n]
			whole := bytes.Count(got, []byte("\n"))
			if format == "csv" {
				whole-- // the header
			}
			var mainRows []int // the input rows of the main rows
			for i, h := range hot {
				if !h {
					mainRows = append(mainRows, i)
				}
			}
			lo, hi := mainRows[max(0, whole-1)], mainRows[min(len(mainRows)-1, whole+capacity/19)]
			b, err := os.ReadFile(filepath.Join(side, "hot"+cutExt(format)))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			if format == "csv" {
				lines = lines[1:]
			}
			var ids []int
			for _, l := range lines {
				l = strings.TrimSuffix(strings.TrimPrefix(l, `{"ts":`), "}")
				ts, err := strconv.ParseInt(l, 10, 64)
				if err != nil {
					t.Fatalf("hot: line %q", l)
				}
				ids = append(ids, int((ts-1600000000000)/10))
			}
			lastKept := -1
			if len(ids) > 0 {
				lastKept = ids[len(ids)-1]
			}
			var want []int // the hot rows up to the last one kept, in order
			for i := range lastKept + 1 {
				if hot[i] {
					want = append(want, i)
				}
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("%s GOMAXPROCS=%s: hot.%s does not hold the hot rows up to row %d in order", format, procs, format, lastKept)
			}
			// the first hot row after the kept ones was routed after the
			// last main row written, which is row lo or later, hi or earlier
			next := slices.Index(hot[lastKept+1:], true) + lastKept + 1
			if lastKept >= hi || next < lo {
				t.Fatalf("%s GOMAXPROCS=%s: hot.%s ends at input row %d (next hot row %d); the reader took %d main rows whole, so the last main row written is row %d to %d",
					format, procs, format, lastKept, next, whole, lo, hi)
			}
		}
	}
}

// TestHeadCutOneStream: without --side-dir every output is on stdout, one
// stream (the side outputs' lines interleaved with main's, SPEC 4): closed
// after k bytes, the reader got the first k bytes of the whole output, and
// the run ends with status 0 and nothing on stderr but the errors output's
// lines and its summary (SPEC 1: csv, tsv and plain show it there).
func TestHeadCutOneStream(t *testing.T) {
	eachCutSeed(t, 40, 10, 11, func(t *testing.T, seed uint64, r *rand.Rand) {
		c := randomCutCase(r, 50+r.IntN(1200), lineFormats)
		procs, chunk := cutPath(r, seed)
		all, _, _, _, _ := runCutIn(t, c, procs, chunk, 1<<30, false)
		k := r.IntN(len(all) + 1)
		got, failed, stderr, code, _ := runCutIn(t, c, procs, chunk, k, false)
		if code != 0 || !bytes.Equal(got, all[:k]) || failed != (k < len(all)) {
			t.Fatalf("%s\nformat %s: exit %d, a write failed: %v; the reader took %d bytes of %d: equal to the whole output's first ones: %v", c.script, c.format, code, failed, k, len(all), bytes.Equal(got, all[:k]))
		}
		for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			if l != "" && !malformedNotice.MatchString(l) && !strings.HasPrefix(l, "errors> ") {
				t.Fatalf("%s\nstderr: %q", c.script, l)
			}
		}
	})
}

// TestHeadCutLaterJob: a later job of the run appends to the side files of
// an earlier one (SPEC 4); when stdout is closed during the later job, the
// earlier job's rows all stay and the later job's are cut as in
// TestHeadCutSideFiles.
func TestHeadCutLaterJob(t *testing.T) {
	eachCutSeed(t, 24, 8, 13, func(t *testing.T, seed uint64, r *rand.Rand) {
		c := randomCutCase(r, 50+r.IntN(800), lineFormats)
		procs, chunk := cutPath(r, seed)
		first, _, _, _, _ := runCut(t, c, procs, chunk, 1<<30)
		_, job, _ := strings.Cut(c.script, "\n") // the statements after CREATE STREAM
		c2 := c
		c2.script += job
		all, _, _, _, _ := runCut(t, c2, procs, chunk, 1<<30)
		k := len(first) + r.IntN(len(all)-len(first)+1)
		got, failed, stderr, code, side := runCut(t, c2, procs, chunk, k)
		if problems := checkCut(c, got, failed, stderr, code, side, first); len(problems) > 0 {
			t.Fatalf("%s\nformat %s, GOMAXPROCS=%d, chunks of %d bytes, the reader took %d bytes, the first job wrote %d (a write failed: %v):\n%s",
				c2.script, c.format, procs, chunk, k, len(first), failed, strings.Join(problems, "\n"))
		}
	})
}
