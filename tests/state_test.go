package tests

import (
	"strings"
	"testing"
)

// TestSelectWithoutFrom: SPEC 2, a SELECT without FROM gives one row, in every
// output format; its WHERE and LIMIT apply to that row; it reads no stream, so a
// column name or * is a planning error.
func TestSelectWithoutFrom(t *testing.T) {
	q := "SELECT 1 + 1 AS two, 'a' || 'b' AS s;\n"
	want := map[string]string{
		"csv":      "two,s\n2,ab\n",
		"tsv":      "two\ts\n2\tab\n",
		"json":     "{\"two\":2,\"s\":\"ab\"}\n",
		"plain":    "(2,ab)\n",
		"table":    "┌─────┬────┐\n│ two │ s  │\n├─────┼────┤\n│   2 │ ab │\n└─────┴────┘\n",
		"markdown": "| two | s |\n|---:|---|\n| 2 | ab |\n\n",
	}
	for format, w := range want {
		out, errs, code := runSQL(t, nil, q, "--format", format)
		if code != 0 || out != w {
			t.Errorf("%s: exit %d, stderr %q\ngot\n%q\nwant\n%q", format, code, errs, out, w)
		}
	}
	for _, c := range []struct{ sql, want string }{
		{"SELECT 1 AS x WHERE 1 = 0;", "x\n"},
		{"SELECT 1 AS x LIMIT 0;", "x\n"},
		{"SELECT 1 AS x LIMIT 3;", "x\n1\n"},
		{"SELECT 1 AS x; SELECT 2 AS y;", "x\n1\ny\n2\n"},
	} {
		out, errs, code := runSQL(t, nil, c.sql, "--format", "csv")
		if code != 0 || out != c.want {
			t.Errorf("%s: exit %d, stderr %q\ngot %q, want %q", c.sql, code, errs, out, c.want)
		}
	}
	for sql, want := range map[string]string{
		"SELECT *;":     "* needs FROM",
		"SELECT a + 1;": "unknown column 'a'",
	} {
		_, errs, code := runSQL(t, nil, sql)
		if code != 2 || !strings.Contains(errs, want) || !strings.Contains(errs, "line 1, column") {
			t.Errorf("%s: exit %d, stderr %q; want status 2 and %q with a position", sql, code, errs, want)
		}
	}
}
