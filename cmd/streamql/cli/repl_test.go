package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the REPL's and the test's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// replHarness drives runREPL in-process: keys go in through a pipe, stdout and
// stderr are captured (both also into all, in order), Ctrl-C during a job is
// sent on sigs.
type replHarness struct {
	t        *testing.T
	keys     *io.PipeWriter
	all      *syncBuffer
	stderr   *syncBuffer
	sigs     chan os.Signal
	done     chan int
	mark     int // waitFor searches all from here
	histFile string
}

const queriesDir = "../../../queries"

func startREPL(t *testing.T, histFile string) *replHarness {
	t.Helper()
	pr, pw := io.Pipe()
	h := &replHarness{t: t, keys: pw, all: &syncBuffer{}, stderr: &syncBuffer{}, sigs: make(chan os.Signal, 1), done: make(chan int, 1), histFile: histFile}
	stdout := h.all
	stderr := io.MultiWriter(h.all, h.stderr)
	sess := NewSession(stdout, stderr, nil)
	dir, err := filepath.Abs(queriesDir)
	if err != nil {
		t.Fatal(err)
	}
	if histFile == "" {
		histFile = filepath.Join(t.TempDir(), "history")
	}
	opt := replOptions{
		Stdin: pr, Stdout: stdout, Stderr: stderr,
		Terminal: func() bool { return true }, NoRaw: true, Width: func() int { return 120 },
		Interrupts: h.sigs, HistoryFile: histFile, Dir: dir,
	}
	go func() { h.done <- runREPL(context.Background(), sess, opt) }()
	h.waitFor(replPrompt)
	t.Cleanup(func() {
		pw.Close()
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			t.Error("the REPL did not end when its input closed")
		}
	})
	return h
}

// send types keys (the REPL reads them as it goes).
func (h *replHarness) send(keys string) {
	h.t.Helper()
	go h.keys.Write([]byte(keys))
}

// line types a line (or several) and waits for the prompt after each; it
// returns the output before the last prompt.
func (h *replHarness) line(l string) string {
	h.t.Helper()
	h.send(l + "\n")
	var out string
	for range strings.Count(l, "\n") + 1 {
		out += h.waitPrompt()
	}
	return out
}

// waitPrompt waits for the next prompt and returns the output before it.
func (h *replHarness) waitPrompt() string {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := h.all.String()[h.mark:]
		// the echo of the line ends with a newline; a prompt after that is the next one
		if nl := strings.IndexByte(out, '\n'); nl >= 0 {
			rest := out[nl:]
			i := strings.Index(rest, replPrompt)
			j := strings.Index(rest, replContinue)
			if i < 0 || j >= 0 && j < i {
				i = j
			}
			if i >= 0 {
				h.mark += nl + i + len(replPrompt)
				return out[:nl+i]
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("no prompt after:\n%s", out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitFor waits until s appears in the output after the mark and moves the
// mark past it; it returns the output up to s.
func (h *replHarness) waitFor(s string) string {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := h.all.String()[h.mark:]
		if i := strings.Index(out, s); i >= 0 {
			h.mark += i + len(s)
			return out[:i]
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%q never came; output:\n%s", s, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// exit sends Ctrl-D and returns the REPL's status.
func (h *replHarness) exit(keys string) int {
	h.t.Helper()
	h.send(keys)
	select {
	case code := <-h.done:
		h.done <- code // for Cleanup
		return code
	case <-time.After(5 * time.Second):
		h.t.Fatal("the REPL did not end")
	}
	return -1
}

const createSensors = `CREATE STREAM sensors (
  deviceNo    VARCHAR,
  ts          BIGINT,
  temperature DOUBLE
) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');`

func TestREPLSplitExample(t *testing.T) {
	h := startREPL(t, "")
	lines := strings.Split(createSensors, "\n")
	for _, l := range lines[:len(lines)-1] {
		out := h.line(l)
		if strings.Contains(out, "error") {
			t.Fatalf("line %q: %s", l, out)
		}
	}
	h.line(lines[len(lines)-1])
	if out := h.line("SELECT deviceNo, temperature INTO SIDE 'low-tmp'  FROM sensors WHERE temperature < 10;"); strings.Contains(out, "│") {
		t.Fatalf("a side branch ran on its own in the REPL:\n%s", out)
	}
	h.line("SELECT deviceNo, temperature INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;")
	out := h.line("SELECT * FROM sensors;")
	golden, err := os.ReadFile(filepath.Join(queriesDir, "split_sensors.out"))
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := strings.Cut(string(golden), "\n") // drop "exit 0"
	if !strings.Contains(out, want) {
		t.Fatalf("the split example printed\n%s\nwant the three tables\n%s", out, want)
	}
	if n := strings.Count(out, "┌"); n != 3 {
		t.Errorf("%d tables, want 3", n)
	}
	// the only stderr line: the branches ran with the query (SPEC 2.1)
	if got, want := h.stderr.String(), "2 pending side branches ran with this query: 'low-tmp' took 4 rows, 'high-tmp' took 35 rows\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if code := h.exit("\x04"); code != 0 {
		t.Errorf("Ctrl-D: status %d", code)
	}
}

func TestREPLTypo(t *testing.T) {
	h := startREPL(t, "")
	out := h.line("SELEC * FROM sensors;")
	if !strings.Contains(out, "error: ") || !strings.Contains(out, "  SELEC * FROM sensors;\n  ^") {
		t.Fatalf("a typo printed:\n%s", out)
	}
	if strings.Contains(out, "of repl") {
		t.Errorf("the position names the REPL as a script:\n%s", out)
	}
	// an unknown name is reported at its token, and the REPL goes on
	out = h.line("SELECT * FROM nope;")
	if !strings.Contains(out, "unknown stream") || !strings.Contains(out, "               ^") {
		t.Fatalf("an unknown stream printed:\n%s", out)
	}
	h.line(createSensors)
	out = h.line("SELECT deviceNo FROM sensors LIMIT 1;")
	if !strings.Contains(out, "设备8") {
		t.Fatalf("after errors, a query printed:\n%s", out)
	}
	// a multi-line entry with an error points into the entry
	h.line("SELECT deviceNo,")
	out = h.line("  bogus FROM sensors;")
	if !strings.Contains(out, "line 2, column 3") || !strings.Contains(out, "    bogus FROM sensors;\n    ^") {
		t.Fatalf("an error on the second line printed:\n%s", out)
	}
}

func TestREPLPendingSidesWait(t *testing.T) {
	h := startREPL(t, "")
	h.line(createSensors)
	h.line("SELECT deviceNo INTO SIDE 'hot' FROM sensors WHERE temperature > 95;")
	out := h.line("SHOW SIDES;")
	if !strings.Contains(out, "hot") {
		t.Fatalf("SHOW SIDES:\n%s", out)
	}
	out = h.line("RUN;")
	if !strings.Contains(out, "hot") || !strings.Contains(out, "设备3") {
		t.Fatalf("RUN:\n%s", out)
	}
	if out := h.line("SHOW SIDES;"); strings.Contains(out, "hot") {
		t.Fatalf("RUN left the branch pending:\n%s", out)
	}
	// a stdin stream is a planning error in the REPL (SPEC 4)
	out = h.line("CREATE STREAM s (a BIGINT) WITH ('connector'='stdin', 'format'='csv');")
	if !strings.Contains(out, "error: ") {
		t.Fatalf("a stdin stream in the REPL:\n%s", out)
	}
}

func TestREPLTabCompletion(t *testing.T) {
	h := startREPL(t, "")
	h.line(createSensors)
	// a stream name after FROM, a column of that stream after WHERE
	h.send("SELECT deviceNo FROM sen\t")
	h.waitFor("sensors ")
	h.send("WHERE temp\t")
	h.waitFor("temperature ")
	out := h.line("> 97 LIMIT 1;")
	if !strings.Contains(out, "│ deviceNo │") || !strings.Contains(out, "│ 设备4    │") {
		t.Fatalf("the completed statement printed:\n%s", out)
	}
	// a pending side's name inside SIDE '...'
	h.line("SELECT deviceNo INTO SIDE 'very-hot' FROM sensors WHERE temperature > 95;")
	h.send("DROP SIDE 'ver\t")
	h.waitFor("very-hot' ")
	if out := h.line(";"); strings.Contains(out, "error") {
		t.Fatalf("DROP SIDE with a completed name:\n%s", out)
	}
	// a keyword, in the case it was typed
	h.send("sel\t")
	h.waitFor("select ")
	h.send("\x03") // Ctrl-C drops the line
	h.waitPrompt()
}

func TestREPLHistory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	h := startREPL(t, filepath.Join(home, historyName))
	h.line("CREATE STREAM sensors (deviceNo VARCHAR,   -- the device")
	h.line("  ts BIGINT, temperature DOUBLE)")
	h.line("  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');")
	h.line(".streams")
	b, err := os.ReadFile(filepath.Join(home, historyName))
	if err != nil {
		t.Fatal(err)
	}
	want := "CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');\n.streams\n"
	if string(b) != want {
		t.Fatalf("history file:\n%s\nwant:\n%s", b, want)
	}
	// Up Up recalls the statement as one entry: running it again says it exists
	h.send("\x1b[A\x1b[A")
	h.waitFor("'format' = 'csv');")
	out := h.line("")
	if !strings.Contains(out, "stream 'sensors' already exists") {
		t.Fatalf("the recalled statement printed:\n%s", out)
	}
	h.exit("\x04")

	// a new REPL reads the history back
	h2 := startREPL(t, filepath.Join(home, historyName))
	h2.send("\x1b[A")
	h2.waitFor("'format' = 'csv');")
	if out := h2.line(""); strings.Contains(out, "error") {
		t.Fatalf("the statement recalled from the file printed:\n%s", out)
	}
	if out := h2.line(".streams"); !strings.Contains(out, "sensors") {
		t.Fatalf("the statement recalled from the file did not run:\n%s", out)
	}
}

func TestREPLCtrlC(t *testing.T) {
	h := startREPL(t, "")
	// Ctrl-C on a line drops it, also a multi-line entry
	h.send("SELECT nonsense")
	h.send("\x03")
	h.waitPrompt()
	h.line("SELECT * FROM")
	h.send("\x03")
	h.waitPrompt()
	if out := h.line("SHOW STREAMS;"); strings.Contains(out, "error") {
		t.Fatalf("after Ctrl-C, SHOW STREAMS printed:\n%s", out)
	}

	// Ctrl-C during a job: a FIFO feeds an endless file
	fifo, written := endlessFIFO(t)
	h.line(".format csv")
	h.line("CREATE STREAM endless (n BIGINT) WITH ('connector'='file', 'path'='" + fifo + "', 'format'='csv');")
	h.send("SELECT n FROM endless WHERE n % 50000 = 0;\n")
	for written.Load() < 200000 {
		time.Sleep(time.Millisecond)
	}
	h.sigs <- os.Interrupt
	out := h.waitPrompt()
	if !strings.Contains(out, "interrupted") {
		t.Fatalf("Ctrl-C during a job printed:\n%s", out)
	}
	if !strings.Contains(out, "n\n50000\n100000\n") {
		t.Errorf("the rows shown before Ctrl-C are gone:\n%s", out)
	}
	// the REPL goes on, and a Ctrl-C between jobs cancels nothing later
	h.sigs <- os.Interrupt
	if out := h.line("SELECT deviceNo FROM nothing;"); !strings.Contains(out, "unknown stream") {
		t.Fatalf("after the interrupted job:\n%s", out)
	}
	h.line(createSensors)
	if out := h.line("SELECT deviceNo FROM sensors LIMIT 2;"); !strings.Contains(out, "deviceNo\n设备8\n设备5\n") || strings.Contains(out, "interrupted") {
		t.Fatalf("the job after the interrupted one printed:\n%s", out)
	}
}

// endlessFIFO returns the path of a FIFO that a goroutine feeds with the lines
// 1, 2, 3, ... until its reader closes it, and the last line written so far;
// the test is skipped where FIFOs cannot be made.
func endlessFIFO(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "endless.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	written := &atomic.Int64{}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		var b []byte
		for i := int64(1); ; i++ {
			b = fmt.Appendf(b, "%d\n", i)
			if len(b) > 64<<10 {
				if _, err := f.Write(b); err != nil {
					return // the job closed its end
				}
				written.Store(i)
				b = b[:0]
			}
		}
	}()
	return fifo, written
}

func TestREPLMetaCommands(t *testing.T) {
	h := startREPL(t, "")
	out := h.line(".help")
	for _, m := range metaCommands {
		if !strings.Contains(out, m.name) {
			t.Errorf(".help lacks %s:\n%s", m.name, out)
		}
	}
	if out := h.line(".read split_sensors.sql"); !strings.Contains(out, "high-tmp") || strings.Count(out, "┌") != 3 {
		t.Fatalf(".read printed:\n%s", out)
	}
	if out := h.line(".streams"); !strings.Contains(out, "sensors") || !strings.Contains(out, "temperature DOUBLE") {
		t.Fatalf(".streams printed:\n%s", out)
	}
	if out := h.line(".schema sensors"); !strings.Contains(out, "temperature") || !strings.Contains(out, "VARCHAR") {
		t.Fatalf(".schema printed:\n%s", out)
	}
	if out := h.line(".schema nope"); !strings.Contains(out, "error: unknown stream or view 'nope'") {
		t.Fatalf(".schema of an unknown stream printed:\n%s", out)
	}
	if out := h.line(".format"); !strings.Contains(out, "format: table") {
		t.Fatalf(".format printed:\n%s", out)
	}
	h.line(".format json")
	if out := h.line("SELECT deviceNo FROM sensors LIMIT 1;"); !strings.Contains(out, `{"deviceNo":"设备8"}`) {
		t.Fatalf("after .format json:\n%s", out)
	}
	if out := h.line(".format xml"); !strings.Contains(out, "error: unknown format 'xml'") {
		t.Fatalf(".format xml printed:\n%s", out)
	}
	if out := h.line(".format markdwn"); !strings.Contains(out, "error: unknown format 'markdwn'; did you mean 'markdown'? use one of") {
		t.Fatalf(".format markdwn printed:\n%s", out)
	}
	h.line(".timer on")
	if out := h.line("SELECT deviceNo FROM sensors LIMIT 1;"); !strings.Contains(out, "1 rows in") && !strings.Contains(out, " rows in ") {
		t.Fatalf("after .timer on:\n%s", out)
	}
	h.line(".timer off")
	if out := h.line(".read nothing-here.sql"); !strings.Contains(out, "error: cannot read script") {
		t.Fatalf(".read of a missing file printed:\n%s", out)
	}
	if out := h.line(".bogus"); !strings.Contains(out, "error: unknown command .bogus") {
		t.Fatalf(".bogus printed:\n%s", out)
	}
	if code := h.exit(".quit\n"); code != 0 {
		t.Errorf(".quit: status %d", code)
	}
}

// TestREPLNeverCrashes feeds odd entries; each gets an answer and the prompt.
func TestREPLNeverCrashes(t *testing.T) {
	h := startREPL(t, "")
	for _, l := range []string{
		";", ";;;", "-- just a comment", "/* open comment", "*/;", "'unclosed", "';",
		"SELECT;", "CREATE STREAM;", "DROP SIDE '';", "SELECT * FROM `;", "`;",
		"\x00\x01;", "SELECT 1/0;", "EXPLAIN;", ".", ".schema", ".read", ".timer maybe",
		"SELECT " + strings.Repeat("(", 300) + "1;", // readline redraws the line per key: keep it short
	} {
		h.line(l)
	}
	h.line(createSensors)
	if out := h.line("SELECT deviceNo FROM sensors LIMIT 1;"); !strings.Contains(out, "设备8") {
		t.Fatalf("after odd entries:\n%s", out)
	}
}

// TestREPLRecover checks that a panic inside an entry becomes an error message.
func TestREPLRecover(t *testing.T) {
	var out, errOut bytes.Buffer
	r := &repl{sess: NewSession(&out, &errOut, nil), base: context.Background(), sigs: make(chan os.Signal)}
	r.guard(func(context.Context) { panic("boom") })
	if !strings.Contains(errOut.String(), "internal error: boom") {
		t.Fatalf("a panic printed %q", errOut.String())
	}
}

func TestHistoryLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1;", "SELECT 1;"},
		{"SELECT a,\n  b\nFROM s;", "SELECT a, b FROM s;"},
		{"SELECT a -- first\n, b # second\nFROM s;", "SELECT a , b FROM s;"},
		{"SELECT 'x  y' /* keep\n me */ FROM s;", "SELECT 'x  y' /* keep me */ FROM s;"},
		{"CREATE STREAM s (\n  a  BIGINT,\n  b VARCHAR\n) WITH ('connector'='file');", "CREATE STREAM s (a  BIGINT, b VARCHAR) WITH ('connector'='file');"},
		{"SELECT a -- c\n  ;", "SELECT a ;"},
	} {
		if got := historyLine(tc.in); got != tc.want {
			t.Errorf("historyLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHistoryFileLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h")
	var sb strings.Builder
	for i := range 25 {
		fmt.Fprintf(&sb, "SELECT %d;\n", i)
	}
	os.WriteFile(path, []byte(sb.String()), 0o600)
	h := loadHistory(path, 10)
	if len(h.entries) != 10 || h.entries[9] != "SELECT 24;" {
		t.Fatalf("entries %q", h.entries)
	}
	b, _ := os.ReadFile(path)
	if strings.Count(string(b), "\n") != 10 {
		t.Errorf("the file was not cut to the limit:\n%s", b)
	}
	h.add("SELECT 24;") // a repeat is not added
	h.add("SELECT 'a\nb';")
	if len(h.entries) != 10 {
		t.Errorf("entries %q", h.entries)
	}
}
