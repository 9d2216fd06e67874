package streamql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"streamql"
)

// TestSelectDistinct: SELECT DISTINCT is a GROUP BY of its select list
// (Flink's reading; it was a planning error): over a bounded input each
// distinct row once, at the end, in the order of first rows, NULLs one value;
// the same for a column list, an expression, `*`, `s.*`, a join's columns, a
// view, a subquery and a side branch. The reference is computed here from the
// rows, apart from the engine.
func TestSelectDistinct(t *testing.T) {
	type row struct {
		k string // "" is NULL
		v int64  // -1 is NULL
	}
	rows := []row{{"a", 1}, {"b", -1}, {"a", 1}, {"", 2}, {"b", -1}, {"a", 3}, {"", 2}, {"c", 1}}
	var values []string
	for _, r := range rows {
		k, v := "NULL", "NULL"
		if r.k != "" {
			k = "'" + r.k + "'"
		}
		if r.v >= 0 {
			v = fmt.Sprint(r.v)
		}
		values = append(values, "("+k+", "+v+")")
	}
	script := "CREATE STREAM s (k VARCHAR, v BIGINT) WITH ('connector'='values');\n" +
		"CREATE STREAM r (k VARCHAR, w BIGINT) WITH ('connector'='values');\n" +
		"INSERT INTO s VALUES " + strings.Join(values, ", ") + ";\n" +
		"INSERT INTO r VALUES ('a', 10), ('b', 20), ('a', 10);\n" +
		"CREATE VIEW dv AS SELECT DISTINCT k FROM s;\n"
	str := func(s string) string {
		if s == "" {
			return "<nil>"
		}
		return s
	}
	num := func(v int64) string {
		if v < 0 {
			return "<nil>"
		}
		return fmt.Sprint(v)
	}
	// distinct keeps the first of each key, in order
	distinct := func(key func(row) string, keep func(row) bool) []string {
		var out []string
		for _, r := range rows {
			if keep != nil && !keep(r) {
				continue
			}
			if k := key(r); !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
		return out
	}
	prefix := func(p string, xs []string) []string {
		for i := range xs {
			xs[i] = p + xs[i]
		}
		return xs
	}
	pair := func(r row) string { return str(r.k) + ", " + num(r.v) }
	cases := []struct {
		query string
		want  []string
	}{
		{"SELECT DISTINCT k FROM s;", prefix("main main: ", distinct(func(r row) string { return str(r.k) }, nil))},
		{"SELECT DISTINCT v FROM s;", prefix("main main: ", distinct(func(r row) string { return num(r.v) }, nil))},
		{"SELECT DISTINCT k, v FROM s;", prefix("main main: ", distinct(pair, nil))},
		{"SELECT DISTINCT * FROM s;", prefix("main main: ", distinct(pair, nil))},
		{"SELECT DISTINCT x.* FROM s AS x WHERE v IS NOT NULL;", prefix("main main: ", distinct(pair, func(r row) bool { return r.v >= 0 }))},
		{"SELECT DISTINCT v * 2 AS d FROM s;", prefix("main main: ", distinct(func(r row) string {
			if r.v < 0 {
				return "<nil>"
			}
			return fmt.Sprint(r.v * 2)
		}, nil))},
		{"SELECT * FROM dv;", prefix("main main: ", distinct(func(r row) string { return str(r.k) }, nil))},
		{"SELECT DISTINCT k FROM (SELECT k, v FROM s WHERE v > 1) AS q;", prefix("main main: ", distinct(func(r row) string { return str(r.k) }, func(r row) bool { return r.v > 1 }))},
		// s's a rows × r's a rows, and its b rows × r's b row
		{"SELECT DISTINCT s.k, r.w FROM s JOIN r ON s.k = r.k;", []string{"main main: a, 10", "main main: b, 20"}},
		// UNION (without ALL) is the distinct rows of the UNION ALL, at the
		// top level, in a subquery, a WITH and a view
		{"SELECT k FROM s UNION SELECT k FROM r;", prefix("main main: ", distinct(func(r row) string { return str(r.k) }, nil))},
		{"SELECT k, v FROM s WHERE v = 1 UNION SELECT k, w FROM r UNION SELECT k, v FROM s WHERE v IS NULL;",
			append(prefix("main main: ", distinct(pair, func(r row) bool { return r.v == 1 })), "main main: a, 10", "main main: b, 20", "main main: b, <nil>")},
		{"SELECT COUNT(*) AS n FROM (SELECT k FROM s UNION SELECT k FROM r) AS u;", []string{"main main: 4"}},
		{"WITH u AS (SELECT v FROM s UNION SELECT w FROM r) SELECT * FROM u WHERE v > 1;", []string{"main main: 2", "main main: 3", "main main: 10", "main main: 20"}},
		{"CREATE VIEW uv AS SELECT k FROM r UNION SELECT k FROM r; SELECT * FROM uv;", []string{"main main: a", "main main: b"}},
		// UNION and UNION ALL mixed at one level group from the left, as
		// Flink's (it was an error): (r UNION r) UNION ALL r, and
		// ((r UNION ALL r) UNION r) UNION ALL r, in a subquery too
		{"SELECT k FROM r UNION SELECT k FROM r UNION ALL SELECT k FROM r;", []string{"main main: a", "main main: b", "main main: a", "main main: b", "main main: a"}},
		{"SELECT k FROM r UNION ALL SELECT k FROM r UNION SELECT k FROM r UNION ALL SELECT k FROM r WHERE w > 10;", []string{"main main: a", "main main: b", "main main: b"}},
		{"SELECT COUNT(*) AS n FROM (SELECT k FROM r UNION ALL SELECT k FROM r UNION SELECT k FROM s) AS u;", []string{"main main: 4"}},
		{"SELECT DISTINCT k INTO SIDE 'd' FROM s WHERE v = 1; SELECT COUNT(*) AS n FROM s;",
			append(prefix("side d: ", distinct(func(r row) string { return str(r.k) }, func(r row) bool { return r.v == 1 })), "main main: 5")},
	}
	// DISTINCT over grouped rows (Flink's; it was a planning error): the
	// groups of k in the order of their first rows, then their distinct
	// values; and of the (k, v) groups seen more than once, the distinct v
	var groups []string
	count := map[string]int{}
	for _, r := range rows {
		if count[str(r.k)]++; count[str(r.k)] == 1 {
			groups = append(groups, str(r.k))
		}
	}
	var counts, desc, twice []string
	for _, g := range groups {
		if c := fmt.Sprint(count[g]); !slices.Contains(counts, c) {
			counts = append(counts, c)
		}
	}
	desc = slices.Clone(counts)
	sort.Sort(sort.Reverse(sort.StringSlice(desc))) // (one-digit counts)
	pairs := map[string]int{}
	for _, r := range rows {
		pairs[pair(r)]++
	}
	for _, r := range rows {
		if pairs[pair(r)] > 1 && !slices.Contains(twice, num(r.v)) {
			twice = append(twice, num(r.v))
		}
	}
	cases = append(cases, []struct {
		query string
		want  []string
	}{
		{"SELECT DISTINCT COUNT(*) AS n FROM s GROUP BY k;", prefix("main main: ", slices.Clone(counts))},
		{"SELECT DISTINCT COUNT(*) AS n FROM s GROUP BY k ORDER BY n DESC;", prefix("main main: ", slices.Clone(desc))},
		{"SELECT DISTINCT COUNT(*) AS n FROM s GROUP BY k ORDER BY n DESC LIMIT 1;", prefix("main main: ", slices.Clone(desc[:1]))},
		{"SELECT DISTINCT v FROM s GROUP BY k, v HAVING COUNT(*) > 1;", prefix("main main: ", slices.Clone(twice))},
		{"CREATE VIEW gv AS SELECT DISTINCT COUNT(*) AS n FROM s GROUP BY k; SELECT * FROM gv;", prefix("main main: ", slices.Clone(counts))},
		{"SELECT COUNT(*) AS m FROM (SELECT DISTINCT COUNT(*) AS n FROM s GROUP BY k) AS q;", []string{fmt.Sprintf("main main: %d", len(counts))}},
	}...)
	for _, c := range cases {
		got := runSQL(t, script+c.query)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s\n got %q\nwant %q", c.query, got, c.want)
		}
	}
}

// TestOrderByNulls: ORDER BY x ASC|DESC NULLS FIRST|LAST (Flink's syntax;
// was a syntax error) puts the NULLs where it says and orders the rest by x,
// in a final ORDER BY and in a Top-N's OVER (ORDER BY …); without it NULLs
// come first for ASC and last for DESC (SPEC 2.9). Reference sorted here.
func TestOrderByNulls(t *testing.T) {
	vals := []int64{3, -1, 1, 5, -1, 2} // -1 is NULL
	var values []string
	for i, v := range vals {
		x := "NULL"
		if v >= 0 {
			x = fmt.Sprint(v)
		}
		values = append(values, fmt.Sprintf("(%d, %s)", i, x))
	}
	script := "CREATE STREAM s (id BIGINT, v BIGINT) WITH ('connector'='values');\nINSERT INTO s VALUES " + strings.Join(values, ", ") + ";\n"
	for _, dir := range []string{"", " ASC", " DESC"} {
		for _, nulls := range []string{"", " NULLS FIRST", " NULLS LAST"} {
			desc := dir == " DESC"
			first := nulls == " NULLS FIRST" || nulls == "" && !desc
			ids := []int{0, 1, 2, 3, 4, 5}
			sort.SliceStable(ids, func(a, b int) bool {
				x, y := vals[ids[a]], vals[ids[b]]
				if (x < 0) != (y < 0) {
					return (x < 0) == first
				}
				if desc {
					return x > y
				}
				return x < y
			})
			var want, top []string
			for k, id := range ids {
				want = append(want, fmt.Sprintf("main main: %d", id))
				if k < 3 {
					top = append(top, fmt.Sprintf("main main: %d", id))
				}
			}
			// the key written as the column, an alias of it, an
			// expression and an alias of an expression (the alias was an
			// unknown column with NULLS FIRST|LAST), with and without LIMIT
			for _, form := range []struct{ sel, key string }{
				{"id", "v"}, {"id, v AS w", "w"}, {"id", "v + 0"}, {"id, v * 1 AS w", "w"}, {"id, v AS v2", "v"},
			} {
				for _, lim := range []int{-1, 3} {
					q := "SELECT " + form.sel + " FROM s ORDER BY " + form.key + dir + nulls
					w := want
					if lim >= 0 {
						q += fmt.Sprintf(" LIMIT %d", lim)
						w = want[:lim]
					}
					var got []string
					for _, l := range runSQL(t, script+q+";") {
						got = append(got, strings.SplitN(l, ",", 2)[0])
					}
					if strings.Join(got, "|") != strings.Join(w, "|") {
						t.Errorf("%s:\n got %q\nwant %q", q, got, w)
					}
				}
			}
			got := runSQL(t, script+"SELECT id FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY v"+dir+nulls+") AS rn FROM s) WHERE rn <= 3;")
			sort.Strings(got) // (a bounded Top-N gives its final rows; their order is not what this tests)
			sort.Strings(top)
			if strings.Join(got, "|") != strings.Join(top, "|") {
				t.Errorf("Top-3 OVER (ORDER BY v%s%s):\n got %q\nwant %q", dir, nulls, got, top)
			}
		}
	}
}

// TestUnnestWithOrdinality: CROSS / LEFT JOIN UNNEST(x) WITH ORDINALITY AS t
// (…, pos) (Flink 2.1; was an error) adds the element's position, from 1,
// after the element's columns (key and value for a MAP), NULL in a LEFT
// join's padding; over a file and over a values stream, whose last batch
// the unnest gave twice (each row of a bounded values stream doubled). The
// reference is built here from the arrays.
func TestUnnestWithOrdinality(t *testing.T) {
	arrays := [][]string{{"a", "b", "c"}, nil, {}, {"d", ""}}
	var lines []string
	for i, a := range arrays {
		x := "null"
		if a != nil {
			q := []string{}
			for _, e := range a {
				if e == "" {
					q = append(q, "null")
				} else {
					q = append(q, `"`+e+`"`)
				}
			}
			x = "[" + strings.Join(q, ",") + "]"
		}
		lines = append(lines, fmt.Sprintf(`{"id":%d,"tags":%s}`, i, x))
	}
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "CREATE STREAM s (id BIGINT, tags ARRAY<VARCHAR>) WITH ('connector'='file', 'format'='json', 'path'='" + path + "');\n"
	for _, left := range []bool{false, true} {
		var want []string
		for i, a := range arrays {
			if len(a) == 0 && left {
				want = append(want, fmt.Sprintf("main main: %d, <nil>, <nil>", i))
			}
			for k, e := range a {
				v := e
				if e == "" {
					v = "<nil>"
				}
				want = append(want, fmt.Sprintf("main main: %d, %s, %d", i, v, k+1))
			}
		}
		q := "SELECT id, tag, pos FROM s CROSS JOIN UNNEST(tags) WITH ORDINALITY AS t (tag, pos);"
		if left {
			q = "SELECT id, tag, pos FROM s LEFT JOIN UNNEST(tags) WITH ORDINALITY AS t (tag, pos) ON TRUE;"
		}
		if got := runSQL(t, script+q); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s\n got %q\nwant %q", q, got, want)
		}
	}
	got := runSQL(t, "CREATE STREAM m (id BIGINT) WITH ('connector'='values');\nINSERT INTO m VALUES (7), (8);\nSELECT id, k, v, p FROM m CROSS JOIN UNNEST(MAP['a', 1]) WITH ORDINALITY AS t (k, v, p);")
	if want := "main main: 7, a, 1, 1|main main: 8, a, 1, 1"; strings.Join(got, "|") != want {
		t.Errorf("a MAP over a values stream: %q, want %q", got, want)
	}
}

// TestInsertNestedValues: INSERT INTO a values stream gave an ARRAY, MAP or
// ROW value as NULL, silently, then refused it; it takes it (SPEC 2.10's types
// are columns of any stream), and a value of another type is refused with the
// column named. (tests.TestInsertNestedValues has random nested values.)
func TestInsertNestedValues(t *testing.T) {
	ddl := "CREATE STREAM m (id BIGINT, a ARRAY<VARCHAR>, mp MAP<VARCHAR, BIGINT>, r ROW<x BIGINT>, s VARCHAR) WITH ('connector'='values');\n"
	for _, c := range []struct{ values, msg string }{
		{"(1, NULL, NULL, NULL, ARRAY['x'])", "column 's' is VARCHAR, and this value is ARRAY<VARCHAR>"},
		{"(1, 'x', NULL, NULL, NULL)", "column 'a' is ARRAY<VARCHAR>, and this value is VARCHAR"},
		{"(1, NULL, ROW('x', 1), NULL, NULL)", "column 'mp' is MAP<VARCHAR, BIGINT>, and this value is ROW<"},
	} {
		s := open(t, streamql.Options{OnRows: collect(new([]string))})
		if err := s.Exec(context.Background(), ddl+"INSERT INTO m VALUES "+c.values+";"); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want an error with %q", c.values, err, c.msg)
		}
	}
	got := runSQL(t, ddl+"INSERT INTO m VALUES (1, ARRAY['x'], MAP['x', 1], ROW(5), 'k'), (2, NULL, NULL, NULL, NULL);\nSELECT id, a[1] AS a1, mp['x'] AS x, r.x AS rx, a IS NULL AS n, s FROM m;")
	if want := "main main: 1, x, 1, 5, false, k|main main: 2, <nil>, <nil>, <nil>, true, <nil>"; strings.Join(got, "|") != want {
		t.Errorf("nested values read back: %q, want %q", got, want)
	}
}
