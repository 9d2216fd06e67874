package parser

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/internal/termtext"
)

var fuzzSeeds = []string{
	"",
	";;",
	"-- c\n/* d */ # e",
	"CREATE STREAM IF NOT EXISTS `传感器` (设备 VARCHAR(20), ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'file', 'path' = 'it''s.csv');",
	"CREATE STREAM s (a BIGINT, WATERMARK FOR a AS CAST(a AS INT) - 1)",
	"SELECT deviceNo, temperature INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10;\nSELECT * FROM sensors;",
	"SELECT o.* FROM orders o SEMI JOIN allowed a ON o.product = a.product",
	"SELECT * FROM a JOIN b ON a.x = b.x ANTI JOIN c ON a.y = c.y, d",
	"SELECT * FROM orders WHERE product IN (SELECT product FROM allowed) AND NOT EXISTS (SELECT 1 FROM b WHERE b.p = orders.p)",
	"SELECT CAST(a AS INT), CAST(b AS VARCHAR(10)), CONVERT(c, BOOLEAN), BINARY d FROM t LIMIT 3",
	"SELECT a FROM t WHERE s LIKE 'a!%' ESCAPE '!' INTO SIDE 'x'",
	"INSERT INTO s (a, b) VALUES (1, 'C:\\new'), (2, 'it''s')",
	"EXPLAIN SELECT a || b FROM t",
	"SHOW STREAMS; SHOW SIDES; DROP SIDE 'x'; DESCRIBE s; DESC s; RUN; SET 'format' = 'csv'; DROP STREAM IF EXISTS s",
	"SELECT * FORM t",
	"SELECT 'abc",
	"SELECT `a",
	"SELECT /* x",
	"SELECT f(INTERVAL '5' SECOND) FROM t",
	"SELECT a FROM t UNION SELECT b FROM u",
	"SELECT * FROM (a, b) JOIN c ON (a.x, b.y) = (c.x, c.y)",
	"SELECT TRIM(BOTH 'x' FROM a), SUBSTRING(a FROM 2 FOR 3), EXTRACT(YEAR FROM ts) FROM t",
	"SELECT a FROM t WHERE a IN (1, 2) AND b BETWEEN 1 AND 2 AND c IS NOT NULL AND CASE WHEN a THEN b ELSE c END",
	"SELECT ts - INTERVAL '0.001' SECOND, INTERVAL 1 DAY + ts, DATE_ADD(ts, INTERVAL 1 SECOND) FROM t",
	"SELECT a INTO SIDE 'x' FROM t INTO SIDE 'y'",
	"SELECT 1 INTO SIDE '" + strings.Repeat("侧", 65) + "'",
	"SELECT\t设备,\r\n'温度' FROM 传感器 WHERE 设备 = = 'x';",
	"SELECT * FROM a AS semi JOIN b ON semi.k = b.k",
	"SELECT * FROM a LEFT SEMI JOIN b ON a.k = b.k",
	"SELECT /*! a, */ b FROM t",
	"SELECT a FROM t WHERE x = " + strings.Repeat("1 + ", 700) + "1 FORM",
	// Found by fuzzing: TiDB's literal driver panics on DECIMAL literals over 81 digits.
	"(00000000010000000000000000000000000000000000000000000000000000000000000000000000000",
	"\ufeffSELECT 1",
	// issue 9: nesting at and past the limit, long lines, control characters in
	// side names, reserved words as names
	"SELECT " + strings.Repeat("(", MaxNesting) + "a" + strings.Repeat(")", MaxNesting) + " FROM t",
	"SELECT " + strings.Repeat("CONCAT(s, ", MaxNesting+1) + "s" + strings.Repeat(")", MaxNesting+1) + " FROM t",
	"SELECT a FROM t WHERE " + strings.Repeat("NOT ", MaxNesting+1) + "b",
	"SELECT " + strings.Repeat("CASE WHEN b THEN ", MaxNesting+1) + "1" + strings.Repeat(" END", MaxNesting+1) + " FROM t",
	"SELECT " + strings.Repeat("- ", MaxNesting+1) + "a FROM t",
	"SELECT " + strings.Repeat("a + ", 20000) + "a FORM t",
	"SELECT '" + strings.Repeat("设备", 5000) + "' FORM t",
	"SELECT a INTO SIDE 'a\x00b' FROM t",
	"SELECT a FROM t INTO SIDE 'x\ny'",
	"DROP SIDE '\x1b]0;title\x07'",
	"SELECT a INTO SIDE 'x\u0085' FROM t",
	"SELECT '\x1b[2J' FORM t",
	"CREATE STREAM select (a BIGINT)",
	"CREATE STREAM s (from BIGINT, WATERMARK FOR from AS from - 1)",
	"CREATE STREAM `select` (`from` BIGINT, WATERMARK FOR `from` AS `from` - 1); SELECT `from` FROM `select`",
	"CREATE STREAM if (a BIGINT); DROP STREAM if; DESCRIBE select",
	"SELECT * FROM select",
	// issue 11: window TVFs, GROUP BY, HAVING, aggregates, LATE INTO SIDE
	"SELECT window_start, window_end, d, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, d HAVING n > 2 LATE INTO SIDE 'late-s';",
	"SELECT * FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND, INTERVAL '-2' SECOND)) AS w",
	"SELECT window_start, LISTAGG(p, ' > '), FIRST_VALUE(p), LAST_VALUE(p) FROM TABLE(SESSION(TABLE v PARTITION BY uid, k2, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY uid, k2, window_start, window_end",
	"SELECT COUNT(DISTINCT a) INTO SIDE 'x' FROM TABLE(CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL 1 SECOND, INTERVAL 4 SECOND)) w SEMI JOIN b ON w.k = b.k GROUP BY window_start, window_end LIMIT 3 LATE INTO SIDE 'l'",
	"SELECT * FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts)))",
	"SELECT * FROM TABLE(TUMBLE(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1.5' MILLISECOND))",
	"SELECT * FROM TABLE(SESSION(TABLE s PARTITION BY, DESCRIPTOR(ts), INTERVAL '1' SECOND)",
	"SELECT a FROM t LATE INTO SIDE 'x' WHERE a > 1",
	"SELECT a FROM t LATE INTO SIDE",
	"SELECT * FROM TABLE(",
	"SELECT * FROM t WHERE a IN (SELECT b FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ts), INTERVAL '1' SECOND)))",
}

// FuzzParse checks that Parse never panics, that errors point into the source,
// and that every node of a parsed statement is located inside the source.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				panic(fmt.Sprintf("HANG on %q", src))
			}
		}()
		sc, err := Parse("fuzz.sql", src)
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("error %T: %v", err, err)
			}
			if e.Offset < 0 || e.Offset > len(src) {
				t.Fatalf("offset %d outside [0, %d]: %s", e.Offset, len(src), e.Msg)
			}
			if strings.HasPrefix(e.Msg, "internal error") || strings.Contains(e.Msg, "line 1 column") {
				t.Fatalf("bad message: %s", e.Msg)
			}
			out := FormatError("fuzz.sql", src, e)
			for _, r := range out {
				if termtext.IsControl(r) && r != '\n' {
					t.Fatalf("FormatError prints control character %U: %q", r, out)
				}
			}
			if lines := strings.Split(out, "\n"); width(lines[len(lines)-2], 1000) > excerptWidth+2 {
				t.Fatalf("excerpt wider than %d columns: %q", excerptWidth, lines[len(lines)-2])
			}
			return
		}
		check := func(loc Locator, root ast.Node) {
			if root == nil || loc == nil {
				return
			}
			for _, n := range collect[ast.Node](root) {
				if p := loc(n); p < 0 || p > len(src) {
					t.Fatalf("Locate(%T) = %d outside [0, %d]", n, p, len(src))
				}
			}
		}
		for _, st := range sc.Stmts {
			s, e := st.Span()
			if s < 0 || s > e || e > len(src) {
				t.Fatalf("span %d, %d outside [0, %d]", s, e, len(src))
			}
			switch x := st.(type) {
			case *Select:
				check(x.Locate, x.Query)
			case *Explain:
				check(x.Query.Locate, x.Query.Query)
			case *Insert:
				for _, row := range x.Rows {
					for _, v := range row {
						check(x.Locate, v)
					}
				}
			case *CreateStream:
				if x.Watermark != nil {
					check(x.Watermark.Locate, x.Watermark.Expr)
				}
			}
		}
	})
}

// FuzzSplit checks the tokenizer: tokens tile the source (only whitespace
// between them), an error token can only come last, and Complete agrees with
// the tokens.
func FuzzSplit(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks := Tokens(src)
		pos := 0
		if strings.HasPrefix(src, "\ufeff") {
			pos = 3
		}
		lastSig := TokComment
		for i, tk := range toks {
			if tk.Offset < pos || tk.Text == "" || tk.End() > len(src) || src[tk.Offset:tk.End()] != tk.Text {
				t.Fatalf("token %d %+v does not tile the source (pos %d)", i, tk, pos)
			}
			if strings.Trim(src[pos:tk.Offset], " \t\r\n\f\v") != "" {
				t.Fatalf("non-space %q skipped before token %d", src[pos:tk.Offset], i)
			}
			if tk.Kind == TokError && i != len(toks)-1 {
				t.Fatalf("error token %d is not last", i)
			}
			if tk.Kind != TokComment {
				lastSig = tk.Kind
			}
			pos = tk.End()
		}
		if strings.Trim(src[pos:], " \t\r\n\f\v") != "" {
			t.Fatalf("non-space %q after the last token", src[pos:])
		}
		want := lastSig == TokSemicolon || lastSig == TokComment
		if got := Complete(src); got != want {
			t.Fatalf("Complete = %v, want %v", got, want)
		}
		for _, rs := range split(toks) {
			if rs.start < 0 || rs.start >= rs.end || rs.end > len(src) || len(rs.toks) == 0 {
				t.Fatalf("bad statement %+v", rs)
			}
			for _, tk := range rs.toks {
				if tk.Kind == TokSemicolon || tk.Kind == TokComment {
					t.Fatalf("statement holds %+v", tk)
				}
			}
		}
	})
}

func TestParseLargeInputs(t *testing.T) {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i := range 8000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("CAST(a AS INT) + b")
	}
	b.WriteString(" FROM t WHERE ")
	b.WriteString(strings.Repeat("(", MaxNesting) + "a" + strings.Repeat(")", MaxNesting)) // as deep as allowed
	b.WriteString(";\n")
	src := strings.Repeat(b.String(), 2)
	if _, err := Parse("big.sql", src); err != nil {
		t.Fatal(err)
	}
}
