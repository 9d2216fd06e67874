package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"streamql/cmd/streamql/cli"
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

// TestTerminalFormatsEscapeInvalidUTF8 (issue 30 item 19, SPEC 4): in table,
// plain and markdown, and in the errors> lines on stderr in every format,
// each byte that is not valid UTF-8 (each of 0x80–0xff alone, an 8-bit CSI
// 0x9b among them, and cut multi-byte runes) is shown as \xNN: what reaches
// the terminal is valid UTF-8 without a C1 control or ESC, in malformed rows'
// raw text (a VARCHAR that is not UTF-8 makes its row malformed) and in
// column names. csv keeps a column name's bytes as data.
func TestTerminalFormatsEscapeInvalidUTF8(t *testing.T) {
	var in strings.Builder
	for b := 0x80; b <= 0xff; b++ {
		c := string([]byte{byte(b)}) // the lone byte, not the rune U+00NN
		fmt.Fprintf(&in, "a%sz,%d\n", c, b)
		fmt.Fprintf(&in, "b%s\x1b[31m,bad%s\n", c, c)
	}
	in.WriteString("\xe4\xb8,1\n\xf0\x9f\x98,x\nok,1\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sql := "CREATE STREAM s (`c\x9b` VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='s.csv');\nSELECT * FROM s;\n"
	if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "plain", "markdown", "csv"} {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", format, "-f", filepath.Join(dir, "q.sql")}, strings.NewReader(""), &out, &errb)
		if code != 0 {
			t.Fatalf("%s: exit %d %q", format, code, errb.String())
		}
		shown := map[string]string{"stdout": out.String(), "stderr": errb.String()}
		if format == "csv" {
			if !strings.HasPrefix(out.String(), "c\x9b,n\n") {
				t.Errorf("csv: the column name's byte 0x9b is not kept as data: %q", short(out.String()))
			}
			delete(shown, "stdout")
		}
		for name, text := range shown {
			if !utf8.ValidString(text) {
				i := 0
				for i < len(text) {
					r, n := utf8.DecodeRuneInString(text[i:])
					if r == utf8.RuneError && n == 1 {
						break
					}
					i += n
				}
				t.Errorf("%s %s: a byte that is not UTF-8 reaches the terminal at %d: %q", format, name, i, text[max(0, i-20):min(len(text), i+20)])
				continue
			}
			for _, r := range text {
				if r >= 0x80 && r <= 0x9f || r == 0x1b {
					t.Errorf("%s %s: control U+%04X reaches the terminal", format, name, r)
					break
				}
			}
		}
		all := out.String() + errb.String()
		for _, want := range []string{`a\x9bz`, `b\x9b\x1b[31m`, `bad\xff`, `\xe4\xb8`, `\xf0\x9f\x98`, `c\x9b`} {
			if want == `c\x9b` && (format == "plain" || format == "csv") {
				continue // no header, or kept as data
			}
			if !strings.Contains(all, want) {
				t.Errorf("%s: want %s shown; got %q", format, want, short(all))
			}
		}
	}
}

func short(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}
