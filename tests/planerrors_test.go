package tests

import (
	"strings"
	"testing"
)

// planErrCase is a one-script run that must stop with exit status 2 and a
// message at a given line and column (SPEC 4: message first, then `line L,
// column C`, the source line and a caret under the token).
type planErrCase struct {
	name, sql string
	msg       string // a substring of the message
	at        string // "line L, column C"
}

func checkPlanErrors(t *testing.T, cases []planErrCase) {
	t.Helper()
	for _, tc := range cases {
		out, errs, code := runScripts(t, []string{"q.sql"}, map[string]string{"q.sql": tc.sql})
		if code != 2 || !strings.Contains(errs, tc.msg) || !strings.Contains(errs, "q.sql, "+tc.at+":") {
			t.Errorf("%s: exit %d, stdout %q, stderr\n%s\nwant exit 2, %q at %s", tc.name, code, out, errs, tc.msg, tc.at)
		}
	}
}

// TestPositionalByErrors: GROUP BY 1 and ORDER BY 1 are refused at the number,
// and GROUP BY 1 says positions are not supported (finding 11).
func TestPositionalByErrors(t *testing.T) {
	decl := "CREATE STREAM s (k VARCHAR, ts BIGINT) WITH ('connector'='values');\n"
	checkPlanErrors(t, []planErrCase{
		{"group by 1", decl + "SELECT k FROM s GROUP BY 1;", "positional GROUP BY (GROUP BY 1) is not supported", "line 2, column 26"},
		{"group by k, 1", decl + "SELECT k, COUNT(*) AS n FROM s GROUP BY k, 1;", "positional GROUP BY", "line 2, column 44"},
		{"group by 2 in a window", decl + "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND))\n  GROUP BY window_start, 2;", "positional GROUP BY (GROUP BY 2)", "line 3, column 26"},
		{"order by 1", decl + "SELECT k, COUNT(*) FROM s GROUP BY k ORDER BY 1;", "ORDER BY is not supported", "line 2, column 47"},
		{"order by k, 2", decl + "SELECT k FROM s ORDER BY k DESC, 2;", "ORDER BY is not supported", "line 2, column 26"},
		{"order by 2, 1", decl + "SELECT k, ts FROM s ORDER BY 2, 1;", "ORDER BY is not supported", "line 2, column 30"},
	})
}

// TestUnknownFunctionWrittenName: an unknown function is named as the script
// spells it, not by TiDB's internal name (CHAR is TiDB's char_func; finding 12a).
func TestUnknownFunctionWrittenName(t *testing.T) {
	checkPlanErrors(t, []planErrCase{
		{"char", "SELECT CHAR(65) AS c;", "unknown function CHAR;", "line 1, column 8"},
		{"char lower case", "SELECT 1 AS a,\n  char (65, 66) AS c;", "unknown function CHAR;", "line 2, column 3"},
		{"current_date", "SELECT CURRENT_DATE() AS c;", "unknown function CURRENT_DATE;", "line 1, column 8"},
		{"schema", "SELECT SCHEMA() AS c;", "unknown function SCHEMA;", "line 1, column 8"},
	})
}
