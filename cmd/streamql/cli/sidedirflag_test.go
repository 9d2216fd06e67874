package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSideDirFlagNotAFolder: a --side-dir that is a file, or that cannot be
// created, is an error before anything runs (exit 2) that names the flag and
// the path and says what to give instead, not a bare mkdir error.
func TestSideDirFlagNotAFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte("keep\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{file, "is a file, not a folder"},
		{filepath.Join(file, "sub"), "cannot create the folder"},
	} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), []string{"--side-dir", c.path, "-e", "SELECT 1 AS a;"}, strings.NewReader(""), &out, &errb)
		msg := errb.String()
		if code != exitPlanning || out.Len() != 0 || !strings.Contains(msg, "--side-dir "+c.path) || !strings.Contains(msg, c.want) || !strings.Contains(msg, "give a folder") || strings.Contains(msg, "mkdir") {
			t.Errorf("--side-dir %s: exit %d, stdout %q, stderr %q; want 2, %q and what to give", c.path, code, out.String(), msg, c.want)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "keep\n" {
		t.Errorf("the file became %q", b)
	}
}
