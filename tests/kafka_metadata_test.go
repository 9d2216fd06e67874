package tests

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/tests/kafkatest"
)

// TestKafkaMetadataColumns: Flink's Kafka METADATA columns (issue 29 item 3,
// SPEC 1): timestamp, partition, offset, key and headers, with FROM or by the
// column's own name, VIRTUAL or not, beside a computed column and as the
// WATERMARK FOR column of a window. Each row's metadata is checked against
// the records as the broker stored them (the producer's answers), and the
// window counts against counts computed here from the record timestamps.
func TestKafkaMetadataColumns(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	topic := kafkatest.CreateTopic(t, 2, nil)
	cl := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	var rs []*kgo.Record
	for i := 0; i < 40; i++ {
		r := &kgo.Record{Value: []byte(fmt.Sprint(i)), Partition: int32(i % 2), Timestamp: base.Add(time.Duration(i*700) * time.Millisecond)}
		if i%3 != 0 {
			r.Key = []byte(fmt.Sprintf("k%d", i%5))
		}
		if i%4 == 0 {
			r.Headers = []kgo.RecordHeader{{Key: "src", Value: []byte("a\"b")}, {Key: "n", Value: []byte(fmt.Sprint(i))}}
		}
		rs = append(rs, r)
	}
	kafkatest.Produce(t, cl, topic, rs...)
	ddl := kafkaStream(t, "s", "id BIGINT, ts TIMESTAMP(3) METADATA FROM 'timestamp', `partition` BIGINT METADATA VIRTUAL, off BIGINT METADATA FROM 'offset' VIRTUAL, "+
		"k VARCHAR METADATA FROM 'key', h VARCHAR METADATA FROM 'headers', twice AS id * 2, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND",
		topic, ", 'format'='csv', 'scan.bounded.mode'='latest-offset'")
	out, errs, code := runSQLIn(t, t.TempDir(), nil, ddl+"SELECT * FROM s;\n", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := []string{"id,ts,partition,off,k,h,twice"}
	var rows []string
	for i, r := range rs {
		k := string(r.Key)
		if r.Key == nil {
			k = ""
		}
		h := "{}"
		if len(r.Headers) > 0 {
			h = fmt.Sprintf(`"{""n"":""%d"",""src"":""a\""b""}"`, i)
		}
		rows = append(rows, fmt.Sprintf("%d,%s,%d,%d,%s,%s,%d", i, r.Timestamp.UTC().Format("2006-01-02 15:04:05.000"), r.Partition, r.Offset, k, h, 2*i))
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) == 0 || got[0] != want[0] {
		t.Fatalf("header %q, want %q", got, want[0])
	}
	sort.Strings(rows)
	body := append([]string(nil), got[1:]...)
	sort.Strings(body)
	if strings.Join(body, "\n") != strings.Join(rows, "\n") {
		t.Errorf("rows\n%s\nwant (the records as stored)\n%s", strings.Join(body, "\n"), strings.Join(rows, "\n"))
	}
	// a window over the metadata timestamp: counts per 5 s from the records
	counts := map[string]int{}
	for _, r := range rs {
		start := r.Timestamp.UTC().Truncate(5 * time.Second)
		counts[start.Format("2006-01-02 15:04:05.000")]++
	}
	out, errs, code = runSQLIn(t, t.TempDir(), nil, ddl+"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;\n", "--format", "csv")
	if code != 0 {
		t.Fatalf("window: exit %d: %s", code, errs)
	}
	var wantW []string
	for s, n := range counts {
		wantW = append(wantW, fmt.Sprintf("%s,%d", s, n))
	}
	sort.Strings(wantW)
	gotW := strings.Split(strings.TrimSuffix(out, "\n"), "\n")[1:]
	sort.Strings(gotW)
	if strings.Join(gotW, "\n") != strings.Join(wantW, "\n") {
		t.Errorf("windows by the record timestamp\n%s\nwant\n%s\nstderr %s", strings.Join(gotW, "\n"), strings.Join(wantW, "\n"), errs)
	}
}
