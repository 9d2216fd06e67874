package tests

import (
	"bufio"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSignalsStress interrupts a large job with side outputs and --side-dir at
// random moments, by SIGINT, SIGTERM, SIGHUP or by closing stdout: every output
// (stdout and each side file) must be a prefix of the uninterrupted run's output
// in whole rows, and the exit status the one SPEC 4 gives (130, 143, 129; 0 for
// a closed stdout, or for a run that ended before the signal came).
func TestSignalsStress(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test (-short)")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.sql"), []byte(splitJob(400000)), 0o644)
	fullDir := filepath.Join(t.TempDir(), "full")
	whole := viaBinary(t, dir, []string{"--format", "csv", "--side-dir", fullDir, "q.sql"})
	if whole.code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", whole.code, whole.stderr)
	}
	full := map[string]string{"stdout": whole.stdout}
	for _, n := range []string{"low.csv", "high.csv"} {
		b, err := os.ReadFile(filepath.Join(fullDir, n))
		if err != nil {
			t.Fatal(err)
		}
		full[n] = string(b)
	}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	deadline := time.Now().Add(15 * time.Second)
	for run := 0; run < 20 && time.Now().Before(deadline); run++ {
		kind := rng.Intn(4) // 0..2: a signal of stopSignals, 3: close stdout
		delay := time.Duration(rng.Intn(100_000)) * time.Microsecond
		side := filepath.Join(t.TempDir(), "side")
		cmd := exec.Command(binary, "--format", "csv", "--side-dir", side, "q.sql")
		cmd.Dir = dir
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		first := make(chan struct{}) // the job runs: its first bytes came
		closeAt := -1
		if kind == 3 {
			closeAt = rng.Intn(len(whole.stdout))
		}
		go func() {
			// read stdout whole, or (kind 3) up to a random byte, then close it
			br := bufio.NewReaderSize(stdout, 64<<10)
			var b []byte
			buf := make([]byte, 32<<10)
			for {
				n, err := br.Read(buf)
				if len(b) == 0 && n > 0 {
					close(first)
				}
				b = append(b, buf[:n]...)
				if closeAt >= 0 && len(b) >= closeAt {
					stdout.Close()
					break
				}
				if err != nil {
					if err != io.EOF {
						t.Errorf("reading stdout: %v", err)
					}
					break
				}
			}
			got <- string(b)
		}()
		what := "close stdout"
		if kind < 3 {
			sg := stopSignals[kind]
			what = sg.sig.String()
			// a signal before the runtime installs its handlers kills any Go
			// program; the job starts with its first output
			select {
			case <-first:
			case <-time.After(5 * time.Second):
			}
			time.Sleep(delay)
			cmd.Process.Signal(sg.sig)
		}
		out := <-got
		err = cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("run %d (%s after %v): killed by %v", run, what, delay, ws.Signal())
			}
		}
		switch {
		case kind == 3 && code != 0:
			t.Errorf("run %d: closed stdout: exit %d, want 0", run, code)
		case kind < 3 && code != stopSignals[kind].code && !(code == 0 && out == whole.stdout):
			t.Errorf("run %d: %s after %v: exit %d, want %d", run, what, delay, code, stopSignals[kind].code)
		}
		if kind < 3 {
			checkPrefix(t, what+": stdout", out, full["stdout"])
		}
		for _, n := range []string{"low.csv", "high.csv"} {
			b, err := os.ReadFile(filepath.Join(side, n))
			if err != nil {
				t.Errorf("run %d (%s): %v", run, what, err)
				continue
			}
			checkPrefix(t, what+": "+n, string(b), full[n])
		}
	}
}
