//go:build unix

package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSideFilesWithinOpenFileLimit (issue 30 item 18): a job whose side files
// would pass the limit on open files (RLIMIT_NOFILE, lowered here to 256) is
// refused before it starts (exit 2, no side file made), saying how many files
// it needs and how to raise the limit; one within the limit runs and writes
// every side file.
func TestSideFilesWithinOpenFileLimit(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	low := old
	low.Cur = 256
	if old.Cur < 256 {
		t.Skipf("the limit on open files is already %d", old.Cur)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	for _, tc := range []struct {
		sides int
		ok    bool
	}{{400, false}, {2000, false}, {150, true}} {
		dir := t.TempDir()
		side := filepath.Join(dir, "side")
		if err := os.Mkdir(side, 0o755); err != nil {
			t.Fatal(err)
		}
		var sql, data strings.Builder
		sql.WriteString("CREATE STREAM s (n BIGINT) WITH ('connector'='file', 'path'='n.csv');\n")
		for k := range tc.sides {
			fmt.Fprintf(&sql, "SELECT n INTO SIDE 's%d' FROM s WHERE n = %d;\n", k, k)
			fmt.Fprintf(&data, "%d\n", k)
		}
		sql.WriteString("SELECT * FROM s;\n")
		_, errs, code := runSQLIn(t, dir, map[string]string{"n.csv": data.String()}, sql.String(), "--side-dir", side, "--format", "csv")
		made, _ := os.ReadDir(side)
		if tc.ok {
			if code != 0 || len(made) != tc.sides {
				t.Errorf("%d side outputs under a limit of 256: exit %d, %d files; want 0 and every file: %s", tc.sides, code, len(made), errs)
			}
			continue
		}
		if code != 2 || len(made) != 0 || !strings.Contains(errs, fmt.Sprintf("opens %d files", tc.sides+2)) || !strings.Contains(errs, "ulimit -n") {
			t.Errorf("%d side outputs under a limit of 256: exit %d, %d files made, stderr %q; want 2, none, the count and how to raise the limit", tc.sides, code, len(made), errs)
		}
	}
}
