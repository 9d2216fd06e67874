package tests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// controlClasses are the control characters of SPEC 4 (U+0000–U+001F except
// tab, U+007F, U+0080–U+009F), each with how the terminal formats show it; a
// tab is kept.
var controlClasses = []struct {
	name, raw, shown, cell string // cell: as a table cell shows it
}{
	{"NUL", "\x00", `\x00`, `\x00`},
	{"SOH", "\x01", `\x01`, `\x01`},
	{"ESC (title)", "\x1b]0;pwn\x07", `\x1b]0;pwn\x07`, `\x1b]0;pwn\x07`},
	{"CR", "\r", `\x0d`, `\x0d`},
	{"LF", "\n", `\x0a`, `\n`},
	{"US", "\x1f", `\x1f`, `\x1f`},
	{"DEL", "\x7f", `\x7f`, `\x7f`},
	{"NEL U+0085", "\u0085", `\x85`, `\x85`},
	{"CSI U+009B", "\u009b", `\x9b`, `\x9b`},
	{"tab", "\t", "\t", "    "},
}

// TestControlCharactersPerFormat: table, markdown and plain, and the errors>
// lines on stderr, show control characters as \xNN (a line break in a table
// cell as \n); csv, tsv and json keep them as data (SPEC 4).
func TestControlCharactersPerFormat(t *testing.T) {
	for _, c := range controlClasses {
		// the value in a VARCHAR column, and in a malformed row's raw text
		data := `1,"a` + c.raw + `b"` + "\n" + `"x` + c.raw + `y",z` + "\n"
		sql := `CREATE STREAM s (n BIGINT, v VARCHAR) WITH ('connector'='file', 'path'='s.csv');
SELECT v, n FROM s;`
		for _, format := range []string{"table", "markdown", "plain", "csv", "tsv", "json"} {
			out, errs, code := runSQL(t, map[string]string{"s.csv": data}, sql, "--format", format)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", c.name, format, code, errs)
			}
			var want, wantRaw string
			switch format {
			case "table":
				want, wantRaw = "a"+c.cell+"b", "x"+c.cell+"y"
			case "markdown":
				want, wantRaw = "a"+c.cell+"b", "x"+c.cell+"y"
				if c.raw == "\t" { // a pipe table keeps the tab
					want, wantRaw = "a\tb", "x\ty"
				}
			case "plain":
				want, wantRaw = "(a"+c.shown+"b,1)", "x"+c.shown+"y"
			case "csv", "tsv":
				want = "a" + c.raw + "b"
				wantRaw = "x" + c.shown + "y" // the errors> line on stderr
			case "json":
				want = strings.Trim(jsonString("a"+c.raw+"b"), `"`)
				wantRaw = strings.Trim(jsonString("x"+c.raw+"y"), `"`)
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s in %s: stdout lacks %q:\n%q", c.name, format, want, out)
			}
			if !strings.Contains(out+errs, wantRaw) {
				t.Errorf("%s in %s: the errors output lacks %q:\nstdout %q\nstderr %q", c.name, format, wantRaw, out, errs)
			}
			terminal := errs
			if format == "table" || format == "markdown" || format == "plain" {
				terminal += out
			}
			if hasControl(terminal) {
				t.Errorf("%s in %s: raw control character reaches the terminal:\nstdout %q\nstderr %q", c.name, format, out, errs)
			}
		}
	}
}

// hasControl reports whether s holds a control character of SPEC 4 other than
// the line ends of its lines.
func hasControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}

// jsonString is s as the json format writes it (control characters escaped,
// U+0080–U+009F kept as UTF-8).
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00` + strconv.FormatInt(int64(r>>4), 16) + strconv.FormatInt(int64(r&15), 16))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestSideDirSymlinks: a symbolic link in --side-dir is refused with an error
// naming it, and nothing outside the folder is written or created; a --side-dir
// that is itself a link is the user's choice and works (SPEC 4).
func TestSideDirSymlinks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.csv"), []byte("1,a\n250,b\nbad\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "q.sql"), []byte(`CREATE STREAM s (n BIGINT, v VARCHAR) WITH ('connector'='file', 'path'='s.csv');
SELECT * INTO SIDE 'big' FROM s WHERE n > 100;
SELECT * FROM s;`), 0o644)
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	for _, link := range []struct{ file, target string }{
		{"big.csv", victim},                            // an existing file outside
		{"big.csv", filepath.Join(dir, "created.txt")}, // a dangling link
		{"errors.csv", victim},                         // the errors file, opened at its first row
	} {
		side := filepath.Join(t.TempDir(), "side")
		os.Mkdir(side, 0o755)
		if err := os.Symlink(link.target, filepath.Join(side, link.file)); err != nil {
			t.Fatal(err)
		}
		r := viaBinary(t, dir, []string{"--format", "csv", "--side-dir", side, "q.sql"})
		if r.code == 0 || !strings.Contains(r.stderr, link.file) || !strings.Contains(r.stderr, "symbolic link") {
			t.Errorf("%s -> %s: exit %d, stderr %q; want an error naming the link", link.file, link.target, r.code, r.stderr)
		}
		if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
			t.Fatalf("%s: the file outside --side-dir became %q", link.file, b)
		}
		if _, err := os.Lstat(filepath.Join(dir, "created.txt")); err == nil {
			t.Fatalf("%s: a file was created outside --side-dir", link.file)
		}
	}
	// a --side-dir that is a link to a folder
	real := filepath.Join(t.TempDir(), "real")
	os.Mkdir(real, 0o755)
	linked := filepath.Join(t.TempDir(), "linked")
	os.Symlink(real, linked)
	r := viaBinary(t, dir, []string{"--format", "csv", "--side-dir", linked, "q.sql"})
	if b, _ := os.ReadFile(filepath.Join(real, "big.csv")); r.code != 0 || string(b) != "n,v\n250,b\n" {
		t.Errorf("linked --side-dir: exit %d, big.csv %q, stderr %s", r.code, b, r.stderr)
	}
}

// TestStdoutClosedEarly: `streamql --format csv --side-dir D | head` ends with
// status 0, and every side file holds its header and every row routed before
// the last main row that was written, ending on a whole row (SPEC 4).
func TestStdoutClosedEarly(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.sql"), []byte(splitJob(300000)), 0o644)
	full := filepath.Join(t.TempDir(), "full")
	whole := viaBinary(t, dir, []string{"--format", "csv", "--side-dir", full, "q.sql"})
	if whole.code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", whole.code, whole.stderr)
	}
	for _, lines := range []int{1, 1000, 50000} {
		side := filepath.Join(t.TempDir(), "side")
		cmd := exec.Command(binary, "--format", "csv", "--side-dir", side, "q.sql")
		cmd.Dir = dir
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(stdout)
		last := ""
		for range lines { // head -N
			l, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("reading stdout: %v", err)
			}
			last = l
		}
		stdout.Close()
		err = cmd.Wait()
		if err != nil {
			t.Errorf("head -%d: %v: %s", lines, err, stderr.String())
		}
		lastID := -1
		if lines > 1 {
			lastID, _ = strconv.Atoi(strings.SplitN(last, ",", 2)[0])
		}
		for _, name := range []string{"low.csv", "high.csv"} {
			want, _ := os.ReadFile(filepath.Join(full, name))
			got, err := os.ReadFile(filepath.Join(side, name))
			if err != nil {
				t.Fatal(err)
			}
			checkPrefix(t, name, string(got), string(want))
			// every side row routed before the last main row read is there: got
			// is a prefix of want, so it must reach past the last such row
			end := strings.IndexByte(string(want), '\n') + 1 // the header
			for _, l := range strings.SplitAfter(string(want[end:]), "\n") {
				id, err := strconv.Atoi(strings.SplitN(l, ",", 2)[0])
				if err != nil || id > lastID {
					break
				}
				end += len(l)
			}
			if len(got) < end {
				t.Errorf("head -%d: %s has %d bytes, lacking rows routed before main row %d (%d bytes)", lines, name, len(got), lastID, end)
			}
		}
	}
}

// TestStdoutClosedEarlyTable: in the table format too, the side files keep
// their rows routed so far, each chunk a whole table, when stdout closes
// early (SPEC 4): the uninterrupted output's tables up to a row, the table
// that row is in closed by its own bottom border (cut.go; which rows
// exactly is TestHeadCutSideFilesTables').
func TestStdoutClosedEarlyTable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.sql"), []byte(splitJob(100000)), 0o644)
	full := filepath.Join(t.TempDir(), "full")
	if r := viaBinary(t, dir, []string{"--side-dir", full, "q.sql"}); r.code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", r.code, r.stderr)
	}
	side := filepath.Join(t.TempDir(), "side")
	cmd := exec.Command(binary, "--side-dir", side, "q.sql")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(stdout).ReadString('\n') // head -1
	stdout.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("head -1: %v", err)
	}
	for _, name := range []string{"low.txt", "high.txt"} {
		want, _ := os.ReadFile(filepath.Join(full, name))
		got, err := os.ReadFile(filepath.Join(side, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(got), "┘\n") || !strings.Contains(string(got), "│") {
			t.Errorf("%s does not end on a whole table: ...%q", name, got[max(0, len(got)-60):])
			continue
		}
		// the last line is a bottom border: of the table the rows before it end
		// (a prefix), or of the table they stop inside, after a row
		body := strings.TrimSuffix(string(got), "\n")
		body = body[:strings.LastIndexByte(body, '\n')+1]
		border := string(got[len(body):])
		if strings.HasPrefix(string(want), string(got)) {
			continue
		}
		checkPrefix(t, name, body, string(want))
		rest := string(want[min(len(body), len(want)):])
		if i := strings.Index(rest, "\n└"); !strings.HasSuffix(body, "│\n") || i < 0 || !strings.HasPrefix(rest[i+1:], border) {
			t.Errorf("%s is cut inside a table, but not after a row of it and with its own bottom border: ...%q", name, got[max(0, len(got)-200):])
		}
	}
}

// splitJob is a job over n generated rows (id 1..n) with two side outputs.
func splitJob(n int) string {
	return `CREATE STREAM g (id BIGINT, v DOUBLE) WITH ('connector'='datagen', 'number-of-rows'='` + strconv.Itoa(n) + `', 'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='` + strconv.Itoa(n) + `', 'fields.v.min'='0', 'fields.v.max'='1', 'seed'='7');
SELECT id, v INTO SIDE 'low' FROM g WHERE v < 0.2;
SELECT id, v INTO SIDE 'high' FROM g WHERE v > 0.8;
SELECT id, v FROM g;
`
}

// checkPrefix checks that got is want cut after a whole row, header included.
func checkPrefix(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.HasPrefix(want, got) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s is not a prefix of the uninterrupted output: differs at byte %d: %q", what, i, got[i:min(len(got), i+40)])
		return
	}
	if want != "" && (got == "" || !strings.HasSuffix(got, "\n")) {
		t.Errorf("%s does not end on a whole row (or lacks its header): ...%q", what, got[max(0, len(got)-40):])
	}
}

var timerLine = regexp.MustCompile(`(?m)^(\d+) rows in [0-9.]+ s \(\d+ rows/s\)(.*)$`)

// TestTimerCountsOutputRows: --timer counts the rows written to each output,
// not the rows decoded (SPEC 4): LIMIT 2 says 2.
func TestTimerCountsOutputRows(t *testing.T) {
	var data strings.Builder
	for i := range 3000 {
		data.WriteString(strconv.Itoa(i) + "\n")
	}
	files := map[string]string{"s.csv": data.String()}
	for _, c := range []struct {
		sql, rows, per string
	}{
		{"SELECT n FROM s LIMIT 2;", "2", ""},
		{"SELECT n FROM s WHERE n < 10;", "10", ""},
		{"SELECT n INTO SIDE 'big' FROM s WHERE n >= 2990; SELECT n FROM s WHERE n < 5;", "15", ": main 5, big 10"},
	} {
		sql := `CREATE STREAM s (n BIGINT) WITH ('connector'='file', 'path'='s.csv');` + "\n" + c.sql
		_, errs, code := runSQL(t, files, sql, "--format", "csv", "--timer")
		m := timerLine.FindStringSubmatch(errs)
		if code != 0 || m == nil || m[1] != c.rows || m[2] != c.per {
			t.Errorf("%s: exit %d, stderr %q; want %s rows%s", c.sql, code, errs, c.rows, c.per)
		}
	}
}

// TestSideDirDotAndBackslashNames: a side name SPEC 2.1 allows ('.', '..',
// one with a backslash) gets its file DIR/<name>.<ext> inside --side-dir, with
// exit 0, like any other name; it is no runtime failure.
func TestSideDirDotAndBackslashNames(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.csv"), []byte("1\n2\n3\n"), 0o644)
	for _, name := range []string{".", "..", `a\b`} {
		sql := "CREATE STREAM s (n BIGINT) WITH ('connector'='file', 'path'='s.csv');\n" +
			"SELECT n INTO SIDE '" + name + "' FROM s WHERE n > 1;\nSELECT * FROM s;\n"
		os.WriteFile(filepath.Join(dir, "q.sql"), []byte(sql), 0o644)
		side := filepath.Join(t.TempDir(), "side")
		r := viaBinary(t, dir, []string{"--format", "csv", "--side-dir", side, "q.sql"})
		if r.code != 0 || r.stdout != "n\n1\n" {
			t.Errorf("side %q: exit %d, stdout %q, stderr %q; want exit 0 and main n,1", name, r.code, r.stdout, r.stderr)
			continue
		}
		if b, err := os.ReadFile(filepath.Join(side, name+".csv")); err != nil || string(b) != "n\n2\n3\n" {
			t.Errorf("side %q: %s holds %q, %v; want n,2,3", name, name+".csv", b, err)
		}
		if ents, _ := os.ReadDir(side); len(ents) != 1 {
			t.Errorf("side %q: --side-dir holds %d entries, want 1", name, len(ents))
		}
	}
}
