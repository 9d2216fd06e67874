package planner

import (
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/catalog/functions"
	_ "streamql/executor/expr" // the kernels, the planner's evaluator of constants (plan.SetEvaluator)
	"streamql/parser"
	"streamql/planner/plan"
)

// TestFunctionErrors: a missing function names the closest ones, a wrong
// argument type points at the argument and lists the signatures, and a
// constant pattern or format that cannot work points inside its text (SPEC
// 2.10). at is the text the caret must point at.
func TestFunctionErrors(t *testing.T) {
	cases := []struct{ expr, want, at string }{
		{"DATE_FROMAT(ts, 'yyyy')", "unknown function DATE_FROMAT; did you mean DATE_FORMAT?", "DATE_FROMAT("},
		{"REGEXP_EXTRCT(s, 'a')", "did you mean REGEXP_EXTRACT", "REGEXP_EXTRCT("},
		{"SPLITINDEX(s, ',', 1)", "did you mean SPLIT_INDEX", "SPLITINDEX("},
		{"QWERTYUIOP(i)", "unknown function QWERTYUIOP; the nearest names streamql has are ", "QWERTYUIOP("},
		{"SPLIT_INDEX(s, 1, 1)", "SPLIT_INDEX does not take 1 (BIGINT) as argument 2; it takes SPLIT_INDEX(VARCHAR, VARCHAR, BIGINT) → VARCHAR", "1, 1)"},
		{"HOUR(s)", "HOUR does not take s (VARCHAR) as argument 1; it takes HOUR(TIMESTAMP(3)) → BIGINT", "s)"},
		{"HOUR('noon')", "HOUR does not take 'noon' (VARCHAR)", "'noon'"},
		{"LPAD(s, 2)", "LPAD does not take 2 arguments; it takes LPAD(VARCHAR, BIGINT, VARCHAR) → VARCHAR", "LPAD("},
		{"REGEXP_EXTRACT(s, 'a(?=b)')", "the lookahead (?=...) of Java regular expressions is not supported", "(?=b)'"},
		{"REGEXP_EXTRACT(s, '(?<!x)a')", "negative lookbehind", "(?<!x)a'"},
		{`REGEXP_REPLACE(s, '(a)\1', 'b')`, `backreference \1`, `\1'`},
		{"s REGEXP 'a++'", "possessive quantifier ++", "+'"},
		{"REGEXP_EXTRACT(s, '(?>ab)')", "atomic group", "(?>ab)'"},
		{"REGEXP_EXTRACT(s, 'a(')", "invalid regular expression (RE2 syntax)", "'a('"},
		{"DATE_FORMAT(ts, 'yyyy-MM-dd Q')", "unknown date format letter 'Q'", "Q'"},
		{"TO_TIMESTAMP_LTZ(i, 2)", "precision must be 0 (seconds) or 3", "2)"},
		{"JSON_VALUE(s, 'a.b')", "a JSON path starts with $", "a.b'"},
		{"EXTRACT(DAY_HOUR FROM ts)", "EXTRACT takes MILLENNIUM, CENTURY, DECADE, YEAR", "EXTRACT("},
		{"DATE '2021-13-01'", "'2021-13-01' is not a DATE", "DATE"},
		{"GREATEST(1, 'a')", "cannot be mixed", "GREATEST"},
		{"PRINTF(s)", "PRINTF is a Flink function streamql does not have yet", "PRINTF("},
		{"MAP_KEYS(s)", "MAP_KEYS needs a MAP, got s (VARCHAR)", "s)"}, {"ARRAY_CONTAINS(ARRAY[1], 'a')", "ARRAY_CONTAINS needs an element of ARRAY<BIGINT> here, got 'a' (VARCHAR)", "'a')"},
		{"ARRAY_CONCAT(ARRAY[1], ARRAY['a'])", "needs values of one type", "ARRAY['a'])"}, {"ARRAY_MAX(ARRAY[ARRAY[1]])", "ARRAY_MAX needs an ARRAY of BIGINT", "ARRAY[ARRAY"}, {"SPLIT(i, ',')", "SPLIT does not take i (BIGINT)", "i,"},
		// ARRAY, MAP and ROW (SPEC 2.10): carets at the wrong argument
		{"ARRAY[1, 2]['a']", "an ARRAY's index is a BIGINT (from 1), got 'a' (VARCHAR)", "'a']"},
		{"MAP['a', 1][2]", "the keys of", "2]"},
		{"CARDINALITY(i)", "CARDINALITY needs an ARRAY or a MAP, got i (BIGINT)", "i)"},
		{"ELEMENT(s)", "ELEMENT needs an ARRAY", "s)"},
		{"ROW(1, 'x').nope", "(ROW<`EXPR$0` BIGINT, `EXPR$1` VARCHAR>); it has EXPR$0, EXPR$1", ".nope"},
		{"i[1]", "[...] needs an ARRAY, a MAP or a ROW; i is BIGINT", "i[1]"},
		{"ARRAY[1, 'a']", "cannot be mixed", "ARRAY["},
		{"MAP['a']", "takes keys and values in pairs", "MAP["},
		{"CAST(i AS ARRAY<BIGINT>)", "CAST from BIGINT to ARRAY<BIGINT> is not supported", "CAST("},
		{"ARRAY[NULL]", "are all NULL", "ARRAY["},
		{"s SIMILAR TO 'a%' ESCAPE '!'", "SIMILAR TO ... ESCAPE is not supported", "ESCAPE"},
		{"s SIMILAR TO '(a'", "invalid SIMILAR TO pattern", "'(a'"},
		{"FLOOR(ts TO DECADE)", "FLOOR and CEIL take ts TO MILLISECOND, SECOND", "DECADE)"},
		{"JSON_VALUE(s, '$.a' RETURNING FOO)", "unknown type", "RETURNING FOO"},
		// JSON clauses other than Flink's defaults (which bind: TestFunctionBinding)
		{"JSON_VALUE(s, '$.a' ERROR ON EMPTY)", "JSON_VALUE takes NULL ON EMPTY or DEFAULT <value> ON EMPTY", "ERROR ON"},
		{"JSON_VALUE(s, '$.a' DEFAULT ON ERROR)", "DEFAULT needs a value before ON ERROR", "ON ERROR"},
		{"JSON_VALUE(s, '$.a' DEFAULT 1)", "write DEFAULT <value> ON EMPTY or DEFAULT <value> ON ERROR", "DEFAULT 1"},
		{"JSON_VALUE(s, '$.a' RETURNING BIGINT TRUE ON ERROR)", "JSON_VALUE takes NULL ON EMPTY / ON ERROR or DEFAULT … ON EMPTY / ON ERROR after RETURNING type", "TRUE ON"},
		{"JSON_EXISTS(s, '$.a' TRUE ON ERROR)", "JSON_EXISTS takes FALSE ON ERROR, its default, only", "TRUE ON"},
		{"JSON_QUERY(s, '$.a' ERROR ON EMPTY)", "ERROR ON EMPTY / ON ERROR (fail the job) is not supported yet", "ERROR ON"},
		{"JSON_QUERY(s, '$.a' TRUE ON ERROR)", "JSON_QUERY takes NULL, EMPTY ARRAY or EMPTY OBJECT before ON ERROR", "TRUE ON"},
		{"JSON_QUERY(s, '$.a' WITH CONDITIONAL ARRAY)", "write WITHOUT [ARRAY] WRAPPER or WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER", ")"},
		{"JSON_QUERY(s, '$.a', 'WRAPPER=SOMETIMES')", "JSON_QUERY takes its clauses after the path", "'WRAPPER=SOMETIMES'"},
		{"JSON_ARRAY(1 NULL ON NULL)", "ON NULL clause is not supported", "NULL ON"},
		{"JSON_OBJECT('k' VALUE 1 ABSENT ON NULL)", "ON NULL clause is not supported", "ABSENT"},
		{"s IS DISTINCT FROM 1", "cannot compare", "s IS"},
		// arithmetic over a TIMESTAMP says how Flink SQL does time arithmetic, whatever the operator and side
		{"ts - ts", "the time between two TIMESTAMPs is TIMESTAMPDIFF(SECOND, ts, ts)", "ts -"},
		{"ts - TIMESTAMP '2021-01-01 00:00:00'", "TIMESTAMPDIFF(SECOND, TIMESTAMP '2021-01-01 00:00:00', ts)", "ts -"},
		{"ts + 1", "move a TIMESTAMP by an INTERVAL (ts + INTERVAL '5' SECOND) or with TIMESTAMPADD", "ts +"},
		{"1 - ts", "move a TIMESTAMP by an INTERVAL", "1 -"},
		{"ts * 2", "move a TIMESTAMP by an INTERVAL", "ts *"},
		{"ts + ts", "the time between two is TIMESTAMPDIFF(unit, t1, t2)", "ts +"},
		{"i + s", "use CAST, or CONCAT / || to join text", "i +"},
		// nested values: = and <> only, of one shape; CAST to one of their kind whose elements cast
		{"ARRAY[1] < ARRAY[2]", "have no order: compare them with =, <> or IS [NOT] DISTINCT FROM", "ARRAY[1] <"},
		{"ARRAY[1] = ARRAY['a']", "cannot compare", "ARRAY[1] ="},
		{"ROW(1) = ROW(1, 2)", "cannot compare", "ROW(1) ="},
		{"CAST(ROW(1, 2) AS ROW<a BIGINT>)", "CAST from ROW<`EXPR$0` BIGINT, `EXPR$1` BIGINT> to ROW<a BIGINT> is not supported", "CAST("},
		{"CAST(ARRAY[1] AS MAP<BIGINT, BIGINT>)", "is not supported", "CAST("},
	}
	for _, c := range cases {
		_, _, err := evalSQL(t, c.expr, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.expr, err, c.want)
			continue
		}
		pe, ok := err.(*parser.Error)
		src := "SELECT " + c.expr + " FROM t"
		if !ok || pe.Offset < 0 || pe.Offset > len(src) || !strings.HasPrefix(src[pe.Offset:], c.at) {
			got := ""
			if ok && pe.Offset >= 0 && pe.Offset <= len(src) {
				got = src[pe.Offset:]
			}
			t.Errorf("%s: the error points at %q, want %q", c.expr, got, c.at)
		}
	}
}

// TestFunctionBinding: calls bind by the table's signatures (a BIGINT goes to
// a DOUBLE argument, a text constant to a TIMESTAMP one, NULL to anything),
// constant calls fold, and the volatile ones stay calls (SPEC 2.10).
func TestFunctionBinding(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"POWER(i, 2)", "49.0"},
		{"HOUR('2021-01-18 13:08:29')", "13"},
		{"LPAD(NULL, 3, 'x')", "NULL"},
		{"SPLIT_INDEX(s, 'l', 2)", "o"},
		{"REGEXP_EXTRACT(s, '([a-z]+)$')", "llo"},
		{"EXTRACT(MINUTE FROM ts)", "8"},
		{"DATE_FORMAT(ts, 'HH:mm')", "13:08"},
		{"CASE WHEN HOUR(ts) > 12 THEN 'pm' ELSE 'am' END", "pm"},
		// Flink's default JSON clauses spelt out: what streamql does anyway
		{"JSON_VALUE('{}', '$.a' NULL ON EMPTY NULL ON ERROR)", "NULL"},
		{"JSON_VALUE('{\"a\": \"5\"}', '$.a' RETURNING BIGINT NULL ON ERROR)", "5"},
		{"JSON_QUERY('{\"a\": [1]}', '$.a' WITHOUT ARRAY WRAPPER NULL ON EMPTY)", "[1]"},
		{"JSON_QUERY('{\"a\": [1]}', '$.a' WITHOUT WRAPPER)", "[1]"},
		{"JSON_EXISTS('x', '$.a' FALSE ON ERROR)", "false"},
		{"JSON_OBJECT('k' VALUE NULL NULL ON NULL)", `{"k":null}`},
		{"JSON_ARRAY(1, NULL ABSENT ON NULL)", "[1]"},
	}
	for _, c := range cases {
		got, _, err := evalSQL(t, c.expr, 0)
		if err != nil || got != c.want {
			t.Errorf("%s = %s (%v), want %s", c.expr, got, err, c.want)
		}
	}
	for _, text := range []string{"NOW()", "CURRENT_TIMESTAMP", "PROCTIME()", "RAND(1)", "UNIX_TIMESTAMP()"} {
		e := planOne(t, text)
		if e.Op != plan.OpFunc || e.Const {
			t.Errorf("%s: volatile call planned as %s (const %v)", text, e.Tree(), e.Const)
		}
		if Deterministic(e) {
			t.Errorf("%s: Deterministic says true", text)
		}
	}
	if e := planOne(t, "UPPER(REGEXP_EXTRACT('abc', 'b'))"); e.Op != plan.OpLit || !Deterministic(e) {
		t.Errorf("a constant call is not folded: %s", e.Tree())
	}
}

// TestRulesInTable: every function a planner rule binds is declared in the
// function table, and every Rule entry of the table has a planner rule.
func TestRulesInTable(t *testing.T) {
	tidbOnly := map[string]bool{"date_sub": true, "date_add": true, "subdate": true, "adddate": true,
		"'tidb`.(dateliteral": true, "'tidb`.(timeliteral": true, "'tidb`.(timestampliteral": true,
		"listagg": true, "sq_firstval": true, "sq_lastval": true, // (aggregates out of place: rule_aggregate.go)
		"sq_cardinal": true, "sq_sp": true, "sq_rex": true, // CARDINALITY, SPLIT and REGEXP, TiDB keywords (parser/funcsyntax.go)
		"sq_extract": true} // EXTRACT with a unit TiDB lacks (parser/tidb.go)
	for name := range funcRules {
		if !tidbOnly[name] && functions.Lookup(name) == nil {
			t.Errorf("planner rule %s has no entry in the function table", name)
		}
	}
	syntax := map[string]bool{"IS DISTINCT FROM": true, "CASE": true, "CAST": true, "TRY_CAST": true, "MOD": true, "DATE": true, "TIME": true, "TIMESTAMP": true}
	for _, f := range functions.Functions {
		if f.Rule && !syntax[f.Name] {
			if _, ok := funcRules[strings.ToLower(f.Name)]; !ok {
				t.Errorf("%s is a Rule function without a planner rule", f.Name)
			}
		}
	}
}

// planOne plans SELECT text FROM t.
func planOne(t *testing.T, text string) *Expr {
	t.Helper()
	e, err := planText(text)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// planText plans SELECT text FROM t over testStream and returns the
// expression, or the error.
func planText(text string) (*Expr, error) {
	cat := catalog.New()
	cat.Add(testStream())
	src := "SELECT " + text + " FROM t"
	sc, err := parser.Parse("test", src)
	if err != nil {
		return nil, err
	}
	br, err := (&Planner{Cat: cat, Source: src}).PlanSelect(sc.Stmts[0].(*parser.Select))
	if err != nil {
		return nil, err
	}
	return br.Project[0], nil
}
