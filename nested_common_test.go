package streamql_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql"
)

// TestNestedCommonType: every place where one expression gives values of
// several types (CASE, IF, COALESCE, ARRAY[…] elements, MAP[…] values,
// UNION ALL columns, the arguments of ARRAY_CONCAT, MAP_UNION and the
// like) takes ARRAY, MAP and ROW values whose types differ only
// in a BIGINT/DOUBLE part or a ROW's field names, as Flink (Calcite's
// leastRestrictive) does: the common type has the parts' common types and
// the first value's field names. They were refused ("cannot be mixed here").
// Each case gives the view's type (DESCRIBE) and the values as printed.
func TestNestedCommonType(t *testing.T) {
	named := "CAST(ROW(2, 'b') AS ROW<i BIGINT, s VARCHAR>)"
	for _, c := range []struct{ expr, typ, vals string }{
		{"ARRAY[" + named + ", ROW(1, 'a')]", "ARRAY<ROW<i BIGINT, s VARCHAR>>", "[(2, b), (1, a)]"},
		{"ARRAY[ROW(1, 'a'), " + named + "]", "ARRAY<ROW<`EXPR$0` BIGINT, `EXPR$1` VARCHAR>>", "[(1, a), (2, b)]"},
		{"ARRAY[ROW(1, 'a'), ROW(2.5, 'b')]", "ARRAY<ROW<`EXPR$0` DOUBLE, `EXPR$1` VARCHAR>>", "[(1.0, a), (2.5, b)]"},
		{"ARRAY[ARRAY[1], ARRAY[2.5], NULL]", "ARRAY<ARRAY<DOUBLE>>", "[[1.0], [2.5], NULL]"},
		{"MAP['a', ARRAY[1], 'b', ARRAY[0.5]]", "MAP<VARCHAR, ARRAY<DOUBLE>>", "{a=[1.0], b=[0.5]}"},
		{"CASE WHEN id = 1 THEN " + named + " ELSE ROW(id, 'x') END", "ROW<i BIGINT, s VARCHAR>", "(2, b)|(2, x)"},
		{"IF(id = 1, ARRAY[id], ARRAY[0.5])", "ARRAY<DOUBLE>", "[1.0]|[0.5]"},
		{"COALESCE(CAST(NULL AS ROW<k BIGINT>), ROW(id))", "ROW<k BIGINT>", "(1)|(2)"},
		{"ARRAY_CONCAT(ARRAY[ROW(1)], ARRAY[CAST(ROW(2) AS ROW<x BIGINT>)])", "ARRAY<ROW<`EXPR$0` BIGINT>>", "[(1), (2)]"},
		{"MAP_UNION(MAP['a', ARRAY[id]], MAP['b', ARRAY[2.5]])", "MAP<VARCHAR, ARRAY<DOUBLE>>", "{a=[1.0], b=[2.5]}|{a=[2.0], b=[2.5]}"},
		{"COALESCE(MAP[id, ROW(id)], MAP[0.5, " + "CAST(ROW(1) AS ROW<z BIGINT>)])", "MAP<DOUBLE, ROW<`EXPR$0` BIGINT>>", "{1.0=(1)}|{2.0=(2)}"},
	} {
		script := "CREATE STREAM m (id BIGINT) WITH ('connector'='values');\nINSERT INTO m VALUES (1), (2);\n" +
			"CREATE VIEW v AS SELECT " + c.expr + " AS c FROM m;\nDESCRIBE v;\nSELECT CAST(c AS VARCHAR) AS c FROM v;"
		got := runSQL(t, script)
		want := []string{"result result: c, " + c.typ + ", "}
		for _, v := range strings.Split(c.vals, "|") {
			want = append(want, "main main: "+v)
		}
		if len(want) == 2 { // (a constant: the same for both rows)
			want = append(want, want[1])
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.expr, got, want)
		}
	}
	got := runSQL(t, "SELECT CAST(a AS VARCHAR) AS a, CAST(r AS VARCHAR) AS r FROM (SELECT ARRAY[1] AS a, ROW(1, 'x') AS r UNION ALL SELECT ARRAY[2.5], "+named+") u;")
	if want := "main main: [1.0], (1, x)|main main: [2.5], (2, b)"; strings.Join(got, "|") != want {
		t.Errorf("UNION ALL: %q, want %q", got, want)
	}
	// =, <>, IN and IS DISTINCT FROM compare such values in their common type
	got = runSQL(t, "SELECT ARRAY[1] = ARRAY[1.0] AS a, ARRAY[2] IN (ARRAY[1.0], ARRAY[2.0]) AS b, ARRAY[1] IS DISTINCT FROM ARRAY[1.5] AS c, MAP['a', ROW(1)] <> MAP['a', CAST(ROW(1.5) AS ROW<z DOUBLE>)] AS d, ROW(1, ARRAY[2]) = ROW(1.0, ARRAY[2.5]) AS e;")
	if want := "main main: true, true, true, true, false"; strings.Join(got, "|") != want {
		t.Errorf("comparisons: %q, want %q", got, want)
	}
	s := open(t, streamql.Options{OnRows: collect(new([]string))})
	for _, bad := range []string{"SELECT ARRAY[1] = ARRAY['a'] AS c;", "SELECT ROW(1) = ROW(1, 2) AS c;", "SELECT ARRAY[ROW(1), ROW(1, 2)] AS c;", "SELECT COALESCE(ARRAY[1], MAP[1, 2]) AS c;", "SELECT ARRAY[ARRAY['a'], ARRAY[1]] AS c;"} {
		if err := s.Exec(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "cannot be mixed here; use CAST") && !strings.Contains(err.Error(), "cannot compare") {
			t.Errorf("%s: %v, want a type error", bad, err)
		}
	}
}

// TestUnnestArrayOfRow: CROSS JOIN UNNEST of an ARRAY of ROW with as many
// column names as the ROW has fields gives a column per field (Flink's), a
// NULL element NULL fields; with one name it gives the ROW; LEFT JOIN and
// WITH ORDINALITY as for other arrays. Random arrays (NULL, empty, NULL
// elements, NULL fields) from a json file against the expansion computed
// here from the same data.
func TestUnnestArrayOfRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type item struct {
		Name *string `json:"name"`
		Qty  *int64  `json:"qty"`
	}
	type rec struct {
		ID    int     `json:"id"`
		Items []*item `json:"items"`
	}
	var recs []rec
	var lines []string
	for id := range 40 {
		r := rec{ID: id}
		if rng.IntN(6) > 0 {
			r.Items = []*item{}
			for range rng.IntN(4) {
				if rng.IntN(5) == 0 {
					r.Items = append(r.Items, nil)
					continue
				}
				it := &item{}
				if rng.IntN(4) > 0 {
					s := fmt.Sprintf("n%d", rng.IntN(100))
					it.Name = &s
				}
				if rng.IntN(4) > 0 {
					q := rng.Int64N(1000) - 500
					it.Qty = &q
				}
				r.Items = append(r.Items, it)
			}
		}
		recs = append(recs, r)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	path := filepath.Join(t.TempDir(), "o.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ddl := "CREATE STREAM o (id BIGINT, items ARRAY<ROW<name VARCHAR, qty BIGINT>>) WITH ('connector'='file', 'format'='json', 'path'='" + path + "');\n"
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	num := func(p *int64) string {
		if p == nil {
			return "<nil>"
		}
		return fmt.Sprint(*p)
	}
	for _, left := range []bool{false, true} {
		var want []string
		for _, r := range recs {
			if len(r.Items) == 0 && left {
				want = append(want, fmt.Sprintf("main main: %d, <nil>, <nil>, <nil>", r.ID))
			}
			for k, it := range r.Items {
				if it == nil {
					it = &item{}
				}
				want = append(want, fmt.Sprintf("main main: %d, %s, %s, %d", r.ID, str(it.Name), num(it.Qty), k+1))
			}
		}
		q := "SELECT id, t.name, q, pos FROM o CROSS JOIN UNNEST(items) WITH ORDINALITY AS t (name, q, pos);"
		if left {
			q = "SELECT id, t.name, q, pos FROM o LEFT JOIN UNNEST(items) WITH ORDINALITY AS t (name, q, pos) ON TRUE;"
		}
		if got := runSQL(t, ddl+q); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s\n got %q\nwant %q", q, got, want)
		}
	}
	var want []string
	for _, r := range recs {
		for _, it := range r.Items {
			if it == nil {
				want = append(want, fmt.Sprintf("main main: %d, <nil>", r.ID))
				continue
			}
			n, q := str(it.Name), num(it.Qty)
			want = append(want, fmt.Sprintf("main main: %d, (%s, %s)", r.ID, strings.ReplaceAll(n, "<nil>", "NULL"), strings.ReplaceAll(q, "<nil>", "NULL")))
		}
	}
	if got := runSQL(t, ddl+"SELECT id, CAST(r AS VARCHAR) AS r FROM o CROSS JOIN UNNEST(items) AS t (r);"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the whole ROW:\n got %q\nwant %q", got, want)
	}
	s := open(t, streamql.Options{OnRows: collect(new([]string))})
	if err := s.Exec(t.Context(), ddl); err != nil {
		t.Fatal(err)
	}
	for bad, msg := range map[string]string{
		"SELECT * FROM o CROSS JOIN UNNEST(items) AS t (a, b, c);":                   "gives a column per field, AS t (name, qty), or the whole ROW, AS t (a)",
		"SELECT * FROM o CROSS JOIN UNNEST(MAP['a', 1]) AS t (a, b, c);":             "UNNEST of a MAP",
		"SELECT * FROM o CROSS JOIN UNNEST(ARRAY[1, 2]) AS t (a, b);":                "gives one column: AS t (a)",
		"SELECT * FROM o CROSS JOIN UNNEST(ARRAY[ROW(1)]) WITH ORDINALITY AS t (a);": "WITH ORDINALITY gives the element's columns and its position",
	} {
		if err := s.Exec(t.Context(), bad); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error with %q", bad, err, msg)
		}
	}
}

// TestInsertNestedNames: INSERT INTO … SELECT writes an ARRAY, MAP or ROW
// value into a column whose type differs only in ROW field names (a
// constructor's EXPR$0, …) or in BIGINT parts of DOUBLE ones, as Flink
// does (ARRAY[ROW(n, q)] into ARRAY<ROW<name VARCHAR, qty BIGINT>>): the
// value is cast to the column's type, so the sink writes the column's
// names; it was refused. A DOUBLE part into a BIGINT one is still refused.
func TestInsertNestedNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	ddl := "CREATE STREAM s (id BIGINT, n VARCHAR) WITH ('connector'='values');\nINSERT INTO s VALUES (1, 'a'), (2, 'b');\n" +
		"CREATE STREAM k (id BIGINT, items ARRAY<ROW<name VARCHAR, qty DOUBLE>>, r ROW<x BIGINT>, m MAP<VARCHAR, ROW<y BIGINT>>) WITH ('connector'='file', 'path'='" + path + "', 'format'='json');\n"
	runSQL(t, ddl+"INSERT INTO k SELECT id, ARRAY[ROW(n, id * 2)], ROW(id), MAP[n, ROW(id)] FROM s;")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"items":[{"name":"a","qty":2.0}],"r":{"x":1},"m":{"a":{"y":1}}}` + "\n" + `{"id":2,"items":[{"name":"b","qty":4.0}],"r":{"x":2},"m":{"b":{"y":2}}}` + "\n"
	if string(got) != want {
		t.Errorf("the sink holds\n%s\nwant\n%s", got, want)
	}
	s := open(t, streamql.Options{OnRows: collect(new([]string))})
	err = s.Exec(t.Context(), strings.Replace(ddl, "out.json", "out2.json", 1)+"INSERT INTO k SELECT id, ARRAY[ROW(n, id * 2)], ROW(id * 1.5), MAP[n, ROW(id)] FROM s;")
	if err == nil || !strings.Contains(err.Error(), "k.r is ROW<x BIGINT>; write CAST(") {
		t.Errorf("a DOUBLE field into a BIGINT one: %v, want a refusal", err)
	}
}
