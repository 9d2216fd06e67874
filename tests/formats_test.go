package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatsGolden renders one job with a side output, a malformed row, NULLs,
// NaN, quoting and CJK text in every format of SPEC 4 and compares stdout and
// stderr with testdata/formats/<format>.out (go test ./tests -update rewrites).
func TestFormatsGolden(t *testing.T) {
	data := "设备1,1,5.5\n\"a,\"\"b\"\"\",2,NaN\nbad,x,1\n,3,\n设备7,4,88.2\n"
	sql := `CREATE STREAM s (name VARCHAR, ts BIGINT, t DOUBLE) WITH ('connector'='file', 'path'='s.csv');
SELECT name, t INTO SIDE 'high-tmp' FROM s WHERE t > 70;
SELECT name, ts, t, t * 2 AS twice FROM s;
`
	for _, f := range []string{"table", "csv", "tsv", "json", "plain", "markdown"} {
		t.Run(f, func(t *testing.T) {
			out, errs, code := runSQL(t, map[string]string{"s.csv": data}, sql, "--format", f)
			got := "exit " + string(rune('0'+code)) + "\n--- stdout\n" + out + "--- stderr\n" + errs
			// the same job with --side-dir: stdout holds main only, each side
			// output and the errors output get their file (SPEC 4)
			dir := t.TempDir()
			out, errs, code = runSQL(t, map[string]string{"s.csv": data}, sql+sql[strings.Index(sql, "SELECT"):], "--format", f, "--side-dir", dir)
			got += "=== with --side-dir, the job run twice (side files append)\nexit " + string(rune('0'+code)) + "\n--- stdout\n" + out + "--- stderr\n" + errs
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				got += "--- " + e.Name() + "\n" + string(b)
			}
			golden := filepath.Join("testdata", "formats", f+".out")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./tests -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
	if !strings.Contains(sql, "SIDE") {
		t.Fatal("the job must have a side output")
	}
}
