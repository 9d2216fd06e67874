package parser

// Unnest is `CROSS JOIN UNNEST(x) [AS] t (c1[, c2])` (also `, UNNEST(...)`)
// after the stream of FROM (SPEC 2.10, Flink's syntax): each row of the
// stream is repeated once per element of the ARRAY x (one column), or per
// entry of the MAP x (two columns: key and value). x is a column or a
// ROW's field: a name of up to three parts (col, t.col, col.field, ...).
type Unnest struct {
	// Path is x's name, its parts as written (unquoted); PathPos the offset
	// of its first part.
	Path    []string
	PathPos int
	// Alias is t ("" when none), AliasPos its offset; Columns the names of the
	// new columns, ColumnPos their offsets.
	Alias     string
	AliasPos  int
	Columns   []string
	ColumnPos []int
	// Pos is the offset of the UNNEST word.
	Pos int
}

// unnestClause reads the UNNEST clause that starts at token i (CROSS or ',')
// and returns it and the index of its last token.
func unnestClause(r *region, i int) (*Unnest, int, *Error) {
	toks := r.toks
	at := func(k int) Token {
		if k < len(toks) {
			return toks[k]
		}
		return Token{Kind: TokError, Offset: r.end}
	}
	k := i + 1
	if toks[i].is("CROSS") {
		k = i + 2
	}
	u := &Unnest{Pos: toks[k].Offset}
	form := "write CROSS JOIN UNNEST(column) AS t (x), or AS t (k, v) for a MAP"
	if !at(k + 1).isOp("(") {
		return nil, 0, Errorf(at(k+1).Offset, "UNNEST takes a column in parentheses: %s", form)
	}
	k += 2
	u.PathPos = at(k).Offset
	for {
		n := at(k)
		if n.Kind != TokIdent && n.Kind != TokQuotedIdent {
			return nil, 0, Errorf(n.Offset, "UNNEST takes an ARRAY or MAP column (or a ROW's field, row.field): %s", form)
		}
		u.Path = append(u.Path, identName(n))
		k++
		if at(k).isOp(".") {
			k++
			continue
		}
		break
	}
	if len(u.Path) > 3 {
		return nil, 0, Errorf(u.PathPos, "UNNEST's column has at most three parts (stream.column.field)")
	}
	if !at(k).isOp(")") {
		return nil, 0, Errorf(at(k).Offset, "UNNEST takes one column: %s", form)
	}
	k++
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
	if len(u.Columns) > 2 {
		return nil, 0, Errorf(u.ColumnPos[2], "UNNEST gives one column for an ARRAY and two (key, value) for a MAP")
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
