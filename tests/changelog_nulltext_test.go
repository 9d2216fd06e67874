package tests

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChangelogNullTextRoundTrip: an updating query's changelog, written in
// every form streamql writes one (a csv and a json file sink with an op
// column, a debezium-json file sink, and stdout in --format csv and tsv) and
// read back, keeps a NULL VARCHAR apart from the empty string and from the
// text 'NULL' (SPEC 4: csv and tsv write NULL as an empty field and ” as
// ""; SPEC 1: read with 'csv.null-literal' = ”, an unquoted empty field is
// NULL and "" is ”; json writes null and ""). Over random CDC inputs whose
// names are NULL, ”, 'NULL', quotes, commas and line breaks, each changelog
// applied by its op gives the final table a separately written reference
// (the last image of each live key) gives, for a pass-through query and for
// a GROUP BY of the names (whose NULL group and ” group are two groups).
func TestChangelogNullTextRoundTrip(t *testing.T) {
	for seed := range 3 {
		r := rand.New(rand.NewSource(int64(40 + seed)))
		cs := randomChanges(r, 60+40*seed)
		for _, c := range cs { // some names the text 'NULL' (Before shares its map with an earlier After)
			for _, m := range []map[string]any{c.Before, c.After} {
				if m != nil && m["name"] == "a" && int64(m["id"].(float64))%2 == 0 {
					m["name"] = "NULL"
				}
			}
		}
		live := map[int64]map[string]any{}
		for _, c := range cs {
			if c.After == nil {
				delete(live, int64(c.Before["id"].(float64)))
			} else {
				live[int64(c.After["id"].(float64))] = c.After
			}
		}
		var wantRows []string
		groups := map[string]int{}
		for _, row := range live {
			wantRows = append(wantRows, cell(row["id"])+"|"+cell(row["name"])+"|"+cell(row["w"]))
			groups[cell(row["name"])]++
		}
		var wantGroups []string
		for g, n := range groups {
			wantGroups = append(wantGroups, fmt.Sprintf("%s|%d", g, n))
		}
		slices.Sort(wantRows)
		slices.Sort(wantGroups)

		dir := t.TempDir()
		src := "CREATE STREAM s (id BIGINT, name VARCHAR, w DOUBLE) WITH ('connector'='file','path'='cdc.json','format'='debezium-json');\n"
		for _, q := range []struct {
			sel, cols string
			want      []string
		}{
			{"SELECT id, name, w FROM s", "id BIGINT, name VARCHAR, w DOUBLE", wantRows},
			{"SELECT name, COUNT(*) AS n FROM s GROUP BY name", "name VARCHAR, n BIGINT", wantGroups},
		} {
			sinks := src + "CREATE STREAM oc (op VARCHAR, " + q.cols + ") WITH ('connector'='file','path'='oc.csv','format'='csv');\n" +
				"CREATE STREAM oj (op VARCHAR, " + q.cols + ") WITH ('connector'='file','path'='oj.json','format'='json');\n" +
				"CREATE STREAM od (" + q.cols + ") WITH ('connector'='file','path'='od.json','format'='debezium-json');\n" +
				"INSERT INTO oc " + q.sel + ";\nINSERT INTO oj " + q.sel + ";\nINSERT INTO od " + q.sel + ";\n"
			if _, errs, code := runSQLIn(t, dir, map[string]string{"cdc.json": encodeChanges(t, cs)}, sinks); code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q.sel, code, errs)
			}
			for _, format := range []string{"csv", "tsv"} {
				out, errs, code := runSQLIn(t, dir, nil, src+q.sel+";", "--format", format)
				if code != 0 {
					t.Fatalf("seed %d: %s --format %s: exit %d: %s", seed, q.sel, format, code, errs)
				}
				if err := os.WriteFile(filepath.Join(dir, "stdout."+format), []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, back := range []struct{ name, with string }{
				{"csv file sink", "'path'='oc.csv','format'='csv','csv.header'='true','csv.null-literal'=''"},
				{"json file sink", "'path'='oj.json','format'='json'"},
				{"--format csv", "'path'='stdout.csv','format'='csv','csv.header'='true','csv.null-literal'=''"},
				{"--format tsv", `'path'='stdout.tsv','format'='csv','csv.delimiter'='\t','csv.header'='true','csv.null-literal'=''`},
				{"debezium-json file sink", "'path'='od.json','format'='debezium-json'"},
			} {
				cols, sel := "op VARCHAR, "+q.cols, "SELECT * FROM b;"
				if strings.Contains(back.with, "debezium") {
					cols = q.cols
				}
				out, errs, code := runSQLIn(t, dir, nil, "CREATE STREAM b ("+cols+") WITH ('connector'='file',"+back.with+");\n"+sel, "--format", "json")
				if code != 0 {
					t.Fatalf("seed %d: %s: %s read back: exit %d: %s", seed, q.sel, back.name, code, errs)
				}
				if got := appliedJSON(t, out); !slices.Equal(got, q.want) {
					t.Errorf("seed %d: %s: %s read back and applied gives\n%q\nthe reference\n%q", seed, q.sel, back.name, got, q.want)
				}
			}
		}
	}
}

// cell is a JSON value as appliedJSON keys it: null as NULL, text quoted (so
// ” and 'NULL' are not NULL), numbers as Go prints them.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return fmt.Sprintf("%q", x)
	case float64:
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// appliedJSON applies the changelog of json lines out (each row's kind in
// "op") and returns the final table's rows, each its values but op joined by
// |, sorted.
func appliedJSON(t *testing.T, out string) []string {
	t.Helper()
	table := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		tok, err := dec.Token()
		if err != nil || tok != json.Delim('{') {
			t.Fatalf("not a json object: %s", line)
		}
		var op string
		var vals []string
		for dec.More() {
			k, _ := dec.Token()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if n, ok := v.(json.Number); ok {
				f, _ := n.Float64()
				v = f
			}
			if k == "op" {
				op, _ = v.(string)
				continue
			}
			vals = append(vals, cell(v))
		}
		applyKind(t, table, op, strings.Join(vals, "|"), line)
	}
	return tableRows(table)
}
