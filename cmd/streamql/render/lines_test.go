package render

import (
	"bufio"
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"streamql/executor"
	"streamql/internal/sensorbench"
	"streamql/internal/session"
)

// linesFields are field texts for TestRecordLinesAgree: printed forms and
// not (leading zeros, signs, spaces, exponents, trailing zeros), empty and
// quoted fields, quotes and CRs inside fields, bad values.
var linesFields = [][]string{
	{"设备1", "a", "", `"q"`, `"a""b"`, `"x,y"`, `a"b`, "x\ry", "\xff", " s ", "dev;9", "d\tt"},
	{"1610035289754", "0", "-0", "007", "+5", " 5", "-5", "", "9223372036854775807", "9223372036854775808", "12345678901234567", "x"},
	{"72.6", "72.60", "9.5", "0.001", "0.0001", "1e308", "1e309", "10000000.0", "72", "-3.5", "", "NaN", "100.0", "0.0", "abc"},
}

// TestRecordLinesAgree runs random sensor rows with values at the edges
// through the split job (side outputs with computed columns, and SELECT *)
// in csv and tsv, the
// stream's delimiter ',' or ';' or a tab, once copying the decoder's kept
// records (vector.Batch.Line) and once encoding every row: the main output,
// the side files and the errors are the same, byte for byte.
func TestRecordLinesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 22))
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	for k := range 18 {
		// One CPU: the job's goroutine decodes; more: decoded ahead or in
		// chunks, the batches' texts copied (vector.Batch.OwnStrings).
		runtime.GOMAXPROCS([]int{1, 2, 4}[k%3])
		delim := []string{",", ";", "\t"}[k/3%3]
		var in strings.Builder
		for range 3000 {
			for j, fs := range linesFields {
				if j > 0 {
					in.WriteString(delim)
				}
				f := fs[0]
				if r.IntN(3) == 0 {
					f = fs[r.IntN(len(fs))]
				} else if j == 2 {
					f = []string{"3.5", "42.25", "88.8"}[r.IntN(3)]
				}
				in.WriteString(f)
			}
			if r.IntN(15) == 0 {
				in.WriteString(delim + "extra")
			}
			in.WriteString([]string{"\n", "\n", "\n", "\r\n"}[r.IntN(4)])
		}
		format := []string{"csv", "tsv"}[k/9%2]
		dlm := map[string]string{",": ",", ";": ";", "\t": `\t`}[delim]
		script := `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv', 'csv.delimiter' = '` + dlm + `');
SELECT deviceNo, temperature, deviceNo || ',' AS d2, temperature + 1 AS t1 INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10;
SELECT * INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;
SELECT deviceNo, ts, temperature FROM sensors;
`
		run := func(lines bool) string {
			recordLines = lines
			defer func() { recordLines = true }()
			return runLines(t, script, format, map[string]string{"sensors.csv": in.String()}, "low-tmp", "high-tmp", "errors")
		}
		copied, encoded := run(true), run(false)
		if copied != encoded {
			a, b := strings.Split(copied, "\n"), strings.Split(encoded, "\n")
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					t.Fatalf("input %d (%s, delimiter %q): line %d is %q copying the records, %q encoding the rows", k, format, delim, i+1, a[i], b[i])
				}
			}
			t.Fatalf("input %d (%s, delimiter %q): %d lines copying the records, %d encoding the rows", k, format, delim, len(a), len(b))
		}
		if !strings.Contains(copied, "errors:\n") || len(copied) < 50_000 {
			t.Fatalf("input %d: only %d bytes of output", k, len(copied))
		}
	}
}

// TestEncodedLinesAgree runs a lookup join of random rows (text with commas,
// tabs, quotes, CR, LF, ';' and empty, in its left and right columns, so
// that some of the right side's values are marked plain and some not; keys
// missing on the right, rows filtered out, INNER and LEFT: NULLs) whose rows
// go to the main output, malformed rows to the errors side file between
// them (the cut's log notes a main row's end after a side row), in csv and
// tsv, on 1 and 2 CPUs, once through Rows' encoded path (encode: runs of a
// part's rows built in the writer's buffer and written at once) and once
// row by row (row): the main output and the errors are the same, byte for
// byte.
func TestEncodedLinesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 8))
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	texts := []string{"user7", "DE", "", `"q"`, `"a""b"`, `"x,y"`, "\"l\nf\"", "d\tt", "dev;9", "é", `"c` + "\r" + `r"`}
	field := func() string {
		if r.IntN(3) == 0 {
			return texts[r.IntN(len(texts))]
		}
		return texts[r.IntN(2)] + string(rune('a'+r.IntN(26)))
	}
	for k := range 8 {
		runtime.GOMAXPROCS([]int{1, 2}[k%2])
		var clicks, users strings.Builder
		for i := range 300 {
			users.WriteString(strings.Join([]string{field(), strconv.Itoa(i), strconv.Itoa(r.IntN(9))}, ",") + "\n")
		}
		for range 20000 {
			line := strings.Join([]string{field(), strconv.Itoa(r.IntN(330)), strconv.Itoa(r.IntN(100))}, ",")
			if r.IntN(200) == 0 {
				line += ",extra" // (malformed)
			}
			clicks.WriteString(line + "\n")
		}
		format := []string{"csv", "tsv"}[k/2%2]
		// (sensorbench.Plan's streams are (deviceNo VARCHAR, ts BIGINT,
		// temperature DOUBLE): the clicks' url, user and n, the users' name,
		// id and a number)
		script := `CREATE STREAM clicks WITH ('connector' = 'file', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE STREAM users WITH ('connector' = 'file', 'path' = 'users.csv', 'format' = 'csv');
SELECT c.ts, c.deviceNo, u.deviceNo, u.temperature FROM clicks c JOIN users u ON c.ts = u.ts WHERE c.temperature < 90;
`
		if k >= 4 { // (a LEFT join: padded rows, NULL right values)
			script = strings.ReplaceAll(script, " JOIN ", " LEFT JOIN ")
		}
		run := func(encode bool) string {
			encodeRows = encode
			defer func() { encodeRows = true }()
			return runLines(t, script, format, map[string]string{"clicks.csv": clicks.String(), "users.csv": users.String()}, "errors")
		}
		encoded, rows := run(true), run(false)
		if encoded != rows {
			a, b := strings.Split(encoded, "\n"), strings.Split(rows, "\n")
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					t.Fatalf("input %d (%s): line %d is %q encoded, %q row by row", k, format, i+1, a[i], b[i])
				}
			}
			t.Fatalf("input %d (%s): %d lines encoded, %d row by row", k, format, len(a), len(b))
		}
		if strings.Count(encoded, "\n") < 15000 || !strings.Contains(encoded, `"`) || strings.Count(encoded, "expected 3 fields") < 20 {
			t.Fatalf("input %d: only %d lines of output, or none quoted, or no malformed rows", k, strings.Count(encoded, "\n"))
		}
	}
}

// runLines runs script (sensorbench.Plan's streams) over files (name: text)
// in a folder of its own, printing in format with a 4 KiB stdout buffer (the
// lines are built in it) and the side outputs in a side folder, and returns
// the main output, stderr and the side files named sides, each after a
// heading.
func runLines(t *testing.T, script, format string, files map[string]string, sides ...string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job := sensorbench.Plan(t, script, dir)
	side := filepath.Join(dir, "out")
	if err := os.MkdirAll(side, 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	stdout := bufio.NewWriterSize(&out, 4096)
	cfg := Config{Format: format, SideDir: side, Stdout: stdout, Stderr: &errs, Files: NewFileSet()}
	if _, err := executor.Run(context.Background(), job, &executor.Env{}, func() (executor.Sink, error) { return engineSink(NewSink(cfg, session.NewJob(job))) }); err != nil {
		t.Fatal(err)
	}
	res := "main:\n" + out.String() + "errors:\n" + errs.String()
	for _, name := range sides {
		b, _ := os.ReadFile(filepath.Join(side, name+"."+format))
		res += name + ":\n" + string(b)
	}
	return res
}
