package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// jrow is one row of the join tests' inputs: an id (the key; "" is the
// empty string, a key like any other: SPEC 1 reads an empty VARCHAR field as
// ”), an event time in ms, and a value.
type jrow struct {
	id string
	ts int64
	v  int
}

// jrowFile renders rows as csv.
func jrowFile(rows []jrow) string {
	var sb strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&sb, "%s,%d,%d\n", r.id, r.ts, r.v)
	}
	return sb.String()
}

// onTime returns the rows of a stream with WATERMARK FOR ts AS ts - d that
// are not late (SPEC 2.3: late when below the watermark before the row).
func onTime(rows []jrow, d int64) (kept, late []jrow) {
	wm, set := int64(0), false
	for _, r := range rows {
		if set && r.ts < wm {
			late = append(late, r)
			continue
		}
		kept = append(kept, r)
		if !set || r.ts-d > wm {
			wm, set = r.ts-d, true
		}
	}
	return kept, late
}

// referencePairs is the join of l and r computed from SPEC 2.7 alone, by
// nested loops over the whole (on-time) inputs: pairs with equal non-NULL
// ids (and, when interval, r.ts - l.ts in [lo, hi]), then the unmatched rows
// of the outer sides padded; as csv lines "lid,lv,rid,rv", sorted.
func referencePairs(l, r []jrow, kind string, interval bool, lo, hi int64) []string {
	return referencePairsWhere(l, r, kind, interval, lo, hi, nil)
}

// referencePairsWhere is referencePairs where a pair joins only when also
// where(a, b) holds (an outer join's other ON terms, SPEC 2.7); nil: always.
func referencePairsWhere(l, r []jrow, kind string, interval bool, lo, hi int64, where func(a, b jrow) bool) []string {
	var out []string
	lm, rm := make([]bool, len(l)), make([]bool, len(r))
	for i, a := range l {
		for k, b := range r {
			if a.id != b.id || interval && (b.ts-a.ts < lo || b.ts-a.ts > hi) || where != nil && !where(a, b) {
				continue
			}
			lm[i], rm[k] = true, true
			out = append(out, fmt.Sprintf("%s,%d,%s,%d", csvText(a.id), a.v, csvText(b.id), b.v))
		}
	}
	if kind == "LEFT" || kind == "FULL" {
		for i, a := range l {
			if !lm[i] {
				out = append(out, fmt.Sprintf("%s,%d,,", csvText(a.id), a.v))
			}
		}
	}
	if kind == "RIGHT" || kind == "FULL" {
		for k, b := range r {
			if !rm[k] {
				out = append(out, fmt.Sprintf(",,%s,%d", csvText(b.id), b.v))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestJoinsAgainstReference: two-sided joins through the command line (SPEC
// 2.7), on random inputs, give the rows of a nested-loop reference over the
// whole inputs: lookup joins (a bounded right side without event time),
// interval joins of every type, and comma joins; late rows go to each
// input's late output.
func TestJoinsAgainstReference(t *testing.T) {
	gen := func(r *rand.Rand, n int) []jrow {
		rows := make([]jrow, n)
		for i := range rows {
			id := fmt.Sprintf("k%d", r.IntN(8))
			if r.IntN(10) == 0 {
				id = ""
			}
			rows[i] = jrow{id: id, ts: int64(i*100) + r.Int64N(1500) - 750, v: i}
		}
		return rows
	}
	const d = 500
	for seed := range 20 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		l, rr := gen(r, 5+r.IntN(80)), gen(r, 5+r.IntN(80))
		files := map[string]string{"l.csv": jrowFile(l), "r.csv": jrowFile(rr)}
		ddl := (`CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM rb (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`)
		lk, llate := onTime(l, d)
		rk, rlate := onTime(rr, d)
		for _, tc := range []struct {
			query    string
			kind     string
			interval bool
			lside    []jrow // the inputs the reference reads
			rside    []jrow
		}{
			{"SELECT a.id, a.v, b.id, b.v FROM l a JOIN rb b ON a.id = b.id", "INNER", false, lk, rr},
			{"SELECT a.id, a.v, b.id, b.v FROM l a LEFT JOIN rb b ON a.id = b.id", "LEFT", false, lk, rr},
			{"SELECT a.id, a.v, b.id, b.v FROM l a, rb b WHERE b.id = a.id", "INNER", false, lk, rr},
			{"SELECT a.id, a.v, b.id, b.v FROM l a LEFT JOIN rb b ON CONCAT('x', b.id) = CONCAT('x', a.id)", "LEFT", false, lk, rr}, // keys computed from expressions
			{"SELECT a.id, a.v, b.id, b.v FROM l a JOIN r b ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '0.3' SECOND AND a.ts + INTERVAL '0.2' SECOND", "INNER", true, lk, rk},
			{"SELECT a.id, a.v, b.id, b.v FROM l a LEFT JOIN r b ON a.id = b.id AND b.ts >= a.ts - INTERVAL '0.3' SECOND AND b.ts <= a.ts + INTERVAL '0.2' SECOND", "LEFT", true, lk, rk},
			{"SELECT a.id, a.v, b.id, b.v FROM l a RIGHT JOIN r b ON a.id = b.id AND a.ts <= b.ts + INTERVAL '0.3' SECOND AND a.ts > b.ts - INTERVAL '0.201' SECOND", "RIGHT", true, lk, rk},
			{"SELECT a.id, a.v, b.id, b.v FROM l a FULL OUTER JOIN r b ON b.id = a.id AND b.ts BETWEEN a.ts - INTERVAL '0.3' SECOND AND a.ts + INTERVAL '0.2' SECOND", "FULL", true, lk, rk},
		} {
			out, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, tc.query, code, errs)
			}
			got := strings.Split(strings.TrimSpace(out), "\n")[1:] // (the header)
			slices.Sort(got)
			var late [2]int // the default late outputs print on stderr (SPEC 2.4, 2.7)
			for _, line := range strings.Split(errs, "\n") {
				switch {
				case strings.HasPrefix(line, "late-a> "):
					late[0]++
				case strings.HasPrefix(line, "late-b> "):
					late[1]++
				}
			}
			want := referencePairs(tc.lside, tc.rside, tc.kind, tc.interval, -300, 200)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, tc.query, got, want)
			}
			if tc.interval {
				if want := len(llate); late[0] != want {
					t.Errorf("seed %d: %s: %d late rows of l, want %d", seed, tc.query, late[0], want)
				}
				if want := len(rlate); late[1] != want {
					t.Errorf("seed %d: %s: %d late rows of r, want %d", seed, tc.query, late[1], want)
				}
			}
		}
	}
}

// TestJoinErrors: what a two-sided join refuses, each a planning error (exit
// 2) at the place that says why (SPEC 2.7).
func TestJoinErrors(t *testing.T) {
	files := map[string]string{"l.csv": "a,1,1\n", "r.csv": "a,1,1\n"}
	ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM u (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='9', 'format'='csv');
CREATE STREAM dest (id VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM sinkout (id VARCHAR) WITH ('connector'='file', 'path'='out.csv', 'format'='csv');
`
	for _, tc := range []struct{ query, want string }{
		{"SELECT l.id FROM l JOIN r ON l.v > r.v", "needs at least one equality between its two sides"},
		{"SELECT id FROM l JOIN r ON l.id = r.id", "column 'id' is ambiguous: it is l.id and r.id"},
		// every relation that has the column is named (it named the first two of three)
		{"SELECT v FROM l JOIN r ON l.id = r.id JOIN l AS x ON x.id = l.id", "column 'v' is ambiguous: it is l.v, r.v and x.v"},
		{"SELECT l.id FROM l, r, l AS x WHERE l.id = r.id AND x.id = r.id AND ts > 0", "column 'ts' is ambiguous: it is l.ts, r.ts and x.ts"},
		{"SELECT l.id FROM l JOIN r ON l.id = r.id JOIN (SELECT id, v FROM u) ON v = l.v", "column 'v' is ambiguous: it is l.v, r.v and a column of the subquery without an alias; give the subquery an alias, (SELECT …) AS s, and write l.v or s.v"},
		{"SELECT l.id FROM l JOIN r ON l.id = r.v", "are of two types"},
		{"SELECT l.id FROM l JOIN l ON l.id = l.id", "give each an alias"},
		// an updating result into a sink that accepts only inserts (SPEC 2.8), naming the operator
		{"INSERT INTO sinkout SELECT l.id FROM l RIGHT JOIN r ON l.id = r.id", "the regular RIGHT JOIN emits -U/+U/-D changes"},
		{"SELECT l.id INTO STREAM sinkout FROM l LEFT JOIN u ON l.id = u.id", "accepts only inserts: write it to a stream with 'format'='debezium-json'"},
		{"INSERT INTO sinkout SELECT id FROM u GROUP BY id", "the GROUP BY without a window over the unbounded stream u emits"},
		{"SELECT l.id, COUNT(*) FROM l FULL JOIN r ON l.id = r.id GROUP BY l.id LIMIT 3", "LIMIT on an updating result"},
		{"SELECT l.id FROM l LEFT JOIN r ON l.id = r.id AND l.v + r.v", "a join condition is BOOLEAN"},
		{"SELECT l.id FROM l JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.id = r.id", "FOR SYSTEM_TIME AS OF"},   // (never a regular join by mistake)
		{"INSERT INTO dest SELECT l.id, r.v FROM l JOIN r ON l.id = r.id", "the file that stream r reads"}, // (a join's input is one of the job's files)
	} {
		_, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "^") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q with a caret", tc.query, code, errs, tc.want)
		}
		if !strings.Contains(tc.query, "DISTINCT") && !strings.Contains(tc.query, "<=>") && strings.Contains(errs, "IS NOT DISTINCT FROM") {
			t.Errorf("%s: the IS NOT DISTINCT FROM hint where the query has none:\n%s", tc.query, errs)
		}
	}
}

// TestJoinNullSafeKeyWorkaround: the way TestJoinErrors' message says to
// write a key whose NULLs match (COALESCE on both sides) joins NULL keys
// with each other and other keys as = does (SPEC 2.7), for each join type.
func TestJoinNullSafeKeyWorkaround(t *testing.T) {
	files := map[string]string{"l.csv": "a,1\n,2\nb,3\n", "r.csv": ",10\na,20\nc,30\n"}
	ddl := `CREATE STREAM l (id VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='l.csv', 'format'='csv', 'csv.null-literal'='');
CREATE STREAM r (id VARCHAR, w BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv', 'csv.null-literal'='');
`
	for _, tc := range []struct{ query, want string }{
		{"SELECT l.v, r.w FROM l JOIN r ON COALESCE(l.id, '~') = COALESCE(r.id, '~')", "v,w\n1,20\n2,10\n"},
		{"SELECT l.v, r.w FROM l LEFT JOIN r ON COALESCE(l.id, '~') = COALESCE(r.id, '~')", "v,w\n1,20\n2,10\n3,\n"},
	} {
		out, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
		if code != 0 || out != tc.want {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant:\n%s", tc.query, code, out, errs, tc.want)
		}
	}
}

// TestJoinLateNames: LATE INTO SIDE names a join's late outputs in FROM
// order (SPEC 2.7); an input it does not name keeps its default late-<name>
// output, and no late row is lost either way.
func TestJoinLateNames(t *testing.T) {
	files := map[string]string{"l.csv": "a,10,1\na,5,2\na,20,3\n", "r.csv": "a,10,1\na,3,2\na,20,3\n"}
	ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
SELECT l.v, r.v FROM l JOIN r ON l.id = r.id AND l.ts BETWEEN r.ts - INTERVAL '0.005' SECOND AND r.ts `
	for _, tc := range []struct{ late, left, right string }{
		{"", "late-l", "late-r"},
		{"LATE INTO SIDE 'x'", "x", "late-r"},
		{"LATE INTO SIDE 'x', 'y'", "x", "y"},
	} {
		out, errs, code := runSQL(t, files, ddl+tc.late+";\n", "--format", "csv")
		all := out + errs
		if code != 0 || !strings.Contains(all, tc.left+",a,5,2") && !strings.Contains(all, tc.left+"> a,5,2") ||
			!strings.Contains(all, tc.right+",a,3,2") && !strings.Contains(all, tc.right+"> a,3,2") {
			t.Errorf("%q: exit %d, stdout:\n%s\nstderr:\n%s\nwant the late row a,5,2 in %s and a,3,2 in %s", tc.late, code, out, errs, tc.left, tc.right)
		}
		if !strings.Contains(out, "main,1,1\nmain,3,3\n") && !strings.Contains(out, "1,1\n3,3\n") {
			t.Errorf("%q: stdout:\n%s\nwant the joined rows 1,1 and 3,3", tc.late, out)
		}
	}
}

// TestJoinLateNamesThreeRelations: in a FROM of three relations, LATE INTO
// SIDE names the late outputs of the first two (SPEC 2.7), which are side
// outputs of the job like any other (SPEC 4): in every line format each
// late row and each main row carries its output's name, as with two.
func TestJoinLateNamesThreeRelations(t *testing.T) {
	files := map[string]string{"l.csv": "a,10,1\na,5,2\na,20,3\n", "r.csv": "a,10,1\na,3,2\na,20,3\n", "c.csv": "a,1,9\n"}
	ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM c (id VARCHAR, ts BIGINT, w BIGINT) WITH ('connector'='file', 'path'='c.csv', 'format'='csv');
SELECT l.v, r.v AS rv, c.w FROM l JOIN r ON l.id = r.id AND l.ts BETWEEN r.ts - INTERVAL '0.005' SECOND AND r.ts JOIN c ON c.id = l.id LATE INTO SIDE 'x', 'y';
`
	for _, f := range []struct{ format, left, right, main string }{
		{"csv", "x,a,5,2\n", "y,a,3,2\n", "main,1,1,9\nmain,3,3,9\n"},
		{"tsv", "x\ta\t5\t2\n", "y\ta\t3\t2\n", "main\t1\t1\t9\nmain\t3\t3\t9\n"},
		{"json", `{"output":"x","id":"a","ts":5,"v":2}`, `{"output":"y","id":"a","ts":3,"v":2}`, `{"output":"main","v":1,"rv":1,"w":9}`},
		{"plain", "x> (a,5,2)\n", "y> (a,3,2)\n", "main> (1,1,9)\nmain> (3,3,9)\n"},
	} {
		out, errs, code := runSQL(t, files, ddl, "--format", f.format)
		if code != 0 || !strings.Contains(out, f.left) || !strings.Contains(out, f.right) || !strings.Contains(out, f.main) {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant %q, %q and %q", f.format, code, out, errs, f.left, f.right, f.main)
		}
	}
}

// csvText is a VARCHAR as the csv format writes it: the empty string quoted
// (SPEC 4: "" is the empty string, an empty field NULL).
func csvText(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// TestLookupJoinSeesWholeTable: a lookup join's bounded right side is read
// whole first (SPEC 2.7), so every left row joins every right row of its
// key whatever their event times, no right row is late, LEFT pads only the
// rows without a partner, and the output is append-only (no retraction
// printed as a row).
func TestLookupJoinSeesWholeTable(t *testing.T) {
	files := map[string]string{"o.csv": "a,10,1\nb,20,2\nz,30,3\n", "c.csv": "a,100,x\nb,5,y\n"}
	ddl := `CREATE STREAM o (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM c (k VARCHAR, ts BIGINT, name VARCHAR, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='c.csv', 'format'='csv');
`
	for _, tc := range []struct{ join, want string }{
		{"JOIN", "k,v,name\na,1,x\nb,2,y\n"},
		{"LEFT JOIN", "k,v,name\na,1,x\nb,2,y\nz,3,\n"},
	} {
		out, errs, code := runSQL(t, files, ddl+"SELECT o.k, o.v, c.name FROM o "+tc.join+" c ON o.k = c.k;\n", "--format", "csv")
		if code != 0 || out != tc.want || strings.Contains(errs, "late") {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant:\n%s", tc.join, code, out, errs, tc.want)
		}
	}
}

// TestLookupJoinProbedRowsInOrder: a lookup join whose left stream has no
// event time probes each left batch against the whole right side at once
// (op.Join's probeLookup) and hands the joined batches on without copying
// their strings; its output, many batches of it (right keys repeat, so one
// left batch makes several output batches), is exactly, in order, each
// left row joined with its key's right rows in file order, or padded for
// LEFT, as nested loops over the two files give it.
func TestLookupJoinProbedRowsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 7))
	var left, right strings.Builder
	type row struct{ k, v string }
	var ls, rs []row
	for i := range 300 {
		x := row{fmt.Sprintf("k%d", r.IntN(80)), fmt.Sprintf("user%d-%s", i, strings.Repeat("n", r.IntN(12)))}
		rs = append(rs, x)
		fmt.Fprintf(&right, "%s,%s\n", x.k, x.v)
	}
	for i := range 5000 {
		x := row{fmt.Sprintf("k%d", r.IntN(100)), fmt.Sprintf("/url/%d/%s", i, strings.Repeat("u", r.IntN(20)))}
		ls = append(ls, x)
		fmt.Fprintf(&left, "%s,%s\n", x.k, x.v)
	}
	files := map[string]string{"clicks.csv": left.String(), "users.csv": right.String()}
	ddl := `CREATE STREAM clicks (k VARCHAR, url VARCHAR) WITH ('connector'='file', 'path'='clicks.csv', 'format'='csv');
CREATE STREAM users (k VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='users.csv', 'format'='csv');
`
	for _, join := range []string{"JOIN", "LEFT JOIN"} {
		want := []string{"k,url,name"}
		for _, l := range ls {
			found := false
			for _, u := range rs {
				if u.k == l.k {
					want = append(want, l.k+","+l.v+","+u.v)
					found = true
				}
			}
			if !found && join == "LEFT JOIN" {
				want = append(want, l.k+","+l.v+",")
			}
		}
		out, errs, code := runSQL(t, files, ddl+"SELECT c.k, c.url, u.name FROM clicks c "+join+" users u ON c.k = u.k;\n", "--format", "csv")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", join, code, errs)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(got) < 3000 {
			t.Fatalf("%s: only %d rows", join, len(got))
		}
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("%s: line %d is %q, want %q (%d lines, want %d)", join, i+1, got[i], want[i], len(got), len(want))
				}
			}
			t.Fatalf("%s: %d lines, want %d", join, len(got), len(want))
		}
	}
}

// TestJoinWithoutEqualityCaret: a join without an equality between its
// sides is refused (SPEC 2.7) with the caret where the equality belongs:
// at the ON condition, at a comma join's WHERE condition (it pointed at
// the second relation), and at the relation joined when there is no
// condition at all; for two relations and for the third of three.
func TestJoinWithoutEqualityCaret(t *testing.T) {
	files := map[string]string{"l.csv": "a,1,1\n", "r.csv": "a,1,1\n"}
	ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
	for _, tc := range []struct{ query, at string }{
		{"SELECT l.id FROM l JOIN r ON l.v > r.v", "l.v > r.v"},
		{"SELECT l.id FROM l, r WHERE l.v > r.v", "l.v > r.v"},
		{"SELECT l.id FROM l, r", "r"},
		{"SELECT l.id FROM l CROSS JOIN r WHERE l.v > r.v", "l.v > r.v"},
		{"SELECT l.id FROM l, r, l AS x WHERE l.id = r.id AND x.v > r.v", "l.id = r.id AND"},
		{"SELECT l.id FROM l, r, l AS x WHERE l.id = r.id", "l.id = r.id"},
		{"SELECT l.id FROM l, r, l AS x", "r, l AS x"}, // (l, r is the first join without one)
		{"SELECT l.id FROM l JOIN r ON l.id = r.id, l AS x", "l AS x"},
	} {
		_, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
		if code != 2 || !strings.Contains(errs, "needs at least one equality between its two sides") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and no equality", tc.query, code, errs)
			continue
		}
		lines := strings.Split(errs, "\n")
		col := -1
		for i, ln := range lines {
			if i+1 < len(lines) && strings.HasSuffix(ln, tc.query+";") {
				col = strings.Index(lines[i+1], "^") - strings.Index(ln, tc.query)
			}
		}
		if want := strings.LastIndex(tc.query, tc.at); col != want {
			t.Errorf("%s: caret at column %d of the query, want %d (at %q):\n%s", tc.query, col, want, tc.at, errs)
		}
	}
}
