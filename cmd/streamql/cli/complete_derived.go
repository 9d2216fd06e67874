package cli

import (
	"strings"

	"streamql/catalog"
	"streamql/parser"
)

// derivedRelations returns the relations that the statement toks defines
// for itself (SPEC 2.6): each WITH name (`WITH q AS (SELECT …)`) and each
// aliased subquery in FROM (`(SELECT …) AS s`), in the order they are
// written (with: the WITH names among them), as streams holding only the names of the columns their SELECT
// list gives (its aliases, its bare or qualified columns, and `*` or `t.*`
// over the relations its own FROM names); an expression without an alias is
// left out (its name is its text, SPEC 2). The statement need not be
// complete: a subquery whose parentheses are still open defines nothing.
// It takes time linear in the tokens per relation found.
func (c *completer) derivedRelations(toks []parser.Token) (out []*catalog.Stream, with []string) {
	for i := 0; i < len(toks); i++ {
		if !isOp(toks[i], "(") {
			continue
		}
		end := closing(toks, i)
		if end < 0 || i+1 >= end || !isWord(toks[i+1], "SELECT") {
			continue
		}
		var name string
		switch {
		case i >= 2 && isWord(toks[i-1], "AS") && isName(toks[i-2]) && (i < 3 || isWord(toks[i-3], "WITH") || isOp(toks[i-3], ",")):
			name = toks[i-2].Value() // WITH name AS (...)
			with = append(with, name)
		case end+2 < len(toks) && isWord(toks[end+1], "AS") && isName(toks[end+2]):
			name = toks[end+2].Value() // (...) AS alias
		case end+1 < len(toks) && isName(toks[end+1]) && !isKeyword(toks[end+1]):
			name = toks[end+1].Value() // (...) alias
		default:
			continue
		}
		cols := c.selectColumns(toks[i+1:end], out)
		st := &catalog.Stream{Name: name}
		for _, n := range cols {
			st.Columns = append(st.Columns, catalog.Column{Name: n})
		}
		out = append(out, st)
	}
	return out, with
}

// selectColumns returns the output column names of the SELECT whose tokens
// are sel (from SELECT to the end of the query), as derivedRelations
// describes; known are the relations defined before it (WITH names).
func (c *completer) selectColumns(sel []parser.Token, known []*catalog.Stream) []string {
	from := len(sel)
	depth := 0
	for k, t := range sel {
		switch {
		case isOp(t, "("):
			depth++
		case isOp(t, ")"):
			depth--
		case depth == 0 && isWord(t, "FROM"):
			from = k
		}
		if from < len(sel) {
			break
		}
	}
	rels := func(qual string) []*catalog.Stream { // the relations the SELECT's FROM names (qual: the one it is called)
		var rs []*catalog.Stream
		for k, t := range sel[from:] {
			if !isName(t) {
				continue
			}
			st := c.lookup(t.Value())
			for _, d := range known {
				if strings.EqualFold(d.Name, t.Value()) {
					st = d
				}
			}
			if st == nil {
				continue
			}
			alias := t.Value()
			if n := sel[from+k+1:]; len(n) > 0 && isName(n[0]) && !isKeyword(n[0]) {
				alias = n[0].Value()
			} else if len(n) > 1 && isWord(n[0], "AS") && isName(n[1]) {
				alias = n[1].Value()
			}
			if qual == "" || strings.EqualFold(qual, alias) || strings.EqualFold(qual, st.Name) {
				rs = append(rs, st)
			}
		}
		return rs
	}
	var names []string
	item := sel[1:from]
	depth = 0
	start := 0
	for k := 0; k <= len(item); k++ {
		if k < len(item) {
			switch {
			case isOp(item[k], "("):
				depth++
				continue
			case isOp(item[k], ")"):
				depth--
				continue
			case depth != 0 || !isOp(item[k], ","):
				continue
			}
		}
		it := item[start:k]
		start = k + 1
		n := len(it)
		switch {
		case n == 0:
		case isOp(it[n-1], "*"): // * or t.*
			qual := ""
			if n >= 3 && isOp(it[n-2], ".") {
				qual = it[n-3].Value()
			}
			for _, st := range rels(qual) {
				for _, col := range st.Columns {
					names = append(names, col.Name)
				}
			}
		case !isName(it[n-1]):
		case n == 1, isOp(it[n-2], "."): // col or t.col
			names = append(names, it[n-1].Value())
		case isWord(it[n-2], "AS") || (!isOp(it[n-2], "") || isOp(it[n-2], ")")) && !isValueWord(it[n-1]): // expr AS alias, expr alias
			names = append(names, it[n-1].Value())
		}
	}
	return names
}

// closing returns the index of the ')' that closes the '(' at toks[open], -1
// when the tokens end first.
func closing(toks []parser.Token, open int) int {
	depth := 0
	for k := open; k < len(toks); k++ {
		switch {
		case isOp(toks[k], "("):
			depth++
		case isOp(toks[k], ")"):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// isOp reports whether t is the operator op ("" for any operator).
func isOp(t parser.Token, op string) bool {
	return t.Kind == parser.TokOp && (op == "" || t.Text == op)
}

// isWord reports whether t is the bare word w, in any case.
func isWord(t parser.Token, w string) bool {
	return t.Kind == parser.TokIdent && strings.EqualFold(t.Text, w)
}

// isName reports whether t can name a relation or column: a bare word or a
// back-quoted name.
func isName(t parser.Token) bool {
	return t.Kind == parser.TokIdent || t.Kind == parser.TokQuotedIdent
}

// isValueWord reports whether t is a bare word that ends an expression
// (CASE … END, IS NULL, = TRUE), not an alias.
func isValueWord(t parser.Token) bool {
	if t.Kind != parser.TokIdent {
		return false
	}
	switch strings.ToUpper(t.Text) {
	case "END", "NULL", "TRUE", "FALSE", "UNKNOWN":
		return true
	}
	return false
}

// isKeyword reports whether t is a bare word that continues a query after a
// relation (WHERE, JOIN, ON, …) rather than naming it, so not an alias.
func isKeyword(t parser.Token) bool {
	if t.Kind != parser.TokIdent {
		return false
	}
	switch strings.ToUpper(t.Text) {
	case "WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "ON", "USING", "GROUP", "ORDER", "HAVING",
		"LIMIT", "UNION", "WINDOW", "SEMI", "ANTI", "LATE", "INTO", "FOR", "AS", "SELECT", "FROM":
		return true
	}
	return false
}
