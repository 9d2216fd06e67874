package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestUnboundedJoinInputsReadByTurns: a join of two unbounded inputs of
// which one or both have no event time reads both (SPEC 2.7: "two unbounded
// inputs without event time are processed in arrival order"), also when
// each always has rows ready (datagen without 'rows-per-second'). The join
// read its left input only, while it had rows, so the right one was never
// read: no joined row ever came, and the job stopped at 'state.max-bytes'
// holding "b: 0 rows"; a bounded right side (a file) of a RIGHT or FULL
// join, which is read whole first (SPEC 2.7), was not read either. For
// every join type, both sides without event time, one side with it (either
// side), and a bounded right side, the job stops at a small limit with rows
// of both sides in its state.
func TestUnboundedJoinInputsReadByTurns(t *testing.T) {
	const timed = "CREATE STREAM %s (k BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='datagen', 'fields.k.min'='1', 'fields.k.max'='1000000', 'fields.ts.kind'='sequence', 'fields.ts.start'='0', 'fields.ts.end'='9000000000000000', 'seed'='%s');\n"
	const untimed = "CREATE STREAM %s (k BIGINT, ts BIGINT) WITH ('connector'='datagen', 'fields.k.min'='1', 'fields.k.max'='1000000', 'seed'='%s');\n"
	const file = "CREATE STREAM %s (k BIGINT, ts BIGINT) WITH ('connector'='file', 'path'='f.csv', 'format'='csv');%.0s\n" // (bounded: read whole first)
	side := regexp.MustCompile(`\(a: (\d+) rows?[^;]*; b: (\d+) rows?`)
	for _, shape := range []struct{ name, l, r string }{
		{"neither timed", untimed, untimed},
		{"left timed", timed, untimed},
		{"right timed", untimed, timed},
		{"right bounded", untimed, file},
		{"right bounded, left timed", timed, file},
	} {
		ddl := "SET 'state.max-bytes' = '1MiB';\n" + fmt.Sprintf(shape.l, "gl", "1") + fmt.Sprintf(shape.r, "gr", "2")
		for _, join := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
			if shape.r == file && (join == "JOIN" || join == "LEFT JOIN") {
				continue // (a lookup join: it keeps no left row, so it never stops)
			}
			q := "SELECT a.k, b.ts FROM gl a " + join + " gr b ON a.k = b.k;\n"
			_, errs, code := runSQL(t, map[string]string{"f.csv": "1,1\n2,2\n"}, ddl+q, "--format", "csv")
			m := side.FindStringSubmatch(errs)
			if code != 1 || m == nil {
				t.Errorf("%s, %s: exit %d, want 1 at 'state.max-bytes' naming both sides' rows; stderr %s", shape.name, q, code, errs)
				continue
			}
			for s := range 2 {
				if n, _ := strconv.Atoi(m[1+s]); n == 0 {
					t.Errorf("%s, %s: input %d was never read:\n%s", shape.name, q, s, errs)
				}
			}
		}
	}
}

// TestJoinLateNamesEveryKind: every kind of SPEC 2.7's table that has late
// rows (interval, window, temporal, regular; a lookup join's table is read
// whole, so only its left input has them) sends each input's late row, as
// it reaches the join, to late-<alias> without the clause and to the names
// of LATE INTO SIDE 'x', 'y' in FROM order with it, joins nothing with it,
// and the end-of-job notice counts it (issue 23 item 4).
func TestJoinLateNamesEveryKind(t *testing.T) {
	files := map[string]string{"l.csv": "a,10,1\na,5,2\na,20,3\n", "r.csv": "a,10,1\na,3,2\na,20,3\n"}
	ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM rb (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
	const tumble = "(SELECT * FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '0.01' SECOND)))"
	for _, tc := range []struct {
		kind, query, main string
		lLate, rLate      string // the late rows (csv), "" when that input has none
	}{
		{"interval", "SELECT a.v, b.v FROM l a JOIN r b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '0.005' SECOND AND b.ts", "1,1\n3,3\n", "a,5,2", "a,3,2"},
		{"window", "SELECT a.v, b.v FROM " + fmt.Sprintf(tumble, "l") + " a JOIN " + fmt.Sprintf(tumble, "r") + " b ON a.id = b.id AND a.window_start = b.window_start AND a.window_end = b.window_end", "1,1\n3,3\n", "a,5,2,0,10,9", "a,3,2,0,10,9"},
		{"temporal", "SELECT a.v, b.v FROM l a JOIN r FOR SYSTEM_TIME AS OF a.ts AS b ON a.id = b.id", "1,1\n3,3\n", "a,5,2", "a,3,2"},
		{"regular", "SELECT a.v, b.v FROM l a RIGHT JOIN r b ON a.id = b.id", "+I,1,1\n+I,3,1\n+I,1,3\n+I,3,3\n", "a,5,2", "a,3,2"},
		{"lookup", "SELECT a.v, b.v FROM l a JOIN rb b ON a.id = b.id", "1,1\n1,2\n1,3\n3,1\n3,2\n3,3\n", "a,5,2", ""},
	} {
		for _, named := range []bool{false, true} {
			q, names := tc.query, [2]string{"late-a", "late-b"}
			if named {
				q, names = q+" LATE INTO SIDE 'x', 'y'", [2]string{"x", "y"}
			}
			dir := t.TempDir()
			sides := filepath.Join(dir, "sides")
			out, errs, code := runSQLIn(t, dir, files, ddl+q+";\n", "--format", "csv", "--side-dir", sides)
			if code != 0 || !strings.HasSuffix(out, tc.main) {
				t.Errorf("%s: exit %d, stdout:\n%s\nstderr: %s\nwant the joined rows\n%s", q, code, out, errs, tc.main)
			}
			for s, want := range [2]string{tc.lLate, tc.rLate} {
				notice := "1 late row(s) of the query at "
				file := filepath.Join(sides, names[s]+".csv")
				text, err := os.ReadFile(file)
				switch {
				case want == "" && err == nil && strings.Count(string(text), "\n") > 1: // (a named one is a side output like any other: its file has its header, SPEC 2.4)
					t.Errorf("%s: input %d has no late rows, but %s holds\n%s", q, s, file, text)
				case want == "":
				case err != nil || !strings.HasSuffix(string(text), "\n"+want+"\n") || strings.Count(string(text), "\n") != 2:
					t.Errorf("%s: %s holds %q (%v), want its header and the late row %s", q, file, text, err, want)
				case !strings.Contains(errs, notice) || !strings.Contains(errs, "sent to '"+names[s]+"'"):
					t.Errorf("%s: no end-of-job notice of input %d's late row:\n%s", q, s, errs)
				}
			}
		}
	}
}
