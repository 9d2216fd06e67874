package tests

import (
	"strings"
	"testing"
)

// TestAggregateFilter: aggregate FILTER (WHERE cond) on any aggregate and
// COUNT(DISTINCT x) with or without FILTER (SPEC 2.9), in a GROUP BY over a
// bounded file and in a window, against expected tables; and the planning
// errors of a misplaced FILTER. Over an updating input (an unbounded GROUP
// BY subquery whose HAVING takes rows back, a Debezium stream) the same
// aggregates are the root package's TestCountDistinctFilterUpdatingProperty,
// against a separately written batch reference.
func TestAggregateFilter(t *testing.T) {
	files := map[string]string{"ev.csv": "a,1,1000\nb,2,1500\na,3,2500\na,,2600\na,1,3100\nb,5,3200\nb,5,9000\n"}
	ddl := `CREATE STREAM ev (dev VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='ev.csv', 'format'='csv');
`
	for _, tc := range []struct{ name, query, want string }{
		{"group by", "SELECT dev, COUNT(*) FILTER (WHERE v > 1) AS big, COUNT(*) AS n, COUNT(DISTINCT v) FILTER (WHERE v < 5) AS d, COUNT(DISTINCT v) AS dv, SUM(v) FILTER (WHERE ts > 2000) AS late_sum, MAX(v) FILTER (WHERE v < 3) AS mx, LISTAGG(v) FILTER (WHERE v <> 3) AS l FROM ev GROUP BY dev;",
			"dev,big,n,d,dv,late_sum,mx,l\na,1,4,2,2,4,1,\"1,1\"\nb,3,3,1,2,10,2,\"2,5,5\"\n"},
		{"filter is not the same call as without", "SELECT COUNT(*) FILTER (WHERE v IS NULL), COUNT(*) FROM ev;", "COUNT(*) FILTER (WHERE v IS NULL),COUNT(*)\n1,7\n"},
		{"window", "SELECT window_start, COUNT(*) FILTER (WHERE dev = 'a') AS a, COUNT(DISTINCT dev) FILTER (WHERE v > 2) AS dd FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;",
			"window_start,a,dd\n0,1,0\n2000,3,2\n8000,0,1\n"},
	} {
		out, errs, code := runSQL(t, files, ddl+tc.query+"\n", "--format", "csv")
		if code != 0 || out != tc.want {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant:\n%s", tc.name, code, out, errs, tc.want)
		}
	}
	for _, tc := range []struct{ query, want string }{
		{"SELECT COUNT(*) FILTER (WHERE v) FROM ev;", "needs a BOOLEAN condition"},
		{"SELECT COUNT(*) FILTER (WHERE COUNT(*) > 1) FROM ev;", "aggregate COUNT is not allowed here"},
		{"SELECT COUNT(*) FILTER (v > 1) FROM ev;", "FILTER (v"},
		{"SELECT v FILTER (WHERE v > 1) FROM ev;", ""},
		{"SELECT UPPER(dev) FILTER (WHERE v > 1) FROM ev;", "FILTER (WHERE ...) applies to aggregate functions only"},
		{"SELECT UPPER(dev) FILTER (WHERE v > 1), COUNT(*) FROM ev GROUP BY dev;", "FILTER (WHERE ...) applies to aggregate functions only"},
		// an OVER aggregate: the message says to move the condition into its argument
		{"SELECT SUM(v) FILTER (WHERE v > 1) OVER (PARTITION BY dev ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ev;", "does not apply to an OVER aggregate"},
		{"SELECT COUNT(*) FILTER (WHERE (v > 1) )\n OVER w AS n FROM ev WINDOW w AS (ORDER BY ts);", "COUNT(CASE WHEN cond THEN 1 END) OVER"},
	} {
		_, errs, code := runSQL(t, files, ddl+tc.query+"\n", "--format", "csv")
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "^") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q with a caret", tc.query, code, errs, tc.want)
		}
	}
}
