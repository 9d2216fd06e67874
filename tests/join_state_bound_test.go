package tests

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestIntervalJoinStateFollowsTheInterval: an interval join of two streams in
// event-time order keeps the rows inside the interval, not its inputs (issue
// 23: "memory proportional to the rows inside the interval"). The join reads
// the input whose watermark is behind, and one that has no watermark yet
// counts as behind: 100,000 rows a side, 10 ms apart, joined within a minute,
// run under a 1 MiB 'state.max-bytes', with either stream on the left. (The
// join read its whole left input first while the right had no watermark,
// holding every left row: the job stopped at the limit.)
func TestIntervalJoinStateFollowsTheInterval(t *testing.T) {
	const n = 100_000
	r := rand.New(rand.NewPCG(23, 1))
	var orders, payments strings.Builder
	for i := range n {
		fmt.Fprintf(&orders, "%d,%d\n", i, 1_000_000+i*10+r.IntN(20))
		fmt.Fprintf(&payments, "%d,%d\n", i, 1_000_000+i*10+20+r.IntN(4000))
	}
	ddl := "SET 'state.max-bytes' = '1MiB';\n" +
		"CREATE STREAM orders (id BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');\n" +
		"CREATE STREAM payments (id BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');\n"
	for _, q := range []string{
		"SELECT COUNT(*) AS n FROM (SELECT o.id FROM orders o JOIN payments p ON o.id = p.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '1' MINUTE) j;",
		"SELECT COUNT(*) AS n FROM (SELECT o.id FROM payments p JOIN orders o ON o.id = p.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '1' MINUTE) j;",
	} {
		out, errs, code := runSQL(t, map[string]string{"o.csv": orders.String(), "p.csv": payments.String()}, ddl+q+"\n", "--format", "csv")
		if code != 0 || out != fmt.Sprintf("n\n%d\n", n) {
			t.Errorf("%s\nexit %d, stdout %q, stderr %s", q, code, out, errs)
		}
	}
}
