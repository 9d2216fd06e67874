package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestProcTimeTemporalJoin: JOIN r FOR SYSTEM_TIME AS OF l.p, p a PROCTIME()
// column (Flink's processing-time temporal join, the syntax of its lookup
// joins), against a bounded r is SPEC 2.7's lookup join: every left row
// joins the rows of its key in the whole of r (INNER), or is padded (LEFT),
// as a nested-loop reference computes; against an unbounded r it is a
// planning error that says what to write.
func TestProcTimeTemporalJoin(t *testing.T) {
	ddl := "CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, p AS PROCTIME()) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');\n" +
		"CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');\n" +
		"CREATE STREAM u (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'follow'='true');\n"
	for seed := range 6 {
		rnd := rand.New(rand.NewPCG(uint64(seed), 41))
		gen := func(n, keys int) []jrow {
			rows := make([]jrow, n)
			for i := range rows {
				rows[i] = jrow{id: fmt.Sprintf("k%d", rnd.IntN(keys)), ts: int64(i), v: rnd.IntN(100)}
			}
			return rows
		}
		l, r := gen(1+rnd.IntN(30), 6), gen(1+rnd.IntN(10), 8)
		files := map[string]string{"l.csv": jrowFile(l), "r.csv": jrowFile(r)}
		for _, kind := range []string{"INNER", "LEFT"} {
			q := "SELECT l.id, l.v, r.id, r.v FROM l " + kind + " JOIN r FOR SYSTEM_TIME AS OF l.p ON l.id = r.id"
			out, errs, code := runSQL(t, files, ddl+q+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			got := strings.Split(strings.TrimSpace(out), "\n")[1:]
			slices.Sort(got)
			if want := referencePairs(l, r, kind, false, 0, 0); !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, q, got, want)
			}
		}
	}
	_, errs, code := runSQL(t, map[string]string{"l.csv": "a,1,1\n", "r.csv": "a,1,1\n"}, ddl+"SELECT l.id, u.v FROM l JOIN u FOR SYSTEM_TIME AS OF l.p ON l.id = u.id;\n", "--format", "csv")
	if code != 2 || !strings.Contains(errs, "reads its right side whole first, and u is unbounded") || !strings.Contains(errs, "^") {
		t.Fatalf("a processing-time temporal join against an unbounded stream: exit %d, stderr %q; want a planning error", code, errs)
	}
}
