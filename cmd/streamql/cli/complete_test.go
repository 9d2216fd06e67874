package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"streamql/parser"
)

func completerSession(t *testing.T) *Session {
	t.Helper()
	var out, errOut bytes.Buffer
	s := NewSession(&out, &errOut, nil)
	sc, err := parser.Parse("t", `
CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE STREAM orders (id BIGINT, product VARCHAR) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM allowed (product VARCHAR, tier BIGINT) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');
SELECT deviceNo INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;
SELECT deviceNo INTO SIDE 'it''s' FROM sensors WHERE temperature < 0;`)
	if err != nil {
		t.Fatal(err)
	}
	if code := s.ExecStmts(context.Background(), sc, t.TempDir()); code != 0 {
		t.Fatal(errOut.String())
	}
	return s
}

func TestCompleterCandidates(t *testing.T) {
	c := &completer{sess: completerSession(t)}
	for _, tc := range []struct {
		prev, cur string
		word      string
		want      []string // all of these, in this order (others may be there too unless exact)
		exact     bool
	}{
		{"", "SELECT * FROM sen", "sen", []string{"sensors "}, true},
		{"", "SELECT * FROM ", "", []string{"allowed ", "orders ", "sensors "}, true},
		{"", "select * from sensors where temp", "temp", []string{"temperature "}, true},
		{"", "SELECT dev", "dev", []string{"deviceNo "}, true}, // no stream named yet: all streams' columns
		{"", "SELECT * FROM orders WHERE pro", "pro", []string{"proctime(", "product "}, true},
		{"", "SELECT * FROM orders WHERE t", "t", []string{"table ", "tan(", "tanh(", "then ", "time ", "timestamp ", "timestampadd(", "timestampdiff(", "to_base64(", "to_date(",
			"to_timestamp(", "to_timestamp_ltz(", "translate(", "trim(", "true ", "truncate(", "try_cast(", "tumble "}, true}, // tier and ts are not orders' columns; functions from the table
		{"", "SELECT DATE_F", "DATE_F", []string{"DATE_FORMAT("}, true},
		{"", "SELECT regexp_e", "regexp_e", []string{"regexp_extract(", "regexp_extract_all("}, true},
		{"", ".help f", "f", []string{"functions "}, true},
		{"SELECT o.*\n", "FROM orders o SEMI JOIN allowed a ON o.product = a.t", "t", []string{"tier "}, true},
		{"", "SELECT sensors.", "", []string{"deviceNo ", "ts ", "temperature "}, true},
		{"", "sel", "sel", []string{"select "}, true},
		{"", "SEL", "SEL", []string{"SELECT "}, true},
		{"", "Sel", "Sel", []string{"Select "}, true},
		{"", "DROP SIDE 'h", "'h", []string{"'high-tmp' "}, true},
		{"", "DROP SIDE '", "'", []string{"'high-tmp' ", "'it''s' "}, true},
		{"", "SELECT * INTO SIDE 'hi", "'hi", []string{"'high-tmp' "}, true},
		{"", "SELECT 'ab", "'ab", nil, true}, // a string that is not a side name
		{"", "DESCRIBE o", "o", []string{"orders "}, true},
		{"", "DESCRIBE ", "", []string{"allowed ", "orders ", "sensors "}, true},
		{"", "describe `o", "`o", []string{"`orders` "}, true}, // a quoted name being typed
		{"", "SELECT * FROM `", "`", []string{"`allowed` ", "`orders` ", "`sensors` "}, true},
		{"", "SELECT `dev", "`dev", []string{"`deviceNo` "}, true},
		{"", "CREATE STREAM `x", "`x", nil, true},
		{"", "DROP STREAM IF EXISTS al", "al", []string{"allowed "}, true},
		{"", "CREATE STREAM x", "x", nil, true},
		{"", "SELECT 1; SELECT * FROM orders WHERE i", "i", []string{"id ", "if ", "if(", "ifnull(", "in ", "initcap(", "insert ", "instr(", "interval ", "into ", "is ", "is_alpha(", "is_decimal(", "is_digit(", "is_json("}, true},
		{"", "SELECT * -- a comment", "", nil, true},
		{"", ".sch", ".sch", []string{".schema "}, true},
		{"", ".schema se", "se", []string{"sensors "}, true},
		{"", ".format j", "j", []string{"json "}, true},
		{"", ".timer o", "o", []string{"on ", "off "}, true},
		{"", "SELECT * FROM sensors WHERE ts > 10", "", nil, true},
	} {
		word, got := c.candidates(tc.prev, tc.cur)
		if word != tc.word || tc.exact && !slices.Equal(got, tc.want) {
			t.Errorf("candidates(%q, %q) = %q, %q; want %q, %q", tc.prev, tc.cur, word, got, tc.word, tc.want)
		}
	}
}

func TestCompleterDo(t *testing.T) {
	c := &completer{sess: completerSession(t), before: func() string { return "SELECT *\n" }}
	got, n := c.Do([]rune("FROM sen WHERE x"), len("FROM sen"))
	if n != 3 || len(got) != 1 || string(got[0]) != "sors " {
		t.Fatalf("Do = %q, %d", got, n)
	}
	// the word being completed may hold multi-byte characters
	c = &completer{sess: completerSession(t)}
	if got, n := c.Do([]rune("SELECT 设"), 8); n != 1 || len(got) != 0 {
		t.Fatalf("Do = %q, %d", got, n)
	}
}

func TestCompletePath(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "split.sql"), nil, 0o600)
	os.Mkdir(filepath.Join(dir, "sub"), 0o700)
	os.WriteFile(filepath.Join(dir, ".hidden.sql"), nil, 0o600)
	got := completePath(dir + "/s")
	want := []string{dir + "/split.sql ", dir + "/sub/"}
	if !slices.Equal(got, want) {
		t.Fatalf("completePath = %q, want %q", got, want)
	}
}

// TestCompleterViews: completion and .schema know views (SPEC 2.6) as they
// know streams: their names after FROM and .schema, their columns once a
// query names them.
func TestCompleterViews(t *testing.T) {
	var out, errOut bytes.Buffer
	s := NewSession(&out, &errOut, nil)
	sc, err := parser.Parse("t", `
CREATE STREAM orders (id BIGINT, product VARCHAR) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE VIEW big_orders AS SELECT id AS order_id, product FROM orders WHERE id > 100;`)
	if err != nil {
		t.Fatal(err)
	}
	if code := s.ExecStmts(context.Background(), sc, t.TempDir()); code != 0 {
		t.Fatal(errOut.String())
	}
	c := &completer{sess: s}
	for _, tc := range []struct {
		cur, word string
		want      []string
	}{
		{"SELECT * FROM big", "big", []string{"big_orders "}},
		{"SELECT * FROM ", "", []string{"orders ", "big_orders "}},
		{"SELECT * FROM big_orders WHERE ord", "ord", []string{"order_id ", "orders "}},
		{".schema b", "b", []string{"big_orders "}},
		{"DROP VIEW b", "b", []string{"big_orders "}},
		{"DROP VIEW IF EXISTS ", "", []string{"big_orders "}},
		{"DROP VIEW o", "o", nil},   // a stream is not a view
		{"DROP STREAM b", "b", nil}, // nor a view a stream
		{"DROP STREAM IF EXISTS ", "", []string{"orders "}},
		{"CREATE VIEW b", "b", nil}, // a new name
	} {
		word, got := c.candidates("", tc.cur)
		if word != tc.word || !slices.Equal(got, tc.want) {
			t.Errorf("candidates(%q) = %q, %q; want %q, %q", tc.cur, word, got, tc.word, tc.want)
		}
	}
	out.Reset()
	sc, _ = parser.Parse("t", "DESCRIBE big_orders;\n") // (what .schema NAME runs)
	if code := s.ExecStmts(context.Background(), sc, t.TempDir()); code != 0 || !strings.Contains(out.String(), "order_id") {
		t.Fatalf("DESCRIBE big_orders: exit %d: %s%s", code, out.String(), errOut.String())
	}
}

// TestCompleterDerivedRelations: a subquery's alias and a WITH name (SPEC
// 2.6) complete as the relation they define: `s.` offers the subquery's own
// output columns (its aliases, its columns, its `*`), not those of the
// streams it reads, and a WITH name is offered after FROM and JOIN.
func TestCompleterDerivedRelations(t *testing.T) {
	c := &completer{sess: completerSession(t)}
	for _, tc := range []struct {
		cur, word string
		want      []string
	}{
		{"SELECT * FROM (SELECT product AS yyname, id FROM orders) s WHERE s.", "", []string{"yyname ", "id "}},
		{"SELECT * FROM (SELECT product AS yyname, id FROM orders) AS s WHERE s.yy", "yy", []string{"yyname "}},
		{"SELECT * FROM (SELECT o.id, COUNT(*) n, UPPER(o.product) up, CASE WHEN id > 1 THEN 1 END FROM orders o GROUP BY o.id) q JOIN orders ON q.", "", []string{"id ", "n ", "up "}},
		{"SELECT * FROM (SELECT * FROM allowed) a2 WHERE a2.", "", []string{"product ", "tier "}},
		{"SELECT * FROM (SELECT o.*, a.tier FROM orders o JOIN allowed a ON o.product = a.product) x WHERE x.", "", []string{"id ", "product ", "tier "}},
		{"WITH q AS (SELECT product AS zzname FROM orders) SELECT zz", "zz", []string{"zzname "}},
		{"WITH q AS (SELECT product AS zzname FROM orders), r2 AS (SELECT * FROM q) SELECT * FROM r2 WHERE r2.", "", []string{"zzname "}},
		{"WITH qq AS (SELECT id FROM orders) SELECT * FROM q", "q", []string{"qq "}},
		{"WITH qq AS (SELECT id FROM orders) SELECT * FROM orders JOIN qq ON qq.", "", []string{"id "}},
	} {
		word, got := c.candidates("", tc.cur)
		if word != tc.word || !slices.Equal(got, tc.want) {
			t.Errorf("candidates(%q) = %q, %q; want %q, %q", tc.cur, word, got, tc.word, tc.want)
		}
	}
}
