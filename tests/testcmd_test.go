package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// verdicts reads the `PASS name` / `FAIL name` lines (and check-cases' `ok   name`)
// of a case runner's output: name (its last path element) to passed.
func verdicts(out string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		for prefix, pass := range map[string]bool{"PASS ": true, "ok   ": true, "FAIL ": false} {
			if strings.HasPrefix(l, prefix) {
				m[filepath.Base(strings.TrimPrefix(l, prefix))] = pass
			}
		}
	}
	return m
}

// TestSharedCasesThroughTestCommand runs the acceptance cases with `streamql
// test` (SPEC 4), as a user would: every case in the ratchet passes, and each
// verdict is the one ../shared/bin/check-cases gives with the built binary.
func TestSharedCasesThroughTestCommand(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", "..", "shared", "cases"))
	if len(caseDirs(root)) == 0 {
		t.Skipf("no acceptance cases at %s", root)
	}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"test", root}, strings.NewReader(""), &out, &errb)
	got := verdicts(out.String())
	if len(got) != len(caseDirs(root)) {
		t.Fatalf("streamql test reported %d cases, want %d:\n%s%s", len(got), len(caseDirs(root)), out.String(), errb.String())
	}
	failed := false
	for name := range readRatchet(t) {
		if !got[name] {
			t.Errorf("ratchet case %s does not pass through streamql test:\n%s", name, out.String())
		}
	}
	for _, pass := range got {
		failed = failed || !pass
	}
	if want := map[bool]int{false: 0, true: 1}[failed]; code != want {
		t.Errorf("exit %d, want %d", code, want)
	}
	checker := filepath.Join(root, "..", "bin", "check-cases")
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 to run check-cases")
	}
	if _, err := os.Stat(checker); err != nil {
		t.Skipf("no %s", checker)
	}
	ref, _ := exec.Command("python3", checker, binary).Output()
	want := verdicts(string(ref))
	if len(want) != len(got) {
		t.Fatalf("check-cases reported %d cases, want %d:\n%s", len(want), len(got), ref)
	}
	for name, pass := range want {
		if got[name] != pass {
			t.Errorf("case %s: streamql test says pass=%v, check-cases says pass=%v", name, got[name], pass)
		}
	}
}

// TestTestCommandBinary runs `streamql test queries/tests` through the built
// binary from another working directory: the example case passes.
func TestTestCommandBinary(t *testing.T) {
	dir, _ := filepath.Abs(filepath.Join("..", "queries", "tests"))
	r := viaBinary(t, t.TempDir(), []string{"test", dir})
	want := ""
	var cases []string // every case folder: a query.sql beside an expected/
	found, _ := filepath.Glob(filepath.Join(dir, "*", "query.sql"))
	for _, c := range found {
		cases = append(cases, filepath.Base(filepath.Dir(c)))
	}
	sort.Strings(cases)
	for _, c := range cases {
		want += "PASS " + filepath.ToSlash(dir) + "/" + c + "\n"
	}
	if r.code != 0 || r.stdout != want+fmt.Sprintf("%d passed, 0 failed\n", len(cases)) {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestOwnCasesThroughTestCommand runs the project's own cases (testdata/cases)
// with `streamql test`: all pass.
func TestOwnCasesThroughTestCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"test", filepath.Join("testdata", "cases")}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
}
