package connector

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
)

// TestConnectorNamesOnlyHere: the connectors' names are compared or switched on
// nowhere but in their own files here (issue 10 item 5); the engine asks a
// spec's fields (KnownSize, TakesInsert, ReadsStdin, Validate, Source) instead.
func TestConnectorNamesOnlyHere(t *testing.T) {
	names := catalog.ConnectorNames()
	if strings.Join(names, ",") != "datagen,file,go,nexmark,socket,stdin,values" {
		t.Fatalf("registered connectors %v", names)
	}
	names = append(names, "kafka", "upsert-kafka") // (kafka/, which registers them, imports this package)
	alt := strings.Join(names, "|")
	// x == "file", "file" != x, case "file":, case "a", "file":
	cmp := regexp.MustCompile(`(==|!=)\s*"(` + alt + `)"|"(` + alt + `)"\s*(==|!=)|\bcase\s+("[^"]*",\s*)*"(` + alt + `)"`)
	// internal/export translates each connector to Flink's (SPEC 4, issue 27):
	// the one package outside this one that must name them
	engineLines(t, []string{"../../internal/export"}, func(p string, n int, line string) {
		if cmp.MatchString(line) {
			t.Errorf("%s:%d switches on a connector name: %s", p, n, strings.TrimSpace(line))
		}
	})
}

// TestOptionsReadOnlyHere: a stream's option strings are read in the
// connectors' own files only (issue 22 item 5); the engine reads the typed
// configuration each connector's spec parses them into when the stream is
// declared (catalog.Stream.Config: Shared, File, Kafka).
func TestOptionsReadOnlyHere(t *testing.T) {
	// st.Options["errors"], st.Options[catalog.MaxFutureOption], st.Options[groupOption]
	read := regexp.MustCompile(`\bOptions\[\s*("|catalog\.|[a-z][A-Za-z]*Option\b)`)
	if !read.MatchString(`x := st.Options["path"]`) || !read.MatchString(`st.Options[catalog.MaxFutureOption]`) || read.MatchString(`&spec.Options[i]`) {
		t.Fatal("the pattern does not tell an option read")
	}
	engineLines(t, nil, func(p string, n int, line string) {
		if read.MatchString(line) {
			t.Errorf("%s:%d reads a stream option's string; read the stream's typed Config (catalog.Stream.Shared, File, Kafka): %s", p, n, strings.TrimSpace(line))
		}
	})
}

// engineLines calls visit with each line of the module's Go files but tests,
// outside this package (and the packages under it), testdata and the
// directories of skip (paths relative to this package).
func engineLines(t *testing.T, skip []string, visit func(path string, n int, line string)) {
	t.Helper()
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	here, _ := filepath.Abs(".")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if abs, _ := filepath.Abs(p); abs == here || (d.Name() != ".." && strings.HasPrefix(d.Name(), ".")) || d.Name() == "testdata" || slices.Contains(skip, filepath.ToSlash(p)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			visit(p, i+1, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
