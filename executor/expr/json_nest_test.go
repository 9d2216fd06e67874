package expr_test

import (
	"encoding/json"
	"testing"

	"streamql/executor/expr"
	"streamql/planner/plan"
)

// TestJSONConstructionNests: a JSON_OBJECT or JSON_ARRAY call written directly
// as a value of another (a VALUE of JSON_OBJECT, an element of JSON_ARRAY) is
// inserted as JSON, not as a JSON string (Flink: "values which are created
// from another JSON construction function call are inserted directly rather
// than as a string"), whether the inner call is constant (folded at
// planning) or reads columns, at any depth; any other text stays a string,
// also text that happens to be JSON (a column, JSON_QUERY's result, a
// construction call under CONCAT or COALESCE). Both the kernels and the
// reference interpreter (the fuzzer's oracle) are checked, on every row of
// the fuzz batch (its row 1 is all NULL), and every result is valid JSON.
func TestJSONConstructionNests(t *testing.T) {
	cases := []struct {
		sql  string
		want []string // per row of fuzzBatch(7, 2.5, `{"a":1}`, true, 0); "" = NULL
	}{
		{"JSON_OBJECT('a' VALUE JSON_OBJECT('b' VALUE 1))", []string{`{"a":{"b":1}}`}},
		{"JSON_OBJECT('a' VALUE JSON_OBJECT('b' VALUE i), 'c' VALUE s)", []string{`{"a":{"b":7},"c":"{\"a\":1}"}`, `{"a":{"b":null},"c":null}`}},
		{"JSON_ARRAY(JSON_ARRAY(i, d), JSON_OBJECT('k' VALUE b), s)", []string{`[[7,2.5],{"k":true},"{\"a\":1}"]`, `[[],{"k":null}]`}},
		{"JSON_ARRAY(JSON_ARRAY(JSON_ARRAY(JSON_OBJECT('x' VALUE JSON_ARRAY()))))", []string{`[[[{"x":[]}]]]`}},
		{"JSON_OBJECT('a' VALUE JSON_ARRAY(1, 'two', JSON_OBJECT('n' VALUE NULL)), 'b' VALUE i)", []string{`{"a":[1,"two",{"n":null}],"b":7}`, `{"a":[1,"two",{"n":null}],"b":null}`}},
		// an inner call that is NULL (a NULL key): null in an object, left out of an array
		{"JSON_OBJECT('a' VALUE JSON_OBJECT(s VALUE 1))", []string{`{"a":{"{\"a\":1}":1}}`, `{"a":null}`}},
		{"JSON_ARRAY(JSON_OBJECT(s VALUE 1), 2)", []string{`[{"{\"a\":1}":1},2]`, `[2]`}},
		// text, not a construction call: a JSON string
		{"JSON_OBJECT('q' VALUE JSON_QUERY(s, '$'))", []string{`{"q":"{\"a\":1}"}`, `{"q":null}`}},
		{"JSON_OBJECT('c' VALUE CONCAT(JSON_ARRAY(i)))", []string{`{"c":"[7]"}`, `{"c":"[]"}`}},
		{"JSON_ARRAY(COALESCE(JSON_OBJECT('k' VALUE 1), 'x'))", []string{`["{\"k\":1}"]`}},
		{"JSON_ARRAY('[1]', JSON_STRING(JSON_ARRAY(1)))", []string{`["[1]","\"[1]\""]`}},
		// a construction call as a key is a key (text)
		{"JSON_OBJECT(JSON_ARRAY(1) VALUE JSON_ARRAY(2))", []string{`{"[1]":[2]}`}},
	}
	for _, c := range cases {
		for _, plans := range []struct {
			name string
			plan func(string) (*plan.Expr, bool)
		}{{"kernels' constants", planExpr}, {"reference's constants", planRef}} {
			e, ok := plans.plan(c.sql)
			if !ok {
				t.Fatalf("%s does not plan", c.sql)
			}
			b := fuzzBatch(7, 2.5, `{"a":1}`, true, 0)
			sel := make([]int32, b.N)
			for r := range sel {
				sel[r] = int32(r)
			}
			v := expr.Compile(e).Eval(b, sel)
			for r := 0; r < b.N; r++ {
				got := show(e.Type, fromVec(v, r))
				ref := show(e.Type, refEval(e, b, r, val{}))
				if got != ref {
					t.Errorf("%s (%s), row %d: kernel %s, reference %s", c.sql, plans.name, r, got, ref)
				}
				if r < len(c.want) && got != c.want[r] {
					t.Errorf("%s (%s), row %d = %s, want %s", c.sql, plans.name, r, got, c.want[r])
				}
				if got != "NULL" && !json.Valid([]byte(got)) {
					t.Errorf("%s (%s), row %d = %s: not JSON", c.sql, plans.name, r, got)
				}
			}
		}
	}
}
