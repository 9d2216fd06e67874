package tests

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestJoinUsingIsItsOnJoin: for every join type (INNER, LEFT, RIGHT, FULL)
// and every way of naming the common columns (USING in either order, NATURAL
// JOIN), on random event-time inputs with NULL keys, SELECT * and an
// unqualified common column in WHERE give the same bytes as the join written
// with ON and the projection Calcite expands them to (Flink's validator:
// each common column once, first, as COALESCE(l.c, r.c) AS c, in USING's
// order or the left side's; then the left side's other columns, then the
// right side's).
func TestJoinUsingIsItsOnJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 23))
	for round := range 3 {
		var ls, rs strings.Builder
		for i := range 8 {
			k := fmt.Sprint(rng.IntN(4))
			if rng.IntN(6) == 0 {
				k = ""
			}
			fmt.Fprintf(&ls, "%s,%c,%d,2024-03-01 10:%02d:00\n", k, 'x'+rune(rng.IntN(2)), rng.IntN(100), i)
			k = fmt.Sprint(rng.IntN(4))
			if rng.IntN(6) == 0 {
				k = ""
			}
			fmt.Fprintf(&rs, "%c,%s,%d,2024-03-01 10:%02d:30\n", 'x'+rune(rng.IntN(2)), k, rng.IntN(100), i)
		}
		files := map[string]string{"l.csv": ls.String(), "r.csv": rs.String()}
		ddl := `CREATE STREAM l (k BIGINT, g VARCHAR, a BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
  WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (g VARCHAR, k BIGINT, b BIGINT, tr TIMESTAMP(3), WATERMARK FOR tr AS tr - INTERVAL '1' MINUTE)
  WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
		for _, jt := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
			for _, c := range []struct{ join, common string }{
				{"l " + jt + " r USING (k, g)", "k,g"},
				{"l " + jt + " r USING (g, k)", "g,k"},
				{"l NATURAL " + jt + " r", "k,g"},
			} {
				var want, on []string
				for _, n := range strings.Split(c.common, ",") {
					want = append(want, fmt.Sprintf("COALESCE(l.%s, r.%s) AS %s", n, n, n))
					on = append(on, fmt.Sprintf("l.%s = r.%s", n, n))
				}
				want = append(want, "l.a AS a", "l.ts AS ts", "r.b AS b", "r.tr AS tr")
				ref := fmt.Sprintf("SELECT %s FROM l %s r ON %s", strings.Join(want, ", "), jt, strings.Join(on, " AND "))
				for _, where := range [][2]string{{"", ""}, {" WHERE k <> 2", " WHERE COALESCE(l.k, r.k) <> 2"}} {
					got, gerr, gcode := runSQL(t, files, ddl+"SELECT * FROM "+c.join+where[0]+";\n", "--format", "csv")
					exp, eerr, ecode := runSQL(t, files, ddl+ref+where[1]+";\n", "--format", "csv")
					if gcode != 0 || ecode != 0 || got != exp {
						t.Fatalf("round %d: SELECT * FROM %s%s (exit %d, %s):\n%s\nwant, as %s%s (exit %d, %s):\n%s", round, c.join, where[0], gcode, gerr, got, ref, where[1], ecode, eerr, exp)
					}
				}
			}
		}
	}
}
