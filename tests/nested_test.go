package tests

import (
	"encoding/csv"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// nestedDDL declares a json stream of nested columns (SPEC 2.10).
const nestedDDL = `CREATE STREAM ev (id BIGINT, tags ARRAY<VARCHAR>, attrs MAP<VARCHAR, BIGINT>,
  dev ROW<id BIGINT, name VARCHAR, pos ARRAY<DOUBLE>>) WITH ('connector'='file', 'path'='ev.%s', 'format'='%s');
`

const nestedJSON = `{"id":1,"tags":["a","b, c",null],"attrs":{"x":1,"y":2},"dev":{"id":7,"name":"d\"7","pos":[1.5,-2.0]}}
{"id":2,"tags":[],"attrs":{},"dev":null}
{"id":3,"tags":null,"attrs":{"z":null},"dev":{"name":"n","pos":[]}}
`

// TestNestedFormats: ARRAY, MAP and ROW print as Flink prints them in
// table, plain and markdown ([a, b], {x=1}, (7, n), NULL inside as NULL),
// json writes nested JSON; csv and tsv print them as table does, quoted as
// text (SPEC 2.10: "they print as Flink prints them", the text CAST(x AS
// VARCHAR) gives); what json writes, and a csv file sink (its JSON text),
// read back to the same rows (round trip).
func TestNestedFormats(t *testing.T) {
	q := fmt.Sprintf(nestedDDL, "json", "json") + "SELECT * FROM ev;\n"
	want := map[string]string{
		"plain": "(1,[a, b, c, NULL],{x=1, y=2},(7, d\"7, [1.5, -2.0]))\n(2,[],{},null)\n(3,null,{z=NULL},(NULL, n, []))\n",
		"json":  nestedJSONOut,
		"csv": "id,tags,attrs,dev\n" +
			`1,"[a, b, c, NULL]","{x=1, y=2}","(7, d""7, [1.5, -2.0])"` + "\n" +
			"2,[],{},\n" +
			`3,,{z=NULL},"(NULL, n, [])"` + "\n",
		"markdown": "| id | tags | attrs | dev |\n|---:|---|---|---|\n| 1 | [a, b, c, NULL] | {x=1, y=2} | (7, d\"7, [1.5, -2.0]) |\n| 2 | [] | {} | NULL |\n| 3 | NULL | {z=NULL} | (NULL, n, []) |\n\n",
	}
	for _, f := range []string{"table", "plain", "json", "csv", "tsv", "markdown"} {
		out, errs, code := runSQL(t, map[string]string{"ev.json": nestedJSON}, q, "--format", f)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		if w, ok := want[f]; ok && out != w {
			t.Errorf("%s: got\n%s\nwant\n%s", f, out, w)
		}
		if f == "table" && !strings.Contains(out, "│  1 │ [a, b, c, NULL] │ {x=1, y=2} │ (7, d\"7, [1.5, -2.0]) │") {
			t.Errorf("table: got\n%s", out)
		}
		if f == "tsv" && !strings.Contains(out, "2\t[]\t{}\t\n") {
			t.Errorf("tsv: got\n%s", out)
		}
	}
	// round trips: json output read as json input, a csv sink's file read
	// as csv input, give the same json rows
	for _, f := range []string{"json", "csv"} {
		out, errs, _ := runSQL(t, map[string]string{"ev.json": nestedJSON}, q, "--format", f)
		if f == "csv" {
			out = readBack(t, nestedJSON, fmt.Sprintf(nestedDDL, "json", "json"))
		}
		back := fmt.Sprintf(nestedDDL, f, f) + "SELECT * FROM ev;\n"
		if f == "csv" {
			back = strings.Replace(back, "'format'='csv'", "'format'='csv', 'csv.header'='true'", 1)
		}
		got, errs2, code := runSQL(t, map[string]string{"ev." + f: out}, back, "--format", "json")
		if code != 0 || got != nestedJSONOut {
			t.Errorf("%s round trip: exit %d, got\n%s\nwant\n%s\n%s%s", f, code, got, nestedJSONOut, errs, errs2)
		}
	}
}

// readBack runs INSERT INTO a csv file sink of ddl's stream ev's columns
// over data (ev.json) and returns the file's text (its header line first).
func readBack(t *testing.T, data, ddl string) string {
	t.Helper()
	dir := t.TempDir()
	q := ddl + "CREATE STREAM o (id BIGINT, tags ARRAY<VARCHAR>, attrs MAP<VARCHAR, BIGINT>, dev ROW<id BIGINT, name VARCHAR, pos ARRAY<DOUBLE>>) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');\n" +
		"INSERT INTO o SELECT * FROM ev;\n"
	if _, errs, code := runSQLIn(t, dir, map[string]string{"ev.json": data}, q, "--format", "csv"); code != 0 {
		t.Fatalf("csv sink: exit %d: %s", code, errs)
	}
	return readFile(t, filepath.Join(dir, "o.csv"))
}

const nestedJSONOut = `{"id":1,"tags":["a","b, c",null],"attrs":{"x":1,"y":2},"dev":{"id":7,"name":"d\"7","pos":[1.5,-2.0]}}
{"id":2,"tags":[],"attrs":{},"dev":null}
{"id":3,"tags":null,"attrs":{"z":null},"dev":{"id":null,"name":"n","pos":[]}}
`

// TestNestedAccess: arr[i] (from 1, NULL out of range), map['k'],
// row.field, CARDINALITY and the constructors end to end, and a value that
// does not fit its type goes to the errors output with the column's name.
func TestNestedAccess(t *testing.T) {
	q := fmt.Sprintf(nestedDDL, "json", "json") + `SELECT id, tags[1], tags[4], attrs['y'], dev.name, ev.dev.pos[2], CARDINALITY(tags), ARRAY[id, dev.id], MAP['k', dev.name], ROW(id, tags[2]).EXPR$1 FROM ev;` + "\n"
	data := nestedJSON + `{"id":4,"tags":[1,{"a":2}],"attrs":{"x":"no"},"dev":null}` + "\n"
	out, errs, code := runSQL(t, map[string]string{"ev.json": data}, q, "--format", "csv")
	want := "id,tags[1],tags[4],attrs['y'],dev.name,ev.dev.pos[2],CARDINALITY(tags),\"ARRAY[id, dev.id]\",\"MAP['k', dev.name]\",\"ROW(id, tags[2]).EXPR$1\"\n" +
		"1,a,,2,\"d\"\"7\",-2.0,3,\"[1, 7]\",\"{k=d\"\"7}\",\"b, c\"\n" +
		"2,,,,,,0,\"[2, NULL]\",{k=NULL},\n" +
		"3,,,,n,,,\"[3, NULL]\",{k=n},\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, got\n%s\nwant\n%s\n%s", code, out, want, errs)
	}
	if !strings.Contains(errs, `column attrs: map key "x": `) && !strings.Contains(errs, "column attrs:") {
		t.Errorf("the row whose MAP value is not a BIGINT is not malformed: %s", errs)
	}
}

// TestNestedThroughOperators: nested values pass whole through a join's
// held rows (op.Rows keeps them in their binary form), a side branch (which
// takes row 1 first: SPEC 2.1's first match), LIMIT,
// CASE and COALESCE, and JSON_STRING writes them as nested JSON.
func TestNestedThroughOperators(t *testing.T) {
	q := fmt.Sprintf(nestedDDL, "json", "json") +
		"SELECT a.id, a.tags, b.dev, b.attrs FROM ev a JOIN ev b ON a.id = b.id;\n" +
		"SELECT dev INTO SIDE 'devs' FROM ev WHERE id = 1;\n" +
		"SELECT IF(id = 2, ARRAY['two'], tags) AS t, COALESCE(dev.pos, ARRAY[0.5]) AS p, JSON_STRING(dev) AS j FROM ev LIMIT 3;\n"
	out, errs, code := runSQL(t, map[string]string{"ev.json": nestedJSON}, q, "--format", "plain")
	want := "(1,[a, b, c, NULL],(7, d\"7, [1.5, -2.0]),{x=1, y=2})\n(2,[],null,{})\n(3,null,(NULL, n, []),{z=NULL})\n" +
		"devs> ((7, d\"7, [1.5, -2.0]))\n" +
		"main> ([two],[0.5],null)\nmain> (null,[],{\"id\":null,\"name\":\"n\",\"pos\":[]})\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, got\n%s\nwant\n%s\n%s", code, out, want, errs)
	}
}

// TestUnnestAgainstReference: CROSS JOIN UNNEST of an ARRAY and of a MAP
// (SPEC 2.10) over random rows gives, in input order, one row per element
// (entry), none for a NULL or empty value, as a reference that expands the
// whole input computes; a filter on the new column and an aggregate over
// them work on the unnested rows.
func TestUnnestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(25))
	var in strings.Builder
	var wantArr, wantMap []string
	counts := map[string]int{}
	for id := 1; id <= 400; id++ {
		var tags []string
		var tagsJSON string
		switch rng.Intn(6) {
		case 0:
			tagsJSON = "null"
		case 1:
			tagsJSON = "[]"
		default:
			for range rng.Intn(2500) / (1 + rng.Intn(50)) {
				tags = append(tags, fmt.Sprintf("t%d", rng.Intn(20)))
			}
			tagsJSON = `["` + strings.Join(tags, `","`) + `"]`
			if len(tags) == 0 {
				tagsJSON = "[]"
			}
		}
		keys := rng.Intn(4)
		var kv []string
		for k := range keys {
			kv = append(kv, fmt.Sprintf(`"k%d":%d`, k, id*10+k))
			wantMap = append(wantMap, fmt.Sprintf("%d,k%d,%d", id, k, id*10+k))
		}
		fmt.Fprintf(&in, `{"id":%d,"tags":%s,"attrs":{%s},"dev":null}`+"\n", id, tagsJSON, strings.Join(kv, ","))
		for _, tg := range tags {
			wantArr = append(wantArr, fmt.Sprintf("%d,%s", id, tg))
			counts[tg]++
		}
	}
	files := map[string]string{"ev.json": in.String()}
	ddl := fmt.Sprintf(nestedDDL, "json", "json")
	out, errs, code := runSQL(t, files, ddl+"SELECT id, x FROM ev CROSS JOIN UNNEST(tags) AS t (x);\n", "--format", "csv")
	if want := "id,x\n" + strings.Join(wantArr, "\n") + "\n"; code != 0 || out != want {
		t.Errorf("UNNEST of an ARRAY: exit %d, %d lines, want %d\n%s", code, strings.Count(out, "\n"), len(wantArr)+1, errs)
	}
	out, errs, code = runSQL(t, files, ddl+"SELECT id, k, v FROM ev, UNNEST(attrs) AS m (k, v);\n", "--format", "csv")
	if want := "id,k,v\n" + strings.Join(wantMap, "\n") + "\n"; code != 0 || out != want {
		t.Errorf("UNNEST of a MAP: exit %d, got\n%.300s\nwant\n%.300s\n%s", code, out, want, errs)
	}
	out, errs, code = runSQL(t, files, ddl+"SELECT x, COUNT(*) AS n FROM ev CROSS JOIN UNNEST(tags) AS t (x) WHERE x <> 't0' GROUP BY x;\n", "--format", "csv")
	var wantCounts []string
	for tg, n := range counts {
		if tg != "t0" {
			wantCounts = append(wantCounts, fmt.Sprintf("%s,%d", tg, n))
		}
	}
	got := strings.Split(strings.TrimSpace(out), "\n")
	if len(got) > 0 {
		got = got[1:]
	}
	sort.Strings(got)
	sort.Strings(wantCounts)
	if code != 0 || strings.Join(got, "\n") != strings.Join(wantCounts, "\n") {
		t.Errorf("aggregate over UNNEST: exit %d, got %v, want %v\n%s", code, got, wantCounts, errs)
	}
}

// TestUnnestLargeArray: one row whose ARRAY has 100k elements unnests into
// 100k rows, given batch by batch (the rows one input row yields are not
// all held at once).
func TestUnnestLargeArray(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":1,"tags":[`)
	for i := range 100000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%d"`, i)
	}
	b.WriteString("]}\n")
	out, errs, code := runSQL(t, map[string]string{"ev.json": b.String()}, fmt.Sprintf(nestedDDL, "json", "json")+
		"SELECT COUNT(*) AS n, MAX(CAST(x AS BIGINT)) AS m, SUM(CARDINALITY(tags)) / 100000 AS c FROM ev CROSS JOIN UNNEST(tags) AS t (x);\n", "--format", "csv")
	if code != 0 || out != "n,m,c\n100000,99999,100000.0\n" {
		t.Errorf("exit %d, got %q\n%s", code, out, errs)
	}
}

// TestNestedPlanningErrors: mistakes with nested values are planning errors
// (exit 2) with a caret under the offending text.
func TestNestedPlanningErrors(t *testing.T) {
	for _, c := range []struct{ query, msg, caret string }{
		{"SELECT tags['a'] FROM ev;", "an ARRAY's index is a BIGINT (from 1), got 'a' (VARCHAR)", "'a'"},
		{"SELECT dev.nme FROM ev;", "unknown field 'nme' of dev", "dev.nme"},
		{"SELECT attrs[1] FROM ev;", "the keys of attrs (MAP<VARCHAR, BIGINT>) are VARCHAR, got 1 (BIGINT)", "1]"},
		{"SELECT x FROM ev CROSS JOIN UNNEST(id) AS t (x);", "UNNEST needs an ARRAY or a MAP; id is BIGINT", "id)"},
		{"SELECT x FROM ev CROSS JOIN UNNEST(attrs) AS t (x);", "UNNEST of a MAP (attrs is MAP<VARCHAR, BIGINT>) gives two columns", "x)"},
		{"SELECT x FROM ev CROSS JOIN UNNEST(nope) AS t (x);", "unknown column 'nope'", "nope)"},
		{"SELECT x FROM ev CROSS JOIN UNNEST(tags) AS t;", "UNNEST needs names for its columns", ";"},
		{"SELECT CAST(id AS ROW<a BIGINT>) FROM ev;", "CAST from BIGINT to ROW<a BIGINT> is not supported", "CAST("},
		// nested values are not compared, grouped or aggregated whole (their parts are)
		{"SELECT id FROM ev WHERE tags < tags;", "ARRAY<VARCHAR> values (tags) have no order", "tags <"},
		{"SELECT id FROM ev WHERE tags = attrs;", "cannot compare tags (ARRAY<VARCHAR>) with attrs (MAP<VARCHAR, BIGINT>)", "tags ="},
		{"SELECT tags, COUNT(*) FROM ev GROUP BY tags;", "GROUP BY tags (ARRAY<VARCHAR>) is not supported", "tags;"},
		{"SELECT MAX(dev) FROM ev;", "MAX of dev (ROW<id BIGINT, name VARCHAR, pos ARRAY<DOUBLE>>) is not supported", "dev)"},
		{"SELECT a.id FROM ev a JOIN ev b ON a.attrs = b.attrs;", "the join key a.attrs (MAP<VARCHAR, BIGINT>) is an ARRAY, MAP or ROW", "a.attrs ="},
		{"SELECT GREATEST(tags, tags) FROM ev;", "ARRAY<VARCHAR> values (tags) have no order: GREATEST needs", "tags,"}, // (NULLIF takes them: it compares with =)
	} {
		q := fmt.Sprintf(nestedDDL, "json", "json") + c.query + "\n"
		_, errs, code := runSQL(t, map[string]string{"ev.json": nestedJSON}, q)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%s: exit %d, %s; want exit 2 and %q", c.query, code, errs, c.msg)
			continue
		}
		// the caret stands under the offending text
		if !caretUnder(errs, c.caret) {
			t.Errorf("%s: the caret is not under %q:\n%s", c.query, c.caret, errs)
		}
	}
}

// TestNestedCastAndCompare: over a stream, CAST between nested types casts
// element by element (a failing element makes the value NULL), = and <>
// compare nested values whole (NULL for a NULL operand, NULL elements
// matching), IS [NOT] DISTINCT FROM never gives NULL, and a WHERE on them
// filters; the expression's column name is its text (SPEC 2.10).
func TestNestedCastAndCompare(t *testing.T) {
	q := fmt.Sprintf(nestedDDL, "json", "json") +
		"SELECT id, CAST(dev.pos AS ARRAY<BIGINT>) AS p, CAST(attrs AS MAP<VARCHAR, VARCHAR>) AS m, CAST(tags AS ARRAY<BIGINT>) AS bad, " +
		"tags = ARRAY['a', 'b, c', NULL] AS eq, attrs <> MAP['y', 2, 'x', 1] AS ne, dev IS DISTINCT FROM CAST(NULL AS ROW<id BIGINT, name VARCHAR, pos ARRAY<DOUBLE>>), " +
		"CAST(dev AS ROW<i VARCHAR, n VARCHAR, p ARRAY<VARCHAR>>).p AS rp FROM ev;\n" +
		"SELECT id FROM ev WHERE tags = CAST('[]' AS ARRAY<VARCHAR>) OR attrs = MAP['z', CAST(NULL AS BIGINT)];\n"
	out, errs, code := runSQL(t, map[string]string{"ev.json": nestedJSON}, q, "--format", "csv")
	want := `id,p,m,bad,eq,ne,"dev IS DISTINCT FROM CAST(NULL AS ROW<id BIGINT, name VARCHAR, pos ARRAY<DOUBLE>>)",rp` + "\n" +
		`1,"[1, -2]","{x=1, y=2}",,true,false,true,"[1.5, -2.0]"` + "\n" +
		`2,,{},[],false,true,false,` + "\n" +
		`3,[],{z=NULL},,,true,true,[]` + "\n" +
		"id\n2\n3\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, got\n%s\nwant\n%s\n%s", code, out, want, errs)
	}
}

// TestUnnestFormsAgainstReference: LEFT JOIN UNNEST(x) ... ON TRUE keeps a
// row whose x is NULL or empty once with NULL new columns (Flink's rule);
// UNNEST of an expression (a constructor, a CAST of text, a ROW field's
// element) and of a subquery's column path give one row per element, in
// input order, as a reference expanding the whole input computes (SPEC
// 2.10).
func TestUnnestFormsAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(2510))
	var in strings.Builder
	var left, expr, sub []string
	for id := 1; id <= 300; id++ {
		var tags []string
		tagsJSON := "null"
		if rng.Intn(4) > 0 {
			for range rng.Intn(5) {
				tags = append(tags, fmt.Sprintf("t%d", rng.Intn(9)))
			}
			tagsJSON = "[]"
			if len(tags) > 0 {
				tagsJSON = `["` + strings.Join(tags, `","`) + `"]`
			}
		}
		pos := rng.Intn(3)
		posJSON := []string{"null", "[]", fmt.Sprintf("[%d.5,%d.0]", id, id)}[pos]
		fmt.Fprintf(&in, `{"id":%d,"tags":%s,"attrs":{},"dev":{"id":%d,"name":"n","pos":%s}}`+"\n", id, tagsJSON, id, posJSON)
		for _, tg := range tags {
			left = append(left, fmt.Sprintf("%d,%s", id, tg))
		}
		if len(tags) == 0 {
			left = append(left, fmt.Sprintf("%d,", id))
		}
		expr = append(expr, fmt.Sprintf("%d,%d", id, id), fmt.Sprintf("%d,%d", id, 2*id), fmt.Sprintf("%d,", id))
		if pos == 2 {
			sub = append(sub, fmt.Sprintf("%d,%d.5", id, id), fmt.Sprintf("%d,%d.0", id, id))
		}
	}
	files := map[string]string{"ev.json": in.String()}
	ddl := fmt.Sprintf(nestedDDL, "json", "json")
	for _, c := range []struct {
		name, query string
		want        []string
	}{
		{"LEFT JOIN UNNEST", "SELECT id, x FROM ev LEFT JOIN UNNEST(tags) AS t (x) ON TRUE;", left},
		{"LEFT OUTER JOIN UNNEST of a view", "CREATE VIEW v AS SELECT id, tags FROM ev; SELECT id, x FROM v LEFT OUTER JOIN UNNEST(v.tags) AS t (x) ON TRUE;", left},
		{"UNNEST of a constructor", "SELECT id, x FROM ev CROSS JOIN UNNEST(ARRAY[id, id * 2, NULL]) AS t (x);", expr},
		{"UNNEST of a CAST", "SELECT id, x FROM ev, UNNEST(CAST(CONCAT('[', CAST(id AS VARCHAR), ',', CAST(2 * id AS VARCHAR), ',null]') AS ARRAY<BIGINT>)) AS t (x);", expr},
		{"UNNEST of a subquery's ROW field", "SELECT id, x FROM (SELECT id, dev FROM ev) q CROSS JOIN UNNEST(q.dev.pos) AS t (x);", sub},
	} {
		out, errs, code := runSQL(t, files, ddl+c.query+"\n", "--format", "csv")
		if want := "id,x\n" + strings.Join(c.want, "\n") + "\n"; code != 0 || out != want {
			t.Errorf("%s: exit %d, got\n%.400s\nwant\n%.400s\n%s", c.name, code, out, want, errs)
		}
	}
	// errors point at what to change
	for _, c := range []struct{ query, msg, caret string }{
		{"SELECT id FROM ev LEFT JOIN UNNEST(tags) AS t (x) ON x = 'a';", "LEFT JOIN UNNEST(...) AS t (...) takes ON TRUE", "ON x"},
		{"SELECT id FROM ev CROSS JOIN UNNEST(id + 1) AS t (x);", "UNNEST needs an ARRAY or a MAP; id + 1 is BIGINT", "id + 1)"},
		{"SELECT id FROM ev CROSS JOIN UNNEST(nope[1]) AS t (x);", "unknown column 'nope'", "nope[1]"},
	} {
		_, errs, code := runSQL(t, files, ddl+c.query+"\n")
		if code != 2 || !strings.Contains(errs, c.msg) || !caretUnder(errs, c.caret) {
			t.Errorf("%s: exit %d, %s; want exit 2, %q and a caret under %q", c.query, code, errs, c.msg, c.caret)
		}
	}
}

// caretUnder reports whether an error's caret line stands under text in the
// source line above it.
func caretUnder(errs, text string) bool {
	lines := strings.Split(errs, "\n")
	for k := 1; k < len(lines); k++ {
		if p := strings.Index(lines[k], "^"); p >= 0 && strings.TrimSpace(lines[k]) == "^" {
			src := []rune(lines[k-1])
			col := len([]rune(lines[k][:p]))
			return col < len(src) && strings.HasPrefix(string(src[col:]), text)
		}
	}
	return false
}

// TestUnnestPassesWatermark: CROSS JOIN UNNEST passes its input stream's
// watermark on (SPEC 2.3, 2.10; Flink's unnest forwards its input's
// watermarks), so a row whose ARRAY is NULL or empty, which gives no row,
// still moves it: the first unnested row of an input row has the stream's
// watermark before that row as its CURRENT_WATERMARK (the next ones that
// moved by the rows before them, as any row's), and a TUMBLE over a view
// of the unnested rows calls late the rows below it. Over random
// out-of-order rows, a third of them with no element, both equal a
// reference computed from the input rows in order (watermark = the largest
// ts - 1 s so far; an input row's elements are late when their window's
// end is at most the watermark before it; windows count the others).
func TestUnnestPassesWatermark(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var in strings.Builder
		var wantRows []string
		counts := map[int64]int{}
		var wm int64
		set := false
		for id := range 150 {
			ts := int64(id)*300 + rng.Int63n(5000)
			var tags []string
			tagsJSON := "[]"
			switch rng.Intn(6) {
			case 0:
				tagsJSON = "null"
			case 1:
			default:
				for k := range 1 + rng.Intn(3) {
					tags = append(tags, fmt.Sprintf("t%d", k))
				}
				tagsJSON = `["` + strings.Join(tags, `","`) + `"]`
			}
			fmt.Fprintf(&in, `{"id":%d,"tags":%s,"ts":%d}`+"\n", id, tagsJSON, ts)
			for k, tg := range tags {
				stamp := ""
				if set {
					stamp = fmt.Sprint(wm)
				}
				wantRows = append(wantRows, fmt.Sprintf("%d,%s,%s", id, tg, stamp))
				if k == 0 && (!set || ts/2000*2000+2000 > wm) { // (late: its window's end <= the watermark, SPEC 2.4)
					counts[ts/2000*2000] += len(tags)
				}
				if !set || ts-1000 > wm { // (the unnested row itself moves it too, as any row)
					wm, set = ts-1000, true
				}
			}
			if !set || ts-1000 > wm {
				wm, set = ts-1000, true
			}
		}
		var wantCounts []string
		for w, n := range counts {
			wantCounts = append(wantCounts, fmt.Sprintf("%d,%d", w, n))
		}
		sort.Strings(wantCounts)
		ddl := "CREATE STREAM ev (id BIGINT, tags ARRAY<VARCHAR>, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='ev.json', 'format'='json');\n"
		files := map[string]string{"ev.json": in.String()}
		dir := t.TempDir()
		out, errs, code := runSQLIn(t, dir, files, ddl+"SELECT id, x, CURRENT_WATERMARK(ts) AS wm FROM ev CROSS JOIN UNNEST(tags) AS t (x);\n", "--format", "csv")
		if want := "id,x,wm\n" + strings.Join(wantRows, "\n") + "\n"; code != 0 || out != want {
			t.Fatalf("seed %d: CURRENT_WATERMARK of the unnested rows: exit %d, got\n%.600s\nwant\n%.600s\n%s", seed, code, out, want, errs)
		}
		out, errs, code = runSQLIn(t, dir, files, ddl+"CREATE VIEW v AS SELECT id, x, ts FROM ev CROSS JOIN UNNEST(tags) AS t (x);\n"+
			"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;\n",
			"--format", "csv", "--side-dir", filepath.Join(dir, "sides"))
		got := strings.Split(strings.TrimSuffix(strings.TrimPrefix(out, "window_start,n\n"), "\n"), "\n")
		sort.Strings(got)
		if code != 0 || strings.Join(got, "\n") != strings.Join(wantCounts, "\n") {
			t.Fatalf("seed %d: a TUMBLE over a view of the unnested rows: exit %d, got\n%v\nwant\n%v\n%s", seed, code, got, wantCounts, errs)
		}
	}
}

// TestUnnestPassesWatermarkMaxFuture (SPEC 2.3, 4's 'watermark.max-future',
// 2.10; issue 23 item 6): with 'watermark.max-future' CROSS JOIN UNNEST still
// passes its input stream's watermark on, as without it
// (TestUnnestPassesWatermark): each unnested row's CURRENT_WATERMARK is the
// input's watermark before its input row, which rows with a NULL or empty
// ARRAY moved too, and an input row more than the option above the
// watermark is refused (malformed, to 'errors') whole and moves nothing.
// Before, the watermark was computed over the unnested rows alone. The
// reference is computed from the input rows, written here.
func TestUnnestPassesWatermarkMaxFuture(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var in strings.Builder
		var wantRows []string
		refused := 0
		var wm int64
		set := false
		for id := range 150 {
			ts := int64(id)*300 + rng.Int63n(5000)
			if rng.Intn(15) == 0 {
				ts += 3_600_000 // (far ahead: refused, SPEC 4)
			}
			var tags []string
			tagsJSON := "null"
			if n := rng.Intn(4); n > 0 {
				for k := range n {
					tags = append(tags, fmt.Sprintf("t%d", k))
				}
				tagsJSON = `["` + strings.Join(tags, `","`) + `"]`
			}
			fmt.Fprintf(&in, `{"id":%d,"tags":%s,"ts":%d}`+"\n", id, tagsJSON, ts)
			if set && ts > wm+10_000 {
				if len(tags) > 0 {
					refused++
				}
				continue
			}
			for _, tg := range tags {
				stamp := ""
				if set {
					stamp = fmt.Sprint(wm)
				}
				wantRows = append(wantRows, fmt.Sprintf("%d,%s,%s", id, tg, stamp))
				if !set || ts-1000 > wm {
					wm, set = ts-1000, true
				}
			}
			if !set || ts-1000 > wm {
				wm, set = ts-1000, true
			}
		}
		if refused == 0 {
			t.Fatalf("seed %d: no row refused: the test checks nothing of them", seed)
		}
		ddl := "CREATE STREAM ev (id BIGINT, tags ARRAY<VARCHAR>, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='ev.json', 'format'='json', 'watermark.max-future'='10 s');\n"
		files := map[string]string{"ev.json": in.String()}
		out, errs, code := runSQLIn(t, t.TempDir(), files, ddl+"SELECT id, x, CURRENT_WATERMARK(ts) AS wm FROM ev CROSS JOIN UNNEST(tags) AS t (x);\n", "--format", "csv")
		if want := "id,x,wm\n" + strings.Join(wantRows, "\n") + "\n"; code != 0 || out != want {
			t.Fatalf("seed %d: CURRENT_WATERMARK of the unnested rows: exit %d, got\n%.600s\nwant\n%.600s\n%s", seed, code, out, want, errs)
		}
	}
}

// TestRelationRefusesAsStream (SPEC 1 "Bad input", 2.4, 2.6, 2.10): a
// window over a relation whose rows carry their stream's watermark (a view
// of CROSS JOIN UNNEST, or of a WHERE) refuses what the same window over the
// stream refuses: a row whose time has a window outside BIGINT is
// malformed and moves no watermark, also when the relation drops it (its
// ARRAY NULL or empty, its WHERE false) or 'watermark.max-future' refuses
// it. Before, such a row moved the watermark the relation carries, and
// every row after it was late. Over random rows, some far ahead and some
// at times whose windows wrap, the plain path is the reference: the same
// window over the stream (SUM(CARDINALITY(tags)) for UNNEST, the view's
// WHERE in the query) gives the same windows, late rows and malformed rows
// (those with an element, for UNNEST, which gives no row of the others).
func TestRelationRefusesAsStream(t *testing.T) {
	const ddl = "CREATE STREAM ev (id BIGINT, tags ARRAY<VARCHAR>, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='ev.json', 'format'='json'%s);\n"
	const win = "TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '2' SECOND))"
	sortedLines := func(s string) []string {
		var out []string
		for l := range strings.SplitSeq(strings.TrimSpace(s), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
		sort.Strings(out[min(1, len(out)):]) // (the header first)
		return out
	}
	// sideIDs returns the ids (first column) of a side output's rows, each
	// as many times as keep says (0: left out).
	sideIDs := func(t *testing.T, path string, keep func(id int) int) []string {
		t.Helper()
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return nil
		} else if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		if err != nil || len(recs) == 0 {
			t.Fatalf("%s: %v", path, err)
		}
		var ids []string
		for _, r := range recs[1:] {
			id := r[0]
			if recs[0][0] == "stream" { // (errors: stream,position,raw,error, the raw row's id first)
				id, _, _ = strings.Cut(r[2], ",")
			}
			var n int
			if _, err := fmt.Sscan(id, &n); err != nil {
				t.Fatalf("%s: %q: %v", path, r, err)
			}
			for range keep(n) {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		return ids
	}
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var in strings.Builder
		ntags := map[int]int{}
		for id := range 200 {
			ts := int64(id)*300 + rng.Int63n(5000)
			switch rng.Intn(12) {
			case 0:
				ts = 9223372036854775806 - rng.Int63n(1000) // (its TUMBLE window wraps: malformed)
			case 1:
				ts += 3_600_000 // (far ahead: refused under 'watermark.max-future')
			}
			tagsJSON := "null"
			switch n := rng.Intn(5); n {
			case 0:
			case 1:
				tagsJSON = "[]"
			default:
				var tags []string
				for k := range n - 1 {
					tags = append(tags, fmt.Sprintf("t%d", k))
				}
				tagsJSON = `["` + strings.Join(tags, `","`) + `"]`
				ntags[id] = n - 1
			}
			fmt.Fprintf(&in, `{"id":%d,"tags":%s,"ts":%d}`+"\n", id, tagsJSON, ts)
		}
		files := map[string]string{"ev.json": in.String()}
		for _, opt := range []string{"", ", 'watermark.max-future'='10 s'"} {
			d := fmt.Sprintf(ddl, opt)
			for _, c := range []struct {
				name, relation, query, plain string
				weight                       func(id int) int // (each plain row's rows in the relation)
				refused                      func(id int) int // (each refused plain row's refused rows of the relation; nil: weight)
			}{
				{"UNNEST", "CREATE VIEW v AS SELECT id, x, ts FROM ev CROSS JOIN UNNEST(tags) AS t (x);\n",
					"SELECT window_start, COUNT(*) AS n FROM " + fmt.Sprintf(win, "v") + " GROUP BY window_start, window_end;\n",
					"SELECT window_start, SUM(CARDINALITY(tags)) AS n FROM " + fmt.Sprintf(win, "ev") + " GROUP BY window_start, window_end HAVING SUM(CARDINALITY(tags)) > 0;\n",
					func(id int) int { return ntags[id] }, nil},
				{"WHERE", "CREATE VIEW v AS SELECT id, ts FROM ev WHERE id % 3 <> 0;\n",
					"SELECT window_start, COUNT(*) AS n FROM " + fmt.Sprintf(win, "v") + " GROUP BY window_start, window_end;\n",
					"SELECT window_start, COUNT(*) AS n FROM " + fmt.Sprintf(win, "ev") + " WHERE id % 3 <> 0 GROUP BY window_start, window_end;\n",
					func(id int) int { return 1 }, nil},
				{"a WHERE over UNNEST", "CREATE VIEW u AS SELECT id, x, ts FROM ev CROSS JOIN UNNEST(tags) AS t (x);\nCREATE VIEW v AS SELECT id, ts FROM u WHERE id % 3 <> 0;\n",
					"SELECT window_start, COUNT(*) AS n FROM " + fmt.Sprintf(win, "v") + " GROUP BY window_start, window_end;\n",
					"SELECT window_start, SUM(CARDINALITY(tags)) AS n FROM " + fmt.Sprintf(win, "ev") + " WHERE id % 3 <> 0 GROUP BY window_start, window_end HAVING SUM(CARDINALITY(tags)) > 0;\n",
					func(id int) int { return ntags[id] * min(id%3, 1) }, func(id int) int { return ntags[id] }}, // (u's rows are refused before v's WHERE, as the stream's before the plain WHERE)
			} {
				dir := t.TempDir()
				rel, relErrs, code := runSQLIn(t, dir, files, d+c.relation+c.query, "--format", "csv", "--side-dir", filepath.Join(dir, "rel"))
				if code != 0 {
					t.Fatalf("seed %d%s, %s: the window over the relation: exit %d\n%s", seed, opt, c.name, code, relErrs)
				}
				plain, plainErrs, code := runSQLIn(t, dir, files, d+c.plain, "--format", "csv", "--side-dir", filepath.Join(dir, "plain"))
				if code != 0 {
					t.Fatalf("seed %d%s, %s: the window over the stream: exit %d\n%s", seed, opt, c.name, code, plainErrs)
				}
				if g, w := sortedLines(rel), sortedLines(plain); strings.Join(g, "\n") != strings.Join(w, "\n") {
					t.Fatalf("seed %d%s, %s: windows over the relation\n%v\nwant those over the stream\n%v\n%s", seed, opt, c.name, g, w, relErrs)
				}
				late := sideIDs(t, filepath.Join(dir, "plain", "late.csv"), c.weight)
				if g := sideIDs(t, filepath.Join(dir, "rel", "late.csv"), func(int) int { return 1 }); strings.Join(g, " ") != strings.Join(late, " ") {
					t.Fatalf("seed %d%s, %s: late rows of the relation %v, want those over the stream %v", seed, opt, c.name, g, late)
				}
				refused := c.refused
				if refused == nil {
					refused = c.weight
				}
				bad := sideIDs(t, filepath.Join(dir, "plain", "errors.csv"), refused) // (UNNEST refuses each unnested row of a refused row)
				if g := sideIDs(t, filepath.Join(dir, "rel", "errors.csv"), func(int) int { return 1 }); strings.Join(g, " ") != strings.Join(bad, " ") {
					t.Fatalf("seed %d%s, %s: malformed rows of the relation %v, want those over the stream %v", seed, opt, c.name, g, bad)
				}
				if len(bad) == 0 {
					t.Fatalf("seed %d%s, %s: no row refused: the test checks nothing of them", seed, opt, c.name)
				}
			}
		}
	}
}
