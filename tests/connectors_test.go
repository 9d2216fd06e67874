package tests

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql/cmd/streamql/cli"
)

// live runs streamql in-process on a script in its own goroutine, with stdout a
// pipe the test reads line by line while the job runs.
type live struct {
	t      *testing.T
	lines  chan string
	done   chan int
	stderr *syncBuffer
	cancel context.CancelFunc
}

// syncBuffer is a bytes buffer safe for one writer and a reader.
type syncBuffer struct {
	ch chan []byte
	b  []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.ch <- append([]byte(nil), p...)
	return len(p), nil
}

func (s *syncBuffer) String() string {
	for {
		select {
		case p := <-s.ch:
			s.b = append(s.b, p...)
		default:
			return string(s.b)
		}
	}
}

func startLive(t *testing.T, dir, sql string, flags ...string) *live {
	t.Helper()
	script := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	l := &live{t: t, lines: make(chan string, 100), done: make(chan int, 1), stderr: &syncBuffer{ch: make(chan []byte, 100)}, cancel: cancel}
	go func() {
		code := cli.Run(ctx, append(flags, "-f", script), strings.NewReader(""), pw, l.stderr)
		pw.Close()
		l.done <- code
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			l.lines <- sc.Text()
		}
		close(l.lines)
	}()
	t.Cleanup(cancel)
	return l
}

// expect reads the next lines of stdout and fails unless they are want.
func (l *live) expect(want ...string) {
	l.t.Helper()
	for _, w := range want {
		select {
		case got, ok := <-l.lines:
			if !ok {
				l.t.Fatalf("stdout ended; want %q (stderr: %s)", w, l.stderr.String())
			}
			if got != w {
				l.t.Fatalf("got line %q, want %q", got, w)
			}
		case <-time.After(10 * time.Second):
			l.t.Fatalf("no line within 10 s; want %q (stderr: %s)", w, l.stderr.String())
		}
	}
}

// exit waits for the run to end and returns its status.
func (l *live) exit() int {
	l.t.Helper()
	select {
	case code := <-l.done:
		for range l.lines { // drain
		}
		return code
	case <-time.After(10 * time.Second):
		l.t.Fatal("the run did not end within 10 s")
		return -1
	}
}

// TestSocketSource runs the socket example against a TCP listener: each line the
// peer sends shows at once in the main or the side output, and the peer closing
// the connection ends the job with status 0.
func TestSocketSource(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	l := startLive(t, t.TempDir(), fmt.Sprintf(`CREATE STREAM kv (k VARCHAR, v BIGINT) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d');
SELECT '不属于a' AS result, v INTO SIDE 'is_not_a' FROM kv WHERE k <> 'a';
SELECT '属于a' AS result, v FROM kv;
`, port), "--format", "plain")
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(conn, "a,1\n")
	l.expect("main> (属于a,1)")
	fmt.Fprint(conn, "b,1\n")
	l.expect("is_not_a> (不属于a,1)")
	fmt.Fprint(conn, "a,2\nc,x\n")
	l.expect("main> (属于a,2)")
	conn.Close()
	if code := l.exit(); code != 0 {
		t.Fatalf("exit %d: %s", code, l.stderr.String())
	}
	if errs := l.stderr.String(); !strings.Contains(errs, fmt.Sprintf("errors> (kv,127.0.0.1:%d:4,c,x,", port)) {
		t.Errorf("stderr %q: want the malformed line with its host:port:line", errs)
	}
}

// TestSocketRefused: a refused connection is a clear runtime error (status 1).
func TestSocketRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	out, errs, code := runSQL(t, nil, fmt.Sprintf(`CREATE STREAM kv (k VARCHAR, v BIGINT) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d');
SELECT * FROM kv;`, port))
	if code != 1 || out != "" || !strings.Contains(errs, fmt.Sprintf("cannot connect to 127.0.0.1:%d: connection refused", port)) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestFollowFile appends to a file while a job follows it, then stops the job
// as Ctrl-C does (status 130).
func TestFollowFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.csv")
	if err := os.WriteFile(path, []byte("a,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := startLive(t, dir, `CREATE STREAM kv (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='log.csv', 'follow'='true');
SELECT k, v * 10 AS v10 FROM kv;
`, "--format", "csv")
	l.expect("k,v10", "a,10")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("b,2\n")
	l.expect("b,20")
	f.WriteString("c,3\n")
	l.expect("c,30")
	l.cancel()
	if code := l.exit(); code != 130 {
		t.Fatalf("exit %d, want 130: %s", code, l.stderr.String())
	}
}

// TestDatagen: the same seed gives the same rows; a bounded stream ends; its
// rows split into side outputs like any stream's.
func TestDatagen(t *testing.T) {
	q := func(seed string) string {
		return `CREATE STREAM orders (product VARCHAR, qty BIGINT) WITH ('connector'='datagen', 'number-of-rows'='200', 'seed'='` + seed + `',
  'fields.product.values'='a苹果,b梨,c西瓜,d葡萄,e火龙果', 'fields.qty.min'='1', 'fields.qty.max'='9');
SELECT * FROM orders;`
	}
	a, errs, code := runSQL(t, nil, q("1"), "--format", "csv")
	if code != 0 || strings.Count(a, "\n") != 201 {
		t.Fatalf("exit %d, %d lines: %s", code, strings.Count(a, "\n"), errs)
	}
	b, _, _ := runSQL(t, nil, q("1"), "--format", "csv")
	c, _, _ := runSQL(t, nil, q("2"), "--format", "csv")
	if a != b {
		t.Error("the same seed gave different rows")
	}
	if a == c {
		t.Error("seeds 1 and 2 gave the same rows")
	}
	side := t.TempDir()
	_, errs, code = runSQL(t, nil, `CREATE STREAM orders (product VARCHAR, qty BIGINT) WITH ('connector'='datagen', 'number-of-rows'='1000',
  'fields.product.values'='a苹果,b梨,c西瓜,d葡萄,e火龙果');
SELECT * INTO SIDE 'pre' FROM orders WHERE product LIKE '%a%' OR product LIKE '%b%' OR product LIKE '%c%';
SELECT * INTO SIDE 'post' FROM orders;`, "--format", "csv", "--side-dir", side)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	pre, _ := os.ReadFile(filepath.Join(side, "pre.csv"))
	post, _ := os.ReadFile(filepath.Join(side, "post.csv"))
	if n := strings.Count(string(pre), "\n") + strings.Count(string(post), "\n"); n != 1002 {
		t.Errorf("%d lines in pre and post, want 1000 rows and 2 headers", n)
	}
	if strings.Contains(string(post), "a苹果") || strings.Contains(string(pre), "d葡萄") {
		t.Error("rows in the wrong side output")
	}
	// option errors are planning errors at the option
	_, errs, code = runSQL(t, nil, `CREATE STREAM o (qty BIGINT) WITH ('connector'='datagen', 'fields.qty.min'='9', 'fields.qty.max'='1');`)
	if code != 2 || !strings.Contains(errs, "option 'fields.qty.max': 1 is below 'min' 9") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestValuesInsert: INSERT INTO a values stream in a script; a job reads the
// rows inserted before it, converted to the column types.
func TestValuesInsert(t *testing.T) {
	sql := `CREATE STREAM words (word VARCHAR, ts BIGINT, at TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '0.001' SECOND)
  WITH ('connector' = 'values');
INSERT INTO words VALUES ('hello' || 'world', 1000, '2021-01-17 12:48:29'), ('helloflink', 2000, NULL);
SELECT word, ts, at FROM words;
INSERT INTO words (ts, word) VALUES (1000, 'hellolate');
SELECT CONCAT('late: ', word) AS msg INTO SIDE 'late-element' FROM words WHERE ts < CURRENT_WATERMARK(ts);
SELECT word FROM words;
`
	out, errs, code := runSQL(t, nil, sql, "--format", "csv")
	want := "word,ts,at\nhelloworld,1000,2021-01-17 12:48:29.000\nhelloflink,2000,\n" +
		"output,word\nmain,helloworld\nmain,helloflink\noutput,msg\nlate-element,late: hellolate\n"
	if code != 0 || out != want {
		t.Errorf("exit %d\n%s\nwant\n%s\nstderr %s", code, out, want, errs)
	}
	for _, c := range []struct{ sql, msg string }{
		{"INSERT INTO words VALUES ('x', NULL, NULL);", "cannot be NULL"},
		{"INSERT INTO words VALUES ('x', 'abc', NULL);", "VARCHAR 'abc' cannot be read as BIGINT for column 'ts'"},
		{"INSERT INTO words VALUES ('x', 1);", "row 1 has 2 value(s) but 3 column(s)"},
		{"INSERT INTO nosuch VALUES (1);", "unknown stream 'nosuch'"},
		{"INSERT INTO words VALUES (word, 1, NULL);", "VALUES takes constants"},
	} {
		_, errs, code := runSQL(t, nil, strings.SplitAfter(sql, "SECOND)\n  WITH ('connector' = 'values');\n")[0]+c.sql)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%s: exit %d, stderr %q; want status 2 and %q", c.sql, code, errs, c.msg)
		}
	}
	_, errs, code = runSQL(t, map[string]string{"f.csv": ""}, "CREATE STREAM f (a BIGINT) WITH ('connector'='file', 'path'='f.csv');\nINSERT INTO f VALUES (1);")
	if code != 2 || !strings.Contains(errs, "'values' stream") {
		t.Errorf("INSERT into a file stream: exit %d, stderr %q", code, errs)
	}
}

// TestStdinSource runs the built binary with data on its stdin: rows show while
// stdin is still open (flushed into a pipe), and EOF ends the job.
func TestStdinSource(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "q.sql")
	os.WriteFile(script, []byte(`CREATE STREAM kv (k VARCHAR, v BIGINT) WITH ('connector'='stdin');
SELECT k, v + 1 AS v1 FROM kv;
`), 0o644)
	cmd := exec.Command(binary, "--format", "csv", script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, errb := startWithStdin(t, cmd)
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(10 * time.Second):
			t.Fatalf("no output line within 10 s (stderr %s)", errb.String())
			return ""
		}
	}
	io.WriteString(in, "a,1\n")
	if h, l := next(), next(); h != "k,v1" || l != "a,2" {
		t.Fatalf("got %q %q before stdin closed", h, l)
	}
	io.WriteString(in, "b,2\nbad\n")
	if l := next(); l != "b,3" {
		t.Fatalf("got %q", l)
	}
	in.Close()
	if l, ok := <-lines; ok {
		t.Fatalf("extra line %q", l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "errors> kv,stdin:3,bad,") {
		t.Errorf("stderr %q", errb.String())
	}

	// stdin redirected from a file
	data := filepath.Join(dir, "in.csv")
	os.WriteFile(data, []byte("x,1\ny,2\n"), 0o644)
	f, _ := os.Open(data)
	defer f.Close()
	cmd = exec.Command(binary, "--format", "csv", script)
	cmd.Stdin = f
	got, err := cmd.Output()
	if err != nil || string(got) != "k,v1\nx,2\ny,3\n" {
		t.Errorf("from a file: %q, %v", got, err)
	}

	// a stdin stream when the SQL itself comes from stdin is a planning error
	cmd = exec.Command(binary)
	cmd.Stdin = strings.NewReader("CREATE STREAM kv (k VARCHAR) WITH ('connector'='stdin');")
	msg, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(msg), "comes from stdin") {
		t.Errorf("SQL from stdin: %v, %s", err, msg)
	}
}
