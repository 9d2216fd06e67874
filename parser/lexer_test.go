package parser

import (
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	type tk struct {
		k    TokenKind
		text string
	}
	tests := []struct {
		src  string
		want []tk
	}{
		{"SELECT a,b FROM t;", []tk{{TokIdent, "SELECT"}, {TokIdent, "a"}, {TokOp, ","}, {TokIdent, "b"}, {TokIdent, "FROM"}, {TokIdent, "t"}, {TokSemicolon, ";"}}},
		{`'C:\new' 'it''s' '\'`, []tk{{TokString, `'C:\new'`}, {TokString, `'it''s'`}, {TokString, `'\'`}}},
		{"`a``b` \"x\"\"y\" 设备", []tk{{TokQuotedIdent, "`a``b`"}, {TokQuotedIdent, `"x""y"`}, {TokIdent, "设备"}}},
		{"a -- c;\nb # d;\n/* e; */c", []tk{{TokIdent, "a"}, {TokComment, "-- c;"}, {TokIdent, "b"}, {TokComment, "# d;"}, {TokComment, "/* e; */"}, {TokIdent, "c"}}},
		{"1--1", []tk{{TokNumber, "1"}, {TokOp, "-"}, {TokOp, "-"}, {TokNumber, "1"}}},
		{"a --", []tk{{TokIdent, "a"}, {TokComment, "--"}}},
		{"42 4.2 .5 1e3 1.5E-2 0x1F 1abc 5.", []tk{{TokNumber, "42"}, {TokNumber, "4.2"}, {TokNumber, ".5"}, {TokNumber, "1e3"}, {TokNumber, "1.5E-2"}, {TokNumber, "0x1F"}, {TokIdent, "1abc"}, {TokNumber, "5."}}},
		{"a<=>b<=c<>d!=e||f>=g", []tk{{TokIdent, "a"}, {TokOp, "<=>"}, {TokIdent, "b"}, {TokOp, "<="}, {TokIdent, "c"}, {TokOp, "<>"}, {TokIdent, "d"}, {TokOp, "!="}, {TokIdent, "e"}, {TokOp, "||"}, {TokIdent, "f"}, {TokOp, ">="}, {TokIdent, "g"}}},
		{"s.* x", []tk{{TokIdent, "s"}, {TokOp, "."}, {TokOp, "*"}, {TokIdent, "x"}}},
		{"'abc", []tk{{TokError, "'abc"}}},
		{"a /* x", []tk{{TokIdent, "a"}, {TokError, "/* x"}}},
		{"`abc", []tk{{TokError, "`abc"}}},
		{"", nil},
		{"\ufeffRUN", []tk{{TokIdent, "RUN"}}},
	}
	for _, tc := range tests {
		got := Tokens(tc.src)
		var g []tk
		for _, x := range got {
			g = append(g, tk{x.Kind, x.Text})
			if tc.src[x.Offset:x.End()] != x.Text {
				t.Errorf("%q: token %q at %d does not match the source", tc.src, x.Text, x.Offset)
			}
		}
		if len(g) != len(tc.want) {
			t.Errorf("Tokens(%q) = %v, want %v", tc.src, g, tc.want)
			continue
		}
		for i := range g {
			if g[i] != tc.want[i] {
				t.Errorf("Tokens(%q)[%d] = %v, want %v", tc.src, i, g[i], tc.want[i])
			}
		}
	}
}

func TestTokenValue(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`'C:\new'`, `C:\new`},
		{`'it''s'`, `it's`},
		{"`a``b`", "a`b"},
		{`"x""y"`, `x"y`},
		{`''`, ``},
		{`abc`, `abc`},
	} {
		toks := Tokens(tc.src)
		if len(toks) != 1 || toks[0].Value() != tc.want {
			t.Errorf("Tokens(%q) value = %v, want %q", tc.src, toks, tc.want)
		}
	}
	// A backslash is an ordinary character: C, :, \, n, e, w (no newline).
	if v := Tokens(`'C:\new'`)[0].Value(); v != "C:"+"\\"+"new" || strings.Contains(v, "\n") {
		t.Errorf("backslash must be an ordinary character: %q", v)
	}
}

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"", true},
		{"   \n", true},
		{"-- only a comment", true},
		{"/* c */ # d", true},
		{"SELECT 1;", true},
		{"SELECT 1;  -- trailing", true},
		{"SELECT 1; /* x */ \n", true},
		{"SELECT 1", false},
		{"SELECT 1; SELECT 2", false},
		{"SELECT ';", false},
		{"SELECT ';';", true},
		{"SELECT `a;", false},
		{"SELECT \"a;\";", true},
		{"SELECT 1 /* ; */", false},
		{"SELECT 1 /* ;", false},
		{"SELECT 1 -- ;", false},
		{"SELECT 1 # ;\n;", true},
		{"SELECT 'it''s;'", false},
		{`SELECT 'C:\';`, true},
	} {
		if got := Complete(tc.src); got != tc.want {
			t.Errorf("Complete(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	src := "-- head\n;; SELECT 1 ; /* c */\nSHOW STREAMS -- x\n;RUN"
	sc, err := Parse("t", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range sc.Stmts {
		s, e := st.Span()
		got = append(got, src[s:e])
	}
	want := []string{"SELECT 1", "SHOW STREAMS", "RUN"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("spans = %q, want %q", got, want)
	}
	for _, src := range []string{"", ";;;", "-- c\n/* d */ ; # e"} {
		sc, err := Parse("t", src)
		if err != nil || len(sc.Stmts) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want no statements", src, sc, err)
		}
	}
}
