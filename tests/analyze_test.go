package tests

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// TestExplainAnalyzeGolden runs each testdata/analyze/*.sql script (SPEC 3,
// EXPLAIN ANALYZE) in each format its first line names ("-- formats: tsv
// json"), in a copy of testdata/analyze, and compares its stdout and stderr,
// with the times masked (maskTimes), with the .out file next to it. A script
// holding {{PORT}} gets the port of a socket that serves the file NAME.socket
// to one connection. -update rewrites the .out files; check the counts
// against the comments of each script (which derive them from SPEC) before
// committing.
func TestExplainAnalyzeGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/analyze/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata/analyze/*.sql")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(src), "\n")
			formats := strings.Fields(strings.TrimPrefix(first, "-- formats:"))
			if !strings.HasPrefix(first, "-- formats:") || len(formats) == 0 {
				t.Fatalf("%s: the first line must be -- formats: FMT ...", f)
			}
			var got strings.Builder
			for _, format := range formats {
				dir := copyDir(t, "testdata/analyze")
				sql := string(src)
				if strings.Contains(sql, "{{PORT}}") {
					sql = strings.ReplaceAll(sql, "{{PORT}}", strconv.Itoa(serveOnce(t, strings.TrimSuffix(f, ".sql")+".socket")))
				}
				script := filepath.Join(dir, filepath.Base(f))
				if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
					t.Fatal(err)
				}
				var out, errb bytes.Buffer
				code := cli.Run(context.Background(), []string{"--format", format, "-f", script}, strings.NewReader(""), &out, &errb)
				got.WriteString("== --format " + format + "\n" + maskTimes(out.String(), format))
				if errb.Len() > 0 || code != 0 {
					got.WriteString("-- stderr (exit " + strconv.Itoa(code) + "):\n" + strings.ReplaceAll(errb.String(), dir+string(filepath.Separator), ""))
				}
			}
			golden := strings.TrimSuffix(f, ".sql") + ".out"
			if *update {
				if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./tests -run TestExplainAnalyzeGolden -update)", err)
			}
			if got.String() != string(want) {
				t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", f, golden, got.String(), want)
			}
		})
	}
}

var (
	msRe   = regexp.MustCompile(`\d+\.\d{3} ms`)
	rateRe = regexp.MustCompile(`\d+ rows/s`)
	// the padding and rules of table and markdown cells, whose widths follow the masked times
	padRe  = regexp.MustCompile(` {2,}`)
	ruleRe = regexp.MustCompile(`[-─]{2,}`)
)

// maskTimes replaces in out (EXPLAIN ANALYZE's output in format) the times
// ("1.234 ms") and rates ("5000 rows/s"), which vary from run to run, with
// fixed tokens; in table and markdown, whose column widths follow them, it
// also shortens each run of padding spaces and of rule characters to one.
func maskTimes(out, format string) string {
	out = msRe.ReplaceAllString(out, "T ms")
	out = rateRe.ReplaceAllString(out, "R rows/s")
	if format == "table" || format == "markdown" {
		out = padRe.ReplaceAllString(out, " ")
		out = ruleRe.ReplaceAllString(out, "-")
	}
	return out
}

// TestMaskTimes: the mask hides times and rates only, and the same plan with
// other times gives the same text.
func TestMaskTimes(t *testing.T) {
	a := maskTimes("in 7, out 7 rows, 0.005 ms, 1500214 rows/s; final watermark 4000", "tsv")
	b := maskTimes("in 7, out 7 rows, 12.345 ms, 7 rows/s; final watermark 4000", "tsv")
	if want := "in 7, out 7 rows, T ms, R rows/s; final watermark 4000"; a != want || b != want {
		t.Errorf("got %q and %q, want %q", a, b, want)
	}
}

// copyDir copies the files of dir into a new temporary directory.
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// serveOnce listens on a local port and writes the file path to the first
// connection, then closes it; it returns the port.
func serveOnce(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write(data)
		c.Close()
	}()
	return ln.Addr().(*net.TCPAddr).Port
}
