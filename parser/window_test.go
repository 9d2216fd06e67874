package parser

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// TestWindowTVF: SPEC 2.4's window functions are peeled off before TiDB, with
// their arguments in milliseconds and positions; LATE INTO SIDE is the last clause.
func TestWindowTVF(t *testing.T) {
	src := "SELECT window_start, COUNT(*) AS n, FIRST_VALUE(x) FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '0.01' MINUTE, INTERVAL '-2' SECOND)) AS w\n GROUP BY window_start, window_end HAVING n > 1 LATE INTO SIDE 'late-x'"
	sc, err := Parse("q.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	sel := sc.Stmts[0].(*Select)
	w := sel.Window
	if w == nil || w.Func != "HOP" || w.Stream != "s" || w.TimeCol != "ts" || len(w.Args) != 3 {
		t.Fatalf("window %+v", w)
	}
	if w.Args[0].Ms != 5000 || w.Args[1].Ms != 600 || w.Args[2].Ms != -2000 {
		t.Errorf("args %+v", w.Args)
	}
	if w.StreamPos != strings.Index(src, "s, DESCRIPTOR") || w.TimeColPos != strings.Index(src, "ts)") {
		t.Errorf("positions %d %d", w.StreamPos, w.TimeColPos)
	}
	if sel.Late != "late-x" || sel.LatePos != strings.Index(src, "'late-x'") {
		t.Errorf("late %q at %d", sel.Late, sel.LatePos)
	}
	ts := sel.Query.From.TableRefs.Left.(*ast.TableSource)
	if ts.Source.(*ast.TableName).Name.O != "s" || ts.AsName.O != "w" {
		t.Errorf("FROM %+v", ts)
	}
	if sel.Query.GroupBy == nil || sel.Query.Having == nil {
		t.Error("GROUP BY / HAVING lost")
	}
	fn, ok := sel.Query.Fields.Fields[2].Expr.(*ast.FuncCallExpr)
	if !ok || fn.FnName.L != "sq_firstval" {
		t.Errorf("FIRST_VALUE as %T", sel.Query.Fields.Fields[2].Expr)
	}
	s2 := "SELECT uid FROM TABLE(SESSION(TABLE v PARTITION BY uid, `k 2`, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY uid"
	sc, err = Parse("q.sql", s2)
	if err != nil {
		t.Fatal(err)
	}
	w = sc.Stmts[0].(*Select).Window
	if w.Func != "SESSION" || strings.Join(w.Partition, "|") != "uid|k 2" || w.Args[0].Ms != 5000 {
		t.Errorf("session %+v", w)
	}
	// a subquery as the table argument (Flink's forms, issue 23 item 4): a
	// placeholder relation of the query, which its FROM reads
	for _, s3 := range []string{
		"SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT k, ts FROM s WHERE k > 1), DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
		"SELECT window_start, COUNT(*) FROM TABLE(TUMBLE((SELECT k, ts FROM s WHERE k > 1), DESCRIPTOR(ts), INTERVAL '1' SECOND)) w GROUP BY window_start, window_end",
		"SELECT uid FROM TABLE(SESSION(TABLE (SELECT * FROM s UNION ALL SELECT * FROM u) PARTITION BY uid, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY uid",
	} {
		sc, err = Parse("q.sql", s3)
		if err != nil {
			t.Fatalf("%s: %v", s3, err)
		}
		sel := sc.Stmts[0].(*Select)
		w = sel.Window
		if w == nil {
			t.Fatalf("%s: no window", s3)
		}
		if rel := sel.Derived[w.Stream]; !IsPlaceholder(w.Stream) || rel == nil || w.StreamPos != strings.Index(s3, "(SELECT") || w.TimeCol != "ts" {
			t.Fatalf("%s: window %+v, relations %v", s3, w, sel.Derived)
		}
		if ts := sel.Query.From.TableRefs.Left.(*ast.TableSource); ts.Source.(*ast.TableName).Name.O != w.Stream {
			t.Errorf("%s: FROM reads %s, the window %s", s3, ts.Source.(*ast.TableName).Name.O, w.Stream)
		}
	}
}

// TestWindowErrors: each misuse of the window syntax is an error at its token,
// saying what to write.
func TestWindowErrors(t *testing.T) {
	cases := []struct{ src, at, msg string }{
		{"SELECT * FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts) ))", "))", "needs its size"},
		{"SELECT * FROM TABLE(ROLL(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND))", "ROLL", "TUMBLE, HOP, CUMULATE or SESSION"},
		{"SELECT * FROM TABLE(TUMBLE(s, DESCRIPTOR(ts), INTERVAL '1' SECOND))", "s,", "TABLE name (a stream, view or WITH name), TABLE (SELECT …) or (SELECT …)"},
		// (a table argument in parentheses that is no query, issue 23 item 4)
		{"SELECT * FROM TABLE(TUMBLE(TABLE (VALUES (1)), DESCRIPTOR(ts), INTERVAL '1' SECOND))", "(VALUES", "TABLE (SELECT …) or (SELECT …)"},
		{"SELECT * FROM TABLE(HOP((s), DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))", "(s)", "TABLE (SELECT …) or (SELECT …)"},
		{"SELECT * FROM TABLE(CUMULATE(TABLE 'x.csv', DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))", "'x.csv'", "CUMULATE's first argument is TABLE name"},
		{"SELECT * FROM TABLE(SESSION(TABLE))", "))", "SESSION's first argument is TABLE name"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE s, ts, INTERVAL '1' SECOND))", ", ts", "DESCRIPTOR(time_column)"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND))", "PARTITION", "SESSION's"},
		{"SELECT * FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND))", ", DESCRIPTOR", "PARTITION BY k"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' FORTNIGHT))", "FORTNIGHT", "needs a unit"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '0.0001' SECOND))", "'0.0001'", "whole number of milliseconds"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), 10))", "10", "is an INTERVAL"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '1' SECOND, INTERVAL '1' SECOND))", "INTERVAL '1' SECOND))", "at most 2"},
		{"SELECT a FROM t LATE INTO SIDE 'x' WHERE a > 1", "LATE", "last clause"},
		{"SELECT a FROM t LATE INTO SIDE x", "LATE", "LATE INTO SIDE 'name'"},
		// (a window TVF in a subquery parses, marked InSubquery: the planner
		// refuses it outside a window Top-N, planner/testdata/rules/rule_window)
	}
	for _, c := range cases {
		_, err := Parse("q.sql", c.src)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: got %v, want an *Error", c.src, err)
			continue
		}
		if want := strings.Index(c.src, c.at); e.Offset != want || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s:\n got %q at %d, want %q at %d", c.src, e.Msg, e.Offset, c.msg, want)
		}
	}
}
