// Package sensorbench holds what the tests and benchmarks of the sensor split
// job (SPEC 2.1's main example) share across packages (executor,
// cmd/streamql/render, tests): the job's script, a sensor CSV generator, the
// job's planning, and per-row CPU time reporting. It is for tests only.
package sensorbench

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner"
)

// SplitScript is the split job: rows of the stream sensors (the file
// sensors.csv) with temperature < 10 go to the side output low-tmp, those
// with temperature > 70 to high-tmp, all of them to the main output.
const SplitScript = `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');
SELECT deviceNo, temperature INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10;
SELECT deviceNo, temperature INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;
`

// CSV returns rows lines shaped like ../shared/bench/gen's output:
// 设备<n>,<epoch ms>,<temperature with one decimal, 0.0..100.0>. The same
// rows always give the same text.
func CSV(rows int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	ts := int64(1610035289736)
	for range rows {
		ts += 10 + r.Int64N(20)
		t := r.IntN(1001)
		buf.WriteString("设备")
		buf.WriteString(strconv.Itoa(1 + r.IntN(8)))
		buf.WriteByte(',')
		buf.WriteString(strconv.FormatInt(ts, 10))
		buf.WriteByte(',')
		buf.WriteString(strconv.Itoa(t / 10))
		buf.WriteByte('.')
		buf.WriteByte(byte('0' + t%10))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// TumbleScript is the windowed aggregate of issue 11 item 7: per device and
// per minute (TUMBLE on the event time ts, watermark ts - 5 s), COUNT(*), AVG,
// MIN and MAX of temperature (SPEC 2.4).
const TumbleScript = `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');
SELECT window_start, window_end, deviceNo, COUNT(*) AS n, AVG(temperature) AS avg_t,
  MIN(temperature) AS min_t, MAX(temperature) AS max_t
  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, deviceNo;
`

// Plan plans src (SplitScript or a variant of it: a CREATE STREAM of sensors,
// side branches, and a main query) into one job. The stream's columns are
// deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, and its relative file path
// is resolved against baseDir.
func Plan(tb testing.TB, src, baseDir string) *planner.Job {
	tb.Helper()
	script, err := parser.Parse("split.sql", src)
	if err != nil {
		tb.Fatal(err)
	}
	cat := catalog.New()
	var branches []*planner.Branch
	var main *planner.Branch
	for _, st := range script.Stmts {
		switch st := st.(type) {
		case *parser.CreateStream:
			s := &catalog.Stream{Name: st.Name, EventTime: -1, BaseDir: baseDir, Columns: []catalog.Column{
				{Name: "deviceNo", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}, {Name: "temperature", Type: catalog.Double}}}
			if s.Connector, s.Options, err = planner.ValidateOptions(st.Options, s.Columns, 0); err != nil {
				tb.Fatal(err)
			}
			if err := s.Configure(); err != nil {
				tb.Fatal(err)
			}
			if st.Watermark != nil { // WATERMARK FOR ts (TumbleScript)
				s.EventTime, s.Watermark = s.Column(st.Watermark.Column), planner.Watermark(st.Watermark)
			}
			cat.Add(s)
		case *parser.Select:
			p := &planner.Planner{Cat: cat, Source: src}
			b, err := p.PlanSelect(st)
			if err != nil {
				tb.Fatal(err)
			}
			if st.Side != "" {
				branches = append(branches, b)
			} else {
				main = b
			}
		}
	}
	job, err := planner.NewJob(main.Stream, branches, main, src)
	if err != nil {
		tb.Fatal(err)
	}
	return job
}

// ReportRows reports ns/row and cpu-ns/row (user+system CPU time since cpu0,
// steadier than ns/row when other processes compete for the cores) for a
// benchmark that handled rows rows.
func ReportRows(b *testing.B, rows int64, cpu0 time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
	b.ReportMetric(float64((CPUTime()-cpu0).Nanoseconds())/float64(rows), "cpu-ns/row")
}
