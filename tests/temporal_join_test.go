package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTemporalJoinAgainstReference: JOIN r FOR SYSTEM_TIME AS OF l.t (SPEC
// 2.7's temporal join) gives each on-time order the rate of its currency
// valid at the order's time: the on-time rate row of that currency with the
// largest time not above it (equal times: the last to arrive), computed
// separately over the whole input; LEFT keeps the orders without one with
// NULLs. Rows are out of order within the watermark delay, so some of both
// inputs are late and go to their late outputs (random inputs, 20 seeds).
func TestTemporalJoinAgainstReference(t *testing.T) {
	type row struct {
		key  string
		t    int64
		v    int
		late bool
	}
	const delay = 30
	gen := func(r *rand.Rand, n int, prefix string) ([]row, string) {
		var rows []row
		var b strings.Builder
		maxT := int64(-1 << 62)
		for i := range n {
			x := row{key: fmt.Sprintf("c%d", r.IntN(4)), t: int64(i*10) + r.Int64N(61) - 30, v: i}
			x.late = maxT > -1<<62 && x.t < maxT-delay
			maxT = max(maxT, x.t)
			rows = append(rows, x)
			fmt.Fprintf(&b, "%s%d,%s,%d\n", prefix, x.v, x.key, x.t)
		}
		return rows, b.String()
	}
	for seed := range 20 {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		orders, ordersCSV := gen(r, 1+r.IntN(60), "o")
		rates, ratesCSV := gen(r, 1+r.IntN(30), "r")
		for _, kind := range []string{"JOIN", "LEFT JOIN"} {
			var want []string
			for _, o := range orders {
				if o.late {
					continue
				}
				valid := -1
				for k, x := range rates {
					if !x.late && x.key == o.key && x.t <= o.t && (valid < 0 || x.t >= rates[valid].t) {
						valid = k
					}
				}
				switch {
				case valid >= 0:
					want = append(want, fmt.Sprintf("o%d,r%d", o.v, rates[valid].v))
				case kind == "LEFT JOIN":
					want = append(want, fmt.Sprintf("o%d,", o.v))
				}
			}
			slices.Sort(want)
			sql := fmt.Sprintf(`CREATE STREAM orders (id VARCHAR, cur VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.03' SECOND) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM rates (id VARCHAR, cur VARCHAR, ts BIGINT, PRIMARY KEY (cur) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '0.03' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
SELECT o.id, r.id AS rate FROM orders o %s rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur;
`, kind)
			out, errs, code := runSQL(t, map[string]string{"o.csv": ordersCSV, "r.csv": ratesCSV}, sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d %s: exit %d: %s", seed, kind, code, errs)
			}
			var got []string
			lines := strings.Split(strings.TrimSpace(out), "\n")
			for _, l := range lines[1:] {
				if !strings.Contains(l, ">") { // (late rows print with their output's name)
					got = append(got, l)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d %s: got\n%s\nwant (the version valid at each order's time)\n%s\nstdout:\n%s\nstderr:\n%s", seed, kind, strings.Join(got, "\n"), strings.Join(want, "\n"), out, errs)
			}
		}
	}
}

// TestTemporalJoinErrors: what a temporal join refuses, each a planning
// error at the clause that says what to write (SPEC 2.7).
func TestTemporalJoinErrors(t *testing.T) {
	files := map[string]string{"o.csv": "o1,a,1\n", "r.csv": "a,1,1\n"}
	ddl := `CREATE STREAM o (id VARCHAR, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM r (k VARCHAR, v BIGINT, ts BIGINT, PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM nokey (k VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM notime (k VARCHAR, v BIGINT, ts BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
	for _, tc := range []struct{ query, want string }{
		{"SELECT o.id FROM o RIGHT JOIN r FOR SYSTEM_TIME AS OF o.ts ON o.k = r.k", "INNER or LEFT"},
		{"SELECT o.id FROM o JOIN nokey FOR SYSTEM_TIME AS OF o.ts ON o.k = nokey.k", "needs a PRIMARY KEY"},
		{"SELECT o.id FROM o JOIN notime FOR SYSTEM_TIME AS OF o.ts ON o.k = notime.k", "needs event time"},
		{"SELECT o.id FROM o JOIN r FOR SYSTEM_TIME AS OF o.id ON o.k = r.k", "the left side's event-time column o.ts"},
		{"SELECT o.id FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts ON o.id = r.k AND o.k = r.k", "PRIMARY KEY of r (k)"},
		{"SELECT o.id FROM o FOR SYSTEM_TIME AS OF o.ts", "after the right side of a JOIN"},
	} {
		_, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "^") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q with a caret", tc.query, code, errs, tc.want)
		}
	}
}

// TestTemporalJoinKeyConditionError: a temporal join's ON must equal each
// column of the right side's PRIMARY KEY to a left column, once each, with
// no other equality between the sides, and may hold any other term (SPEC
// 2.7). Every ON that misses (no key equality, another equality instead
// or besides, the key twice) is a planning error at the clause that says
// so, and its suggested ON is a real column of the left side of the key's
// type (the same-named one first): the query with the suggestion, and the
// other terms the message allows, plans and runs. A left side with no
// column of the key's type gets the type named instead.
func TestTemporalJoinKeyConditionError(t *testing.T) {
	files := map[string]string{"o.csv": "1,a,2.5,1\n", "r.csv": "a,1.5,1\n"}
	ddl := `CREATE STREAM o (id BIGINT, cur VARCHAR, amt DOUBLE, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM p (id BIGINT, name VARCHAR, amt DOUBLE, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM n (id BIGINT, amt DOUBLE, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM r (cur VARCHAR, rate DOUBLE, ts BIGINT, PRIMARY KEY (cur) NOT ENFORCED, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
	const other = " AND r.rate > 1.15 AND r.rate < %s.amt"
	for _, tc := range []struct{ left, on, suggest string }{
		{"o", "o.amt = r.rate", "o.cur = r.cur"},
		{"o", "o.cur = r.cur AND o.amt = r.rate", "o.cur = r.cur"},
		{"o", "o.cur = r.cur AND o.cur = r.cur", "o.cur = r.cur"},
		{"o", "r.rate > 1.15", "o.cur = r.cur"},
		{"p", "p.amt = r.rate", "p.name = r.cur"},
		{"n", "n.amt = r.rate", "n.<a VARCHAR column, or a CAST to VARCHAR> = r.cur"},
	} {
		q := fmt.Sprintf("SELECT %[1]s.id FROM %[1]s JOIN r FOR SYSTEM_TIME AS OF %[1]s.ts ON ", tc.left)
		_, errs, code := runSQL(t, files, ddl+q+tc.on+";\n", "--format", "csv")
		_, got, ok := strings.Cut(errs, ": write ON ")
		got, _, _ = strings.Cut(got, "\n")
		if code != 2 || !ok || got != tc.suggest || !strings.Contains(errs, "a temporal join's ON needs an equality between a column of the left side "+tc.left+" and each column of the PRIMARY KEY of r (cur)") ||
			!strings.Contains(errs, "other terms are allowed") || !strings.Contains(errs, "^") {
			t.Errorf("ON %s: exit %d, suggests %q, want exit 2 suggesting %q with a caret; stderr:\n%s", tc.on, code, got, tc.suggest, errs)
			continue
		}
		if strings.Contains(got, "<") {
			continue // (no column to suggest)
		}
		out, errs, code := runSQL(t, files, ddl+q+got+fmt.Sprintf(other, tc.left)+";\n", "--format", "csv")
		if code != 0 || out != "id\n1\n" {
			t.Errorf("ON %s: the suggested ON %s with other terms: exit %d, stdout %q, want id 1; stderr:\n%s", tc.on, got, code, out, errs)
		}
	}
}
