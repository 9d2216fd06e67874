package parser

import "streamql/internal/termtext"

// rawStmt is one statement of a script as the splitter sees it: its tokens between
// two ';' (comments kept apart), and its span in the script.
type rawStmt struct {
	all        []Token // every token of the statement, comments included
	toks       []Token // the significant tokens (no comments)
	start, end int     // [start, end): first significant token to end of the last one
}

// split groups tokens into statements at ';' tokens outside strings, quoted
// identifiers and comments. Statements without significant tokens (";;", comments
// only) are dropped.
func split(toks []Token) []rawStmt {
	var out []rawStmt
	var cur rawStmt
	flush := func() {
		if len(cur.toks) > 0 {
			cur.start = cur.toks[0].Offset
			cur.end = cur.toks[len(cur.toks)-1].End()
			out = append(out, cur)
		}
		cur = rawStmt{}
	}
	for _, t := range toks {
		switch t.Kind {
		case TokSemicolon:
			flush()
		case TokComment:
			if len(cur.toks) > 0 {
				cur.all = append(cur.all, t)
			}
		default:
			cur.all = append(cur.all, t)
			cur.toks = append(cur.toks, t)
		}
	}
	flush()
	return out
}

// cursor walks the significant tokens of one statement for the hand-written
// statements (CREATE STREAM, SET, ...).
type cursor struct {
	toks []Token
	all  []Token // the statement's tokens with comments
	i    int
	end  int // offset of the end of the statement, for "unexpected end" errors
}

func (c *cursor) atEnd() bool { return c.i >= len(c.toks) }

// peek returns the current token, or a zero Token with Offset end at the end.
func (c *cursor) peek() Token {
	if c.atEnd() {
		return Token{Kind: TokError, Offset: c.end}
	}
	return c.toks[c.i]
}

func (c *cursor) peekAt(k int) Token {
	if c.i+k >= len(c.toks) {
		return Token{Kind: TokError, Offset: c.end}
	}
	return c.toks[c.i+k]
}

func (c *cursor) next() Token {
	t := c.peek()
	if !c.atEnd() {
		c.i++
	}
	return t
}

// word consumes the bare word w (case-insensitive) if it is next.
func (c *cursor) word(w string) bool {
	if !c.atEnd() && c.toks[c.i].is(w) {
		c.i++
		return true
	}
	return false
}

// op consumes the operator op if it is next.
func (c *cursor) op(op string) bool {
	if !c.atEnd() && c.toks[c.i].isOp(op) {
		c.i++
		return true
	}
	return false
}

// expected returns the error "expected <what>" at the current token.
func (c *cursor) expected(what string) *Error {
	if c.atEnd() {
		return Errorf(c.end, "unexpected end of statement: expected %s", what)
	}
	return Errorf(c.toks[c.i].Offset, "expected %s, found %s", what, describe(c.toks[c.i]))
}

// expectEnd returns an error unless the statement has no more tokens.
func (c *cursor) expectEnd(after string) *Error {
	if c.atEnd() {
		return nil
	}
	return Errorf(c.toks[c.i].Offset, "unexpected %s after %s", describe(c.toks[c.i]), after)
}

// name consumes an identifier (bare or quoted) and returns it unquoted. A bare
// reserved word is refused (back-quoted it is a name), as TiDB refuses it in the
// queries that would use the name.
func (c *cursor) name(what string) (string, int, *Error) {
	t := c.peek()
	if c.atEnd() || (t.Kind != TokIdent && t.Kind != TokQuotedIdent) {
		return "", 0, c.expected(what)
	}
	v := t.Value()
	if v == "" {
		return "", 0, Errorf(t.Offset, "%s cannot be empty", what)
	}
	if t.Kind == TokIdent && IsReserved(v) {
		return "", 0, reservedError(t)
	}
	c.i++
	return v, t.Offset, nil
}

// describe renders a token for an error message.
func describe(t Token) string {
	switch t.Kind {
	case TokString:
		return "the string " + termtext.Shorten(t.Text, 30)
	case TokSemicolon:
		return "';'"
	case TokOp:
		return "'" + t.Text + "'"
	case TokError:
		return "end of statement"
	}
	return "'" + termtext.Shorten(t.Text, 30) + "'"
}
