package tests

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// rssLauncherEnv names the environment variable that turns the test binary
// into a launcher (TestMain calls launchMeasured first): it runs its
// arguments as a command and writes that command's peak RSS, in KiB, to
// the file the variable names.
const rssLauncherEnv = "STREAMQL_TEST_PEAK_RSS_FILE"

// runPeakRSS runs cmd (its Path, Args, Env, Stdin, Stdout and Stderr) through
// a launcher process and returns the command's own peak RSS in bytes with its
// exit code. It cannot take the rusage of a child of this process: Go starts
// children with vfork (CLONE_VM), and Linux carries the parent's peak RSS
// into the child's at exec (exec_mmap's setmax_mm_hiwater_rss of the old
// mm), so every child would report at least this test process's peak, which
// grows with the other tests of the package. The launcher is a fresh small
// process: the peak it passes on to its own child is its own few MiB.
// cmd must not have been started. The error is the launcher's when it could
// not run the command or report; a command that ran and failed is code != 0.
func runPeakRSS(t *testing.T, cmd *exec.Cmd) (rss int64, code int, err error) {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "peak-rss-")
	if err != nil {
		return 0, 0, err
	}
	out.Close()
	self, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	launch := exec.Command(self, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	launch.Env = append(append([]string{}, env...), rssLauncherEnv+"="+out.Name())
	launch.Stdin, launch.Stdout, launch.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	runErr := launch.Run()
	b, rerr := os.ReadFile(out.Name())
	if rerr != nil || len(b) == 0 {
		return 0, 0, fmt.Errorf("the launcher reported no peak RSS (%v): %v", rerr, runErr)
	}
	kib, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if perr != nil {
		return 0, 0, perr
	}
	return kib * 1024, launch.ProcessState.ExitCode(), nil
}

// launchMeasured is the launcher's side of runPeakRSS: when the environment
// names a report file (rssLauncherEnv), it runs os.Args[1:] with this
// process's standard files and environment (without the variable), writes
// the command's peak RSS in KiB (rusage's Maxrss, Linux's unit) to the file
// and exits with the command's exit code (2 when it could not start). It
// returns without doing anything otherwise.
func launchMeasured() {
	report := os.Getenv(rssLauncherEnv)
	if report == "" {
		return
	}
	os.Unsetenv(rssLauncherEnv)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peak RSS launcher:", err)
		os.Exit(2)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		fmt.Fprintln(os.Stderr, "peak RSS launcher: no rusage for", os.Args[1])
		os.Exit(2)
	}
	if werr := os.WriteFile(report, []byte(strconv.FormatInt(ru.Maxrss, 10)+"\n"), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "peak RSS launcher:", werr)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// TestPeakRSSIsTheChildsOwn checks runPeakRSS against the inheritance it
// works around: with this process holding a large live heap, a small child
// measured through the launcher reports its own few MiB, while the same
// child's rusage taken directly reports at least this process's peak (if
// Linux stops carrying it, the direct figure drops and the launcher is no
// longer needed: the second check says so).
func TestPeakRSSIsTheChildsOwn(t *testing.T) {
	ballast := make([]byte, 256<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	cmd := exec.Command(binary, "--version")
	rss, code, err := runPeakRSS(t, cmd)
	if err != nil || code != 0 {
		t.Fatalf("runPeakRSS: %v, exit %d", err, code)
	}
	if rss <= 0 || rss > 128<<20 {
		t.Errorf("streamql --version's peak RSS through the launcher is %d MiB; want its own, a few MiB, far under this process's 256 MiB ballast", rss>>20)
	}
	direct := exec.Command(binary, "--version")
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	inherited := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	if inherited < 256<<20 {
		t.Logf("the direct child's rusage no longer carries this process's peak (%d MiB): runPeakRSS's launcher may go", inherited>>20)
	}
	ballast[len(ballast)-1] = 2 // (kept live to here)
}
