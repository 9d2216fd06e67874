package planner

import (
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/executor/vector"
	"streamql/parser"
)

// testStream has one column of each type; row 0 holds the values below, row 1
// holds NULL everywhere.
func testStream() *catalog.Stream {
	return &catalog.Stream{Name: "t", EventTime: -1, Columns: []catalog.Column{
		{Name: "i", Type: catalog.BigInt}, {Name: "d", Type: catalog.Double},
		{Name: "s", Type: catalog.Varchar}, {Name: "b", Type: catalog.Boolean},
		{Name: "ts", Type: catalog.Timestamp}, {Name: "cjk", Type: catalog.Varchar},
	}, Connector: valuesSpec, Options: map[string]string{}}
}

// valuesSpec stands for the values connector, which registers itself in
// executor/connector (a package that imports planner, so its tests cannot).
var valuesSpec = &catalog.ConnectorSpec{Name: "values", Bounded: func(map[string]string) bool { return true }, TakesInsert: true}

func testBatch() *vector.Batch {
	st := testStream()
	b := vector.NewBatch(st.Types())
	b.N = 2
	b.Cols[0].I[0] = 7
	b.Cols[1].F[0] = 2.5
	b.Cols[2].S[0] = []byte("héllo")
	b.Cols[3].B[0] = true
	b.Cols[4].I[0] = 1610975309123 // 2021-01-18 13:08:29.123
	b.Cols[5].S[0] = []byte("设备7号")
	for _, c := range b.Cols {
		c.Null[1] = true
	}
	return b
}

// evalSQL plans "SELECT <expr> FROM t" and returns the printed value of row
// (NULL for NULL) and the type, or the planning error.
func evalSQL(t *testing.T, text string, row int) (string, catalog.Type, error) {
	t.Helper()
	e, err := planText(text)
	if err != nil {
		return "", 0, err
	}
	v := expr.Compile(e).Eval(testBatch(), []int32{int32(row)})
	if v.Null[row] {
		return "NULL", e.Type, nil
	}
	return string(vector.AppendValue(nil, e.Type, v, row)), e.Type, nil
}

func TestExpressions(t *testing.T) {
	cases := []struct {
		expr string
		want string
		typ  catalog.Type
	}{
		{"i + 1", "8", catalog.BigInt},
		{"i * d", "17.5", catalog.Double},
		{"i / 2", "3.5", catalog.Double},
		{"i DIV 2", "3", catalog.BigInt},
		{"i % 4", "3", catalog.BigInt},
		{"d % 2", "0.5", catalog.Double},
		{"i / 0", "NULL", catalog.Double},
		{"i DIV 0", "NULL", catalog.BigInt},
		{"i % 0", "NULL", catalog.BigInt},
		{"9223372036854775807 + i", "NULL", catalog.BigInt},
		{"-i", "-7", catalog.BigInt},
		{"1e308 * 10", "Infinity", catalog.Double},
		{"i > 6.5", "true", catalog.Boolean},
		{"i = 7.0", "true", catalog.Boolean},
		{"s = 'héllo'", "true", catalog.Boolean},
		{"s <> 'héllo '", "true", catalog.Boolean},
		{"s < 'i'", "true", catalog.Boolean},
		{"b = TRUE", "true", catalog.Boolean},
		{"NOT b", "false", catalog.Boolean},
		{"i BETWEEN 1 AND 7", "true", catalog.Boolean},
		{"i NOT BETWEEN 1 AND 6.9", "true", catalog.Boolean},
		{"i IN (1, 7.0, 3)", "true", catalog.Boolean},
		{"i NOT IN (1, 2)", "true", catalog.Boolean},
		{"s LIKE 'h_llo'", "true", catalog.Boolean},
		{"s LIKE 'H%'", "false", catalog.Boolean},
		{"s LIKE '%l%o'", "true", catalog.Boolean},
		{"'a_c' LIKE 'a\\_c'", "false", catalog.Boolean},
		{"'a_c' LIKE 'a!_c' ESCAPE '!'", "true", catalog.Boolean},
		{"'abc' LIKE 'a!_c' ESCAPE '!'", "false", catalog.Boolean},
		{"'a_c' LIKE 'a__c' ESCAPE '_'", "true", catalog.Boolean},
		{"'abc' LIKE 'a__c' ESCAPE '_'", "false", catalog.Boolean},
		{"'a%c' LIKE 'a%%c' ESCAPE '%'", "true", catalog.Boolean},
		{"'abc' LIKE 'a%%c' ESCAPE '%'", "false", catalog.Boolean},
		{"s ILIKE 'HÉLLO'", "true", catalog.Boolean},
		{"s ILIKE 'H%'", "true", catalog.Boolean},
		{"s NOT ILIKE 'H%'", "false", catalog.Boolean},
		{"s LIKE 'HÉLLO'", "false", catalog.Boolean},
		{"'A_C' ILIKE 'a__c' ESCAPE '_'", "true", catalog.Boolean},
		{"s IS NULL", "false", catalog.Boolean},
		{"s IS NOT NULL", "true", catalog.Boolean},
		{"CASE WHEN i > 5 THEN 'big' ELSE 'small' END", "big", catalog.Varchar},
		{"CASE i WHEN 1 THEN 1 WHEN 7 THEN 2.5 END", "2.5", catalog.Double},
		{"CASE WHEN i > 50 THEN 'big' END", "NULL", catalog.Varchar},
		{"CAST(d AS BIGINT)", "2", catalog.BigInt},
		{"CAST(-2.9 AS BIGINT)", "-2", catalog.BigInt},
		{"CAST('12' AS BIGINT)", "12", catalog.BigInt},
		{"CAST('x' AS BIGINT)", "NULL", catalog.BigInt},
		{"CAST(i AS VARCHAR)", "7", catalog.Varchar},
		{"CAST(d AS VARCHAR)", "2.5", catalog.Varchar},
		{"CAST(1e7 AS VARCHAR)", "1.0E7", catalog.Varchar},
		{"CAST(i AS DOUBLE)", "7.0", catalog.Double},
		{"CAST(i AS BOOLEAN)", "true", catalog.Boolean},
		{"CAST(b AS BIGINT)", "1", catalog.BigInt},
		{"CAST('2021-01-17 12:48:29.5' AS TIMESTAMP)", "2021-01-17 12:48:29.500", catalog.Timestamp},
		{"ts", "2021-01-18 13:08:29.123", catalog.Timestamp},
		{"ts > '2021-01-01 00:00:00'", "true", catalog.Boolean},
		{"ts - INTERVAL '1' SECOND", "2021-01-18 13:08:28.123", catalog.Timestamp},
		{"i - INTERVAL '0.001' SECOND", "6", catalog.BigInt},
		{"COALESCE(NULL, i)", "7", catalog.BigInt},
		{"COALESCE(NULL, NULL, 'x')", "x", catalog.Varchar},
		{"IF(i > 5, 'y', 'n')", "y", catalog.Varchar},
		{"CONCAT('(', s, ',', i, ',', d, ')')", "(héllo,7,2.5)", catalog.Varchar},
		{"s || '!' || i", "héllo!7", catalog.Varchar},
		{"CONCAT(s, NULL)", "NULL", catalog.Varchar},
		{"UPPER(s)", "HÉLLO", catalog.Varchar},
		{"LOWER('ÀB')", "àb", catalog.Varchar},
		{"TRIM('  a b  ')", "a b", catalog.Varchar},
		{"CHAR_LENGTH(cjk)", "4", catalog.BigInt},
		{"SUBSTRING(cjk, 3)", "7号", catalog.Varchar},
		{"SUBSTRING(cjk, 1, 2)", "设备", catalog.Varchar},
		{"SUBSTRING(cjk, -2)", "7号", catalog.Varchar},
		{"SUBSTRING(cjk, 0)", "", catalog.Varchar},
		{"SUBSTRING(cjk, 2, -1)", "", catalog.Varchar},
		{"ABS(-3)", "3", catalog.BigInt},
		{"ABS(-2.5)", "2.5", catalog.Double},
		{"ROUND(2.675, 2)", "2.68", catalog.Double},
		{"ROUND(-2.5)", "-3.0", catalog.Double},
		{"ROUND(1234, -2)", "1200", catalog.BigInt},
		{"FLOOR(-2.5)", "-3.0", catalog.Double},
		{"CEIL(2.1)", "3.0", catalog.Double},
		{"0.1 + 0.2", "0.30000000000000004", catalog.Double},
		{"CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE)", "false", catalog.Boolean},
		{"CAST('NaN' AS DOUBLE) <> 1", "true", catalog.Boolean},
	}
	for _, c := range cases {
		got, typ, err := evalSQL(t, c.expr, 0)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got != c.want || typ != c.typ {
			t.Errorf("%s = %s (%s), want %s (%s)", c.expr, got, typ, c.want, c.typ)
		}
	}
}

// TestNullsPropagate checks SQL's three-valued logic on the all-NULL row.
func TestNullsPropagate(t *testing.T) {
	cases := map[string]string{
		"i + 1": "NULL", "d > 1": "NULL", "s = 'a'": "NULL", "NOT b": "NULL",
		"b AND FALSE": "false", "b AND TRUE": "NULL", "b OR TRUE": "true", "b OR FALSE": "NULL",
		"i IS NULL": "true", "COALESCE(i, 5)": "5", "CONCAT('a', s)": "NULL", "UPPER(s)": "NULL",
		"CAST(i AS VARCHAR)": "NULL", "i IN (1, 2)": "NULL", "s LIKE '%'": "NULL",
		"CASE WHEN b THEN 1 ELSE 2 END": "2",
	}
	for expr, want := range cases {
		got, _, err := evalSQL(t, expr, 1)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if got != want {
			t.Errorf("%s on NULLs = %s, want %s", expr, got, want)
		}
	}
}

// TestTypeErrors checks that mixes SPEC 2 forbids are planning errors with a
// position and a hint.
func TestTypeErrors(t *testing.T) {
	cases := map[string]string{
		"s > 1":                           "CAST",
		"i + s":                           "numbers",
		"nosuch + 1":                      "unknown column 'nosuch'",
		"t2.i":                            "unknown stream or alias 't2'",
		"UPPER(i)":                        "needs text",
		"NOSUCHFN(i)":                     "unknown function",
		"CASE WHEN b THEN 1 ELSE 'x' END": "cannot be mixed",
		"NOT i":                           "BOOLEAN",
		"CURRENT_WATERMARK(i)":            "no watermark",
	}
	for expr, want := range cases {
		_, _, err := evalSQL(t, expr, 0)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", expr, err, want)
			continue
		}
		pe, ok := err.(*parser.Error)
		if !ok || pe.Offset < len("SELECT ") {
			t.Errorf("%s: error %v has no position inside the expression", expr, err)
		}
	}
}
