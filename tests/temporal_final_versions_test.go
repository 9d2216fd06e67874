package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTemporalJoinOverBoundedLastRowAgainstReference: a temporal join
// whose versioned side is a deduplication keeping the last row over a
// bounded input (SPEC 2.7's "updating (2.8) with a key"; a bounded input's
// deduplication gives its final rows, one per key, at its end in key
// order: README's Joins) joins each on-time left row with its key's final
// row when that row's time is not above the left row's, and calls none of
// the final rows late: through a view and a WITH name, INNER and LEFT.
// The join computed a watermark over the final rows as they came, in key
// order, so a key's row after a later time's was sent to the late output and the left rows of its key found no
// version. The reference: the on-time rows of l (SPEC 2.3), and per key the
// row of p with the greatest ts (distinct here), all of p's rows counted (a
// deduplication has no late rows).
func TestTemporalJoinOverBoundedLastRowAgainstReference(t *testing.T) {
	const ddl = `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM p (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.3' SECOND) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
CREATE VIEW pv AS SELECT id, ts, v FROM (SELECT id, ts, v, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM p) WHERE rn = 1;
`
	const dedup = "(SELECT id, ts, v FROM (SELECT id, ts, v, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM p) WHERE rn = 1)"
	for seed := range 10 {
		r := rand.New(rand.NewPCG(uint64(seed), 27))
		l, p := distinctTimeRows(r, 5+r.IntN(40), 2000, 5, 1000000), distinctTimeRows(r, 5+r.IntN(40), 2000, 5, 1000000)
		files := map[string]string{"l.csv": jrowFile(l), "p.csv": jrowFile(p)}
		lk, _ := onTime(l, 300)
		last := map[string]jrow{}
		for _, x := range p {
			if o, ok := last[x.id]; !ok || x.ts > o.ts {
				last[x.id] = x
			}
		}
		ref := func(kind string) []string {
			var out []string
			for _, a := range lk {
				if b, ok := last[a.id]; ok && b.ts <= a.ts {
					out = append(out, fmt.Sprintf("%s,%d,%d,%d", a.id, a.v, b.v, b.ts))
				} else if kind == "LEFT" {
					out = append(out, fmt.Sprintf("%s,%d,,", a.id, a.v))
				}
			}
			slices.Sort(out)
			return out
		}
		for _, kind := range []string{"INNER", "LEFT"} {
			for _, tc := range []struct {
				query string
				want  []string
			}{
				{"SELECT l.id, l.v, pv.v, pv.ts FROM l " + kind + " JOIN pv FOR SYSTEM_TIME AS OF l.ts ON l.id = pv.id", ref(kind)},
				{"WITH w AS " + dedup + " SELECT l.id, l.v, w.v, w.ts FROM l " + kind + " JOIN w FOR SYSTEM_TIME AS OF l.ts ON l.id = w.id", ref(kind)},
			} {
				out, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
				if code != 0 {
					t.Fatalf("seed %d: %s: exit %d: %s", seed, tc.query, code, errs)
				}
				if got := csvRows(out); !slices.Equal(sorted(got), tc.want) {
					t.Fatalf("seed %d: %s:\n got %q\nwant %q\n%s", seed, tc.query, sorted(got), tc.want, errs)
				}
				// (l's own late rows are reported; no version is late)
				if strings.Contains(errs, "sent to 'late-p") || strings.Contains(errs, "sent to 'late-w'") {
					t.Fatalf("seed %d: %s: a version went to a late output:\n%s", seed, tc.query, errs)
				}
			}
		}
	}
}
