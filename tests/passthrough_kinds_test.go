package tests

import (
	"fmt"
	mrand "math/rand"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// applyChangelog applies a csv changelog (op first, SPEC 2.8) and returns
// the final table's rows, sorted, each as its csv text after the op field,
// as written: SPEC 4's csv writes NULL as an empty field and ” as "" (a
// field holding the delimiter, a quote, CR or LF quoted, its quotes
// doubled), so a row with NULL and one with ” differ here (encoding/csv
// reads both as ""). A reference renders its rows so (csvField). It fails
// on a line without a kind or a retraction of a row not in the table.
func applyChangelog(t *testing.T, out string) []string {
	t.Helper()
	recs := csvRecords(t, out)
	if len(recs) == 0 || recs[0][0] != "op" {
		t.Fatalf("output %q: want a changelog with an op column", out)
	}
	table := map[string]int{}
	for _, rec := range recs[1:] {
		applyKind(t, table, rec[0], strings.Join(rec[1:], ","), fmt.Sprintf("%v in:\n%s", rec, out))
	}
	return tableRows(table)
}

// csvRecords splits csv text into records of fields, each field's text as
// written (quotes kept), a record ending at a line feed outside quotes. It
// fails on a quote that does not close.
func csvRecords(t *testing.T, text string) [][]string {
	t.Helper()
	var recs [][]string
	var rec []string
	start, quoted := 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			quoted = !quoted // (a doubled quote closes and opens again)
		case quoted:
		case c == ',':
			rec = append(rec, text[start:i])
			start = i + 1
		case c == '\n':
			recs = append(recs, append(rec, strings.TrimSuffix(text[start:i], "\r")))
			rec, start = nil, i+1
		}
	}
	if quoted {
		t.Fatalf("csv text ends inside a quoted field:\n%s", text)
	}
	if start < len(text) {
		recs = append(recs, append(rec, text[start:]))
	}
	return recs
}

// csvField renders a VARCHAR value as SPEC 4's csv writes it, written here
// apart from the engine: nil (NULL) as an empty field, "" as "", a value
// holding a comma, a quote, CR or LF quoted with its quotes doubled, any
// other as it is.
func csvField(v *string) string {
	switch {
	case v == nil:
		return ""
	case *v == "" || strings.ContainsAny(*v, ",\"\r\n"):
		return `"` + strings.ReplaceAll(*v, `"`, `""`) + `"`
	}
	return *v
}

// applyKind applies one change of kind (+I, +U add a row, -U, -D take one
// back: SPEC 2.8) of row to table, a multiset of rows; it fails on another
// kind or on a retraction of a row not in the table, naming the change by
// where.
func applyKind(t *testing.T, table map[string]int, kind, row, where string) {
	t.Helper()
	switch kind {
	case "+I", "+U":
		table[row]++
	case "-U", "-D":
		if table[row] == 0 {
			t.Fatalf("a retraction of a row not in the result: %s", where)
		}
		table[row]--
	default:
		t.Fatalf("kind %q: %s", kind, where)
	}
}

// tableRows returns the rows of table, each as many times as it holds it,
// sorted.
func tableRows(table map[string]int) []string {
	var got []string
	for row, n := range table {
		for range n {
			got = append(got, row)
		}
	}
	slices.Sort(got)
	return got
}

// nkRow is an input row of TestPassThroughKeepsKinds's subqueries: a key
// that may be NULL (nil) or ” besides k0..k3, and a value.
type nkRow struct {
	k *string
	x int
}

// nkRows returns n random rows and their csv file, read with
// 'csv.null-literal'='NULL' (a NULL key written NULL, ” written "").
func nkRows(r *rand.Rand, n int) ([]nkRow, string) {
	empty := ""
	keys := []*string{nil, &empty}
	for i := range 4 {
		k := fmt.Sprintf("k%d", i)
		keys = append(keys, &k)
	}
	var rows []nkRow
	var in strings.Builder
	for range n {
		x := nkRow{keys[r.IntN(len(keys))], r.IntN(20)}
		rows = append(rows, x)
		k := "NULL"
		if x.k != nil {
			k = `"` + *x.k + `"`
		}
		fmt.Fprintf(&in, "%s,%d\n", k, x.x)
	}
	return rows, in.String()
}

// TestPassThroughKeepsKinds: a filter or projection passes each row's kind
// through (SPEC 2.8), whatever makes the relation it reads updating: a
// debezium-json stream, and a subquery (SPEC 2.6) over an updating GROUP BY,
// a regular FULL JOIN or a Top-N. Each output is a changelog (an op column)
// whose final table equals a reference computed from the whole input. The
// inputs hold NULL and ” (keys, names), which the changelog's reader and
// the references tell apart (applyChangelog, csvField), so a NULL written
// as ” or the other way fails. (A stream of changes read through WHERE
// printed its -U rows as rows.)
func TestPassThroughKeepsKinds(t *testing.T) {
	for seed := range 4 {
		// a debezium-json stream's final table, filtered
		cs := randomChanges(mrand.New(mrand.NewSource(int64(seed+1))), 50+seed*40)
		state := map[int64]*string{}
		for _, c := range cs {
			if c.After == nil {
				delete(state, int64(c.Before["id"].(float64)))
				continue
			}
			if c.Before != nil {
				delete(state, int64(c.Before["id"].(float64)))
			}
			var name *string // (nil: NULL; randomChanges gives NULL and '' names)
			if v, ok := c.After["name"].(string); ok {
				name = &v
			}
			state[int64(c.After["id"].(float64))] = name
		}
		var want []string
		for id, name := range state {
			if id%2 == 0 {
				want = append(want, fmt.Sprintf("%d,%s", id, csvField(name)))
			}
		}
		slices.Sort(want)
		out, errs, code := runSQL(t, map[string]string{"p.json": encodeChanges(t, cs)}, cdcDDL+"SELECT id, name FROM p WHERE id % 2 = 0;\n", "--format", "csv")
		if code != 0 {
			t.Fatalf("seed %d: exit %d: %s", seed, code, errs)
		}
		if got := applyChangelog(t, out); !slices.Equal(got, want) {
			t.Fatalf("seed %d: debezium stream through WHERE:\n got %q\nwant %q", seed, got, want)
		}

		// subqueries over updating queries, filtered; NULL and '' keys
		r := rand.New(rand.NewPCG(uint64(seed), 31))
		rows, in := nkRows(r, 1+r.IntN(50))
		type group struct {
			k  *string
			n  int
			xs []int
		}
		groups := map[string]*group{} // by csvField of the key: NULL and '' apart
		for _, x := range rows {
			g := groups[csvField(x.k)]
			if g == nil {
				g = &group{k: x.k}
				groups[csvField(x.k)] = g
			}
			g.n++
			g.xs = append(g.xs, x.x)
		}
		var wantCount, wantTop []string
		for key, g := range groups {
			if g.n > 1 {
				wantCount = append(wantCount, fmt.Sprintf("%s,%d", key, g.n))
			}
			sort.SliceStable(g.xs, func(i, j int) bool { return g.xs[i] > g.xs[j] })
			if g.k != nil && *g.k != "k0" { // (k <> 'k0' is NULL for a NULL key: not kept)
				wantTop = append(wantTop, fmt.Sprintf("%s,%d", key, g.xs[0]))
			}
		}
		var wantJoin []string // s FULL JOIN s2 ON k, s2 the rows with x >= 10
		for _, a := range rows {
			for _, b := range rows {
				if a.k != nil && b.k != nil && *a.k == *b.k && b.x >= 10 { // (NULL keys never match; '' does)
					wantJoin = append(wantJoin, fmt.Sprintf("%s,%d,%d", csvField(a.k), a.x, b.x))
				}
			}
		}
		slices.Sort(wantCount)
		slices.Sort(wantTop)
		slices.Sort(wantJoin)
		ddl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv', 'csv.null-literal'='NULL');\n" +
			"CREATE STREAM s2 (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv', 'csv.null-literal'='NULL');\n" +
			"SET 'execution.runtime-mode' = 'streaming';\n"
		for _, tc := range []struct {
			query      string
			want       []string
			appendOnly bool
		}{
			{"SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k) q WHERE n > 1", wantCount, false},
			{"SELECT k, x FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM s) WHERE rn = 1 AND k <> 'k0'", wantTop, false},
			// (the WHERE rejects both sides' padded rows: the subquery's FULL
			// JOIN is planned INNER, append-only, rule_simplify_outer_join.go)
			{"SELECT k, x, x2 FROM (SELECT s.k, s.x, s2.x AS x2 FROM s FULL JOIN s2 ON s.k = s2.k) q WHERE x2 >= 10 AND x IS NOT NULL", wantJoin, true},
		} {
			out, errs, code := runSQL(t, map[string]string{"s.csv": in}, ddl+tc.query+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, tc.query, code, errs)
			}
			if tc.appendOnly == strings.HasPrefix(out, "op,") {
				t.Fatalf("seed %d: %s: append-only %v, but the output is:\n%s", seed, tc.query, tc.appendOnly, out)
			}
			if got := finalRows(t, out); !slices.Equal(got, tc.want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, tc.query, got, tc.want)
			}
		}
	}
}

// TestApplyChangelogTellsNullFromEmpty: the changelog reader the property
// tests apply keeps NULL (an empty field) and ” ("") apart, and a quoted
// field's comma, quote and line feed inside it (SPEC 4's csv).
func TestApplyChangelogTellsNullFromEmpty(t *testing.T) {
	out := "op,k,v\n+I,,1\n+I,\"\",1\n+I,\"a,\"\"b\"\"\nc\",2\n-D,,1\n"
	got := applyChangelog(t, out)
	want := []string{`"",1`, "\"a,\"\"b\"\"\nc\",2"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	empty, odd := "", "a,\"b\"\nc"
	if csvField(nil) != "" || csvField(&empty) != `""` || csvField(&odd) != "\"a,\"\"b\"\"\nc\"" {
		t.Fatalf("csvField: %q %q %q", csvField(nil), csvField(&empty), csvField(&odd))
	}
}
