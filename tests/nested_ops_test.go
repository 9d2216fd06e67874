package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nestedOpsDDL declares the streams of TestNestedEveryOperator: ev, three
// rows with ARRAY, MAP and ROW columns (NULLs inside, empty values, NULL
// values, a -0.0 inside), and bounded key tables for the joins.
const nestedOpsDDL = `CREATE STREAM ev (id BIGINT, ts BIGINT, tags ARRAY<VARCHAR>, attrs MAP<VARCHAR, BIGINT>,
  dev ROW<id BIGINT, name VARCHAR, r ARRAY<DOUBLE>>, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector'='file', 'path'='ev.json', 'format'='json');
CREATE STREAM k (id BIGINT, name VARCHAR) WITH ('connector'='file', 'path'='k.csv', 'format'='csv');
CREATE STREAM kt (id BIGINT, ts BIGINT, name VARCHAR, PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts)
  WITH ('connector'='file', 'path'='kt.csv', 'format'='csv');
CREATE STREAM o (id BIGINT, tags ARRAY<VARCHAR>, attrs MAP<VARCHAR, BIGINT>, dev ROW<id BIGINT, name VARCHAR, r ARRAY<DOUBLE>>)
  WITH ('connector'='file', 'path'='o.out', 'format'='%s');
CREATE VIEW v AS SELECT id, ts, tags, attrs, dev FROM ev;
`

const nestedOpsJSON = `{"id": 1, "ts": 1000, "tags": ["a", null, "c"], "attrs": {"x": 1, "y": null}, "dev": {"id": 7, "name": "d,7", "r": [1.5, null, -0.0]}}
{"id": 2, "ts": 2000, "tags": [], "attrs": {}, "dev": {"id": null, "name": null, "r": null}}
{"id": 3, "ts": 3000, "tags": null, "attrs": null, "dev": null}
`

// nestedOpsWant is the output of ev's columns id, tags, attrs, dev in each
// format (SPEC 2.10 and 4: Flink's printed forms in table, markdown and
// plain, and quoted as text in csv and tsv; nested JSON in json and the JSON
// text in a csv file sink's file).
var nestedOpsWant = map[string]string{
	"csv": "id,tags,attrs,dev\n" +
		`1,"[a, NULL, c]","{x=1, y=NULL}","(7, d,7, [1.5, NULL, -0.0])"` + "\n" +
		`2,[],{},"(NULL, NULL, NULL)"` + "\n" +
		"3,,,\n",
	"tsv": "id\ttags\tattrs\tdev\n" +
		"1\t[a, NULL, c]\t{x=1, y=NULL}\t(7, d,7, [1.5, NULL, -0.0])\n" +
		"2\t[]\t{}\t(NULL, NULL, NULL)\n" +
		"3\t\t\t\n",
	// a csv file sink writes the JSON text, which its csv source reads back
	"csv sink": "id,tags,attrs,dev\n" +
		`1,"[""a"",null,""c""]","{""x"":1,""y"":null}","{""id"":7,""name"":""d,7"",""r"":[1.5,null,-0.0]}"` + "\n" +
		`2,[],{},"{""id"":null,""name"":null,""r"":null}"` + "\n" +
		"3,,,\n",
	"json": `{"id":1,"tags":["a",null,"c"],"attrs":{"x":1,"y":null},"dev":{"id":7,"name":"d,7","r":[1.5,null,-0.0]}}` + "\n" +
		`{"id":2,"tags":[],"attrs":{},"dev":{"id":null,"name":null,"r":null}}` + "\n" +
		`{"id":3,"tags":null,"attrs":null,"dev":null}` + "\n",
	"plain": "(1,[a, NULL, c],{x=1, y=NULL},(7, d,7, [1.5, NULL, -0.0]))\n" +
		"(2,[],{},(NULL, NULL, NULL))\n" +
		"(3,null,null,null)\n",
	"table": "┌────┬──────────────┬───────────────┬─────────────────────────────┐\n" +
		"│ id │ tags         │ attrs         │ dev                         │\n" +
		"├────┼──────────────┼───────────────┼─────────────────────────────┤\n" +
		"│  1 │ [a, NULL, c] │ {x=1, y=NULL} │ (7, d,7, [1.5, NULL, -0.0]) │\n" +
		"│  2 │ []           │ {}            │ (NULL, NULL, NULL)          │\n" +
		"│  3 │ NULL         │ NULL          │ NULL                        │\n" +
		"└────┴──────────────┴───────────────┴─────────────────────────────┘\n",
	"markdown": "| id | tags | attrs | dev |\n|---:|---|---|---|\n" +
		"| 1 | [a, NULL, c] | {x=1, y=NULL} | (7, d,7, [1.5, NULL, -0.0]) |\n" +
		"| 2 | [] | {} | (NULL, NULL, NULL) |\n" +
		"| 3 | NULL | NULL | NULL |\n\n",
}

// nestedOpsPlainChanges is nestedOpsWant's plain rows as an updating
// output's rows print, without their kinds (SPEC 2.8: Flink's print sink).
const nestedOpsPlainChanges = "[1, [a, NULL, c], {x=1, y=NULL}, (7, d,7, [1.5, NULL, -0.0])]\n" +
	"[2, [], {}, (NULL, NULL, NULL)]\n" +
	"[3, null, null, null]\n"

// TestNestedEveryOperator: a row with ARRAY, MAP and ROW columns keeps its
// values, NULLs inside included, through every operator (SPEC 2.10 with
// 2.6-2.9): derived relations, unions, each kind of join (their held rows
// and state, op.Rows), window TVFs, Top-N, deduplication, OVER, ORDER BY,
// LIMIT, UNNEST, side outputs and sinks; each output format prints it as
// for a plain SELECT.
func TestNestedEveryOperator(t *testing.T) {
	const cols = "id, tags, attrs, dev"
	cases := []struct {
		name, query string
		updating    bool
		side, sink  bool // the rows are in the side output 's' (--side-dir), or in the sink o's file
	}{
		{name: "stream", query: "SELECT " + cols + " FROM ev;"},
		{name: "subquery", query: "SELECT * FROM (SELECT " + cols + " FROM ev) q;"},
		{name: "with", query: "WITH w AS (SELECT id, ts, tags, attrs, dev FROM ev) SELECT " + cols + " FROM w;"},
		{name: "view", query: "SELECT " + cols + " FROM v;"},
		{name: "union all", query: "SELECT " + cols + " FROM ev WHERE id = 1 UNION ALL SELECT " + cols + " FROM v WHERE id > 1;"},
		{name: "union all with event time", query: "SELECT " + cols + " FROM (SELECT id, ts, tags, attrs, dev FROM ev WHERE id <> 2 UNION ALL SELECT id, ts, tags, attrs, dev FROM v WHERE id = 2) u;"},
		{name: "lookup join", query: "SELECT e.id, e.tags, e.attrs, e.dev FROM ev e JOIN k ON e.id = k.id;"},
		{name: "lookup left join", query: "SELECT e.id, e.tags, e.attrs, e.dev FROM ev e LEFT JOIN k ON e.id = k.id + 0;"},
		{name: "join of a subquery", query: "SELECT q.id, q.tags, q.attrs, q.dev FROM (SELECT id, tags, attrs, dev FROM ev) q JOIN k ON q.id = k.id;"},
		{name: "interval join", query: "SELECT a.id, b.tags, a.attrs, b.dev FROM ev a JOIN ev b ON a.id = b.id AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' SECOND;"},
		{name: "temporal join", query: "SELECT e.id, e.tags, e.attrs, e.dev FROM ev e JOIN kt FOR SYSTEM_TIME AS OF e.ts ON e.id = kt.id;"},
		{name: "regular join", query: "SELECT e.id, e.tags, e.attrs, e.dev FROM k RIGHT JOIN ev e ON e.id = k.id;", updating: true},
		{name: "subquery of a join", query: "SELECT * FROM (SELECT e.id, e.tags, e.attrs, e.dev FROM ev e JOIN k ON e.id = k.id) j;"},
		{name: "window TVF", query: "SELECT " + cols + " FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND));"},
		{name: "top-n", query: "SELECT " + cols + " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM ev) WHERE rn = 1;"},
		{name: "dedup", query: "SELECT " + cols + " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts) AS rn FROM ev) WHERE rn = 1;"},
		{name: "window top-n", query: "SELECT " + cols + " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY id) AS rn FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn <= 1;"},
		{name: "over", query: "SELECT " + cols + " FROM (SELECT " + cols + ", COUNT(*) OVER (PARTITION BY id ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c FROM ev) q;"},
		{name: "order by", query: "SELECT " + cols + " FROM ev ORDER BY id DESC LIMIT 3;"},
		{name: "order by time", query: "SELECT " + cols + " FROM ev ORDER BY ts;"},
		{name: "limit", query: "SELECT " + cols + " FROM ev LIMIT 3;"},
		{name: "unnest", query: "SELECT " + cols + " FROM ev CROSS JOIN UNNEST(MAP['k', 1]) AS u (x, y);"},
		{name: "left join unnest", query: "SELECT " + cols + " FROM ev LEFT JOIN UNNEST(CAST(NULL AS ARRAY<BIGINT>)) AS u (x) ON TRUE;"},
		{name: "unnest of a view", query: "SELECT " + cols + " FROM v CROSS JOIN UNNEST(ARRAY[id]) AS u (x);"},
		{name: "side output", query: "SELECT " + cols + " INTO SIDE 's' FROM ev WHERE id > 0; SELECT id FROM ev;", side: true},
		{name: "sink", query: "INSERT INTO o SELECT " + cols + " FROM ev;", sink: true},
		{name: "sink branch", query: "SELECT " + cols + " INTO STREAM o FROM ev WHERE id > 0; SELECT id FROM ev;", sink: true},
	}
	files := map[string]string{"ev.json": nestedOpsJSON, "k.csv": "1,one\n2,two\n3,three\n", "kt.csv": "1,0,one\n2,0,two\n3,0,three\n"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range []string{"csv", "tsv", "json", "plain", "table", "markdown"} {
				if c.sink && f != "csv" && f != "json" {
					continue // (a file sink writes csv or json)
				}
				want := nestedOpsWant[f]
				if c.name == "order by" { // (descending)
					want = reverseRows(f, want)
				}
				sinkFormat := "json"
				if f == "csv" {
					sinkFormat = "csv"
					if c.sink {
						want = nestedOpsWant["csv sink"]
					}
				}
				dir := t.TempDir()
				flags := []string{"--format", f}
				if c.side {
					flags = append(flags, "--side-dir", filepath.Join(dir, "sd"))
				}
				q := strings.Replace(nestedOpsDDL, "%s", sinkFormat, 1) + c.query + "\n"
				out, errs, code := runSQLIn(t, dir, files, q, flags...)
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s", f, code, errs)
				}
				switch {
				case c.side:
					ext := map[string]string{"csv": "csv", "tsv": "tsv", "json": "json", "plain": "txt", "table": "txt", "markdown": "md"}[f]
					out = readFile(t, filepath.Join(dir, "sd", "s."+ext))
				case c.sink:
					out = readFile(t, filepath.Join(dir, "o.out"))
				case c.updating:
					out = appliedChangelog(f, out)
					if f == "plain" { // (Flink's print sink: +I[1, [a, NULL, c], ...])
						want = nestedOpsPlainChanges
					}
				}
				if out != want {
					t.Errorf("%s: got\n%s\nwant\n%s\n%s", f, out, want, errs)
				}
			}
		})
	}
	if _, err := os.Stat("o.out"); err == nil {
		t.Error("a sink wrote into the test's folder")
	}
}

// reverseRows returns a format's output of nestedOpsWant with its rows in
// the opposite order (the header kept).
func reverseRows(f, out string) string {
	lines := strings.SplitAfter(out, "\n")
	head, tail := 1, 0
	switch f {
	case "json", "plain":
		head = 0
	case "table":
		head, tail = 3, 1
	case "markdown":
		head, tail = 2, 1
	}
	lines = lines[:len(lines)-1] // (after the last line end)
	rows := append([]string(nil), lines[head:len(lines)-tail]...)
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	return strings.Join(lines[:head], "") + strings.Join(rows, "") + strings.Join(lines[len(lines)-tail:], "")
}

// appliedChangelog applies an updating output's changelog (SPEC 2.8: csv
// and tsv with an op column first, json with "op", plain +I[...]) and
// returns the final rows as the format prints an append-only output, in
// the order of their inserts; table and markdown hold the materialized
// result already.
func appliedChangelog(f, out string) string {
	lines := strings.SplitAfter(out, "\n")
	var head []string
	var rows []string
	apply := func(op, row string) {
		if op == "+I" || op == "+U" {
			rows = append(rows, row)
			return
		}
		for k, r := range rows {
			if r == row {
				rows = append(rows[:k], rows[k+1:]...)
				return
			}
		}
		rows = append(rows, "unmatched "+op+" "+row)
	}
	switch f {
	case "csv", "tsv":
		sep := ","
		if f == "tsv" {
			sep = "\t"
		}
		for k, l := range lines {
			if l == "" {
				continue
			}
			op, row, _ := strings.Cut(l, sep)
			if k == 0 {
				head = append(head, row)
				continue
			}
			apply(op, row)
		}
	case "json":
		for _, l := range lines {
			if l == "" {
				continue
			}
			op := l[len(`{"op":"`) : len(`{"op":"`)+2]
			apply(op, "{"+l[len(`{"op":"+I",`):])
		}
	case "plain":
		for _, l := range lines {
			if l == "" {
				continue
			}
			apply(l[:2], l[2:])
		}
		return strings.Join(rows, "")
	default:
		return out
	}
	return strings.Join(head, "") + strings.Join(rows, "")
}
