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
	t.Parallel() // (a subprocess: it may run beside the other parallel tests, and the package finishes sooner)
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

// TestTestUpdateNeverThroughLinks (issue 30 item 13): `streamql test
// [--update]` never reads or writes through a symbolic link out of the case
// folder, in expected/ or as expected/ itself, to a file or dangling: the
// outside files keep their bytes, none is created, their text is not
// printed, and the case fails naming the link. --update writes a new file
// and renames it into place.
func TestTestUpdateNeverThroughLinks(t *testing.T) {
	const secret = "SECRET-OUTSIDE\n"
	for _, layout := range []string{"file link", "dangling link", "folder link"} {
		for _, update := range []bool{false, true} {
			root := t.TempDir()
			outside := filepath.Join(root, "outside")
			c := filepath.Join(root, "cases", "one")
			for _, d := range []string{outside, c} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(outside, "main.csv"), []byte(secret), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(c, "query.sql"), []byte("CREATE STREAM s (n BIGINT) WITH ('connector'='file', 'path'='s.csv');\nSELECT n FROM s;\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(c, "s.csv"), []byte("1\n2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			exp := filepath.Join(c, "expected")
			var err error
			switch layout {
			case "file link":
				if err = os.Mkdir(exp, 0o755); err == nil {
					err = os.Symlink(filepath.Join(outside, "main.csv"), filepath.Join(exp, "main.csv"))
				}
			case "dangling link":
				if err = os.Mkdir(exp, 0o755); err == nil {
					err = os.WriteFile(filepath.Join(exp, "main.csv"), []byte("n\n9\n"), 0o644)
				}
				if err == nil {
					err = os.Symlink("../../../outside/new.csv", filepath.Join(exp, "x.csv"))
				}
			case "folder link":
				err = os.Symlink(outside, exp)
			}
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"test", c}
			if update {
				args = append(args, "--update")
			}
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errb)
			what := layout + map[bool]string{true: " --update", false: ""}[update]
			if code != 1 || !strings.Contains(out.String(), "symbolic link out of the case folder") {
				t.Errorf("%s: exit %d, stdout %q; want 1 and the link named", what, code, out.String())
			}
			if strings.Contains(out.String()+errb.String(), "SECRET") {
				t.Errorf("%s: the outside file's text was printed: %q", what, out.String())
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "main.csv")); string(b) != secret {
				t.Errorf("%s: the outside file became %q", what, b)
			}
			if _, err := os.Stat(filepath.Join(outside, "new.csv")); err == nil {
				t.Errorf("%s: a file was created outside through the dangling link", what)
			}
		}
	}
	// a plain case is updated by renaming a new file into place
	c := t.TempDir()
	os.WriteFile(filepath.Join(c, "query.sql"), []byte("CREATE STREAM s (n BIGINT) WITH ('connector'='file', 'path'='s.csv');\nSELECT n FROM s;\n"), 0o644)
	os.WriteFile(filepath.Join(c, "s.csv"), []byte("1\n"), 0o644)
	os.Mkdir(filepath.Join(c, "expected"), 0o755)
	os.WriteFile(filepath.Join(c, "expected", "main.csv"), []byte("n\n2\n"), 0o644)
	old, _ := os.Stat(filepath.Join(c, "expected", "main.csv"))
	var out, errb bytes.Buffer
	cli.Run(context.Background(), []string{"test", c, "--update"}, strings.NewReader(""), &out, &errb)
	now, _ := os.Stat(filepath.Join(c, "expected", "main.csv"))
	if b, _ := os.ReadFile(filepath.Join(c, "expected", "main.csv")); string(b) != "n\n1\n" || os.SameFile(old, now) {
		t.Errorf("--update: expected/main.csv %q (same file: %v), want n,1 in a new file renamed into place; %s", b, os.SameFile(old, now), out.String())
	}
}
