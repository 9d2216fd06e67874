package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBareNullFitsAnySinkColumn: a bare NULL (and an expression that is NULL
// of no type) in INSERT INTO ... SELECT and INTO STREAM goes to a sink column
// of any type, as everywhere else a NULL has no type of its own (SPEC 2, 2.5;
// finding 15); a NULL CAST to VARCHAR is typed and still refused.
func TestBareNullFitsAnySinkColumn(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("a,1,80.5\nb,9,1.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	decl := "CREATE STREAM s (k VARCHAR, x BIGINT, d DOUBLE) WITH ('connector'='file','path'='" + in + "','format'='csv');\n" +
		"CREATE STREAM o (k VARCHAR, d DOUBLE, b BOOLEAN, t TIMESTAMP, n BIGINT) WITH ('connector'='file','path'='" + filepath.Join(dir, "o.json") + "','format'='json');\n"
	for _, tc := range []struct{ name, q, want string }{
		{"insert select", "INSERT INTO o SELECT k, NULL, NULL, NULL, NULL FROM s;",
			`{"k":"a","d":null,"b":null,"t":null,"n":null}` + "\n" + `{"k":"b","d":null,"b":null,"t":null,"n":null}` + "\n"},
		{"into stream, untyped CASE and IF", "SELECT k, CASE WHEN x > 5 THEN NULL END, IF(x > 5, NULL, NULL), NULL, x INTO STREAM o FROM s;\nSELECT * FROM s WHERE k = 'z';",
			`{"k":"a","d":null,"b":null,"t":null,"n":1}` + "\n" + `{"k":"b","d":null,"b":null,"t":null,"n":9}` + "\n"},
		{"aggregate", "INSERT INTO o SELECT k, NULL, NULL, NULL, COUNT(*) FROM s GROUP BY k;",
			`{"k":"a","d":null,"b":null,"t":null,"n":1}` + "\n" + `{"k":"b","d":null,"b":null,"t":null,"n":1}` + "\n"},
	} {
		os.Remove(filepath.Join(dir, "o.json"))
		out, errs, code := runScripts(t, []string{"q.sql"}, map[string]string{"q.sql": decl + tc.q})
		got, _ := os.ReadFile(filepath.Join(dir, "o.json"))
		if code != 0 || string(got) != tc.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %s, o.json\n%s\nwant\n%s", tc.name, code, out, errs, got, tc.want)
		}
	}
	_, errs, code := runScripts(t, []string{"q.sql"}, map[string]string{"q.sql": decl + "INSERT INTO o SELECT k, CAST(NULL AS VARCHAR), NULL, NULL, NULL FROM s;"})
	if code != 2 || !strings.Contains(errs, "column 2 (CAST(NULL AS VARCHAR)) is VARCHAR but o.d is DOUBLE") {
		t.Errorf("typed NULL: exit %d, stderr %s; want exit 2 and the type error", code, errs)
	}
}
