package parser

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// at returns the offset of the n-th (0-based) occurrence of sub in src.
func at(t *testing.T, src, sub string, n int) int {
	t.Helper()
	off := 0
	for i := 0; ; i++ {
		j := strings.Index(src[off:], sub)
		if j < 0 {
			t.Fatalf("%q not found %d times in %q", sub, n+1, src)
		}
		if i == n {
			return off + j
		}
		off += j + len(sub)
	}
}

// collect returns the nodes of type T under root in visiting order.
func collect[T ast.Node](root ast.Node) []T {
	v := &collector[T]{}
	root.Accept(v)
	return v.out
}

type collector[T ast.Node] struct{ out []T }

func (c *collector[T]) Enter(n ast.Node) (ast.Node, bool) {
	if x, ok := n.(T); ok {
		c.out = append(c.out, x)
	}
	return n, false
}
func (c *collector[T]) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func parseOne(t *testing.T, src string) Stmt {
	t.Helper()
	sc, err := Parse("test.sql", src)
	if err != nil {
		t.Fatalf("Parse(%q): %v\n%s", src, err, FormatError("test.sql", src, err.(*Error)))
	}
	if len(sc.Stmts) != 1 {
		t.Fatalf("Parse(%q): %d statements, want 1", src, len(sc.Stmts))
	}
	return sc.Stmts[0]
}

func TestCreateStream(t *testing.T) {
	src := "-- 传感器\nCREATE STREAM IF NOT EXISTS `传感器` (\n" +
		"  设备 VARCHAR(20), -- the device\n" +
		"  ts BIGINT,\n" +
		"  t DECIMAL(10, 2),\n" +
		"  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n" +
		") WITH ('connector' = 'file', 'path' = 'it''s.csv');"
	cs, ok := parseOne(t, src).(*CreateStream)
	if !ok {
		t.Fatalf("got %T", cs)
	}
	if !cs.IfNotExists || cs.Name != "传感器" || cs.NamePos != at(t, src, "`传感器`", 0) {
		t.Errorf("name: %+v", cs)
	}
	if s, e := cs.Span(); s != at(t, src, "CREATE", 0) || e != len(src)-1 {
		t.Errorf("span = %d, %d", s, e)
	}
	wantCols := []ColumnDef{
		{Name: "设备", Type: "VARCHAR(20)", Pos: at(t, src, "设备", 0), TypePos: at(t, src, "VARCHAR", 0)},
		{Name: "ts", Type: "BIGINT", Pos: at(t, src, "ts BIGINT", 0), TypePos: at(t, src, "BIGINT", 0)},
		{Name: "t", Type: "DECIMAL(10, 2)", Pos: at(t, src, "t DECIMAL", 0), TypePos: at(t, src, "DECIMAL", 0)},
	}
	if !reflect.DeepEqual(cs.Columns, wantCols) {
		t.Errorf("columns = %+v\nwant %+v", cs.Columns, wantCols)
	}
	wm := cs.Watermark
	if wm == nil {
		t.Fatal("no watermark")
	}
	exprPos := at(t, src, "ts - INTERVAL", 0)
	if wm.Column != "ts" || wm.ColumnPos != at(t, src, "ts AS", 0) || wm.Pos != exprPos || wm.Text != "ts - INTERVAL '5' SECOND" {
		t.Errorf("watermark = %+v", wm)
	}
	fc, ok := wm.Expr.(*ast.FuncCallExpr)
	if !ok || fc.FnName.L != "date_sub" || len(fc.Args) != 3 {
		t.Fatalf("watermark expr = %#v", wm.Expr)
	}
	if u, ok := fc.Args[2].(*ast.TimeUnitExpr); !ok || u.Unit.String() != "SECOND" {
		t.Errorf("unit = %#v", fc.Args[2])
	}
	if p := wm.Locate(fc); p != exprPos {
		t.Errorf("Locate(DATE_SUB) = %d, want %d", p, exprPos)
	}
	if p := wm.Locate(fc.Args[0]); p != exprPos {
		t.Errorf("Locate(ts) = %d, want %d", p, exprPos)
	}
	if p := wm.Locate(fc.Args[1]); p != at(t, src, "'5'", 0) {
		t.Errorf("Locate('5') = %d, want %d", p, at(t, src, "'5'", 0))
	}
	if p := wm.Locate(fc.Args[2]); p != exprPos {
		t.Errorf("Locate(SECOND) = %d, want the DATE_SUB's %d", p, exprPos)
	}
	wantOpts := []Option{
		{Key: "connector", Value: "file", KeyPos: at(t, src, "'connector'", 0), ValuePos: at(t, src, "'file'", 0)},
		{Key: "path", Value: "it's.csv", KeyPos: at(t, src, "'path'", 0), ValuePos: at(t, src, "'it''s.csv'", 0)},
	}
	if !reflect.DeepEqual(cs.Options, wantOpts) {
		t.Errorf("options = %+v\nwant %+v", cs.Options, wantOpts)
	}
	if cs.WithPos != at(t, src, "WITH", 0) {
		t.Errorf("WithPos = %d", cs.WithPos)
	}
}

func TestCreateStreamVariants(t *testing.T) {
	// No WITH, the WATERMARK first, a column named watermark, a CAST in the watermark.
	src := "CREATE STREAM s (WATERMARK FOR ts AS CAST(ts AS BIGINT) - 1, watermark BIGINT, ts TIMESTAMP(3), \"a b\" BOOLEAN)"
	cs := parseOne(t, src).(*CreateStream)
	if cs.WithPos != 0 || cs.Options != nil || len(cs.Columns) != 3 || cs.Columns[0].Name != "watermark" ||
		cs.Columns[1].Type != "TIMESTAMP(3)" || cs.Columns[2].Name != "a b" {
		t.Errorf("got %+v", cs)
	}
	casts := collect[*ast.FuncCastExpr](cs.Watermark.Expr)
	if len(casts) != 1 || cs.Watermark.Casts[casts[0]] != "BIGINT" || cs.Watermark.Locate(casts[0]) != at(t, src, "CAST", 0) {
		t.Errorf("watermark casts = %v", cs.Watermark.Casts)
	}
	cols := collect[*ast.ColumnNameExpr](cs.Watermark.Expr)
	if len(cols) != 1 || cs.Watermark.Locate(cols[0]) != at(t, src, "ts AS BIGINT", 0) {
		t.Errorf("watermark column located at %d", cs.Watermark.Locate(cols[0]))
	}
}

func TestSimpleStatements(t *testing.T) {
	tests := []struct {
		src  string
		want Stmt
	}{
		{"DROP STREAM s", &DropStream{Range: Range{0, 13}, Name: "s", NamePos: 12}},
		{"drop stream if exists `a-b`", &DropStream{Range: Range{0, 27}, IfExists: true, Name: "a-b", NamePos: 22}},
		{"SHOW STREAMS", &ShowStreams{Range{0, 12}}},
		{"show sides", &ShowSides{Range{0, 10}}},
		{"show functions", &ShowFunctions{Range{0, 14}}},
		{"DROP SIDE 'late-element'", &DropSide{Range: Range{0, 24}, Name: "late-element", NamePos: 10}},
		{"DESCRIBE 传感器", &Describe{Range: Range{0, 18}, Name: "传感器", NamePos: 9}},
		{"DESC s", &Describe{Range: Range{0, 6}, Name: "s", NamePos: 5}},
		{"RUN", &Run{Range{0, 3}}},
		{"SET 'format' = 'csv'", &Set{Range: Range{0, 20}, Option: Option{Key: "format", Value: "csv", KeyPos: 4, ValuePos: 15}}},
		{"SET 'side-dir' = 'it''s'", &Set{Range: Range{0, 24}, Option: Option{Key: "side-dir", Value: "it's", KeyPos: 4, ValuePos: 17}}},
	}
	for _, tc := range tests {
		got := parseOne(t, tc.src)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.src, got, tc.want)
		}
	}
}

func TestSelect(t *testing.T) {
	src := "SELECT deviceNo, temperature * 2 FROM sensors WHERE temperature > 10 LIMIT 3"
	sel := parseOne(t, src).(*Select)
	if sel.Side != "" || sel.Query == nil || sel.Start != 0 || sel.End != len(src) || len(sel.Joins) != 0 {
		t.Errorf("got %+v", sel)
	}
	if sel.Query.Limit == nil || sel.Locate(sel.Query.Limit) != at(t, src, "LIMIT", 0) {
		t.Errorf("LIMIT")
	}
	if sel.Locate(sel.Query) != 0 {
		t.Errorf("Locate(SelectStmt) = %d", sel.Locate(sel.Query))
	}
	ex, ok := parseOne(t, "EXPLAIN "+src).(*Explain)
	if !ok || ex.Start != 0 || ex.Query.Start != 8 || ex.Query.Locate(ex.Query.Query.Where) != 8+at(t, src, "temperature >", 0) {
		t.Errorf("EXPLAIN: %+v", ex)
	}
	if ex.Analyze {
		t.Errorf("EXPLAIN is not EXPLAIN ANALYZE")
	}
	// EXPLAIN ANALYZE (SPEC 3), the word in any case, of a SELECT and of an INSERT INTO ... SELECT
	ex, ok = parseOne(t, "explain Analyze "+src).(*Explain)
	if !ok || !ex.Analyze || ex.Query.Start != 16 || ex.Query.Locate(ex.Query.Query.Where) != 16+at(t, src, "temperature >", 0) {
		t.Errorf("EXPLAIN ANALYZE: %+v", ex)
	}
	if ex, ok := parseOne(t, "EXPLAIN ANALYZE INSERT INTO s SELECT a FROM t").(*Explain); !ok || !ex.Analyze || ex.Query.Insert != "s" {
		t.Errorf("EXPLAIN ANALYZE INSERT: %+v", ex)
	}
	// A parenthesized SELECT is a SELECT.
	if _, ok := parseOne(t, "(SELECT a FROM t)").(*Select); !ok {
		t.Errorf("(SELECT ...) is not a Select")
	}
}

func TestIntoSide(t *testing.T) {
	for _, tc := range []struct{ src, side string }{
		{"SELECT deviceNo, temperature INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10", "low-tmp"},
		{"SELECT deviceNo, temperature FROM sensors WHERE temperature < 10 INTO SIDE 'low-tmp'", "low-tmp"},
		{"SELECT * into side '不属于a' FROM kv", "不属于a"},
		{"SELECT CONCAT('late: (', word, ')') AS msg INTO SIDE 'late-element'\n  FROM words WHERE ts < CURRENT_WATERMARK(ts)", "late-element"},
		{"SELECT 1 INTO SIDE 'it''s'", "it's"},
		{"SELECT a INTO /* c */ SIDE 'x' FROM t", "x"},
		{"EXPLAIN SELECT a INTO SIDE 'x' FROM t", "x"},
		{"SELECT a FROM t INTO SIDE '" + strings.Repeat("侧", 64) + "'", strings.Repeat("侧", 64)},
	} {
		st := parseOne(t, tc.src)
		sel, ok := st.(*Select)
		if ex, isEx := st.(*Explain); isEx {
			sel, ok = ex.Query, true
		}
		if !ok {
			t.Fatalf("%q: %T", tc.src, st)
		}
		if sel.Side != tc.side || sel.SidePos != at(t, tc.src, "'"+strings.ReplaceAll(tc.side, "'", "''")+"'", 0) {
			t.Errorf("%q: side %q at %d", tc.src, sel.Side, sel.SidePos)
		}
		if sel.Query.SelectIntoOpt != nil {
			t.Errorf("%q: TiDB saw an INTO", tc.src)
		}
	}
}

// rightName names a join by the first table of its right side.
func rightName(j *ast.Join) string {
	r := j.Right
	for {
		rj, ok := r.(*ast.Join)
		if !ok {
			break
		}
		r = rj.Left
	}
	if ts, ok := r.(*ast.TableSource); ok {
		if tn, ok := ts.Source.(*ast.TableName); ok {
			return tn.Name.O
		}
	}
	return "?"
}

func TestSemiAntiJoin(t *testing.T) {
	tests := []struct {
		src  string
		want map[string]JoinKind // right table -> kind, for every join with a right side
		at   map[string]string   // right table -> text where Locate(join) points
	}{
		{"SELECT o.* FROM orders o SEMI JOIN allowed a ON o.product = a.product",
			map[string]JoinKind{"allowed": SemiJoin}, map[string]string{"allowed": "SEMI"}},
		{"SELECT o.* FROM orders o ANTI JOIN blocked b ON o.product = b.product",
			map[string]JoinKind{"blocked": AntiJoin}, map[string]string{"blocked": "ANTI"}},
		{"SELECT * FROM a semi join b on a.k = b.k", map[string]JoinKind{"b": SemiJoin}, nil},
		{"SELECT * FROM a JOIN b ON a.x = b.x ANTI JOIN c ON a.y = c.y",
			map[string]JoinKind{"b": InnerJoin, "c": AntiJoin}, map[string]string{"b": "JOIN", "c": "ANTI"}},
		{"SELECT * FROM a ANTI JOIN b ON a.x = b.x SEMI JOIN c ON a.y = c.y JOIN d ON a.z = d.z",
			map[string]JoinKind{"b": AntiJoin, "c": SemiJoin, "d": InnerJoin}, nil},
		{"SELECT * FROM a, b SEMI JOIN c ON b.x = c.x", map[string]JoinKind{"b": InnerJoin, "c": SemiJoin}, map[string]string{"b": ","}},
		{"SELECT * FROM a SEMI JOIN b ON a.x = b.x, c", map[string]JoinKind{"b": SemiJoin, "c": InnerJoin}, nil},
		{"SELECT * FROM a ANTI JOIN b USING (k)", map[string]JoinKind{"b": AntiJoin}, nil},
		// (an IN subquery with a join is read as a relation, its joins its
		// Select's: TestInSubqueryRelation; EXISTS keeps its own)
		{"SELECT * FROM a WHERE a.x IN (SELECT b.x FROM b ANTI JOIN c ON b.y = c.y) AND EXISTS (SELECT 1 FROM d JOIN e ON d.k = e.k)",
			map[string]JoinKind{"e": InnerJoin}, nil},
		// (a subquery in FROM is parsed on its own: its joins are its Select's, SPEC 2.6)
		{"SELECT * FROM (SELECT a.* FROM a SEMI JOIN b ON a.k = b.k) AS t JOIN c ON t.k = c.k",
			map[string]JoinKind{"c": InnerJoin}, nil},
		{"SELECT f(a, b) FROM a JOIN b ON a.k IN (1, 2) SEMI JOIN c ON a.k = c.k",
			map[string]JoinKind{"b": InnerJoin, "c": SemiJoin}, nil},
		// An explicit alias named semi is an alias, not a SEMI JOIN.
		{"SELECT * FROM a AS semi JOIN b ON semi.k = b.k", map[string]JoinKind{"b": InnerJoin}, nil},
		// Streams named semi and anti.
		{"SELECT * FROM semi JOIN anti ON semi.k = anti.k", map[string]JoinKind{"anti": InnerJoin}, nil},
		{"SELECT * FROM semi ANTI JOIN anti ON semi.k = anti.k, (semi SEMI JOIN b ON semi.k = b.k)",
			map[string]JoinKind{"anti": AntiJoin, "semi": InnerJoin, "b": SemiJoin}, nil},
	}
	for _, tc := range tests {
		sel := parseOne(t, tc.src).(*Select)
		got := map[string]JoinKind{}
		for _, j := range collect[*ast.Join](sel.Query) {
			if j.Right == nil {
				continue
			}
			got[rightName(j)] = sel.Joins[j]
			if w, ok := tc.at[rightName(j)]; ok {
				if p := sel.Locate(j); p != at(t, tc.src, w, 0) {
					t.Errorf("%q: Locate(join %s) = %d, want %d", tc.src, rightName(j), p, at(t, tc.src, w, 0))
				}
			}
			if sel.Joins[j] != InnerJoin && (j.Tp != ast.CrossJoin || j.On == nil && j.Using == nil) {
				t.Errorf("%q: semi/anti join is %+v", tc.src, j)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: joins = %v, want %v", tc.src, got, tc.want)
		}
		for _, ts := range collect[*ast.TableSource](sel.Query) {
			if a := strings.ToUpper(ts.AsName.O); a == "SEMI" && !strings.Contains(tc.src, "AS semi") || a == "ANTI" || a == "JOIN" {
				t.Errorf("%q: TiDB read SEMI/ANTI as an alias", tc.src)
			}
		}
	}
}

// TestExtensionWordsAreNotTiDBKeywords pins the DESIGN fact that TiDB reads SEMI,
// ANTI, SIDE, WATERMARK, EMIT and STREAM as plain identifiers: nothing may rely on
// TiDB for them, and a missed extension silently changes meaning.
func TestExtensionWordsAreNotTiDBKeywords(t *testing.T) {
	ps := &parseState{}
	for _, sql := range []string{
		"SELECT semi, anti, side, watermark, emit, stream FROM t",
		"SELECT * FROM semi JOIN anti ON semi.side = anti.stream",
		"SELECT watermark AS emit FROM side",
	} {
		if _, err := ps.tidbParse(sql); err != nil {
			t.Errorf("TiDB rejects %q: %v", sql, err)
		}
	}
	// The danger: TiDB alone reads SEMI as an alias of an inner join.
	n, err := ps.tidbParse("SELECT * FROM a SEMI JOIN b ON a.k = b.k")
	if err != nil {
		t.Fatal(err)
	}
	srcs := collect[*ast.TableSource](n)
	if len(srcs) != 2 || srcs[0].AsName.L != "semi" {
		t.Errorf("TiDB changed: SEMI JOIN gives %+v", srcs)
	}
	// INTO SIDE means nothing to TiDB.
	if _, err := ps.tidbParse("SELECT a INTO SIDE 'x' FROM t"); err == nil {
		t.Errorf("TiDB accepts INTO SIDE")
	}
	// Through Parse they stay usable as names.
	sel := parseOne(t, "SELECT semi, anti, side, watermark, emit, stream FROM t").(*Select)
	if n := len(collect[*ast.ColumnNameExpr](sel.Query)); n != 6 {
		t.Errorf("%d columns", n)
	}
	cs := parseOne(t, "CREATE STREAM t (semi BIGINT, anti BIGINT, side VARCHAR, watermark BIGINT, emit BOOLEAN, stream VARCHAR)").(*CreateStream)
	if len(cs.Columns) != 6 || cs.Watermark != nil {
		t.Errorf("got %+v", cs)
	}
}

func TestCasts(t *testing.T) {
	types := []string{"INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "VARCHAR", "varchar( 10 )", "STRING", "TEXT",
		"BOOLEAN", "TIMESTAMP", "TIMESTAMP(3)", "DOUBLE", "FLOAT", "REAL", "CHAR", "DECIMAL(10,2)", "SIGNED", "DATETIME", "INT(11)"}
	want := []string{"INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "VARCHAR", "VARCHAR(10)", "STRING", "TEXT",
		"BOOLEAN", "TIMESTAMP", "TIMESTAMP(3)", "DOUBLE", "FLOAT", "REAL", "CHAR", "DECIMAL(10,2)", "SIGNED", "DATETIME", "INT(11)"}
	var b strings.Builder
	b.WriteString("SELECT ")
	for _, ty := range types {
		b.WriteString("CAST(a AS " + ty + ") + zz, ")
	}
	b.WriteString("CAST(CAST(a AS INT) AS VARCHAR), CONVERT(a, BIGINT), zz FROM t")
	want = append(want, "VARCHAR", "INT", "BIGINT")
	src := b.String()
	sel := parseOne(t, src).(*Select)
	casts := collect[*ast.FuncCastExpr](sel.Query)
	if len(casts) != len(want) || len(sel.Casts) != len(want) {
		t.Fatalf("%d casts, %d recorded, want %d", len(casts), len(sel.Casts), len(want))
	}
	sort.Slice(casts, func(i, j int) bool { return sel.Locate(casts[i]) < sel.Locate(casts[j]) })
	for i, c := range casts {
		if sel.Casts[c] != want[i] {
			t.Errorf("cast %d = %q, want %q", i, sel.Casts[c], want[i])
		}
	}
	// Positions stay right after stand-ins of any length.
	cols := collect[*ast.ColumnNameExpr](sel.Query)
	var zz []int
	for _, c := range cols {
		if c.Name.Name.O == "zz" {
			zz = append(zz, sel.Locate(c))
		}
	}
	for i, p := range zz {
		if p != at(t, src, "zz", i) {
			t.Errorf("zz #%d at %d, want %d", i, p, at(t, src, "zz", i))
		}
	}
	// CAST in INSERT.
	ins := parseOne(t, "INSERT INTO s VALUES (CAST('1' AS INT), CAST(2 AS DOUBLE))").(*Insert)
	if len(ins.Casts) != 2 {
		t.Errorf("insert casts %v", ins.Casts)
	}
}

func TestInsert(t *testing.T) {
	src := "INSERT INTO 传感器 (设备, ts) VALUES ('C:\\new', 1), ('it''s', -2)"
	ins := parseOne(t, src).(*Insert)
	if ins.Stream != "传感器" || ins.StreamPos != at(t, src, "传感器", 0) {
		t.Errorf("stream %q at %d", ins.Stream, ins.StreamPos)
	}
	if !reflect.DeepEqual(ins.Columns, []string{"设备", "ts"}) || !reflect.DeepEqual(ins.ColumnPos, []int{at(t, src, "设备", 0), at(t, src, "ts", 0)}) {
		t.Errorf("columns %v at %v", ins.Columns, ins.ColumnPos)
	}
	if len(ins.Rows) != 2 || len(ins.Rows[0]) != 2 {
		t.Fatalf("rows %v", ins.Rows)
	}
	v0 := ins.Rows[0][0].(ast.ValueExpr).GetValue()
	v1 := ins.Rows[1][0].(ast.ValueExpr).GetValue()
	if v0 != `C:\new` || v1 != "it's" {
		t.Errorf("values %q %q", v0, v1)
	}
	if p := ins.Locate(ins.Rows[1][0]); p != at(t, src, "'it''s'", 0) {
		t.Errorf("Locate(row 2) = %d", p)
	}
	ins = parseOne(t, "INSERT INTO s VALUES (1)").(*Insert)
	if ins.Stream != "s" || ins.Columns != nil || len(ins.Rows) != 1 {
		t.Errorf("got %+v", ins)
	}
}

func TestLocate(t *testing.T) {
	src := "-- 开始\nCREATE STREAM 传感器 (设备 VARCHAR);\n" +
		"SELECT 设备, UPPER(名字) AS n, CAST(温度 AS INT) + 湿度 AS x, s.*,\n" +
		"\tts - INTERVAL '5' SECOND, count(*)\n" +
		"  FROM 传感器 AS s /* 注释 */ WHERE 温度 > 10 AND s.设备 IN (SELECT k FROM 其他) LIMIT 5;"
	sc, err := Parse("t.sql", src)
	if err != nil {
		t.Fatal(FormatError("t.sql", src, err.(*Error)))
	}
	sel := sc.Stmts[1].(*Select)
	q := sel.Query
	loc := func(n ast.Node, sub string, k int) {
		t.Helper()
		if p, want := sel.Locate(n), at(t, src, sub, k); p != want {
			t.Errorf("Locate(%T %s) = %d, want %d (%q)", n, sub, p, want, src[p:min(p+10, len(src))])
		}
	}
	loc(q, "SELECT", 0)
	fields := q.Fields.Fields
	loc(fields[0], "设备", 1)
	loc(fields[0].Expr, "设备", 1)
	loc(fields[1].Expr, "UPPER", 0)
	loc(fields[1].Expr.(*ast.FuncCallExpr).Args[0], "名字", 0)
	loc(fields[2].Expr, "CAST", 0)
	loc(fields[2].Expr.(*ast.BinaryOperationExpr).R, "湿度", 0)
	loc(fields[3], "s.*", 0)
	fc := fields[4].Expr.(*ast.FuncCallExpr)
	loc(fc, "ts -", 0)
	loc(fc.Args[2], "ts -", 0) // TimeUnitExpr: its call's position
	loc(fields[5].Expr, "count", 0)
	tables := collect[*ast.TableName](q)
	loc(tables[0], "传感器", 1)
	loc(tables[1], "其他", 0)
	loc(q.Where, "温度 >", 0)
	loc(q.Limit, "LIMIT", 0)
	loc(q.Limit.Count, "LIMIT", 0)
	sub := collect[*ast.SelectStmt](q)[1]
	loc(sub, "SELECT k", 0)
	for _, c := range collect[*ast.ColumnNameExpr](q) {
		p := sel.Locate(c)
		name := c.Name.Name.O
		if !strings.HasPrefix(src[p:], name) && !strings.HasPrefix(src[p:], c.Name.Table.O+".") {
			t.Errorf("column %s located at %q", name, src[p:min(p+10, len(src))])
		}
	}
	// Unknown nodes give the statement start.
	if p := sel.Locate(&ast.ColumnNameExpr{}); p != at(t, src, "SELECT", 0) {
		t.Errorf("Locate(foreign node) = %d", p)
	}
}

func TestFieldText(t *testing.T) {
	src := "SELECT temperature * 2, a /* c */ + 1, CAST(x AS BIGINT), UPPER(设备) AS u, a-- d\n-1, t.``, b -- x\n, try_cast(x AS INT) INTO SIDE 's' FROM t"
	sel := parseOne(t, src).(*Select)
	// SPEC 2: named by the text as written, comments inside included.
	want := []string{"temperature * 2", "a /* c */ + 1", "CAST(x AS BIGINT)", "UPPER(设备)", "a-- d\n-1", "t.``", "b", "try_cast(x AS INT)"}
	for i, f := range sel.Query.Fields.Fields {
		if sel.FieldText[f] != want[i] || f.Text() != want[i] {
			t.Errorf("field %d: FieldText %q, Text() %q, want %q", i, sel.FieldText[f], f.Text(), want[i])
		}
	}
	if len(sel.Query.Fields.Fields) != len(want) {
		t.Errorf("%d fields, want %d", len(sel.Query.Fields.Fields), len(want))
	}
	if n := len(sel.Casts); n != 2 {
		t.Errorf("%d CAST types recorded, want 2 (CAST and TRY_CAST)", n)
	}
	for _, name := range sel.Casts {
		if name != "BIGINT" && name != "INT" {
			t.Errorf("CAST type %q, want BIGINT or INT as written", name)
		}
	}
}

func TestLikeEscape(t *testing.T) {
	sel := parseOne(t, "SELECT * FROM t WHERE a LIKE 'x\\_' AND b LIKE 'y!%' ESCAPE '!'").(*Select)
	likes := collect[*ast.PatternLikeOrIlikeExpr](sel.Query)
	if len(likes) != 2 || likes[0].EscapeExplicit || !likes[1].EscapeExplicit || likes[1].Escape != '!' {
		t.Errorf("likes: %+v %+v", likes[0], likes[1])
	}
	pat := likes[0].Pattern.(ast.ValueExpr).GetValue()
	if pat != `x\_` {
		t.Errorf("pattern %q", pat)
	}
}

func TestSubqueries(t *testing.T) {
	sel := parseOne(t, "SELECT * FROM orders o WHERE product IN (SELECT product FROM allowed) AND NOT EXISTS (SELECT 1 FROM blocked b WHERE b.p = o.p)").(*Select)
	in := collect[*ast.PatternInExpr](sel.Query)
	ex := collect[*ast.ExistsSubqueryExpr](sel.Query)
	if len(in) != 1 || in[0].Sel == nil || in[0].Not || len(ex) != 1 || !ex[0].Not {
		t.Errorf("in %+v exists %+v", in, ex)
	}
	if _, ok := in[0].Sel.(*ast.SubqueryExpr); !ok {
		t.Errorf("IN subquery is %T", in[0].Sel)
	}
}

func TestAllOrNothing(t *testing.T) {
	src := "CREATE STREAM s (a BIGINT);\nSELECT * FROM s;\nSELECT * FORM s;\nRUN;"
	sc, err := Parse("t.sql", src)
	if sc != nil || err == nil {
		t.Fatalf("Parse = %v, %v; want nil and an error", sc, err)
	}
	if e := err.(*Error); e.Offset != at(t, src, "FORM", 0) {
		t.Errorf("offset %d", e.Offset)
	}
}

// TestSharedCases parses the query of every acceptance case on the ratchet
// (tests/shared_cases_passing.txt): a case not yet on it may use syntax that
// is still to come.
func TestSharedCases(t *testing.T) {
	list, err := os.ReadFile("../tests/shared_cases_passing.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Fields(string(list)) {
		f := filepath.Join("../../shared/cases", name, "query.sql")
		if _, err := os.Stat(f); err != nil {
			continue // ../shared is absent on this machine
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, string(b)); err != nil {
			t.Errorf("%s: %s", f, FormatError(f, string(b), err.(*Error)))
		}
	}
}

// TestAsOf: FOR SYSTEM_TIME AS OF after a join's right side (SPEC 2.7's
// temporal join, Flink's syntax) is blanked for TiDB and recorded for that
// table, alias or not; misplaced or with an expression it is an error at the
// clause.
func TestAsOf(t *testing.T) {
	for _, src := range []string{
		"SELECT * FROM o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur",
		"SELECT * FROM o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.`ts` ON o.cur = rates.cur",
		"SELECT * FROM o JOIN rates for system_time as of ts r ON o.cur = r.cur",
	} {
		sel := parseOne(t, src).(*Select)
		if len(sel.AsOf) != 1 {
			t.Fatalf("%s: %d AS OF clauses recorded, want 1", src, len(sel.AsOf))
		}
		for tn, a := range sel.AsOf {
			if tn.Name.L != "rates" || (a.Col != "o.ts" && a.Col != "ts") || src[a.ColPos:a.ColPos+len("o")] != a.Col[:1] || !strings.EqualFold(src[a.Pos:a.Pos+3], "FOR") {
				t.Errorf("%s: AS OF %+v on %s", src, a, tn.Name.O)
			}
		}
	}
	for _, c := range []struct{ src, at string }{
		{"SELECT * FROM o JOIN rates FOR SYSTEM_TIME AS OF o.ts + 1 AS r ON o.cur = r.cur", "o.ts + 1"},
		{"SELECT * FROM o JOIN rates FOR SYSTEM_TIME o.ts ON o.cur = rates.cur", "FOR"},
		{"SELECT * FROM o WHERE FOR SYSTEM_TIME AS OF o.ts", "FOR"},
	} {
		_, err := Parse("q", c.src)
		var pe *Error
		if !errors.As(err, &pe) || pe.Offset != strings.Index(c.src, c.at) {
			t.Errorf("%s: error %v, want one at %q", c.src, err, c.at)
		}
	}
}

// TestCreateStreamNestedTypes: a column's type runs over the angle brackets
// of ARRAY<T>, MAP<K, V> and ROW<...> (SPEC 2.10), including a '>>' the
// lexer reads as one operator, and the columns after it are read.
func TestCreateStreamNestedTypes(t *testing.T) {
	src := "CREATE STREAM s (tags ARRAY<VARCHAR>, m MAP<VARCHAR, ARRAY<BIGINT>>, d ROW<id BIGINT, name VARCHAR(3)>, x BIGINT) WITH ('connector' = 'file', 'path' = 'x');"
	cs, ok := parseOne(t, src).(*CreateStream)
	if !ok {
		t.Fatalf("got %T", cs)
	}
	var got []string
	for _, c := range cs.Columns {
		got = append(got, c.Name+" "+c.Type)
	}
	want := []string{"tags ARRAY<VARCHAR>", "m MAP<VARCHAR, ARRAY<BIGINT>>", "d ROW<id BIGINT, name VARCHAR(3)>", "x BIGINT"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %q\nwant %q", got, want)
	}
}

// TestRewrittenOperatorsTakeImplicitAliases: a construct the parser rewrites
// with its right operand inside the call (IS [NOT] DISTINCT FROM, [NOT]
// SIMILAR TO) ends where its operand ends, so a bare alias after it names the
// column, as after any other expression (SPEC 2: `expr alias`).
func TestRewrittenOperatorsTakeImplicitAliases(t *testing.T) {
	operands := []string{"2", "'a%'", "b", "t.b", "`b c`", "UPPER(b)", "ARRAY[1, 2]", "x[1]", "14 DIV 2", "b MOD 3", "1 + f(b)", "'a' || b", "(b)"}
	ops := []string{"IS DISTINCT FROM", "IS NOT DISTINCT FROM", "SIMILAR TO", "NOT SIMILAR TO"}
	for _, op := range ops {
		for _, rhs := range operands {
			for _, alias := range []string{"e", "`my col`", "AS e2"} {
				src := "SELECT a " + op + " " + rhs + " " + alias + ", 1 AS z FROM t"
				sc, err := Parse("t.sql", src)
				if err != nil {
					t.Errorf("%s: %s", src, FormatError("t.sql", src, err.(*Error)))
					continue
				}
				fields := sc.Stmts[0].(*Select).Query.Fields.Fields
				want := strings.Trim(strings.TrimPrefix(alias, "AS "), "`")
				if len(fields) != 2 || fields[0].AsName.O != want || fields[1].AsName.O != "z" {
					t.Errorf("%s: fields %d, first alias %q, want %q", src, len(fields), fields[0].AsName.O, want)
				}
			}
		}
	}
}

// TestInSubqueryRelation: the subquery of `x [NOT] IN (…)` that is more
// than a SELECT of one stream (a join, UNION ALL, GROUP BY, HAVING,
// DISTINCT, ORDER BY, LIMIT, WITH) is read as a relation, as a subquery in
// FROM (SPEC 2.6): TiDB sees `x IN (SELECT * FROM placeholder)` and the
// Select's Derived holds the subquery, with its own joins; every offset
// after it stays exact. A plain one, and EXISTS (which correlates), are
// left to the planner's semi/anti join as they are.
func TestInSubqueryRelation(t *testing.T) {
	for _, tc := range []struct {
		src      string
		relation bool
	}{
		{"SELECT * FROM a WHERE a.x IN (SELECT b.x FROM b ANTI JOIN c ON b.y = c.y) AND a.z > 1", true},
		{"SELECT * FROM a WHERE a.x NOT IN (SELECT x FROM b UNION ALL SELECT x FROM c) AND a.z > 1", true},
		{"SELECT * FROM a WHERE a.x IN (SELECT x FROM b GROUP BY x HAVING COUNT(*) > 1) AND a.z > 1", true},
		{"SELECT * FROM a WHERE a.x IN (SELECT DISTINCT x FROM b) AND a.z > 1", true},
		{"SELECT * FROM a WHERE a.x IN (SELECT b.x FROM b, c WHERE b.y = c.y) AND a.z > 1", true},
		{"SELECT * FROM a WHERE a.x IN (WITH q AS (SELECT x FROM b) SELECT x FROM q) AND a.z > 1", true},
		{"SELECT * FROM a WHERE a.x IN (SELECT x FROM b WHERE b.y = a.y) AND a.z > 1", false},
		{"SELECT * FROM a WHERE a.x IN (SELECT x FROM (SELECT x FROM b) q) AND a.z > 1", false},
		{"SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b JOIN c ON b.y = c.y WHERE b.x = a.x) AND a.z > 1", false},
	} {
		sel := parseOne(t, tc.src).(*Select)
		var rel *Relation
		for _, r := range sel.Derived {
			if r.Start == at(t, tc.src, "IN (", 0)+len("IN (") {
				rel = r
			}
		}
		if (rel != nil) != tc.relation {
			t.Errorf("%q: read as a relation %v, want %v (%v)", tc.src, rel != nil, tc.relation, sel.Derived)
			continue
		}
		if rel != nil {
			if len(rel.Selects) == 0 {
				t.Errorf("%q: a relation of no SELECT", tc.src)
			}
			if strings.Contains(tc.src, "ANTI JOIN c") {
				kinds := map[JoinKind]bool{}
				for _, k := range rel.Selects[0].Joins {
					kinds[k] = true
				}
				if !kinds[AntiJoin] {
					t.Errorf("%q: the relation's joins %v lack its ANTI JOIN", tc.src, rel.Selects[0].Joins)
				}
			}
		}
		// the conjunct after it is where it was written
		var z *ast.ColumnNameExpr
		for _, c := range collect[*ast.ColumnNameExpr](sel.Query) {
			if c.Name.Name.L == "z" {
				z = c
			}
		}
		if z == nil || sel.Locate(z) != strings.LastIndex(tc.src, "a.z") {
			t.Errorf("%q: a.z not found at its offset %d", tc.src, strings.LastIndex(tc.src, "a.z"))
		}
	}
}
