package render

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"streamql/executor"
	"streamql/internal/sensorbench"
	"streamql/internal/session"
)

// TestNumbersPrintAsSpec runs a csv file whose numbers are written in many
// ways through executor.Run and the csv and json sinks: whether the decoder
// kept a number's source text (vector.Vec.Text: only when it is the printed
// form) or not, every number prints as SPEC 4 says (BIGINT as digits, DOUBLE
// as Java's Double.toString), and a computed column alike.
func TestNumbersPrintAsSpec(t *testing.T) {
	dir := t.TempDir()
	in := "a,007,072.60\nb,1610035289754,72.6\nc, 42 ,1e3\nd,-5,-3.50\ne,0,0.0001\nf,12,10000000.0\ng,3,5\nh,10,0.0\n"
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');
SELECT deviceNo, ts, temperature, temperature + 0 AS t2 FROM sensors;
`
	want := map[string]string{
		"csv": "deviceNo,ts,temperature,t2\na,7,72.6,72.6\nb,1610035289754,72.6,72.6\nc,42,1000.0,1000.0\n" +
			"d,-5,-3.5,-3.5\ne,0,1.0E-4,1.0E-4\nf,12,1.0E7,1.0E7\ng,3,5.0,5.0\nh,10,0.0,0.0\n",
		"json": `{"deviceNo":"a","ts":7,"temperature":72.6,"t2":72.6}` + "\n" +
			`{"deviceNo":"b","ts":1610035289754,"temperature":72.6,"t2":72.6}` + "\n" +
			`{"deviceNo":"c","ts":42,"temperature":1000.0,"t2":1000.0}` + "\n" +
			`{"deviceNo":"d","ts":-5,"temperature":-3.5,"t2":-3.5}` + "\n" +
			`{"deviceNo":"e","ts":0,"temperature":1.0E-4,"t2":1.0E-4}` + "\n" +
			`{"deviceNo":"f","ts":12,"temperature":1.0E7,"t2":1.0E7}` + "\n" +
			`{"deviceNo":"g","ts":3,"temperature":5.0,"t2":5.0}` + "\n" +
			`{"deviceNo":"h","ts":10,"temperature":0.0,"t2":0.0}` + "\n",
	}
	for _, format := range []string{"csv", "json"} {
		job := sensorbench.Plan(t, script, dir)
		var out bytes.Buffer
		stdout := bufio.NewWriter(&out)
		cfg := Config{Format: format, Stdout: stdout, Stderr: io.Discard, Files: NewFileSet()}
		if _, err := executor.Run(context.Background(), job, &executor.Env{}, func() (executor.Sink, error) { return engineSink(NewSink(cfg, session.NewJob(job))) }); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != want[format] {
			t.Errorf("%s:\n%s\nwant:\n%s", format, got, want[format])
		}
	}
}
