package parser

import (
	"reflect"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

func TestFlinkCreateTable(t *testing.T) {
	src := `CREATE TEMPORARY TABLE clicks (
  url STRING,
  ms BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ms, 3),
  kts TIMESTAMP(3) METADATA FROM 'timestamp' VIRTUAL,
  ` + "`partition`" + ` BIGINT METADATA,
  PRIMARY KEY (url, ms) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka')`
	cs, ok := parseOne(t, src).(*CreateStream)
	if !ok {
		t.Fatalf("not a CreateStream")
	}
	if !cs.Temporary || cs.Name != "clicks" {
		t.Errorf("Temporary %v, Name %q", cs.Temporary, cs.Name)
	}
	if !reflect.DeepEqual(cs.PrimaryKey, []string{"url", "ms"}) || cs.PrimaryKeyPos != at(t, src, "PRIMARY", 0) {
		t.Errorf("PrimaryKey %v at %d", cs.PrimaryKey, cs.PrimaryKeyPos)
	}
	if len(cs.Columns) != 5 {
		t.Fatalf("%d columns, want 5: %+v", len(cs.Columns), cs.Columns)
	}
	ts := cs.Columns[2]
	if ts.Name != "ts" || ts.Computed == nil || ts.Computed.Text != "TO_TIMESTAMP_LTZ(ms, 3)" || ts.Type != "" {
		t.Errorf("computed column: %+v", ts)
	}
	if _, ok := ts.Computed.Expr.(*ast.FuncCallExpr); !ok {
		t.Errorf("computed expression %T, want a function call", ts.Computed.Expr)
	}
	kts := cs.Columns[3]
	if kts.Type != "TIMESTAMP(3)" || kts.Metadata != "timestamp" || !kts.Virtual {
		t.Errorf("metadata column: %+v", kts)
	}
	if p := cs.Columns[4]; p.Metadata != "partition" || p.Virtual || p.Type != "BIGINT" {
		t.Errorf("METADATA without FROM: %+v", p)
	}
	if cs.Watermark == nil || cs.Watermark.Column != "ts" {
		t.Errorf("watermark %+v", cs.Watermark)
	}
	// a CAST computed column keeps its SPEC type
	cs = parseOne(t, "CREATE TABLE t (ms BIGINT, ts AS CAST(ms AS TIMESTAMP))").(*CreateStream)
	if c := cs.Columns[1]; c.Computed == nil || len(c.Computed.Casts) != 1 {
		t.Errorf("CAST computed column: %+v", c)
	}
}

func TestFlinkStatements(t *testing.T) {
	if ds, ok := parseOne(t, "DROP TABLE IF EXISTS t").(*DropStream); !ok || ds.Name != "t" || !ds.IfExists {
		t.Errorf("DROP TABLE: %#v", ds)
	}
	if _, ok := parseOne(t, "SHOW TABLES").(*ShowStreams); !ok {
		t.Errorf("SHOW TABLES is not SHOW STREAMS")
	}
	if _, ok := parseOne(t, "SET").(*ShowSettings); !ok {
		t.Errorf("SET; is not ShowSettings")
	}
	for _, src := range []string{"SHOW CREATE TABLE s", "show create stream s"} {
		if sc, ok := parseOne(t, src).(*ShowCreate); !ok || sc.Name != "s" || sc.NamePos != len(src)-1 {
			t.Errorf("%s: %#v", src, sc)
		}
	}
	src := "INSERT INTO hot (temp, dev) SELECT temperature, deviceNo FROM sensors"
	sel, ok := parseOne(t, src).(*Select)
	if !ok || sel.Insert != "hot" || !reflect.DeepEqual(sel.InsertColumns, []string{"temp", "dev"}) ||
		sel.InsertColumnPos[1] != at(t, src, "dev", 0) || sel.Start != 0 {
		t.Errorf("INSERT INTO (cols) SELECT: %#v", sel)
	}
	// INSERT INTO v (a) VALUES stays a values insert
	if ins, ok := parseOne(t, "INSERT INTO v (a) VALUES (1)").(*Insert); !ok || len(ins.Columns) != 1 {
		t.Errorf("INSERT ... VALUES: %#v", ins)
	}
}

// TestFlinkWordsDoNotChangeMeaning checks DESIGN's danger for the new words:
// METADATA, ENFORCED and TEMPORARY are ordinary names in a query.
func TestFlinkWordsDoNotChangeMeaning(t *testing.T) {
	cs := parseOne(t, "CREATE STREAM s (metadata BIGINT, enforced DOUBLE, temporary BOOLEAN)").(*CreateStream)
	if len(cs.Columns) != 3 || cs.Columns[0].Name != "metadata" || cs.Columns[0].Type != "BIGINT" || cs.Columns[0].Metadata != "" {
		t.Errorf("columns named by the new words: %+v", cs.Columns)
	}
	sel := parseOne(t, "SELECT metadata, enforced FROM s").(*Select)
	if n := len(sel.Query.Fields.Fields); n != 2 {
		t.Errorf("%d fields, want 2", n)
	}
}

// TestFlinkComments: Flink DDL's COMMENT 'text' after a column (typed,
// METADATA or computed) and after the column list is read and dropped: the
// stream is the one declared without them.
func TestFlinkComments(t *testing.T) {
	with := `CREATE TABLE s (
  a STRING COMMENT 'the key',
  b ARRAY<INT> COMMENT 'x, y',
  k TIMESTAMP(3) METADATA FROM 'timestamp' COMMENT 'kafka time',
  c AS b[1] COMMENT 'first',
  WATERMARK FOR k AS k - INTERVAL '1' SECOND
) COMMENT 'a table' WITH ('connector' = 'kafka')`
	without := `CREATE TABLE s (
  a STRING,
  b ARRAY<INT>,
  k TIMESTAMP(3) METADATA FROM 'timestamp',
  c AS b[1],
  WATERMARK FOR k AS k - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka')`
	w, ok1 := parseOne(t, with).(*CreateStream)
	o, ok2 := parseOne(t, without).(*CreateStream)
	if !ok1 || !ok2 || len(w.Columns) != len(o.Columns) {
		t.Fatalf("parsed %v, %v", w, o)
	}
	for i := range w.Columns {
		wc, oc := w.Columns[i], o.Columns[i]
		if wc.Name != oc.Name || wc.Type != oc.Type || wc.Metadata != oc.Metadata || (wc.Computed == nil) != (oc.Computed == nil) ||
			wc.Computed != nil && wc.Computed.Text != oc.Computed.Text {
			t.Errorf("column %d: %+v, want %+v", i, wc, oc)
		}
	}
}
