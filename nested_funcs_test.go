package streamql_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"streamql"
)

// nv is a random nested value for the property tests below, written as a
// SQL literal, with its own equality and type computed here (not by the
// engine): a number (BIGINT or DOUBLE literal, so the values of one shape mix
// both), NULL, an ARRAY, a ROW (ROW(...): fields EXPR$0, ...) or a MAP with
// VARCHAR keys.
type nv struct {
	kind  byte // 'n' number, '0' NULL, 'a' ARRAY, 'r' ROW, 'm' MAP
	num   float64
	dbl   bool // a DOUBLE literal
	kids  []nv
	keys  []string
	shape *nshape
}

// nshape is the shape the values of one test share.
type nshape struct {
	kind byte // 'n', 'a', 'r', 'm'
	kids []*nshape
}

func randShape(rng *rand.Rand, depth int) *nshape {
	if depth == 0 || rng.IntN(3) == 0 {
		return &nshape{kind: 'n'}
	}
	switch rng.IntN(3) {
	case 0:
		return &nshape{kind: 'a', kids: []*nshape{randShape(rng, depth-1)}}
	case 1:
		s := &nshape{kind: 'r'}
		for range 1 + rng.IntN(2) {
			s.kids = append(s.kids, randShape(rng, depth-1))
		}
		return s
	}
	return &nshape{kind: 'm', kids: []*nshape{randShape(rng, depth-1)}}
}

// randNV is a value of shape s; a NULL only where a non-NULL value of the
// same part comes first (so every literal has a type).
func randNV(rng *rand.Rand, s *nshape, nullOK bool) nv {
	if nullOK && rng.IntN(6) == 0 {
		return nv{kind: '0', shape: s}
	}
	v := nv{kind: s.kind, shape: s}
	switch s.kind {
	case 'n':
		v.num = float64(rng.IntN(3))
		if v.dbl = rng.IntN(2) == 0; v.dbl && rng.IntN(3) == 0 {
			v.num += 0.5
		}
	case 'a':
		for k := range 1 + rng.IntN(2) {
			v.kids = append(v.kids, randNV(rng, s.kids[0], k > 0))
		}
	case 'r':
		for _, f := range s.kids {
			v.kids = append(v.kids, randNV(rng, f, false))
		}
	case 'm':
		for k, key := range []string{"a", "b"}[:1+rng.IntN(2)] {
			v.keys = append(v.keys, key)
			v.kids = append(v.kids, randNV(rng, s.kids[0], k > 0))
		}
		if rng.IntN(2) == 0 { // (a MAP's entries in any order)
			for k := range v.keys {
				j := len(v.keys) - 1 - k
				if k < j {
					v.keys[k], v.keys[j] = v.keys[j], v.keys[k]
					v.kids[k], v.kids[j] = v.kids[j], v.kids[k]
				}
			}
		}
	}
	return v
}

// sql is v as a SQL literal.
func (v nv) sql() string {
	var parts []string
	switch v.kind {
	case '0':
		return "NULL"
	case 'n':
		if v.dbl {
			return strconv.FormatFloat(v.num, 'f', 1, 64)
		}
		return strconv.Itoa(int(v.num))
	case 'm':
		for k, kid := range v.kids {
			parts = append(parts, "'"+v.keys[k]+"'", kid.sql())
		}
		return "MAP[" + strings.Join(parts, ", ") + "]"
	}
	for _, kid := range v.kids {
		parts = append(parts, kid.sql())
	}
	if v.kind == 'a' {
		return "ARRAY[" + strings.Join(parts, ", ") + "]"
	}
	return "ROW(" + strings.Join(parts, ", ") + ")"
}

// nvEqual is the reference of = on two values of one shape: numbers by
// value (1 = 1.0), a NULL part equal to a NULL part only, ARRAYs in order,
// MAPs by key whatever the order, ROWs by position.
func nvEqual(a, b nv) bool {
	if a.kind == '0' || b.kind == '0' {
		return a.kind == b.kind
	}
	switch a.kind {
	case 'n':
		return a.num == b.num
	case 'm':
		if len(a.kids) != len(b.kids) {
			return false
		}
		for k, key := range a.keys {
			j := indexOf(b.keys, key)
			if j < 0 || !nvEqual(a.kids[k], b.kids[j]) {
				return false
			}
		}
		return true
	}
	if len(a.kids) != len(b.kids) {
		return false
	}
	for k := range a.kids {
		if !nvEqual(a.kids[k], b.kids[k]) {
			return false
		}
	}
	return true
}

func indexOf(s []string, x string) int {
	for k, y := range s {
		if y == x {
			return k
		}
	}
	return -1
}

// ntype is the reference type of values of one shape: for each number part
// (in a walk of the shape) whether it is DOUBLE; a part where every value is
// NULL stays BIGINT-free (false), which any type widens from.
type ntype []bool

// typeOf is the common type of vs (all of shape s): a number part is DOUBLE
// when a value has a DOUBLE there.
func typeOf(s *nshape, vs ...nv) ntype {
	var t ntype
	var walk func(s *nshape, vs []nv)
	walk = func(s *nshape, vs []nv) {
		var live []nv
		for _, v := range vs {
			if v.kind != '0' {
				live = append(live, v)
			}
		}
		switch s.kind {
		case 'n':
			d := false
			for _, v := range live {
				d = d || v.dbl
			}
			t = append(t, d)
		case 'r':
			for f := range s.kids {
				var fs []nv
				for _, v := range live {
					fs = append(fs, v.kids[f])
				}
				walk(s.kids[f], fs)
			}
		default: // ARRAY and MAP: their elements or values together
			var es []nv
			for _, v := range live {
				es = append(es, v.kids...)
			}
			walk(s.kids[0], es)
		}
	}
	walk(s, vs)
	return t
}

// widens reports whether a value of type from converts to type to without
// narrowing a DOUBLE part to BIGINT (Flink's implicit cast).
func widens(from, to ntype) bool {
	for k := range from {
		if from[k] && !to[k] {
			return false
		}
	}
	return true
}

// TestNestedNullIfProperty: NULLIF(a, b) of two random ARRAY, MAP or ROW
// values of one shape whose number parts mix BIGINT and DOUBLE (so their
// types differ) takes them in their common type and is NULL exactly when
// they are equal by the reference here (numbers by value, NULL parts equal,
// MAP entries in any order); b NULL gives a. GREATEST and LEAST refuse them
// (nested values have no order), as <.
func TestNestedNullIfProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 10))
	var exprs, want []string
	flush := func() { exprs, want = selectsGive(t, exprs, want) }
	equalDiffering := 0 // (equal values written differently: 1 and 1.0, MAP entries in another order)
	for n := range 300 {
		s := randShape(rng, 3)
		if s.kind == 'n' {
			s = &nshape{kind: 'a', kids: []*nshape{s}}
		}
		a := randNV(rng, s, false)
		b := a
		if rng.IntN(2) == 0 {
			b = randNV(rng, s, false)
		}
		if rng.IntN(3) == 0 { // b the same values, each number written the other way (1 and 1.0)
			b = flipNumbers(a, rng)
		}
		exprs = append(exprs, fmt.Sprintf("NULLIF(%s, %s) IS NULL AS c%d", a.sql(), b.sql(), n%20))
		want = append(want, strconv.FormatBool(nvEqual(a, b)))
		if nvEqual(a, b) && a.sql() != b.sql() {
			equalDiffering++
		}
		if n%20 == 19 {
			flush()
		}
	}
	flush()
	if equalDiffering < 20 {
		t.Errorf("only %d cases of equal values written differently", equalDiffering)
	}
	got := runSQL(t, "SELECT CAST(NULLIF(ARRAY[1, 2], ARRAY[1.5]) AS VARCHAR) AS a, NULLIF(ROW(1, 'x'), ROW(1.0, 'x')) IS NULL AS b, CAST(NULLIF(MAP['k', ARRAY[1]], NULL) AS VARCHAR) AS c, NULLIF(CAST(NULL AS ARRAY<BIGINT>), ARRAY[1]) IS NULL AS d;")
	if w := "main main: [1.0, 2.0], true, {k=[1]}, true"; strings.Join(got, "|") != w {
		t.Errorf("NULLIF values: %q, want %q", got, w)
	}
	s := open(t, streamql.Options{OnRows: collect(new([]string))})
	for _, bad := range []string{"SELECT GREATEST(ARRAY[1], ARRAY[2]) AS c;", "SELECT LEAST(1, ROW(1)) AS c;", "SELECT GREATEST(MAP['a', 1], MAP['a', 2.5]) AS c;"} {
		if err := s.Exec(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "have no order") {
			t.Errorf("%s: %v, want an error that nested values have no order", bad, err)
		}
	}
	if err := s.Exec(t.Context(), "SELECT NULLIF(ARRAY[1], 1) AS c;"); err == nil || !strings.Contains(err.Error(), "cannot be mixed") {
		t.Errorf("NULLIF(ARRAY[1], 1): %v, want a type error", err)
	}
}

// flipNumbers is v with each number part written as the other type
// (1 ↔ 1.0; 0.5 stays a DOUBLE).
func flipNumbers(v nv, rng *rand.Rand) nv {
	w := v
	switch v.kind {
	case 'n':
		w.dbl = v.num != float64(int(v.num)) || !v.dbl
	case 'a', 'r', 'm':
		w.kids = make([]nv, len(v.kids))
		for k, kid := range v.kids {
			w.kids[k] = flipNumbers(kid, rng)
		}
	}
	return w
}

// TestArrayElementWideningProperty: ARRAY_CONTAINS, ARRAY_POSITION and
// ARRAY_REMOVE take an element x whose type widens to the ARRAY's element
// type (a BIGINT part where the ARRAY has a DOUBLE, nested as deep as it
// goes), as Flink's (ArrayElementArgumentTypeStrategy: x converts to the
// element type when it casts to it implicitly), and find it by the
// reference = here; an x with a DOUBLE where the ARRAY has a BIGINT is an
// error with a caret, as in Flink (it does not widen the ARRAY).
func TestArrayElementWideningProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	s := open(t, streamql.Options{OnRows: collect(new([]string))})
	var exprs, want []string
	flush := func() { exprs, want = selectsGive(t, exprs, want) }
	refused, found := 0, 0
	for n := range 300 {
		sh := randShape(rng, 2)
		arr := randNV(rng, &nshape{kind: 'a', kids: []*nshape{sh}}, false)
		x := randNV(rng, sh, false)
		if rng.IntN(2) == 0 {
			x = arr.kids[rng.IntN(len(arr.kids))]
			if x.kind == '0' {
				continue
			}
			if rng.IntN(2) == 0 {
				x = flipNumbers(x, rng)
			}
		}
		if !widens(typeOf(sh, x), typeOf(sh, arr.kids...)) {
			refused++
			q := fmt.Sprintf("SELECT ARRAY_CONTAINS(%s, %s) AS c;", arr.sql(), x.sql())
			if err := s.Exec(t.Context(), q); err == nil || !strings.Contains(err.Error(), "ARRAY_CONTAINS needs an element of") || !strings.Contains(err.Error(), "without loss (as in Flink): CAST the ARRAY") {
				t.Errorf("%s: %v, want an error: x does not widen to the element type", q, err)
			}
			continue
		}
		pos := 0
		for k, e := range arr.kids {
			if nvEqual(e, x) && e.kind != '0' {
				pos = k + 1
				break
			}
		}
		left := 0
		for _, e := range arr.kids {
			if !nvEqual(e, x) {
				left++
			}
		}
		if pos > 0 {
			found++
		}
		c := n % 20
		exprs = append(exprs, fmt.Sprintf("ARRAY_CONTAINS(%[1]s, %[2]s) AS a%[3]d, ARRAY_POSITION(%[1]s, %[2]s) AS p%[3]d, CARDINALITY(ARRAY_REMOVE(%[1]s, %[2]s)) AS r%[3]d", arr.sql(), x.sql(), c))
		want = append(want, fmt.Sprintf("%t, %d, %d", pos > 0, pos, left))
		if len(exprs) == 10 {
			flush()
		}
	}
	flush()
	if refused < 20 || found < 50 {
		t.Errorf("%d cases had an element that does not widen, %d found theirs: too few", refused, found)
	}
}

// TestElementMoreThanOne: ELEMENT of an ARRAY of one element is that
// element, of an empty ARRAY NULL, and of more than one element stops the
// job with an error naming ELEMENT, as Flink's ("Array has more than one
// element"; SPEC 2 turns only a failed CAST and BIGINT overflow into NULL).
func TestElementMoreThanOne(t *testing.T) {
	got := runSQL(t, "CREATE STREAM m (id BIGINT) WITH ('connector'='values');\nINSERT INTO m VALUES (1), (2);\n"+
		"SELECT ELEMENT(ARRAY[id]) AS a, ELEMENT(ARRAY_REMOVE(ARRAY[id], id)) AS b, CAST(ELEMENT(ARRAY[ROW(id, 0.5)]) AS VARCHAR) AS c FROM m;")
	if w := "main main: 1, <nil>, (1, 0.5)|main main: 2, <nil>, (2, 0.5)"; strings.Join(got, "|") != w {
		t.Errorf("got %q, want %q", got, w)
	}
	for _, q := range []string{
		"SELECT ELEMENT(ARRAY[1, 2]) AS c;",
		"CREATE STREAM m (id BIGINT) WITH ('connector'='values');\nINSERT INTO m VALUES (1), (2), (3);\nSELECT id FROM m WHERE ELEMENT(IF(id = 3, ARRAY[id, id], ARRAY[id])) > 0;",
		// in a window fired at the stream's end
		"CREATE STREAM w (id BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH ('connector'='values');\nINSERT INTO w VALUES (1, TIMESTAMP '2021-01-01 00:00:01');\n" +
			"SELECT ELEMENT(ARRAY[COUNT(*), 1]) AS e FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;",
		// in a join's output
		"CREATE STREAM m (id BIGINT) WITH ('connector'='values');\nINSERT INTO m VALUES (1);\nCREATE STREAM n (id BIGINT) WITH ('connector'='values');\nINSERT INTO n VALUES (1);\n" +
			"SELECT ELEMENT(ARRAY[m.id, n.id]) AS e FROM m JOIN n ON m.id = n.id;",
	} {
		s := open(t, streamql.Options{OnRows: collect(new([]string))})
		if err := s.Exec(t.Context(), q); err == nil || !strings.Contains(err.Error(), "function ELEMENT: Array has more than one element") {
			t.Errorf("%s: %v, want the job to stop with ELEMENT's error", q, err)
		}
		// the failure does not linger into the next job
		if err := s.Exec(t.Context(), "SELECT 1 AS x;"); err != nil {
			t.Errorf("after %s: the next job: %v", q, err)
		}
	}
	// a constant call is not folded at planning: no row reaches it, no error
	got = runSQL(t, "CREATE STREAM m (id BIGINT) WITH ('connector'='values');\nINSERT INTO m VALUES (1);\nSELECT id, ELEMENT(ARRAY[1, 2]) AS e FROM m WHERE id > 5;\nSELECT id FROM m;")
	if w := "main main: 1"; strings.Join(got, "|") != w {
		t.Errorf("got %q, want %q", got, w)
	}
}

// selectsGive runs SELECT exprs... as one row and fails t unless its values
// are want, each in the order of exprs; it returns both slices emptied for
// the next batch (nothing runs when exprs is empty).
func selectsGive(t *testing.T, exprs, want []string) ([]string, []string) {
	t.Helper()
	if len(exprs) == 0 {
		return exprs, want
	}
	got := runSQL(t, "SELECT "+strings.Join(exprs, ", ")+";")
	if w := "main main: " + strings.Join(want, ", "); len(got) != 1 || got[0] != w {
		for k := range exprs {
			t.Logf("%s → want %s", exprs[k], want[k])
		}
		t.Fatalf("got %q\nwant %q", got, w)
	}
	return exprs[:0], want[:0]
}
