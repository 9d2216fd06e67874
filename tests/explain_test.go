package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// TestExplainGolden runs each testdata/explain/*.sql script (--format tsv) and
// compares its whole stdout and stderr with the .out file next to it (SPEC 3:
// EXPLAIN prints the plan as stable text). -update rewrites the .out files;
// review the diff against SPEC before committing it.
func TestExplainGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/explain/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata/explain/*.sql")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			abs, err := filepath.Abs(f)
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"--format", "tsv", "-f", abs}, strings.NewReader(""), &out, &errb)
			got := out.String()
			if errb.Len() > 0 || code != 0 {
				got += "-- stderr (exit " + string(rune('0'+code%10)) + "):\n" + strings.ReplaceAll(errb.String(), abs, filepath.Base(f))
			}
			golden := strings.TrimSuffix(f, ".sql") + ".out"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./tests -run TestExplainGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", f, golden, got, want)
			}
		})
	}
}
