package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestChangelogFormats: an updating output (SPEC 2.8: a regular FULL join of
// two bounded files) in every format: csv and tsv with an op column first,
// json with "op", plain as Flink's print sink (+I[...]), table as the
// materialized result (bounded inputs: the final table once, rows updated in
// place), table with 'sql-client.execution.result-mode' = 'changelog' as the
// changes with op, and a --side-dir file holding the changelog with op.
func TestChangelogFormats(t *testing.T) {
	files := map[string]string{"l.csv": "1,x\n2,y\n3,z\n", "r.csv": "2,B\n1,A\n4,D\n"}
	ddl := `CREATE STREAM l (id BIGINT, a VARCHAR) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id BIGINT, b VARCHAR) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
	q := "SELECT l.id, a, b FROM l FULL JOIN r ON l.id = r.id;\n"
	changes := [][]string{{"+I", "1", "x", ""}, {"+I", "2", "y", ""}, {"+I", "3", "z", ""}, {"-D", "2", "y", ""}, {"+I", "2", "y", "B"}, {"-D", "1", "x", ""}, {"+I", "1", "x", "A"}, {"+I", "", "", "D"}}
	join := func(sep string, nul string, rows [][]string) string {
		var sb strings.Builder
		for _, r := range rows {
			f := append([]string(nil), r...)
			for i := range f {
				if f[i] == "" {
					f[i] = nul
				}
			}
			sb.WriteString(strings.Join(f, sep) + "\n")
		}
		return sb.String()
	}
	for _, tc := range []struct {
		name, set, format, want string
	}{
		{"csv", "", "csv", "op,id,a,b\n" + join(",", "", changes)},
		{"tsv", "", "tsv", "op\tid\ta\tb\n" + join("\t", "", changes)},
		{"json", "", "json", `{"op":"+I","id":1,"a":"x","b":null}
{"op":"+I","id":2,"a":"y","b":null}
{"op":"+I","id":3,"a":"z","b":null}
{"op":"-D","id":2,"a":"y","b":null}
{"op":"+I","id":2,"a":"y","b":"B"}
{"op":"-D","id":1,"a":"x","b":null}
{"op":"+I","id":1,"a":"x","b":"A"}
{"op":"+I","id":null,"a":null,"b":"D"}
`},
		{"plain", "", "plain", "+I[1, x, null]\n+I[2, y, null]\n+I[3, z, null]\n-D[2, y, null]\n+I[2, y, B]\n-D[1, x, null]\n+I[1, x, A]\n+I[null, null, D]\n"},
		{"table materialized", "", "markdown", "| id | a | b |\n|---:|---|---|\n| 3 | z | NULL |\n| 2 | y | B |\n| 1 | x | A |\n| NULL | NULL | D |\n\n"},
		{"table changelog", "SET 'sql-client.execution.result-mode' = 'changelog';\n", "markdown", "| op | id | a | b |\n|---|---:|---|---|\n" + strings.ReplaceAll(join(" | ", "NULL", changes), "\n", " |\n")},
	} {
		out, errs, code := runSQL(t, files, ddl+tc.set+q, "--format", tc.format)
		want := tc.want
		if tc.name == "table changelog" {
			var sb strings.Builder
			for _, l := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
				if !strings.HasPrefix(l, "|") {
					l = "| " + l
				}
				sb.WriteString(l + "\n")
			}
			want = sb.String() + "\n"
		}
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant:\n%s", tc.name, code, out, errs, want)
		}
	}
	// --side-dir: the side file of an updating side branch holds the changelog with op first
	dir := t.TempDir()
	out, errs, code := runSQLIn(t, dir, files, ddl+"SELECT l.id, a, b INTO SIDE 'joined' FROM l FULL JOIN r ON l.id = r.id;\n", "--format", "csv", "--side-dir", dir)
	got, _ := os.ReadFile(filepath.Join(dir, "joined.csv"))
	if code != 0 || string(got) != "op,id,a,b\n"+join(",", "", changes) {
		t.Errorf("--side-dir: exit %d, stdout %q, stderr %q, joined.csv:\n%s", code, out, errs, got)
	}
}

// TestUpdatingGroupByExplain: EXPLAIN marks the unbounded GROUP BY and what
// follows it updating, with the upsert key (SPEC 2.8), and the operators
// before it append-only.
func TestUpdatingGroupByExplain(t *testing.T) {
	out, errs, code := runSQL(t, nil, `CREATE STREAM u (dev VARCHAR, v BIGINT) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='9', 'format'='csv');
EXPLAIN SELECT dev, COUNT(*) AS n FROM u GROUP BY dev;
`, "--format", "plain")
	for _, want := range []string{"Aggregate", "each change as it happens", "(#5, updating, upsert key (dev))", "Sink main (dev VARCHAR, n BIGINT) -> stdout  (#7, updating, upsert key (dev))", "Route first match of 0 side branch(es), then main  (#4, append-only)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("EXPLAIN: exit %d, want %q in:\n%s%s", code, want, out, errs)
		}
	}
}

// TestUpdatingGroupByStateBound: the updating aggregate's groups count
// against 'state.max-bytes' (SPEC 2.8): many keys stop the job with the
// state error that names the query and the setting.
func TestUpdatingGroupByStateBound(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		sb.WriteString("k" + strconv.Itoa(i) + ",1\n")
	}
	_, errs, code := runSQL(t, map[string]string{"m.csv": sb.String()}, `SET 'state.max-bytes' = '64KiB';
SET 'execution.runtime-mode' = 'streaming';
CREATE STREAM m (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='m.csv', 'format'='csv');
SELECT k, COUNT(*) FROM m GROUP BY k;
`, "--format", "csv")
	if code == 0 || !strings.Contains(errs, "'state.max-bytes' (64KiB)") || !strings.Contains(errs, "GROUP BY k") {
		t.Errorf("exit %d, stderr:\n%s\nwant the state error", code, errs)
	}
}
