package tests

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"streamql/tests/kafkatest"
)

// TestUpsertKafkaSinkAfterHaving: an updating GROUP BY with a HAVING into an
// upsert-kafka sink (SPEC 2.8): when a group's new row fails the HAVING, the
// update's -U passes alone, and the sink writes it as its key's tombstone
// (the row leaves the result), so the topic's last record per key gives the
// final table a batch computation over the whole input gives: the groups
// whose final row meets the HAVING.
func TestUpsertKafkaSinkAfterHaving(t *testing.T) {
	for seed := range 3 {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		var in strings.Builder
		sum := map[int]int{}
		for range 20 + r.IntN(200) {
			k, v := r.IntN(12), r.IntN(21)-10
			sum[k] += v
			fmt.Fprintf(&in, "%d,%d\n", k, v)
		}
		topic := kafkatest.CreateTopic(t, 2, nil)
		script := "SET 'execution.runtime-mode' = 'streaming';\n" +
			"CREATE STREAM s (k BIGINT, v BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
			upsertStream(t, "u", "k BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED", topic, "") +
			"INSERT INTO u SELECT k, SUM(v) AS total FROM s GROUP BY k HAVING SUM(v) > 0;\n"
		if stdout, stderr, code := runSQL(t, map[string]string{"s.csv": in.String()}, script); code != 0 || stdout != "" {
			t.Fatalf("seed %d: exit %d, stdout %q, stderr %q", seed, code, stdout, stderr)
		}
		last := map[int][]byte{} // key -> the last value (nil: a tombstone)
		for _, rec := range kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{}) {
			var key struct{ K int }
			if err := json.Unmarshal(rec.Key, &key); err != nil {
				t.Fatalf("seed %d: key %q: %v", seed, rec.Key, err)
			}
			last[key.K] = rec.Value
		}
		for k, total := range sum {
			v, seen := last[k]
			switch {
			case total > 0 && (!seen || v == nil):
				t.Errorf("seed %d: key %d: total %d meets the HAVING, but the topic's last record is %q", seed, k, total, v)
			case total > 0:
				var row struct{ K, Total int }
				if err := json.Unmarshal(v, &row); err != nil || row.Total != total {
					t.Errorf("seed %d: key %d: the last value is %q, want total %d", seed, k, v, total)
				}
			case seen && v != nil:
				t.Errorf("seed %d: key %d: total %d fails the HAVING, but the topic's last record is %q, not a tombstone", seed, k, total, v)
			}
		}
	}
}
