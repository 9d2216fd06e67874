package tests

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFileSinkFIFO: a file sink whose 'path' is a FIFO is refused, with or
// without a reader, unless the stream declares 'sink.fifo' = 'true'; then
// every row reaches the FIFO's reader (issue 30: open(2) blocked for good).
// The hangs of a FIFO sink under a signal are TestSignalsStopHangs'.
func TestFileSinkFIFO(t *testing.T) {
	for _, c := range []struct {
		name   string
		opt    string
		reader bool
		code   int
	}{
		{"refused, no reader", "", false, 1},
		{"refused, a reader", "", true, 1},
		{"refused, 'sink.fifo' false", ", 'sink.fifo'='false'", true, 1},
		{"declared", ", 'sink.fifo'='true'", true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "out.fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip(err)
			}
			sql := "CREATE STREAM v (n BIGINT) WITH ('connector'='values');\nINSERT INTO v VALUES (1), (2), (3);\n" +
				"CREATE STREAM f (n BIGINT) WITH ('connector'='file', 'path'='out.fifo'" + c.opt + ");\nINSERT INTO f SELECT n FROM v;\n"
			os.WriteFile(filepath.Join(dir, "q.sql"), []byte(sql), 0o644)
			got := make(chan string, 1)
			if c.reader {
				r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				go func() {
					var b []byte
					buf := make([]byte, 4096)
					deadline := time.Now().Add(10 * time.Second)
					for time.Now().Before(deadline) { // (non-blocking: EOF only once a writer came and went)
						n, err := r.Read(buf)
						b = append(b, buf[:n]...)
						if err == io.EOF && len(b) > 0 {
							break
						}
						time.Sleep(5 * time.Millisecond)
					}
					got <- string(b)
				}()
			}
			res := runWithin(t, 10*time.Second, dir, "q.sql")
			if res.code != c.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", res.code, c.code, res.stderr)
			}
			if c.code != 0 {
				if want := "'path' = 'out.fifo' is a FIFO (named pipe); give the path of a file, or declare 'sink.fifo' = 'true'"; !strings.Contains(res.stderr, want) {
					t.Fatalf("stderr %q lacks %q", res.stderr, want)
				}
				return
			}
			if s := <-got; s != "n\n1\n2\n3\n" {
				t.Fatalf("the FIFO's reader got %q", s)
			}
		})
	}
}

// runWithin runs the binary with args in dir and fails the test when it runs
// longer than d.
func runWithin(t *testing.T, d time.Duration, dir string, args ...string) result {
	t.Helper()
	done := make(chan result, 1)
	go func() { done <- viaBinary(t, dir, args) }()
	select {
	case r := <-done:
		return r
	case <-time.After(d):
		t.Fatalf("streamql %v still running after %v", args, d)
		return result{}
	}
}
