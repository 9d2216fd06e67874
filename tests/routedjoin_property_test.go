package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// rjRow is one row of stream o in TestJoinInputBranchesAgainstReference: a key, an
// event time in ms (not in order: some rows are late) and an id.
type rjRow struct {
	k     string
	t, id int64
}

// rjBranch is one random side branch over o: its statement and the
// reference's test of a row (wm: the watermark before the row, set: there
// is one).
type rjBranch struct {
	sql  string
	cols func(r rjRow) string
	take func(r rjRow, wm int64, set bool) bool
}

// rjBranches returns n random side branches over o named s0, s1, …: a
// modulo of the id, a key, or the late rows (t < CURRENT_WATERMARK(t)).
func rjBranches(r *rand.Rand, n int) []rjBranch {
	out := make([]rjBranch, n)
	for i := range out {
		name := fmt.Sprintf("s%d", i)
		switch r.IntN(3) {
		case 0:
			m, rem := int64(2+r.IntN(3)), int64(0)
			rem = r.Int64N(m)
			out[i] = rjBranch{
				sql:  fmt.Sprintf("SELECT id, k INTO SIDE '%s' FROM o WHERE id %% %d = %d;\n", name, m, rem),
				cols: func(x rjRow) string { return fmt.Sprintf("%d,%s", x.id, x.k) },
				take: func(x rjRow, _ int64, _ bool) bool { return x.id%m == rem },
			}
		case 1:
			k := fmt.Sprintf("k%d", r.IntN(4))
			out[i] = rjBranch{
				sql:  fmt.Sprintf("SELECT id INTO SIDE '%s' FROM o WHERE k = '%s';\n", name, k),
				cols: func(x rjRow) string { return fmt.Sprint(x.id) },
				take: func(x rjRow, _ int64, _ bool) bool { return x.k == k },
			}
		default:
			out[i] = rjBranch{
				sql:  fmt.Sprintf("SELECT id, t INTO SIDE '%s' FROM o WHERE t < CURRENT_WATERMARK(t);\n", name),
				cols: func(x rjRow) string { return fmt.Sprintf("%d,%d", x.id, x.t) },
				take: func(x rjRow, wm int64, set bool) bool { return set && x.t < wm },
			}
		}
	}
	return out
}

// rjOutputs splits the csv output of a job with several outputs into each
// output's rows (without the output's name), in order, with the late
// outputs' rows, which stderr shows as "late-o> row".
func rjOutputs(out, errs string) map[string][]string {
	got := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		name, rest, ok := strings.Cut(l, ",")
		if !ok || name == "output" {
			continue
		}
		got[name] = append(got[name], rest)
	}
	for _, l := range strings.Split(errs, "\n") {
		if name, rest, ok := strings.Cut(l, "> "); ok && strings.HasPrefix(name, "late-") {
			got[name] = append(got[name], rest)
		}
	}
	return got
}

// TestJoinInputBranchesAgainstReference: side branches pending on a stream o that
// the next main query joins (SPEC 2.1, 2.6, 2.7) take o's rows by first
// match in declaration order, at o's output (a late-row branch by o's own
// watermark, which the rows they take move too), and only the rest reach
// the join, for each kind of join: lookup INNER and LEFT (o on the left,
// and on the right, read whole), interval INNER, and regular INNER. The
// reference routes o's rows first, then joins the rest by a nested loop;
// a rest row below o's watermark goes to the join's late output (except a
// lookup join's right side, never late). Side outputs are compared in
// order, the join's rows as multisets.
func TestJoinInputBranchesAgainstReference(t *testing.T) {
	ddl := `CREATE STREAM o (k VARCHAR, t BIGINT, id BIGINT, WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM p (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
CREATE STREAM q (k VARCHAR, t BIGINT, v BIGINT, WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='q.csv', 'format'='csv');
`
	type pRow struct {
		k    string
		t, v int64
	}
	kinds := []struct {
		name, sql string
		right     bool                       // o is the join's right input (a lookup join's table: never late)
		left      bool                       // LEFT: an o row without partner is padded
		pairs     func(o rjRow, x pRow) bool // the join's condition beyond the key
		other     string                     // p or q
	}{
		{"lookup inner", "SELECT o.id, p.v FROM o JOIN p ON o.k = p.k;\n", false, false, nil, "p"},
		{"lookup left", "SELECT o.id, p.v FROM o LEFT JOIN p ON o.k = p.k;\n", false, true, nil, "p"},
		{"lookup inner, o on the right", "SELECT o.id, p.v FROM p JOIN o ON o.k = p.k;\n", true, false, nil, "p"},
		{"interval inner", "SELECT o.id, q.v FROM o JOIN q ON o.k = q.k AND o.t BETWEEN q.t - INTERVAL '2' SECOND AND q.t + INTERVAL '2' SECOND;\n", false, false,
			func(o rjRow, x pRow) bool { return o.t >= x.t-2000 && o.t <= x.t+2000 }, "q"},
		{"regular inner", "SELECT o.id, q.v FROM q RIGHT JOIN o ON o.k = q.k WHERE q.v IS NOT NULL;\n", false, false, nil, "q"},
	}
	for ki, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ki)+19, 23))
			for iter := range 12 {
				// o: times that mostly rise, some falling back (late rows)
				os := make([]rjRow, 4+r.IntN(20))
				ts := int64(r.IntN(3000))
				var osb strings.Builder
				for i := range os {
					if r.IntN(4) == 0 {
						ts -= r.Int64N(3000)
					} else {
						ts += r.Int64N(1500)
					}
					os[i] = rjRow{k: fmt.Sprintf("k%d", r.IntN(4)), t: ts, id: int64(i + 1)}
					fmt.Fprintf(&osb, "%s,%d,%d\n", os[i].k, os[i].t, os[i].id)
				}
				// p and q: the other input, q's times rising (none late)
				ps := make([]pRow, 1+r.IntN(8))
				var psb, qsb strings.Builder
				qt := int64(r.IntN(3000))
				for i := range ps {
					qt += r.Int64N(3000)
					ps[i] = pRow{k: fmt.Sprintf("k%d", r.IntN(5)), t: qt, v: int64(100 + i)}
					fmt.Fprintf(&psb, "%s,%d\n", ps[i].k, ps[i].v)
					fmt.Fprintf(&qsb, "%s,%d,%d\n", ps[i].k, ps[i].t, ps[i].v)
				}
				branches := rjBranches(r, 1+r.IntN(3))
				var sql strings.Builder
				sql.WriteString(ddl)
				for _, b := range branches {
					sql.WriteString(b.sql)
				}
				sql.WriteString(kind.sql)
				// the reference: route o's rows by first match (o's watermark
				// before each row, moved by every row), then join the rest
				want := map[string][]string{}
				var wm int64
				set := false
				for _, x := range os {
					taken := false
					for bi, b := range branches {
						if b.take(x, wm, set) {
							name := fmt.Sprintf("s%d", bi)
							want[name] = append(want[name], b.cols(x))
							taken = true
							break
						}
					}
					late := set && x.t < wm
					if w := x.t - 1000; !set || w > wm {
						wm, set = w, true
					}
					if taken {
						continue
					}
					if late && !kind.right {
						want["late-o"] = append(want["late-o"], fmt.Sprintf("%s,%d,%d", x.k, x.t, x.id))
						continue
					}
					matched := false
					for _, y := range ps {
						if y.k == x.k && (kind.pairs == nil || kind.pairs(x, y)) {
							want["main"] = append(want["main"], fmt.Sprintf("%d,%d", x.id, y.v))
							matched = true
						}
					}
					if !matched && kind.left {
						want["main"] = append(want["main"], fmt.Sprintf("%d,", x.id))
					}
				}
				files := map[string]string{"o.csv": osb.String(), "p.csv": psb.String(), "q.csv": qsb.String()}
				out, errs, code := runSQL(t, files, sql.String(), "--format", "csv")
				if code != 0 {
					t.Fatalf("iteration %d: exit %d: %s\n%s", iter, code, errs, sql.String())
				}
				if strings.Contains(errs, "warning") {
					t.Errorf("iteration %d: a warning:\n%s", iter, errs)
				}
				got := rjOutputs(out, errs)
				if len(branches) == 0 || len(got) == 0 && len(want) > 0 {
					t.Fatalf("iteration %d: no outputs parsed from\n%s", iter, out)
				}
				names := map[string]bool{}
				for n := range want {
					names[n] = true
				}
				for n := range got {
					names[n] = true
				}
				for n := range names {
					g, w := got[n], want[n]
					if n == "main" || n == "late-o" {
						g, w = canonical(g), canonical(w)
					}
					if !slices.Equal(g, w) {
						t.Errorf("iteration %d: output %s:\ngot  %q\nwant %q\n%s\no.csv:\n%s%s.csv:\n%s", iter, n, g, w, sql.String(), osb.String(), kind.other, files[kind.other+".csv"])
					}
				}
			}
		})
	}
}
