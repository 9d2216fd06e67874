package export

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExportAbsolutePaths: every file path of the Flink script is absolute,
// and names the file streamql reads or writes (SPEC 1: a relative 'path' is
// resolved against the folder of the script that declares it), since Flink
// resolves a relative path from its own working directory: sources and
// sinks, csv, json and changelog formats, scripts in other folders than the
// working directory (given by a relative and an absolute name), paths that
// climb out with .., absolute paths kept as they are, and a relative
// --side-dir (resolved from the working directory, as streamql reads it).
// Each path the export writes is checked against a file the test created
// where streamql would look.
func TestExportAbsolutePaths(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"jobs/in.csv", "jobs/sub/cdc.json", "data/shared.json", "abs.csv"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	a := "CREATE STREAM s (k VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='in.csv', 'format'='csv');\n" +
		"CREATE STREAM c (id BIGINT, name VARCHAR, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='file', 'path'='sub/cdc.json', 'format'='debezium-json');\n" +
		"CREATE STREAM j (k VARCHAR) WITH ('connector'='file', 'path'='../data/shared.json', 'format'='json');\n" +
		"CREATE STREAM x (k VARCHAR) WITH ('connector'='file', 'path'='" + filepath.Join(root, "abs.csv") + "', 'format'='csv');\n" +
		"CREATE STREAM o (k VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='in.csv.out', 'format'='csv');\n"
	b := "INSERT INTO o SELECT k, n FROM s;\nSELECT k INTO SIDE 'rest' FROM j;\nSELECT * FROM x;\nSELECT id FROM c;\n"
	want := map[string]string{ // table -> the file streamql opens
		"s": filepath.Join(root, "jobs/in.csv"), "c": filepath.Join(root, "jobs/sub/cdc.json"),
		"j": filepath.Join(root, "data/shared.json"), "x": filepath.Join(root, "abs.csv"),
		"o": filepath.Join(root, "jobs/in.csv.out"), "rest": filepath.Join(root, "sides/rest.csv"),
	}
	for _, names := range [][2]string{{"jobs/a.sql", "data/../jobs/b.sql"}, {filepath.Join(root, "jobs/a.sql"), "jobs/b.sql"}} {
		got, _, err := Export([]Input{{Name: names[0], Source: a}, {Name: names[1], Source: b}}, Options{SideDir: "sides"})
		if err != nil {
			t.Fatal(err)
		}
		tables := regexp.MustCompile("(?s)CREATE TABLE `([^`]+)` \\([^;]*?'path' = '([^']*)'").FindAllStringSubmatch(got, -1)
		seen := map[string]bool{}
		for _, m := range tables {
			name, path := m[1], m[2]
			seen[name] = true
			if !filepath.IsAbs(path) {
				t.Errorf("scripts %v: table %s has the relative path '%s'", names, name, path)
			}
			if w, ok := want[name]; !ok || path != w {
				t.Errorf("scripts %v: table %s: 'path' = '%s', want '%s'", names, name, path, w)
			}
			if name != "o" && name != "rest" {
				if _, err := os.Stat(path); err != nil {
					t.Errorf("scripts %v: table %s: %v", names, name, err)
				}
			}
		}
		for name := range want {
			if !seen[name] {
				t.Errorf("scripts %v: no table %s with a path in:\n%s", names, name, got)
			}
		}
		if strings.Contains(got, "'path' = 'in.csv'") {
			t.Errorf("a relative path is left:\n%s", got)
		}
	}
}
