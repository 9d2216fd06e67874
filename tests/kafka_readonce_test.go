package tests

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"streamql/tests/kafkatest"
)

// TestKafkaGroupReadOnceShapes, against the real broker: every shape of
// testdata/readonce_shapes.txt over a bounded Kafka stream
// ('scan.bounded.mode') in a consumer group runs with the same rows as the
// same query over a file copy of the records (a reference run): its reads
// whole, every partition, as a build side or a relation over a group is
// read (catalog.CapReadWhole), and the self-join is a lookup join whose
// right side is read whole too. (Unbounded, the self-join's two inputs
// would both read in the group and split its partitions: still a planning
// error, the root package's TestReadOnceFannedOrRefused; the fan-out,
// planner/rule_tee.go, is for stdin, 'go' and socket.)
func TestKafkaGroupReadOnceShapes(t *testing.T) {
	text, err := os.ReadFile("../testdata/readonce_shapes.txt")
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for i := range 40 {
		vals = append(vals, fmt.Sprintf("k%d,%d,2024-01-01 00:00:%02d", i%5, i, i))
	}
	vals = append(vals, "z,1,2024-01-01 00:00:40") // (a key no row with v > 2 has: the anti join keeps it)
	topic := kafkatest.CreateTopic(t, 2, nil)
	produceValues(t, topic, vals, nil)
	const cols = "k VARCHAR, v INT, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND"
	file := "CREATE STREAM s (" + cols + ") WITH ('connector'='file', 'path'='in.csv', 'format'='csv');\n"
	shapes := 0
	for i, l := range strings.Split(string(text), "\n") {
		f := strings.SplitN(l, " | ", 3)
		if len(f) != 3 || strings.HasPrefix(l, "#") {
			continue
		}
		shapes++
		name, q := f[0], strings.Replace(f[2], "^", "", 1)+";\n"
		t.Run(name, func(t *testing.T) {
			view := "CREATE VIEW sv AS SELECT k, v FROM s;\n"
			group := fmt.Sprintf(", 'format'='csv', 'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset', 'properties.group.id'='%s-%d'", topic, i)
			out, errs, code := runSQL(t, nil, kafkaStream(t, "s", cols, topic, group)+view+q, "--format", "csv")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			ref, rerrs, rcode := runSQL(t, map[string]string{"in.csv": strings.Join(vals, "\n") + "\n"}, file+view+q, "--format", "csv")
			if rcode != 0 {
				t.Fatalf("reference: exit %d: %s", rcode, rerrs)
			}
			if got, want := sortedLines(outputRows(out)), sortedLines(outputRows(ref)); got != want || len(outputRows(ref)) < 2 {
				t.Errorf("got\n%s\nwant (over a file)\n%s", got, want)
			}
		})
	}
	if shapes != 12 {
		t.Fatalf("%d shapes read, want 12", shapes)
	}
}
