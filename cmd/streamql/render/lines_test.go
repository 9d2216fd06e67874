package render

import (
	"bufio"
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
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
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), []byte(in.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			job := sensorbench.Plan(t, script, dir)
			side := filepath.Join(dir, "out")
			if err := os.MkdirAll(side, 0o755); err != nil {
				t.Fatal(err)
			}
			var out, errs bytes.Buffer
			stdout := bufio.NewWriterSize(&out, 4096) // small: the lines are built in it
			cfg := Config{Format: format, SideDir: side, Stdout: stdout, Stderr: &errs, Files: NewFileSet()}
			if _, err := executor.Run(context.Background(), job, &executor.Env{}, func() (executor.Sink, error) { return engineSink(NewSink(cfg, session.NewJob(job))) }); err != nil {
				t.Fatal(err)
			}
			res := "main:\n" + out.String() + "errors:\n" + errs.String()
			for _, name := range []string{"low-tmp", "high-tmp", "errors"} {
				b, _ := os.ReadFile(filepath.Join(side, name+"."+format))
				res += name + ":\n" + string(b)
			}
			return res
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
