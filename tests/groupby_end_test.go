package tests

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestGroupByEndAgainstReference (issue 26 item 4): a bounded GROUP BY of
// four keys of four types (NULLs, -0.0 and 0.0 among them) over 40,000
// rows in some 30,000 groups prints, at the stream's end, each group's key
// values and aggregates in the order of its first row, against a batch
// computation over the whole input written here. The groups keep their key
// values only as their key bytes (executor/aggregate decodes them), and the
// end's rows go out several chunks at a time, so every key type, NULL and a
// firing of many pushes are read back through them.
func TestGroupByEndAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 4))
	doubles := []string{"1.5", "-0.0", "0.0", "2.25", "NULL"}
	bools := []string{"true", "false", "NULL"}
	type group struct {
		n      int
		s, m   int64
		hasV   bool
		k1, k2 string
		d, b   string
	}
	var order []string
	groups := map[string]*group{}
	var in strings.Builder
	for range 40000 {
		k1 := strconv.Itoa(r.IntN(3000) - 100)
		if r.IntN(50) == 0 {
			k1 = "NULL"
		}
		k2 := []string{"x", "yy", "zzz", "NULL"}[r.IntN(4)]
		d, b := doubles[r.IntN(len(doubles))], bools[r.IntN(len(bools))]
		v, vNull := r.Int64N(1000)-500, r.IntN(10) == 0
		vs := strconv.FormatInt(v, 10)
		if vNull {
			vs = "NULL"
		}
		fmt.Fprintf(&in, "%s,%s,%s,%s,%s\n", k1, k2, d, b, vs)
		key := k1 + "|" + k2 + "|" + d + "|" + b
		g := groups[key]
		if g == nil {
			g = &group{k1: k1, k2: k2, d: d, b: b}
			groups[key] = g
			order = append(order, key)
		}
		g.n++
		if !vNull {
			if !g.hasV || v > g.m {
				g.m = v
			}
			g.s += v
			g.hasV = true
		}
	}
	text := func(s string) string { // (csv: NULL is an empty field)
		if s == "NULL" {
			return ""
		}
		return s
	}
	var want strings.Builder
	want.WriteString("k1,k2,d,b,n,s,m\n")
	for _, key := range order {
		g := groups[key]
		s, m := "", ""
		if g.hasV {
			s, m = strconv.FormatInt(g.s, 10), strconv.FormatInt(g.m, 10)
		}
		fmt.Fprintf(&want, "%s,%s,%s,%s,%d,%s,%s\n", text(g.k1), text(g.k2), text(g.d), text(g.b), g.n, s, m)
	}
	if len(order) < 5*4096 {
		t.Fatalf("only %d groups: the end would not take several pushes", len(order))
	}
	out, errs, code := runSQL(t, map[string]string{"t.csv": in.String()},
		`CREATE STREAM t (k1 BIGINT, k2 VARCHAR, d DOUBLE, b BOOLEAN, v BIGINT) WITH ('connector'='file', 'path'='t.csv', 'csv.null-literal'='NULL');
SELECT k1, k2, d, b, COUNT(*) AS n, SUM(v) AS s, MAX(v) AS m FROM t GROUP BY k1, k2, d, b;`, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != want.String() {
		got, exp := strings.Split(out, "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(got), len(exp)) {
			if got[i] != exp[i] {
				t.Fatalf("line %d: got %q, want %q (%d lines, want %d)", i+1, got[i], exp[i], len(got), len(exp))
			}
		}
		t.Fatalf("%d lines, want %d", len(got), len(exp))
	}
}
