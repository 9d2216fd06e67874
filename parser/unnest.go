package parser

// Unnest is `CROSS JOIN UNNEST(x) [AS] t (c1[, c2])` (also `, UNNEST(...)`,
// and `LEFT [OUTER] JOIN UNNEST(x) [AS] t (c1[, c2]) ON TRUE`) after the
// relation of FROM (SPEC 2.10, Flink's syntax): each row of the relation is
// repeated once per element of the ARRAY x (one column), or per entry of
// the MAP x (two columns: key and value). x is a column or a ROW's field (a
// name of up to three parts: col, t.col, col.field, ...), or any expression
// of the relation's columns (Expr).
type Unnest struct {
	// Path is x's name, its parts as written (unquoted), when x is a name;
	// PathPos the offset of x's first token.
	Path    []string
	PathPos int
	// Expr is x when it is not a name (UNNEST(ARRAY[a, b]),
	// UNNEST(STR_TO_MAP(s)), UNNEST(t.a.b.c[1])), nil otherwise.
	Expr *Fragment
	// Left is LEFT JOIN UNNEST ... ON TRUE: a row whose x is NULL or empty
	// is kept once, its new columns NULL (Flink's rule).
	Left bool
	// Alias is t ("" when none), AliasPos its offset; Columns the names of the
	// new columns, ColumnPos their offsets.
	Alias     string
	AliasPos  int
	Columns   []string
	ColumnPos []int
	// Pos is the offset of the UNNEST word.
	Pos int
	// Ordinality is WITH ORDINALITY (Flink 2.1): a last column holding the
	// element's position, from 1.
	Ordinality bool
}

// leftUnnest reports whether token i starts LEFT [OUTER] JOIN UNNEST.
func leftUnnest(toks []Token, i int) bool {
	at := func(k int) bool { return k < len(toks) }
	if !toks[i].is("LEFT") || !at(i+2) {
		return false
	}
	k := i + 1
	if toks[k].is("OUTER") {
		k++
	}
	return at(k+1) && toks[k].is("JOIN") && toks[k+1].is("UNNEST")
}

// unnestClause reads the UNNEST clause that starts at token i (CROSS, ','
// or LEFT) and returns it and the index of its last token.
func (ps *parseState) unnestClause(r *region, i int) (*Unnest, int, *Error) {
	toks := r.toks
	at := func(k int) Token {
		if k < len(toks) {
			return toks[k]
		}
		return Token{Kind: TokError, Offset: r.end}
	}
	k := i + 1
	switch {
	case toks[i].is("CROSS"):
		k = i + 2
	case toks[i].is("LEFT"):
		k = i + 2
		if toks[i+1].is("OUTER") {
			k++
		}
	}
	u := &Unnest{Pos: toks[k].Offset, Left: toks[i].is("LEFT")}
	form := "write CROSS JOIN UNNEST(x) AS t (e), or AS t (k, v) for a MAP"
	if u.Left {
		form = "write LEFT JOIN UNNEST(x) AS t (e) ON TRUE, or AS t (k, v) for a MAP"
	}
	if !at(k + 1).isOp("(") {
		return nil, 0, Errorf(at(k+1).Offset, "UNNEST takes an ARRAY or a MAP in parentheses: %s", form)
	}
	open := k + 1
	closeAt := closing(r, open)
	if closeAt < 0 {
		return nil, 0, Errorf(at(open).Offset, "UNNEST's '(' is not closed: %s", form)
	}
	if closeAt == open+1 {
		return nil, 0, Errorf(at(closeAt).Offset, "UNNEST takes an ARRAY or a MAP: %s", form)
	}
	k = open + 1
	u.PathPos = at(k).Offset
	// a name (col, t.col, col.field) is kept as its parts; anything else
	// is parsed as an expression of the relation's columns
	for {
		n := at(k)
		if n.Kind != TokIdent && n.Kind != TokQuotedIdent || boundary(n) {
			break
		}
		u.Path = append(u.Path, identName(n))
		k++
		if at(k).isOp(".") {
			k++
			continue
		}
		break
	}
	if k != closeAt || len(u.Path) > 3 {
		u.Path = nil
		inner := toks[open+1 : closeAt]
		start, end := inner[0].Offset, inner[len(inner)-1].End()
		e, info, err := ps.parseFragment(r.comments, inner, start, end)
		if err != nil {
			return nil, 0, err
		}
		u.Expr = &Fragment{Expr: e, Text: ps.src[start:end], Pos: start, Casts: info.casts, Locate: info.locate, File: ps.file}
	}
	k = closeAt + 1
	if at(k).is("WITH") && at(k+1).is("ORDINALITY") {
		u.Ordinality = true
		k += 2
	}
	if at(k).is("AS") {
		k++
	}
	if a := at(k); a.Kind == TokIdent && !at(k).isOp("(") && !boundary(a) || a.Kind == TokQuotedIdent {
		u.Alias, u.AliasPos = identName(a), a.Offset
		k++
	}
	if !at(k).isOp("(") {
		return nil, 0, Errorf(at(k).Offset, "UNNEST needs names for its columns: %s", form)
	}
	k++
	for {
		c := at(k)
		if c.Kind != TokIdent && c.Kind != TokQuotedIdent {
			return nil, 0, Errorf(c.Offset, "UNNEST's column list takes names: %s", form)
		}
		u.Columns, u.ColumnPos = append(u.Columns, identName(c)), append(u.ColumnPos, c.Offset)
		k++
		if at(k).isOp(",") {
			k++
			continue
		}
		if !at(k).isOp(")") {
			return nil, 0, Errorf(at(k).Offset, "UNNEST's column list ends with ')': %s", form)
		}
		break
	}
	if u.Left { // ON TRUE (Flink: a LEFT JOIN with UNNEST takes no other condition)
		if !at(k+1).is("ON") || !at(k+2).is("TRUE") {
			return nil, 0, Errorf(at(k+1).Offset, "LEFT JOIN UNNEST(...) AS t (...) takes ON TRUE (put other conditions in WHERE): %s", form)
		}
		k += 2
	}
	if n := at(k + 1); n.Kind != TokError && !boundary(n) && n.Kind != TokSemicolon {
		return nil, 0, Errorf(n.Offset, "CROSS JOIN UNNEST(...) AS t (...) stands last in FROM; %s", form)
	}
	return u, k, nil
}

// identName is an identifier token's name: as written, or a quoted one's
// content.
func identName(t Token) string {
	if t.Kind == TokQuotedIdent {
		return t.Value()
	}
	return t.Text
}
