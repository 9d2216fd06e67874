package parser

import (
	"strings"
	"unicode/utf8"
)

// TokenKind classifies a Token.
type TokenKind uint8

// The token kinds produced by Tokens.
const (
	// TokError is a lexical error: a string, quoted identifier or /* comment that is
	// never closed. Its Text runs to the end of the input.
	TokError TokenKind = iota
	// TokIdent is a bare word: an identifier or a keyword, as written (UTF-8 allowed).
	TokIdent
	// TokQuotedIdent is a `back-quoted` or "double-quoted" identifier, quotes included.
	TokQuotedIdent
	// TokString is a 'single-quoted' string, quotes included (only '' escapes).
	TokString
	// TokNumber is a numeric literal: 42, 1.5, .5, 1e3, 0x1F.
	TokNumber
	// TokOp is an operator or punctuation: ( ) , . * + - <= <> || ...
	TokOp
	// TokSemicolon is the statement terminator ';'.
	TokSemicolon
	// TokComment is a # or -- comment (to the end of the line, newline excluded) or a
	// /* */ comment.
	TokComment
)

var tokenKindNames = [...]string{"error", "identifier", "quoted identifier", "string", "number", "operator", "';'", "comment"}

// String returns a short lower-case name of the kind, for messages.
func (k TokenKind) String() string {
	if int(k) < len(tokenKindNames) {
		return tokenKindNames[k]
	}
	return "token"
}

// Token is one lexical token of streamql text.
type Token struct {
	Kind   TokenKind
	Text   string // the source text of the token, exactly as written
	Offset int    // byte offset of the token's first byte in the source
}

// End returns the byte offset just past the token.
func (t Token) End() int { return t.Offset + len(t.Text) }

// Value returns the token's value: the unquoted contents of a string or of a
// quoted identifier (a doubled quote character stands for one); Text for every
// other kind.
func (t Token) Value() string {
	switch t.Kind {
	case TokString, TokQuotedIdent:
		if len(t.Text) < 2 {
			return t.Text
		}
		q := t.Text[:1]
		return strings.ReplaceAll(t.Text[1:len(t.Text)-1], q+q, q)
	}
	return t.Text
}

// is reports whether t is the bare word w (case-insensitive).
func (t Token) is(w string) bool { return t.Kind == TokIdent && strings.EqualFold(t.Text, w) }

// isOp reports whether t is the operator or punctuation op.
func (t Token) isOp(op string) bool { return t.Kind == TokOp && t.Text == op }

// Tokens splits src into tokens, comments included, whitespace excluded. It never
// fails: an unterminated string, quoted identifier or /* comment becomes a final
// TokError token. Used by the REPL for Tab completion (SPEC 4, REPL).
func Tokens(src string) []Token {
	l := &lexer{src: src}
	for state := lexAny; state != nil; {
		state = state(l)
	}
	return l.toks
}

// Keywords returns the words of the dialect a REPL can offer for Tab completion:
// the statement words of streamql and the common SQL keywords, in upper case.
func Keywords() []string {
	return []string{
		"ANALYZE", // EXPLAIN ANALYZE (SPEC 3)
		"AND", "ANTI", "AS", "BETWEEN", "BIGINT", "BOOLEAN", "BY", "CASE", "CAST", "CREATE",
		"CURRENT_WATERMARK", "DESC", "DESCRIBE", "DISTINCT", "DOUBLE", "DROP", "ELSE", "END",
		"ESCAPE", "EXISTS", "EXPLAIN", "FALSE", "FOR", "FROM", "FUNCTIONS", "IF", "IN", "INSERT", "INTERVAL",
		"INTO", "IS", "JOIN", "LIKE", "LIMIT", "NOT", "NULL", "ON", "OR", "RUN", "SECOND",
		"SELECT", "SEMI", "SET", "SHOW", "SIDE", "SIDES", "STREAM", "STREAMS", "THEN",
		"TIMESTAMP", "TRUE", "VALUES", "VARCHAR", "WATERMARK", "WHEN", "WHERE", "WITH",
		// windows and aggregation (SPEC 2.4)
		"AVG", "COUNT", "CUMULATE", "DAY", "DESCRIPTOR", "FIRST_VALUE", "GROUP", "HAVING", "HOP",
		"HOUR", "LAST_VALUE", "LATE", "LISTAGG", "MAX", "MILLISECOND", "MIN", "MINUTE", "PARTITION",
		"SESSION", "STDDEV_POP", "STDDEV_SAMP", "SUM", "TABLE", "TUMBLE", "VAR_POP", "VAR_SAMP",
	}
}

// Complete reports whether src, a REPL buffer, holds complete statements: it ends
// with ';' outside strings, quoted identifiers and comments (trailing spaces and
// comments ignored), or holds nothing but spaces and comments. The REPL keeps
// reading lines while it returns false (SPEC 4, REPL).
func Complete(src string) bool {
	toks := Tokens(src)
	for i := len(toks) - 1; i >= 0; i-- {
		switch toks[i].Kind {
		case TokComment:
			continue
		case TokSemicolon:
			return true
		default:
			return false
		}
	}
	return true
}

// lexer is a state-function lexer in the style of text/template/parse: each state
// scans one token and returns the next state. It runs synchronously into a slice.
type lexer struct {
	src   string
	start int // start of the token being scanned
	pos   int // current position
	toks  []Token
}

type stateFn func(*lexer) stateFn

func (l *lexer) emit(k TokenKind) {
	l.toks = append(l.toks, Token{Kind: k, Text: l.src[l.start:l.pos], Offset: l.start})
	l.start = l.pos
}

func (l *lexer) peekByte(i int) byte {
	if l.pos+i < len(l.src) {
		return l.src[l.pos+i]
	}
	return 0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentByte reports whether c can continue a bare word. Every byte of a non-ASCII
// UTF-8 sequence counts, as in MySQL/TiDB, so 设备 is an identifier.
func isIdentByte(c byte) bool {
	return c >= 0x80 || c == '_' || c == '$' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isIdentStart(c byte) bool { return isIdentByte(c) && !isDigit(c) }

// lexAny skips whitespace and dispatches on the next byte.
func lexAny(l *lexer) stateFn {
	for l.pos < len(l.src) && isSpace(l.src[l.pos]) {
		l.pos++
	}
	if l.pos == 0 && strings.HasPrefix(l.src, "\ufeff") {
		l.pos = 3 // a UTF-8 byte order mark is not part of the text
		return lexAny
	}
	l.start = l.pos
	if l.pos >= len(l.src) {
		return nil
	}
	c := l.src[l.pos]
	switch {
	case c == '\'':
		return lexQuoted('\'', TokString)
	case c == '`':
		return lexQuoted('`', TokQuotedIdent)
	case c == '"':
		return lexQuoted('"', TokQuotedIdent)
	case c == '#':
		return lexLineComment
	case c == '-' && l.peekByte(1) == '-' && (l.pos+2 >= len(l.src) || l.src[l.pos+2] <= ' '):
		return lexLineComment
	case c == '/' && l.peekByte(1) == '*':
		return lexBlockComment
	case c == ';':
		l.pos++
		l.emit(TokSemicolon)
		return lexAny
	case isDigit(c) || (c == '.' && isDigit(l.peekByte(1))):
		return lexNumber
	case isIdentStart(c):
		return lexIdent
	}
	return lexOp
}

// lexQuoted scans a string or quoted identifier where a doubled quote character is
// the only escape (SPEC: a backslash is an ordinary character).
func lexQuoted(q byte, kind TokenKind) stateFn {
	return func(l *lexer) stateFn {
		l.pos++ // opening quote
		for l.pos < len(l.src) {
			if l.src[l.pos] == q {
				if l.peekByte(1) == q {
					l.pos += 2
					continue
				}
				l.pos++
				l.emit(kind)
				return lexAny
			}
			l.pos++
		}
		l.emit(TokError)
		return nil
	}
}

func lexLineComment(l *lexer) stateFn {
	if i := strings.IndexByte(l.src[l.pos:], '\n'); i >= 0 {
		l.pos += i
	} else {
		l.pos = len(l.src)
	}
	l.emit(TokComment)
	return lexAny
}

func lexBlockComment(l *lexer) stateFn {
	if i := strings.Index(l.src[l.pos+2:], "*/"); i >= 0 {
		l.pos += 2 + i + 2
		l.emit(TokComment)
		return lexAny
	}
	l.pos = len(l.src)
	l.emit(TokError)
	return nil
}

// lexNumber scans 42, 4.2, .42, 4e2, 4.2E-1, 0x2A, 0b101. Digits followed by letters
// (1abc) form a bare word, as in MySQL.
func lexNumber(l *lexer) stateFn {
	s := l.src
	if s[l.pos] == '0' && (l.peekByte(1) == 'x' || l.peekByte(1) == 'b') && isIdentByte(l.peekByte(2)) {
		l.pos += 2
		for l.pos < len(s) && isIdentByte(s[l.pos]) {
			l.pos++
		}
		l.emit(TokNumber)
		return lexAny
	}
	for l.pos < len(s) && isDigit(s[l.pos]) {
		l.pos++
	}
	if l.pos < len(s) && isIdentStart(s[l.pos]) && s[l.pos]|0x20 != 'e' {
		return lexIdent
	}
	if l.pos < len(s) && s[l.pos] == '.' {
		l.pos++
		for l.pos < len(s) && isDigit(s[l.pos]) {
			l.pos++
		}
	}
	if l.pos < len(s) && s[l.pos]|0x20 == 'e' {
		j := l.pos + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			l.pos = j
		}
	}
	if l.pos < len(s) && isIdentByte(s[l.pos]) && !strings.Contains(s[l.start:l.pos], ".") {
		return lexIdent
	}
	l.emit(TokNumber)
	return lexAny
}

func lexIdent(l *lexer) stateFn {
	for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
		l.pos++
	}
	l.emit(TokIdent)
	return lexAny
}

var multiOps = []string{"<=>", "->>", "<=", ">=", "<>", "!=", "||", "&&", "<<", ">>", ":=", "->"}

// lexOp scans an operator: the longest of multiOps, else one character (one whole
// UTF-8 sequence when it is not ASCII, although non-ASCII never reaches here).
func lexOp(l *lexer) stateFn {
	for _, op := range multiOps {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pos += len(op)
			l.emit(TokOp)
			return lexAny
		}
	}
	if l.src[l.pos] < utf8.RuneSelf {
		l.pos++
	} else {
		_, n := utf8.DecodeRuneInString(l.src[l.pos:])
		l.pos += n
	}
	l.emit(TokOp)
	return lexAny
}
