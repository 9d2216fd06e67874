package parser

import (
	"strings"
	"testing"
	"unicode/utf8"

	"streamql/internal/termtext"
)

// caretLine returns the excerpt line and the caret line of a FormatError text.
func caretLine(t *testing.T, out string) (string, string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) < 4 {
		t.Fatalf("FormatError gave %q", out)
	}
	return strings.TrimPrefix(lines[len(lines)-2], "  "), strings.TrimPrefix(lines[len(lines)-1], "  ")
}

func TestNestingLimit(t *testing.T) {
	deep := func(open, leaf, close string, n int) string {
		return "SELECT " + strings.Repeat(open, n) + leaf + strings.Repeat(close, n) + " AS x FROM t"
	}
	for _, tc := range []struct {
		name  string
		src   func(n int) string
		token string // the token at the first level past the limit
	}{
		{"parentheses", func(n int) string { return deep("(", "a", ")", n) }, "("},
		{"function calls", func(n int) string { return deep("CONCAT(s, ", "s", ")", n) }, "("},
		{"subqueries", func(n int) string {
			return "SELECT a FROM t WHERE a IN " + strings.Repeat("(SELECT a FROM t WHERE a IN ", n-1) + "(1" + strings.Repeat(")", n)
		}, "("},
		{"CASE", func(n int) string { return deep("CASE WHEN b THEN ", "1", " END", n) }, "CASE"},
		{"NOT", func(n int) string { return deep("NOT ", "b", "", n) }, "NOT"},
		{"signs", func(n int) string { return deep("- ", "a", "", n) }, "-"},
		{"NOT and parentheses", func(n int) string { return deep("NOT (", "b", ")", n/2) }, "NOT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse("ok.sql", tc.src(MaxNesting)); err != nil && strings.Contains(err.Error(), "nests deeper") {
				t.Fatalf("%d levels refused: %v", MaxNesting, err)
			}
			for _, n := range []int{MaxNesting + 2, 100 * MaxNesting} {
				src := tc.src(n)
				_, err := Parse("deep.sql", src)
				e, ok := err.(*Error)
				if !ok || !strings.Contains(e.Msg, "nests deeper than 1000 levels") {
					t.Fatalf("%d levels: err = %v, want the nesting error", n, err)
				}
				if !strings.HasPrefix(src[e.Offset:], tc.token) {
					t.Errorf("%d levels: error at %q, want at %q", n, termtext.Shorten(src[e.Offset:], 10), tc.token)
				}
				out := FormatError("deep.sql", src, e)
				if !strings.Contains(out, "deep.sql, line 1, column ") {
					t.Errorf("no position in %q", out)
				}
				line, caret := caretLine(t, out)
				if w := width(line, 1<<20); w > 84 {
					t.Errorf("excerpt is %d columns wide", w)
				}
				if !strings.HasSuffix(caret, "^") || !strings.HasPrefix(string([]rune(line)[len(caret)-1:]), tc.token) {
					t.Errorf("caret not under %q:\n%s\n%s", tc.token, line, caret)
				}
			}
		})
	}
	// a chain of more than MaxOperators operators is refused at the operator
	for _, op := range []string{" + ", " AND ", " || "} {
		src := "SELECT " + strings.Repeat("a"+op, MaxOperators+1) + "a FROM t"
		_, err := Parse("chain.sql", src)
		e, ok := err.(*Error)
		if !ok || !strings.Contains(e.Msg, "chains more than 50000 operators") {
			t.Fatalf("%q chain: err = %v", op, err)
		}
		if want := len("SELECT ") + MaxOperators*len("a"+op) + len("a "); e.Offset != want {
			t.Errorf("%q chain: error at %d, want %d", op, e.Offset, want)
		}
		src = "SELECT " + strings.Repeat("a"+op, MaxOperators) + "a FROM t"
		if _, err := Parse("chain.sql", src); err != nil {
			t.Errorf("%q chain of %d: %v", op, MaxOperators, err)
		}
	}
	// flat lists and long operator chains are not nesting
	for _, src := range []string{
		"SELECT a FROM t WHERE " + strings.Repeat("NOT b AND ", 5000) + "b",
		"SELECT " + strings.Repeat("a - ", 5000) + "a FROM t",
		"SELECT " + strings.Repeat("(a) + ", 5000) + "a FROM t",
		"SELECT " + strings.Repeat("a + a, ", MaxOperators) + "a FROM t", // the count restarts at each ','
		"SELECT " + strings.Repeat("(a + a) + ", MaxOperators/2) + "a FROM t",
		"SELECT a FROM t WHERE a IN (" + strings.Repeat("1, ", 5000) + "1)",
		"SELECT " + strings.Repeat("CASE WHEN b THEN 1 END + ", 3000) + "1 FROM t",
	} {
		if _, err := Parse("flat.sql", src); err != nil {
			t.Errorf("%s...: %v", src[:40], err)
		}
	}
}

func TestFormatErrorLongLine(t *testing.T) {
	// a 1.3 MB line with the error in the middle: an 80-column window around it
	pre := strings.Repeat("a + ", 160000)
	src := "SELECT " + pre + "a a a FROM t WHERE " + strings.Repeat("b AND ", 100000) + "b;"
	_, err := Parse("long.sql", src)
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	out := FormatError("long.sql", src, e)
	if len(out) > 1000 {
		t.Fatalf("FormatError printed %d bytes for a long line", len(out))
	}
	line, caret := caretLine(t, out)
	if !strings.HasPrefix(line, "…") || !strings.HasSuffix(line, "…") {
		t.Errorf("cut line not marked with …: %q", line)
	}
	if w := width(line, 1<<20); w < 70 || w > 82 {
		t.Errorf("excerpt is %d columns wide, want about 80", w)
	}
	// the caret stands under the offending token
	k := utf8.RuneCountInString(caret) - 1
	if got := string([]rune(line)[k:]); !strings.HasPrefix(got, src[e.Offset:e.Offset+1]) {
		t.Errorf("caret under %q, error at %q", got, src[e.Offset:e.Offset+5])
	}
	if !strings.Contains(out, "long.sql, line 1, column ") {
		t.Errorf("no position: %q", out)
	}

	// cut on one side only
	for _, tc := range []struct {
		src       string
		off       int
		pre, post bool
	}{
		{strings.Repeat("x", 200), 3, false, true},
		{strings.Repeat("x", 200), 197, true, false},
		{strings.Repeat("x", 80), 40, false, false},
	} {
		line, caret := caretLine(t, FormatError("", tc.src, &Error{Offset: tc.off, Msg: "m"}))
		if strings.HasPrefix(line, "…") != tc.pre || strings.HasSuffix(line, "…") != tc.post {
			t.Errorf("offset %d of %d: excerpt %q", tc.off, len(tc.src), line)
		}
		if w := width(line, 1<<20); w > 80 {
			t.Errorf("excerpt %d columns", w)
		}
		if len(caret) == 0 || caret[len(caret)-1] != '^' {
			t.Errorf("caret %q", caret)
		}
	}
}

func TestFormatErrorWideAndControlCharacters(t *testing.T) {
	// CJK characters are two columns wide, also in a cut line
	src := strings.Repeat("设备", 100) + "x" + strings.Repeat("设备", 100)
	off := strings.IndexByte(src, 'x')
	line, caret := caretLine(t, FormatError("", src, &Error{Offset: off, Msg: "m"}))
	before, _, found := strings.Cut(line, "x")
	if !found || width(before, 1<<20) != len(caret)-1 {
		t.Errorf("caret at column %d, x at column %d:\n%s\n%s", len(caret)-1, width(before, 1<<20), line, caret)
	}
	if w := width(line, 1<<20); w > 80 {
		t.Errorf("excerpt %d columns", w)
	}
	// control characters never reach the terminal: shown as \xNN, caret still under
	// the token
	src = "SELECT '\x1b]0;pwned\x07', \u0085 FORM t"
	out := FormatError("c.sql", src, &Error{Offset: strings.Index(src, "FORM"), Msg: "bad\x1b[2J"})
	if strings.ContainsAny(out, "\x1b\x07\u0085") {
		t.Errorf("control characters printed raw: %q", out)
	}
	line, caret = caretLine(t, out)
	if !strings.Contains(line, `\x1b]0;pwned\x07`) || !strings.Contains(line, `\x85`) {
		t.Errorf("control characters not escaped: %q", line)
	}
	if !strings.HasPrefix(string([]rune(line)[utf8.RuneCountInString(caret)-1:]), "FORM") {
		t.Errorf("caret not under FORM:\n%s\n%s", line, caret)
	}
}

func TestSideNameControlCharacters(t *testing.T) {
	for _, name := range []string{"a\x00b", "a\nb", "a\rb", "\tx", "x\x1b[31m", "x\x7f", "x\u0085", "x\u009b"} {
		for _, src := range []string{
			"SELECT a INTO SIDE '" + name + "' FROM t",
			"SELECT a FROM t INTO SIDE '" + name + "'",
			"DROP SIDE '" + name + "'",
		} {
			_, err := Parse("s.sql", src)
			e, ok := err.(*Error)
			if !ok || !strings.Contains(e.Msg, "control characters") {
				t.Errorf("%q: err = %v, want the control character error", src, err)
				continue
			}
			if src[e.Offset] != '\'' {
				t.Errorf("%q: error at %d, want at the side name", src, e.Offset)
			}
			if out := FormatError("s.sql", src, e); strings.ContainsAny(out, "\x00\r\x1b\x7f\u0085\u009b") {
				t.Errorf("%q: message prints control characters: %q", src, out)
			}
			// the message itself names the character as \xNN, a tab too
			// (the echoed source line keeps its tabs for the caret)
			if strings.ContainsFunc(e.Msg, func(r rune) bool { return termtext.IsControl(r) || r == '\t' }) || !strings.Contains(e.Msg, `\x`) {
				t.Errorf("%q: message shows a control character raw: %q", src, e.Msg)
			}
		}
	}
	for _, name := range []string{"low-tmp", "设备", "a b", "x.y"} {
		if _, err := Parse("s.sql", "SELECT a INTO SIDE '"+name+"' FROM t"); err != nil {
			t.Errorf("side name %q: %v", name, err)
		}
	}
}

func TestReservedWordsAsNames(t *testing.T) {
	words := ReservedWords()
	if len(words) < 100 || !IsReserved("select") || !IsReserved("From") || IsReserved("temperature") {
		t.Fatalf("reserved words: %d, select %v", len(words), IsReserved("select"))
	}
	for _, w := range words {
		lw := strings.ToLower(w)
		// bare: refused with the reserved-word message, at the word
		for _, src := range []string{
			"CREATE STREAM " + lw + " (a BIGINT)",
			"CREATE STREAM s (" + lw + " BIGINT)",
			"CREATE STREAM s (a BIGINT, WATERMARK FOR " + lw + " AS a)",
			"DROP STREAM " + lw,
			"DESCRIBE " + lw,
		} {
			_, err := Parse("r.sql", src)
			e, ok := err.(*Error)
			want := w + " is a reserved word: write `" + lw + "` to use it as a name"
			if !ok || e.Msg != want {
				t.Errorf("%s: err = %v, want %q", src, err, want)
				continue
			}
			if !strings.HasPrefix(src[e.Offset:], lw) {
				t.Errorf("%s: error at %q", src, src[e.Offset:])
			}
		}
		// back-quoted: a name everywhere
		q := "`" + lw + "`"
		src := "CREATE STREAM " + q + " (" + q + " BIGINT, WATERMARK FOR " + q + " AS " + q + " - 1) WITH ('connector' = 'values');\n" +
			"INSERT INTO " + q + " (" + q + ") VALUES (1);\n" +
			"SELECT " + q + ", " + q + " + 1 AS y INTO SIDE '" + lw + "' FROM " + q + " WHERE " + q + " > 0;\n" +
			"SELECT " + q + ".* FROM " + q + " SEMI JOIN " + q + " AS o ON " + q + "." + q + " = o." + q + ";\n" +
			"DESCRIBE " + q + "; DROP STREAM " + q
		if _, err := Parse("q.sql", src); err != nil {
			t.Errorf("back-quoted %s: %v", w, err)
		}
	}
	// the query that reads such a name bare gets the same message
	_, err := Parse("r.sql", "SELECT * FROM select")
	if e, ok := err.(*Error); !ok || !strings.Contains(e.Msg, "SELECT is a reserved word: write `select` to use it as a name") {
		t.Errorf("SELECT * FROM select: %v", err)
	}
}

func TestErrorsKnowTheirScript(t *testing.T) {
	a := "-- a.sql\nCREATE STREAM s (ts BIGINT,\n  WATERMARK FOR ts AS ts - 'x') WITH ('connector' = 'values');"
	sa, err := Parse("a.sql", a)
	if err != nil {
		t.Fatal(err)
	}
	wm := sa.Stmts[0].(*CreateStream).Watermark
	if wm.File != sa.File || sa.File.Name() != "a.sql" || sa.File.Source() != a {
		t.Fatalf("watermark file %v, script file %v", wm.File, sa.File)
	}
	b := "SELECT 1;\nSELECT 2;\nSELECT * FROM s;"
	// an error at the watermark, reported while b.sql runs, renders in a.sql
	e := &Error{Offset: wm.Pos, Msg: "bad watermark"}
	if err := wm.File.Attach(e); err != e || e.File != sa.File {
		t.Fatal("Attach did not record the file")
	}
	out := FormatError("b.sql", b, e)
	want := "bad watermark\na.sql, line 3, column 23:\n    WATERMARK FOR ts AS ts - 'x') WITH ('connector' = 'values');\n                        ^"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if got := e.Pos().String(); got != "a.sql, line 3, column 23" {
		t.Errorf("Pos = %s", got)
	}
	// an error without a file is in the script being run
	if out := FormatError("b.sql", b, &Error{Offset: 20, Msg: "m"}); !strings.HasPrefix(out, "m\nb.sql, line 3, column 1:") {
		t.Errorf("got %q", out)
	}
	// Parse's own errors carry their file
	_, err = Parse("c.sql", "SELECT 1;\nSELECT * FORM t")
	if pe, ok := err.(*Error); !ok || pe.File.Name() != "c.sql" {
		t.Errorf("parse error %v has no file", err)
	}
	// Attach leaves an error that has a file alone
	other := NewFile("d.sql", "x")
	if other.Attach(e); e.File != sa.File {
		t.Error("Attach replaced the file")
	}
}
