package parser

import (
	"strings"
	"unicode/utf8"
)

// Flink's function syntax that TiDB does not parse (SPEC 2.10), rewritten
// into calls TiDB parses and the planner binds:
//
//	FLOOR(ts TO HOUR), CEIL(ts TO DAY)     FLOOR(ts , 'HOUR')
//	a IS NOT DISTINCT FROM b               a <=> b
//	a IS DISTINCT FROM b                   a <=> b IS FALSE
//	s IS [NOT] JSON [SCALAR|ARRAY|...]     (IS_JSON(s [, 'SCALAR'])), NOT for IS NOT
//	JSON_VALUE(s, p RETURNING BIGINT)      JSON_VALUE(s, p, 'BIGINT')
//	JSON_VALUE(s, p DEFAULT d ON EMPTY)    JSON_VALUE(s, p , 'DEFAULT ON EMPTY', d)
//	JSON_QUERY(s, p WITH CONDITIONAL       JSON_QUERY(s, p , 'WRAPPER=CONDITIONAL' , 'EMPTY=EMPTY ARRAY')
//	  ARRAY WRAPPER EMPTY ARRAY ON EMPTY)
//	JSON_OBJECT(KEY 'k' VALUE v, ...)      JSON_OBJECT('k', v, ...)
//	s [NOT] SIMILAR TO p                   ([NOT] SIMILAR_TO(s , p))
//	x BETWEEN SYMMETRIC a AND b            x BETWEEN LEAST(a, b) AND GREATEST(a, b)
//	x BETWEEN ASYMMETRIC a AND b           x BETWEEN a AND b
//	arr[i], map['k'] (SPEC 2.10)           ITEM(arr, i), ITEM(map, 'k')
//	arr[i].field, f(x).field               ITEM(ITEM(arr, i), 'field'), ITEM(f(x), 'field')
//	ARRAY[a, b], MAP[k, v, ...]            ARRAY_VALUE_CONSTRUCTOR(a, b), MAP_VALUE_CONSTRUCTOR(k, v, ...)
//	ROW(a, b)                              ROW_VALUE_CONSTRUCTOR(a, b)
//	CARDINALITY(x)                         SQ_CARDINAL(x) (a TiDB keyword)
//	OVERLAY(s PLACING r FROM i [FOR n])    OVERLAY(s , r , i [, n])
//	SPLIT(s, d)                            SQ_SP(s, d) (a TiDB keyword)
//	REGEXP(s, p)                           SQ_REX(s, p) (a TiDB keyword)
//
// ITEM and the constructors' names are Calcite's (Flink's planner) names
// for the same operators.
//
// The edits keep the offset map exact outside them, so errors point into
// the script as written.

// funcSyntax returns the edits for the construct that starts at token i, if
// any, and an error for a form streamql does not take.
func funcSyntax(r *region, i int) ([]edit, *Error) {
	toks := r.toks
	t := toks[i]
	at := func(k int) Token {
		if k < len(toks) {
			return toks[k]
		}
		return Token{Kind: TokError, Offset: r.end}
	}
	switch {
	case t.isOp("["):
		return subscript(r, i)
	case t.isOp(".") && fieldChain(r, i) >= 0 && (at(i+1).Kind == TokIdent || at(i+1).Kind == TokQuotedIdent):
		// arr[i].field, f(x).field, f(x).a.b: the field of the ROW an item or a call is
		start := postfixStart(r, fieldChain(r, i))
		if start < 0 {
			return nil, Errorf(t.Offset, "'.field' needs a ROW value before it")
		}
		f := at(i + 1)
		name := f.Text
		if f.Kind == TokQuotedIdent {
			name = f.Value()
		}
		s := toks[start].Offset
		if f.Kind == TokIdent {
			// the name stays in place, its last character carrying the
			// closing "')", so the call's last byte maps back to the name's
			_, n := utf8.DecodeLastRuneInString(f.Text)
			last := f.End() - n
			return []edit{{s, s, "ITEM("}, {t.Offset, t.End(), ", '"}, {last, f.End(), f.Text[len(f.Text)-n:] + "')"}}, nil
		}
		return []edit{{s, s, "ITEM("}, {t.Offset, f.End(), ", '" + strings.ReplaceAll(name, "'", "''") + "')"}}, nil
	case t.is("CARDINALITY") && at(i+1).isOp("("):
		// a keyword to TiDB: a same-length stand-in name
		return []edit{{t.Offset, t.End(), "SQ_CARDINAL"}}, nil
	case t.is("REGEXP") && at(i+1).isOp("(") && (i == 0 || startsOperand(toks[i-1])):
		// REGEXP(s, p), Flink's function form of s REGEXP p (a TiDB
		// keyword where an operand starts): a same-length stand-in name
		return []edit{{t.Offset, t.End(), "SQ_REX"}}, nil
	case t.is("SPLIT") && at(i+1).isOp("("):
		// a keyword to TiDB (SPLIT TABLE): a same-length stand-in name
		return []edit{{t.Offset, t.End(), "SQ_SP"}}, nil
	case t.is("ROW") && at(i+1).isOp("(") && !(i > 0 && (toks[i-1].is("AS") || toks[i-1].isOp("."))):
		return []edit{{t.Offset, t.End(), "ROW_VALUE_CONSTRUCTOR"}}, nil
	case (t.is("FLOOR") || t.is("CEIL") || t.is("CEILING")) && at(i+1).isOp("("):
		closeAt := closing(r, i+1)
		if closeAt < 0 || closeAt < i+4 {
			return nil, nil
		}
		to, unit := toks[closeAt-2], toks[closeAt-1]
		if !to.is("TO") || unit.Kind != TokIdent || r.depth[closeAt-2] != r.depth[i+1]+1 {
			return nil, nil
		}
		return []edit{{to.Offset, to.End(), ","}, {unit.Offset, unit.End(), "'" + strings.ToUpper(unit.Text) + "'"}}, nil
	case t.is("OVERLAY") && at(i+1).isOp("("):
		// OVERLAY(s PLACING r FROM i [FOR n]): each keyword at the call's
		// own depth becomes a comma (a same-place edit, offsets exact)
		closeAt := closing(r, i+1)
		if closeAt < 0 {
			return nil, nil
		}
		var edits []edit
		for k := i + 2; k < closeAt; k++ {
			if w := toks[k]; r.depth[k] == r.depth[i+1]+1 && (w.is("PLACING") || w.is("FROM") || w.is("FOR")) {
				edits = append(edits, edit{w.Offset, w.End(), ","})
			}
		}
		return edits, nil
	case t.is("IS") && (at(i+1).is("DISTINCT") || at(i+1).is("NOT") && at(i+2).is("DISTINCT")):
		k := i + 1
		not := at(k).is("NOT")
		if not {
			k++
		}
		if !at(k + 1).is("FROM") {
			return nil, Errorf(at(k+1).Offset, "write IS [NOT] DISTINCT FROM")
		}
		edits := []edit{{t.Offset, at(k + 1).End(), "<=>"}}
		if !not {
			end := operandEnd(r, k+2)
			if end == k+2 {
				return nil, Errorf(at(k+2).Offset, "IS DISTINCT FROM needs a value after it")
			}
			// the operand's last character carries " IS FALSE", so the
			// expression's text (a column's name) ends where it does
			last := toks[end-1]
			_, n := utf8.DecodeLastRuneInString(last.Text)
			if last.End()-last.Offset != len(last.Text) || last.Kind == TokOp && !last.isOp(")") {
				n = 0 // (a token whose text is not its source, or that another edit may change: ']' of ARRAY[...])
			}
			p := last.End() - n
			edits = append(edits, edit{p, last.End(), last.Text[len(last.Text)-n:] + " IS FALSE"})
		}
		return edits, nil
	case t.is("IS") && (at(i+1).is("JSON") || at(i+1).is("NOT") && at(i+2).is("JSON")):
		k := i + 1
		not := at(k).is("NOT")
		if not {
			k++
		}
		start := operandStart(r, i)
		if start == i {
			return nil, Errorf(t.Offset, "IS JSON needs a value before it")
		}
		last, arg := k, ""
		if w := at(k + 1); w.is("VALUE") || w.is("SCALAR") || w.is("ARRAY") || w.is("OBJECT") {
			last, arg = k+1, ", '"+strings.ToUpper(w.Text)+"'"
		}
		open, closeText := "(IS_JSON(", "))"
		if not {
			open = "(NOT IS_JSON("
		}
		s := toks[start].Offset
		return []edit{{s, s, open}, {toks[i-1].End(), at(last).End(), arg + closeText}}, nil
	case (t.is("SIMILAR") && at(i+1).is("TO") && !(i > 0 && toks[i-1].is("NOT"))) || (t.is("NOT") && at(i+1).is("SIMILAR") && at(i+2).is("TO")):
		k, open := i, "(SIMILAR_TO("
		if t.is("NOT") {
			k, open = i+1, "(NOT SIMILAR_TO("
		}
		start := operandStart(r, i)
		end := operandEnd(r, k+2)
		if start == i || end == k+2 {
			return nil, Errorf(t.Offset, "SIMILAR TO needs a value on each side")
		}
		if at(end).is("ESCAPE") {
			return nil, Errorf(at(end).Offset, "SIMILAR TO ... ESCAPE is not supported (Flink does not support it either)")
		}
		s, p := toks[start].Offset, toks[end-1].End()
		return []edit{{s, s, open}, {toks[i-1].End(), at(k + 1).End(), ","}, {p, p, "))"}}, nil
	case (t.is("SYMMETRIC") || t.is("ASYMMETRIC")) && i > 0 && toks[i-1].is("BETWEEN"):
		if t.is("ASYMMETRIC") { // the default
			return []edit{{t.Offset, t.End(), blank(t.Text)}}, nil
		}
		// x BETWEEN SYMMETRIC a AND b: x BETWEEN LEAST(a, b) AND
		// GREATEST(a, b), which is NULL where a bound is NULL, as Flink's
		// (x BETWEEN a AND b) OR (x BETWEEN b AND a) is
		aEnd := operandEnd(r, i+1)
		if aEnd == i+1 || !at(aEnd).is("AND") {
			return nil, Errorf(t.Offset, "write x BETWEEN SYMMETRIC a AND b")
		}
		bEnd := operandEnd(r, aEnd+1)
		if bEnd == aEnd+1 {
			return nil, Errorf(at(aEnd).Offset, "BETWEEN SYMMETRIC needs a value after AND")
		}
		text := func(from, to int) string {
			var parts []string
			for _, k := range toks[from:to] {
				parts = append(parts, k.Text)
			}
			return strings.Join(parts, " ")
		}
		a, b := text(i+1, aEnd), text(aEnd+1, bEnd)
		return []edit{{t.Offset, t.End(), "LEAST("}, {toks[aEnd-1].End(), toks[aEnd-1].End(), ", " + b + ")"},
			{toks[aEnd+1].Offset, toks[aEnd+1].Offset, "GREATEST(" + a + ", "}, {toks[bEnd-1].End(), toks[bEnd-1].End(), ")"}}, nil
	case t.is("RETURNING") && inCall(r, i, "JSON_VALUE"):
		ty := at(i + 1)
		if ty.Kind != TokIdent {
			return nil, Errorf(ty.Offset, "RETURNING takes a type: BIGINT, DOUBLE, BOOLEAN or VARCHAR")
		}
		if n := at(i + 2); !n.isOp(")") && !(n.is("NULL") && at(i+3).is("ON")) && !n.is("DEFAULT") {
			return nil, Errorf(n.Offset, "JSON_VALUE takes NULL ON EMPTY / ON ERROR or DEFAULT … ON EMPTY / ON ERROR after RETURNING type")
		}
		return []edit{{t.Offset, ty.End(), ", '" + strings.ToUpper(ty.Text) + "'"}}, nil
	case t.is("ON") && (at(i+1).is("EMPTY") || at(i+1).is("ERROR")) && inCall(r, i, "JSON_QUERY"):
		// {NULL | EMPTY ARRAY | EMPTY OBJECT} ON {EMPTY | ERROR}: a clause
		// argument 'EMPTY=…' or 'ERROR=…' (executor/expr.jsonQueryOptions)
		from, what := i-1, ""
		switch b := toks[i-1]; {
		case i >= 3 && toks[i-2].is("EMPTY") && (b.is("ARRAY") || b.is("OBJECT")):
			from, what = i-2, "EMPTY "+strings.ToUpper(b.Text)
		case i >= 2 && b.is("NULL"):
			what = "NULL"
		case i >= 2 && b.is("ERROR"):
			return nil, Errorf(b.Offset, "JSON_QUERY's ERROR ON EMPTY / ON ERROR (fail the job) is not supported yet: write NULL, EMPTY ARRAY or EMPTY OBJECT ON %s, and test the result", strings.ToUpper(at(i+1).Text))
		default:
			return nil, Errorf(b.Offset, "JSON_QUERY takes NULL, EMPTY ARRAY or EMPTY OBJECT before ON %s", strings.ToUpper(at(i+1).Text))
		}
		return []edit{{toks[from].Offset, at(i + 1).End(), ", '" + strings.ToUpper(at(i+1).Text) + "=" + what + "'"}}, nil
	case t.is("DEFAULT") && inCall(r, i, "JSON_VALUE"):
		// DEFAULT d ON {EMPTY | ERROR}: the arguments 'DEFAULT ON EMPTY', d
		// (the planner's ruleJSONValue)
		on := defaultsOn(r, i)
		if on < 0 {
			return nil, Errorf(t.Offset, "write DEFAULT <value> ON EMPTY or DEFAULT <value> ON ERROR")
		}
		if on == i+1 {
			return nil, Errorf(at(on).Offset, "DEFAULT needs a value before ON %s", strings.ToUpper(at(on+1).Text))
		}
		return []edit{{t.Offset, t.End(), ", 'DEFAULT ON " + strings.ToUpper(at(on+1).Text) + "',"}, {at(on).Offset, at(on + 1).End(), blank(at(on).Text) + " " + blank(at(on+1).Text)}}, nil
	case t.is("ON") && (at(i+1).is("EMPTY") || at(i+1).is("ERROR")) && inCall(r, i, "JSON_VALUE") && defaultBefore(r, i):
		return nil, nil // (DEFAULT d ON …: the DEFAULT case's)
	case t.is("ON") && (at(i+1).is("EMPTY") || at(i+1).is("ERROR")) && (inCall(r, i, "JSON_VALUE") || inCall(r, i, "JSON_EXISTS")):
		// Flink's defaults are what streamql does, so their spellings are
		// taken (dropped): NULL ON EMPTY / ERROR, JSON_EXISTS' FALSE ON ERROR
		if b := toks[i-1]; i >= 2 && (b.is("NULL") && !inCall(r, i, "JSON_EXISTS") || b.is("FALSE") && at(i+1).is("ERROR") && inCall(r, i, "JSON_EXISTS")) {
			return blankToks(toks, i-1, i+2), nil
		}
		if inCall(r, i, "JSON_VALUE") {
			return nil, Errorf(toks[i-1].Offset, "JSON_VALUE takes NULL ON %[1]s or DEFAULT <value> ON %[1]s (ERROR ON %[1]s, which fails the job in Flink, is not supported yet)", strings.ToUpper(at(i+1).Text))
		}
		return nil, Errorf(toks[i-1].Offset, "JSON_EXISTS takes FALSE ON ERROR, its default, only (TRUE, UNKNOWN and ERROR ON ERROR are not supported yet)")
	case t.is("ON") && at(i+1).is("NULL") && (inCall(r, i, "JSON_OBJECT") || inCall(r, i, "JSON_ARRAY")):
		// the defaults: JSON_OBJECT's NULL ON NULL, JSON_ARRAY's ABSENT ON NULL
		if b := toks[i-1]; i >= 2 && (b.is("NULL") && inCall(r, i, "JSON_OBJECT") || b.is("ABSENT") && inCall(r, i, "JSON_ARRAY")) {
			return blankToks(toks, i-1, i+2), nil
		}
		return nil, Errorf(toks[i-1].Offset, "this ON NULL clause is not supported: JSON_OBJECT writes NULL values as null (NULL ON NULL), JSON_ARRAY leaves them out (ABSENT ON NULL), Flink's defaults")
	case (t.is("WITHOUT") || t.is("WITH")) && inCall(r, i, "JSON_QUERY"):
		// WITHOUT [ARRAY] WRAPPER, WITH [CONDITIONAL | UNCONDITIONAL]
		// [ARRAY] WRAPPER (UNCONDITIONAL by default, the SQL standard's): a
		// clause argument 'WRAPPER=…' (executor/expr.jsonQueryOptions)
		end, what := i+1, "WITHOUT"
		if t.is("WITH") {
			what = "UNCONDITIONAL"
			if at(end).is("CONDITIONAL") || at(end).is("UNCONDITIONAL") {
				what = strings.ToUpper(at(end).Text)
				end++
			}
		}
		if at(end).is("ARRAY") {
			end++
		}
		if !at(end).is("WRAPPER") {
			return nil, Errorf(at(end).Offset, "write WITHOUT [ARRAY] WRAPPER or WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER")
		}
		return []edit{{t.Offset, at(end).End(), ", 'WRAPPER=" + what + "'"}}, nil
	case (t.is("KEY") || t.is("VALUE")) && inCall(r, i, "JSON_OBJECT"):
		if t.is("KEY") {
			return []edit{{t.Offset, t.End(), blank(t.Text)}}, nil
		}
		return []edit{{t.Offset, t.End(), ","}}, nil
	}
	return nil, nil
}

// defaultsOn returns the index of the ON (followed by EMPTY or ERROR) that
// ends the DEFAULT clause at token i of a JSON_VALUE call, at the same
// depth, or -1 when there is none before the call's end or a comma.
func defaultsOn(r *region, i int) int {
	for j := i + 1; j+1 < len(r.toks) && r.depth[j] >= r.depth[i]; j++ {
		if r.depth[j] != r.depth[i] {
			continue
		}
		if r.toks[j].isOp(",") { // (a parenthesis at this depth is the value's own; the call's is above it)
			return -1
		}
		if r.toks[j].is("ON") && (r.toks[j+1].is("EMPTY") || r.toks[j+1].is("ERROR")) {
			return j
		}
	}
	return -1
}

// defaultBefore reports whether the ON at token i ends a DEFAULT clause
// (defaultsOn).
func defaultBefore(r *region, i int) bool {
	for j := i - 1; j > 0 && r.depth[j] >= r.depth[i]; j-- {
		if r.depth[j] != r.depth[i] {
			continue
		}
		if r.toks[j].is("DEFAULT") {
			return defaultsOn(r, j) == i
		}
		if k := r.toks[j]; k.isOp(",") || k.is("EMPTY") || k.is("ERROR") {
			return false
		}
	}
	return false
}

// blankToks returns the edits that blank tokens from to to-1 (a clause
// that says what streamql does anyway), the text between them kept.
func blankToks(toks []Token, from, to int) []edit {
	var es []edit
	for k := from; k < to && k < len(toks); k++ {
		es = append(es, edit{toks[k].Offset, toks[k].End(), blank(toks[k].Text)})
	}
	return es
}

// closing returns the index of the ')' that closes the '(' at open, or -1.
func closing(r *region, open int) int {
	for j := open + 1; j < len(r.toks); j++ {
		if r.toks[j].isOp(")") && r.depth[j] == r.depth[open] {
			return j
		}
	}
	return -1
}

// inCall reports whether token i stands directly inside a call of fn (not in
// a nested parenthesis).
func inCall(r *region, i int, fn string) bool {
	d := r.depth[i]
	for j := i - 1; j >= 1; j-- {
		if r.toks[j].isOp("(") && r.depth[j] == d-1 {
			return r.toks[j-1].is(fn)
		}
	}
	return false
}

// startsOperand reports whether an operand starts after token t: t is an
// operator (not a closing bracket) or a keyword after which an expression
// comes, not the end of an operand (a name, a literal, a ')').
func startsOperand(t Token) bool {
	if t.Kind == TokOp {
		return t.Text != ")" && t.Text != "]"
	}
	for _, w := range []string{"SELECT", "WHERE", "AND", "OR", "XOR", "NOT", "WHEN", "THEN", "ELSE", "ON", "HAVING", "BY", "CASE", "DISTINCT", "ALL"} {
		if t.is(w) {
			return true
		}
	}
	return false
}

// boundary reports whether t ends an operand of a comparison: an operator or
// keyword of comparison precedence or lower, or a clause keyword.
func boundary(t Token) bool {
	if t.Kind == TokOp {
		switch t.Text {
		case ",", ";", "=", "<>", "!=", "<", "<=", ">", ">=", "<=>", "(", ")":
			return true
		}
		return false
	}
	if t.Kind != TokIdent {
		return false
	}
	for _, w := range []string{"IS", "AND", "OR", "XOR", "NOT", "LIKE", "ILIKE", "IN", "BETWEEN", "THEN", "ELSE", "WHEN", "END",
		"AS", "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTO", "ON", "JOIN", "ESCAPE", "REGEXP", "SELECT", "CASE", "SIMILAR"} {
		if t.is(w) {
			return true
		}
	}
	return false
}

// operandEnd returns the index after the last token of the operand that
// starts at token i (same parenthesis depth; parentheses inside it are
// skipped whole).
func operandEnd(r *region, i int) int {
	d := -1
	j := i
	for ; j < len(r.toks); j++ {
		t := r.toks[j]
		if d < 0 {
			d = r.depth[j]
		}
		if t.isOp("(") {
			if c := closing(r, j); c > 0 {
				j = c
				continue
			}
		}
		if t.isOp("[") { // ARRAY[a, b], x[i]: its commas are inside
			if c := closingBracket(r, j); c > 0 {
				j = c
				continue
			}
		}
		if r.depth[j] < d || boundary(t) && j > i || j > i && startsAlias(r, j) {
			break
		}
	}
	return j
}

// startsAlias reports whether token j, a word directly after a whole
// operand (a name, a literal, a closing parenthesis or bracket), starts an
// implicit alias (`a IS DISTINCT FROM b e`): no operator joins the two.
// DIV and MOD are infix operators, and the unit of `INTERVAL '1' DAY` is
// part of its literal.
func startsAlias(r *region, j int) bool {
	t, p := r.toks[j], r.toks[j-1]
	if t.Kind != TokIdent && t.Kind != TokQuotedIdent {
		return false
	}
	if t.is("DIV") || t.is("MOD") {
		return false
	}
	switch p.Kind {
	case TokIdent, TokQuotedIdent, TokNumber:
	case TokString:
		if j >= 2 && r.toks[j-2].is("INTERVAL") {
			return false
		}
	case TokOp:
		if !p.isOp(")") && !p.isOp("]") {
			return false
		}
	default:
		return false
	}
	return true
}

// operandStart returns the index of the first token of the operand that
// ends just before token i.
func operandStart(r *region, i int) int {
	d := r.depth[i]
	j := i - 1
	for ; j >= 0; j-- {
		t := r.toks[j]
		if t.isOp(")") && r.depth[j] == d {
			// skip back to its '(' and the function name before it
			k := j - 1
			for k >= 0 && !(r.toks[k].isOp("(") && r.depth[k] == d) {
				k--
			}
			if k < 0 {
				break
			}
			j = k
			if k > 0 && r.toks[k-1].Kind == TokIdent && !boundary(r.toks[k-1]) {
				j = k - 1
			}
			continue
		}
		if r.depth[j] != d || boundary(t) {
			break
		}
	}
	return j + 1
}

// fieldChain returns the index of the ']' or ')' that a '.field' at token i
// (after any other .fields) follows, or -1 when the dot is a plain
// qualifier (t.col).
func fieldChain(r *region, i int) int {
	k := i - 1
	for k >= 1 && (r.toks[k].Kind == TokIdent || r.toks[k].Kind == TokQuotedIdent) && r.toks[k-1].isOp(".") {
		k -= 2
	}
	if k >= 0 && (r.toks[k].isOp("]") || r.toks[k].isOp(")")) {
		return k
	}
	return -1
}

// subscript rewrites the '[' at token i: ARRAY[...] and MAP[...] become
// constructor calls, x[i] becomes ITEM(x, i) (SPEC 2.10).
func subscript(r *region, i int) ([]edit, *Error) {
	toks := r.toks
	t := toks[i]
	closeAt := closingBracket(r, i)
	if closeAt < 0 {
		return nil, Errorf(t.Offset, "'[' is never closed: write arr[i], map['k'] or ARRAY[a, b]")
	}
	if i > 0 && (toks[i-1].is("ARRAY") || toks[i-1].is("MAP")) && !(i > 1 && toks[i-2].isOp(".")) {
		name := "ARRAY_VALUE_CONSTRUCTOR("
		if toks[i-1].is("MAP") {
			name = "MAP_VALUE_CONSTRUCTOR("
		}
		return []edit{{toks[i-1].Offset, t.End(), name}, {toks[closeAt].Offset, toks[closeAt].End(), ")"}}, nil
	}
	start := -1
	if i > 0 {
		start = postfixStart(r, i-1)
	}
	if start < 0 {
		return nil, Errorf(t.Offset, "'[' needs an ARRAY or MAP value before it (arr[i], map['k']), or write ARRAY[a, b]")
	}
	if closeAt == i+1 {
		return nil, Errorf(toks[closeAt].Offset, "write the index inside the brackets: arr[1] (from 1) or map['key']")
	}
	s := toks[start].Offset
	return []edit{{s, s, "ITEM("}, {t.Offset, t.End(), ", "}, {toks[closeAt].Offset, toks[closeAt].End(), ")"}}, nil
}

// closingBracket returns the index of the ']' that closes the '[' at open,
// or -1.
func closingBracket(r *region, open int) int {
	n := 0
	for j := open; j < len(r.toks); j++ {
		switch {
		case r.toks[j].isOp("["):
			n++
		case r.toks[j].isOp("]"):
			if n--; n == 0 {
				return j
			}
		case r.toks[j].Kind == TokSemicolon:
			return -1
		}
	}
	return -1
}

// postfixStart returns the index of the first token of the operand that
// ends at token j and that a subscript or '.field' applies to: a column (t.c),
// a call or parenthesis, a constructor, or such an operand with subscripts;
// -1 when the token cannot end one (an operator, a keyword).
func postfixStart(r *region, j int) int {
	toks := r.toks
	for k := j; k >= 0; {
		t := toks[k]
		switch {
		case t.isOp(")"):
			o := k - 1
			for o >= 0 && !(toks[o].isOp("(") && r.depth[o] == r.depth[k]) {
				o--
			}
			if o < 0 {
				return -1
			}
			if o > 0 && toks[o-1].Kind == TokIdent && !boundary(toks[o-1]) {
				return o - 1
			}
			return o
		case t.isOp("]"):
			o, n := k, 0
			for ; o >= 0; o-- {
				if toks[o].isOp("]") {
					n++
				} else if toks[o].isOp("[") {
					if n--; n == 0 {
						break
					}
				}
			}
			if o <= 0 {
				return -1
			}
			if toks[o-1].is("ARRAY") || toks[o-1].is("MAP") {
				return o - 1
			}
			k = o - 1
		case t.Kind == TokIdent && !boundary(t) || t.Kind == TokQuotedIdent:
			if k >= 2 && toks[k-1].isOp(".") && (toks[k-2].Kind == TokIdent || toks[k-2].Kind == TokQuotedIdent || toks[k-2].isOp(")") || toks[k-2].isOp("]")) {
				k -= 2 // t.col, or the .field of a call or an item
				continue
			}
			return k
		default:
			return -1
		}
	}
	return -1
}
