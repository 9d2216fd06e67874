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

// TestJoinUsingChained: USING and NATURAL JOIN whose side is itself a join
// (a J1 b USING (k) J2 c USING (k), and a J1 (b J2 c USING (k)) USING (k)),
// which Flink takes and streamql refused, for every pair of join types, on
// random inputs with NULL keys: SELECT * and an unqualified k in WHERE give
// the final table of the joins written with ON and Calcite's expansion (the
// inner join's key COALESCE(a.k, b.k) is the outer join's left key, and k
// is listed once, first, then each relation's other columns in FROM
// order). A USING column found twice in a side that is a join is an
// ambiguity error naming both.
func TestJoinUsingChained(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 41))
	types := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}
	for round := range 2 {
		files := map[string]string{}
		for _, name := range []string{"a", "b", "c"} {
			var sb strings.Builder
			for range 6 {
				k := fmt.Sprint(rng.IntN(4))
				if rng.IntN(5) == 0 {
					k = ""
				}
				fmt.Fprintf(&sb, "%s,%s%d\n", k, name, rng.IntN(100))
			}
			files[name+".csv"] = sb.String()
		}
		ddl := ""
		for _, name := range []string{"a", "b", "c"} {
			ddl += fmt.Sprintf("CREATE STREAM %s (k BIGINT, %s_v VARCHAR) WITH ('connector'='file', 'path'='%s.csv', 'format'='csv');\n", name, name, name)
		}
		for _, j1 := range types {
			for _, j2 := range types {
				for _, c := range []struct{ using, ref string }{
					{"a " + j1 + " b USING (k) " + j2 + " c USING (k)",
						"SELECT COALESCE(COALESCE(a.k, b.k), c.k) AS k, a_v, b_v, c_v FROM a " + j1 + " b ON a.k = b.k " + j2 + " c ON COALESCE(a.k, b.k) = c.k"},
					{"a NATURAL " + j1 + " b NATURAL " + j2 + " c",
						""}, // (NATURAL: the same as USING (k))
					{"a " + j1 + " (b " + j2 + " c USING (k)) USING (k)",
						"SELECT COALESCE(a.k, COALESCE(b.k, c.k)) AS k, a_v, b_v, c_v FROM a " + j1 + " (b " + j2 + " c ON b.k = c.k) ON a.k = COALESCE(b.k, c.k)"},
				} {
					ref := c.ref
					if ref == "" {
						ref = "SELECT COALESCE(COALESCE(a.k, b.k), c.k) AS k, a_v, b_v, c_v FROM a " + j1 + " b ON a.k = b.k " + j2 + " c ON COALESCE(a.k, b.k) = c.k"
					}
					for _, where := range [][2]string{{"", ""}, {" WHERE k <> 2", " WHERE COALESCE(COALESCE(a.k, b.k), c.k) <> 2"}} {
						if strings.Contains(c.using, "(b ") && where[0] != "" {
							where[1] = " WHERE COALESCE(a.k, COALESCE(b.k, c.k)) <> 2"
						}
						got, gerr, gcode := runSQL(t, files, ddl+"SELECT * FROM "+c.using+where[0]+";\n", "--format", "table")
						exp, eerr, ecode := runSQL(t, files, ddl+ref+where[1]+";\n", "--format", "table")
						if gcode != 0 || ecode != 0 || got != exp {
							t.Fatalf("round %d: SELECT * FROM %s%s (exit %d, %s):\n%s\nwant, as %s%s (exit %d, %s):\n%s", round, c.using, where[0], gcode, gerr, got, ref, where[1], ecode, eerr, exp)
						}
					}
				}
			}
		}
	}
	files := map[string]string{"a.csv": "1,x\n", "b.csv": "1,y\n", "c.csv": "1,z\n"}
	ddl := ""
	for _, name := range []string{"a", "b", "c"} {
		ddl += fmt.Sprintf("CREATE STREAM %s (k BIGINT, v VARCHAR) WITH ('connector'='file', 'path'='%s.csv', 'format'='csv');\n", name, name)
	}
	_, stderr, code := runSQL(t, files, ddl+"SELECT * FROM a JOIN b ON a.k = b.k JOIN c USING (k);\n")
	if code != 2 || !strings.Contains(stderr, "USING column 'k' is ambiguous: the join of a, b has two (a.k and b.k)") {
		t.Errorf("a USING column twice on a side: exit %d, %s", code, stderr)
	}
}
