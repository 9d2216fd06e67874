//go:build unix

package tests

// The Kafka split benchmark (issue 12 item 8): sensor rows in a 4-partition
// topic → the split (low-tmp and high-tmp side branches INTO STREAM, the main
// query INSERT INTO, each a Kafka topic) → topics, against the same split
// between files in the same run; it reports rows/s end to end and the peak
// RSS of each, and the Kafka run's CPU seconds per million rows (the broker's
// are not in it), running the streamql binary. Rows: STREAMQL_KAFKA_BENCH_ROWS
// (default 1,000,000; the figure is 10,000,000):
//
//	export "$(scripts/kafka-broker start /tmp/streamql-kafka)"
//	STREAMQL_KAFKA_BENCH_ROWS=10000000 go test ./tests -run XXX -bench KafkaSplit -benchtime 1x

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/internal/sensorbench"
	"streamql/tests/kafkatest"
)

func BenchmarkKafkaSplit(b *testing.B) {
	rows := envInt(b, "STREAMQL_KAFKA_BENCH_ROWS", 1_000_000)
	brokers := kafkatest.Brokers(b)
	data := sensorbench.CSV(rows)
	in := kafkatest.CreateTopic(b, 4, nil)
	outs := map[string]string{}
	for _, o := range []string{"low", "high", "main"} {
		outs[o] = kafkatest.CreateTopic(b, 4, nil)
	}
	cl := kafkatest.Client(b, kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(1<<20))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var perr error
	for line := range bytes.Lines(data) {
		cl.Produce(ctx, &kgo.Record{Topic: in, Value: bytes.TrimSuffix(line, []byte("\n"))}, func(_ *kgo.Record, err error) {
			if err != nil && perr == nil {
				perr = err
			}
		})
	}
	if err := cl.Flush(ctx); err != nil || perr != nil {
		b.Fatalf("producing %d rows into %s: %v %v", rows, in, err, perr)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	split := "SELECT deviceNo, temperature INTO STREAM low FROM sensors WHERE temperature < 10;\n" +
		"SELECT deviceNo, temperature INTO STREAM high FROM sensors WHERE temperature > 70;\n" +
		"INSERT INTO main SELECT * FROM sensors;\n"
	kafka := func(name, cols, topic, extra string) string {
		return fmt.Sprintf("CREATE STREAM %s (%s) WITH ('connector'='kafka', 'topic'='%s', 'properties.bootstrap.servers'='%s'%s);\n", name, cols, topic, brokers, extra)
	}
	file := func(name, cols, path string) string {
		return fmt.Sprintf("CREATE STREAM %s (%s) WITH ('connector'='file', 'path'='%s');\n", name, cols, path)
	}
	const all, two = "deviceNo VARCHAR, ts BIGINT, temperature DOUBLE", "deviceNo VARCHAR, temperature DOUBLE"
	scripts := map[string]string{
		"kafka": kafka("sensors", all, in, ", 'scan.bounded.mode'='latest-offset'") + kafka("low", two, outs["low"], "") +
			kafka("high", two, outs["high"], "") + kafka("main", all, outs["main"], "") + split,
		"file": file("sensors", all, "sensors.csv") + file("low", two, "low.csv") + file("high", two, "high.csv") + file("main", all, "main.csv") + split,
	}
	for name, sql := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name+".sql"), []byte(sql), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var kcpu time.Duration // the Kafka runs' CPU time (user and system)
	run := func(name string) (time.Duration, int64) {
		args := []string{name + ".sql"}
		if p := os.Getenv("STREAMQL_KAFKA_BENCH_CPUPROFILE"); p != "" && name == "kafka" {
			args = append([]string{"--cpuprofile", p}, args...)
		}
		cmd := exec.Command(binary, args...)
		cmd.Dir = dir
		var errb bytes.Buffer
		cmd.Stderr = &errb
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatalf("the %s split: %v", name, err)
		}
		hwm := watchPeakRSS(cmd.Process.Pid)
		err := cmd.Wait()
		d := time.Since(t0)
		if err != nil {
			b.Fatalf("the %s split: %v: %s", name, err, errb.String())
		}
		if name == "kafka" {
			kcpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		return d, hwm()
	}
	b.ResetTimer()
	var kt, ft time.Duration
	var krss, frss int64
	for range b.N {
		d, r := run("kafka")
		kt, krss = kt+d, max(krss, r)
		d, r = run("file")
		ft, frss = ft+d, max(frss, r)
	}
	b.ReportMetric(float64(rows)*float64(b.N)/kt.Seconds(), "kafka-rows/s")
	b.ReportMetric(float64(rows)*float64(b.N)/ft.Seconds(), "file-rows/s")
	b.ReportMetric(kcpu.Seconds()*1e6/(float64(rows)*float64(b.N)), "kafka-cpu-s/Mrows")
	b.ReportMetric(float64(krss)/1024, "kafka-peak-RSS-MiB")
	b.ReportMetric(float64(frss)/1024, "file-peak-RSS-MiB")
}

// watchPeakRSS samples the peak RSS (VmHWM of /proc/PID/status, KiB) of a
// running process every 10 ms until the returned function is called, after
// the process exited; that function returns the last peak read. (The
// rusage's Maxrss of a child Go started is not its own: Go starts children
// with vfork, and Linux carries the parent's peak RSS into the child's at
// exec, so every child reported at least the test process's peak.)
func watchPeakRSS(pid int) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	status := fmt.Sprintf("/proc/%d/status", pid)
	go func() {
		defer close(stopped)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			if b, err := os.ReadFile(status); err == nil {
				for line := range strings.Lines(string(b)) {
					if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						if n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil && n > peak.Load() {
							peak.Store(n)
						}
					}
				}
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		return peak.Load()
	}
}
