package parser

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/internal/termtext"
)

// This file parses SPEC 2.6's composition: subqueries in FROM, WITH, UNION
// ALL and views. Each subquery is parsed on its own, as a query of its own
// (its own window TVF, joins and CASTs), and the query around it gives TiDB
// a placeholder table name in its place: `$<offset in base 36>`, padded with
// spaces to the subquery's length so every other offset stays exact.

// Relation is a query read as a relation (SPEC 2.6): a subquery in FROM, a
// WITH definition or a view's query. It is one SELECT, or the UNION ALL of
// several (Selects in order, each with the same column count).
type Relation struct {
	Selects []*Select
	Range
	// Distinct is set on the parts of a UNION without ALL (Flink's UNION:
	// SELECT DISTINCT * over them, unionSelect), for the planner's messages.
	Distinct bool
	// Union is "UNION ALL" or "UNION" when the relation is the rows of a
	// union written without a name, which the parser reads through a
	// placeholder (SELECT * FROM the union, then its ORDER BY, LIMIT or
	// OFFSET: unionQuery; a UNION's DISTINCT: relSelect), "" otherwise: the
	// planner's messages name it "the UNION ALL", not a subquery.
	Union string
}

// CTE is one WITH name AS (query) definition (SPEC 2.6).
type CTE struct {
	Name    string
	NamePos int
	Rel     *Relation
}

// CreateView is CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name AS query (SPEC
// 2.6): a named query, expanded where it is read. File, set by the session,
// is the script that declares it (its query's offsets are into that script).
type CreateView struct {
	Range
	Name        string
	NamePos     int
	IfNotExists bool
	Rel         *Relation
	Text        string // the query as written
	File        *File
}

// DropView is DROP [TEMPORARY] VIEW [IF EXISTS] name (SPEC 2.6).
type DropView struct {
	Range
	IfExists bool
	Name     string
	NamePos  int
}

// ShowViews is SHOW VIEWS (SPEC 2.6).
type ShowViews struct{ Range }

// IsPlaceholder reports whether name is a placeholder this parser gave TiDB
// for a subquery or a UNION ALL (Select.Derived's keys).
func IsPlaceholder(name string) bool { return strings.HasPrefix(name, "$") }

// derived is the subqueries found in a region's FROM: the region with each
// subquery's tokens replaced by one placeholder token, and the subqueries.
type derived struct {
	region *region
	rels   map[string]*Relation
}

// derivedTables finds the subqueries in r's FROM clauses (a '(' after FROM,
// JOIN or ',' whose first token is SELECT or WITH), parses each as a
// Relation, and returns r with placeholders in their place; nil when there
// is none.
func (ps *parseState) derivedTables(all []Token, r *region) (*derived, *Error) {
	var out *derived
	toks := r.toks
	var kept []Token
	var pre []edit
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.isOp("(") && i > 0 && toks[i-1].is("IN") {
			if ph, n := ps.inRelation(all, r, i); ph != nil {
				if out == nil {
					out = &derived{rels: map[string]*Relation{}}
				}
				if ph.err != nil {
					return nil, ph.err
				}
				out.rels[ph.name] = ph.rel
				pre = append(pre, ph.edit)
				kept = append(kept, ph.toks...)
				i += n
				continue
			}
		}
		if !t.isOp("(") || i == 0 || i+1 >= len(toks) || r.ctx[i] != clFrom && !windowTableArg(r, i) {
			kept = append(kept, t)
			continue
		}
		p, n := toks[i-1], toks[i+1]
		if !(p.is("FROM") || p.is("JOIN") || p.isOp(",") || windowTableArg(r, i)) || !(n.is("SELECT") || n.is("WITH") || n.isOp("(")) {
			kept = append(kept, t)
			continue
		}
		closeAt := r.closing(i)
		if closeAt < 0 {
			return nil, Errorf(t.Offset, "this ( is never closed")
		}
		inner := toks[i+1 : closeAt]
		rel, err := ps.relation(all, inner, inner[0].Offset, toks[closeAt].Offset)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = &derived{rels: map[string]*Relation{}}
		}
		name := "$" + strconv.FormatInt(int64(t.Offset), 36)
		out.rels[name] = rel
		text := "`" + name + "`"
		end := toks[closeAt].End()
		if n := end - t.Offset; n > len(text) {
			text += strings.Repeat(" ", n-len(text))
		}
		pre = append(pre, edit{t.Offset, end, text})
		kept = append(kept, Token{Kind: TokQuotedIdent, Text: "`" + name + "`", Offset: t.Offset})
		i = closeAt
	}
	if out == nil {
		return nil, nil
	}
	out.region = newRegion(all, kept, r.start, r.end)
	out.region.pre = pre
	return out, nil
}

// closing returns the index of the ')' that closes the '(' at r.toks[i],
// -1 when none does.
func (r *region) closing(i int) int {
	for j := i + 1; j < len(r.toks); j++ {
		if r.depth[j] == r.depth[i] && r.toks[j].isOp(")") {
			return j
		}
	}
	return -1
}

// inPlaceholder is an IN subquery read as a relation (inRelation): its
// placeholder name, the relation, the edit that puts `(SELECT * FROM
// placeholder)` in its place and the tokens of that text; err when the
// subquery does not parse.
type inPlaceholder struct {
	name string
	rel  *Relation
	edit edit
	toks []Token
	err  *Error
}

// inRelation reads the subquery of `x [NOT] IN (subquery)` whose '(' is
// r.toks[i] as a relation (SPEC 2.6: every operator composes with every
// other) when it is more than a SELECT of one stream, which the planner
// lowers to a semi or anti join (SPEC 2.2) itself: a UNION [ALL], a join
// of relations in its FROM, GROUP BY, HAVING, DISTINCT, ORDER BY, LIMIT or a
// WITH. The query around it then reads `x IN (SELECT * FROM placeholder)`,
// written over the subquery's text (padded with spaces, so every other
// offset stays exact). It returns nil when the subquery is none of these,
// or too short to hold that text; n is the number of tokens after r.toks[i]
// that it replaced.
func (ps *parseState) inRelation(all []Token, r *region, i int) (*inPlaceholder, int) {
	toks := r.toks
	if i+1 >= len(toks) || !(toks[i+1].is("SELECT") || toks[i+1].is("WITH") || toks[i+1].isOp("(")) {
		return nil, 0
	}
	closeAt := r.closing(i)
	if closeAt < 0 {
		return nil, 0
	}
	relational := toks[i+1].is("WITH") || toks[i+1].isOp("(")
	for j := i + 1; j < closeAt && !relational; j++ {
		if r.depth[j] != r.depth[i]+1 {
			continue
		}
		t := toks[j]
		relational = t.is("UNION") || t.is("EXCEPT") || t.is("INTERSECT") || t.is("GROUP") || t.is("HAVING") ||
			t.is("ORDER") || t.is("LIMIT") || t.is("DISTINCT") && toks[j-1].is("SELECT") ||
			r.ctx[j] == clFrom && (t.is("JOIN") || t.is("STRAIGHT_JOIN") || t.isOp(","))
	}
	if !relational {
		return nil, 0
	}
	t := toks[i]
	name := "$" + strconv.FormatInt(int64(t.Offset), 36)
	head := "(SELECT * FROM `" + name + "`"
	end := toks[closeAt].End()
	if len(head)+1 > end-t.Offset {
		return nil, 0
	}
	inner := toks[i+1 : closeAt]
	rel, err := ps.relation(all, inner, inner[0].Offset, toks[closeAt].Offset)
	ph := &inPlaceholder{name: name, rel: rel, err: err,
		edit: edit{t.Offset, end, head + strings.Repeat(" ", end-t.Offset-len(head)-1) + ")"},
		toks: []Token{t, {Kind: TokIdent, Text: "SELECT", Offset: t.Offset + 1}, {Kind: TokOp, Text: "*", Offset: t.Offset + 8},
			{Kind: TokIdent, Text: "FROM", Offset: t.Offset + 10}, {Kind: TokQuotedIdent, Text: "`" + name + "`", Offset: t.Offset + 15}, toks[closeAt]}}
	return ph, closeAt - i
}

// windowTableArg reports whether the '(' at toks[i] opens a window TVF's
// table argument written as a subquery (SPEC 2.4, 2.6; Flink's forms):
// TUMBLE(TABLE (SELECT …), …) or TUMBLE((SELECT …), …), and likewise HOP,
// CUMULATE and SESSION. The subquery becomes a placeholder there as in
// FROM, which windowTVF reads as the TVF's relation.
func windowTableArg(r *region, i int) bool {
	toks := r.toks
	at := i - 1
	if at >= 0 && toks[at].is("TABLE") {
		at--
	}
	// TABLE ( fn ( at a FROM's table reference
	return at >= 3 && toks[at].isOp("(") && toks[at-1].Kind == TokIdent && windowFuncs[strings.ToUpper(toks[at-1].Text)] != nil &&
		toks[at-2].isOp("(") && toks[at-3].is("TABLE") && r.ctx[at-3] == clFrom
}

// relation parses the tokens of a subquery, WITH definition or view: a
// query, or queries joined by UNION ALL at its top level.
func (ps *parseState) relation(all, toks []Token, start, end int) (*Relation, *Error) {
	if len(toks) == 0 {
		return nil, Errorf(start, "expected a query (SELECT ...)")
	}
	for len(toks) > 2 && toks[0].isOp("(") && matching(toks) == len(toks)-1 { // ((SELECT ...))
		toks, start, end = toks[1:len(toks)-1], toks[1].Offset, toks[len(toks)-1].Offset
	}
	parts, distinct, seps, err := unionParts(toks)
	if err != nil {
		return nil, err
	}
	if len(parts) > 1 && unionTail(parts[len(parts)-1]) > 0 { // (… UNION ALL … ORDER BY x LIMIT n)
		sel, _, err := ps.unionQuery(all, toks, start, end)
		if err != nil {
			return nil, err
		}
		return &Relation{Range: Range{Start: start, End: end}, Selects: []*Select{sel}}, nil
	}
	if mixed(seps) { // (A UNION B UNION ALL C): a tree of them
		sel, err := ps.unionTree(all, parts, seps, start, end)
		if err != nil {
			return nil, err
		}
		return &Relation{Range: Range{Start: start, End: end}, Selects: []*Select{sel}}, nil
	}
	if distinct { // (A UNION B): one SELECT DISTINCT * over their UNION ALL
		sel, err := ps.unionSelect(all, parts, start, end, true)
		if err != nil {
			return nil, err
		}
		return &Relation{Range: Range{Start: start, End: end}, Selects: []*Select{sel}}, nil
	}
	return ps.unionAll(all, parts, start, end)
}

// unionAll parses the parts of a UNION ALL (or the one query of a relation
// without UNION) as a Relation.
func (ps *parseState) unionAll(all []Token, parts [][]Token, start, end int) (*Relation, *Error) {
	rel := &Relation{Range: Range{Start: start, End: end}}
	for _, p := range parts {
		for len(p) > 2 && p[0].isOp("(") && matching(p) == len(p)-1 {
			p = p[1 : len(p)-1]
		}
		e := p[len(p)-1].End()
		if !p[0].is("SELECT") && !p[0].is("WITH") {
			return nil, Errorf(p[0].Offset, "expected SELECT here: a subquery, WITH definition or view holds a query")
		}
		sel, err := ps.query(all, p, p[0].Offset, e)
		if err != nil {
			return nil, err
		}
		if sel.Side != "" || sel.Stream != "" {
			into, pos := "INTO SIDE '"+sel.Side+"'", sel.SidePos
			if sel.Stream != "" {
				into, pos = "INTO STREAM "+sel.Stream, sel.StreamPos
			}
			if len(parts) > 1 { // (SPEC 2.1: a branch routes the rows of the one relation it reads)
				return nil, Errorf(pos, "INTO SIDE and INTO STREAM stand in the outermost query only, not in a UNION ALL part: a side branch takes the rows of the one relation it reads; write the branch over the union, SELECT * %s FROM (SELECT … UNION ALL SELECT …) AS u [WHERE …], or one branch per part, each %s", into, into)
			}
			return nil, Errorf(pos, "INTO SIDE and INTO STREAM stand in the outermost query only, not in a subquery, WITH definition or view: write it in the query that reads them")
		}
		if sel.Late != "" {
			return nil, Errorf(sel.LatePos, "LATE INTO SIDE stands in the outermost query only: a subquery's late rows go to the default late output")
		}
		rel.Selects = append(rel.Selects, sel)
	}
	return rel, nil
}

// matching returns the index of the ')' that closes toks[0], -1 when none.
func matching(toks []Token) int {
	d := 0
	for i, t := range toks {
		switch {
		case t.isOp("("):
			d++
		case t.isOp(")"):
			d--
			if d == 0 {
				return i
			}
		}
	}
	return -1
}

// unionParts splits toks at UNION [ALL] outside parentheses; distinct is
// true when every separator is UNION without ALL (Flink's UNION: the
// distinct rows of the UNION ALL); seps holds, per separator, whether it is
// UNION without ALL (UNION and UNION ALL may mix at one level: unionTree
// groups them from the left, as Flink does). EXCEPT and INTERSECT are errors
// (SPEC 2.6 composes streams with UNION ALL).
func unionParts(toks []Token) (parts [][]Token, distinct bool, seps []bool, _ *Error) {
	d, from := 0, 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.isOp("("):
			d++
		case t.isOp(")"):
			d--
		case d == 0 && (t.is("EXCEPT") || t.is("INTERSECT")):
			return nil, false, nil, Errorf(t.Offset, "%s is not supported: streams compose with UNION ALL (SPEC 2.6)", strings.ToUpper(t.Text))
		case d == 0 && t.is("UNION"):
			isAll := i+1 < len(toks) && toks[i+1].is("ALL")
			seps = append(seps, !isAll)
			skip := 1
			if isAll {
				skip = 2
			}
			if i == from || i+skip >= len(toks) {
				return nil, false, nil, Errorf(t.Offset, "UNION stands between two queries: SELECT ... UNION [ALL] SELECT ...")
			}
			parts = append(parts, toks[from:i])
			from = i + skip
			i += skip - 1
		}
	}
	distinct = len(seps) > 0
	for _, s := range seps {
		distinct = distinct && s
	}
	return append(parts, toks[from:]), distinct, seps, nil
}

// mixed reports whether seps (unionParts) hold both UNION and UNION ALL.
func mixed(seps []bool) bool {
	for _, s := range seps {
		if s != seps[0] {
			return true
		}
	}
	return false
}

// unionTree parses parts joined by the separators seps (unionParts), UNION
// and UNION ALL mixed, from the left as Flink does: each run of one kind is
// a UNION [ALL] whose first part is the query of the runs before it
// (A UNION B UNION ALL C is (A UNION B) UNION ALL C).
func (ps *parseState) unionTree(all []Token, parts [][]Token, seps []bool, start, end int) (*Select, *Error) {
	var left *Select
	for k := 0; k < len(seps); {
		r := k
		for r+1 < len(seps) && seps[r+1] == seps[k] {
			r++
		}
		// the run joins parts k..r+1 (the first is left after the first run)
		from := k
		if left != nil {
			from = k + 1
		}
		runEnd := parts[r+1][len(parts[r+1])-1].End()
		rel, err := ps.unionAll(all, parts[from:r+2], start, runEnd)
		if err != nil {
			return nil, err
		}
		if left != nil {
			rel.Selects = append([]*Select{left}, rel.Selects...)
		}
		if left, err = ps.relSelect(rel, start, runEnd, seps[k], k); err != nil {
			return nil, err
		}
		k = r + 1
	}
	left.Range = Range{Start: start, End: end}
	return left, nil
}

// unionQuery parses a query that is a UNION [ALL] at its top level as SELECT
// * FROM the union (a placeholder relation), SELECT DISTINCT * for UNION; ok
// is false when toks hold no UNION at their top level.
func (ps *parseState) unionQuery(all, toks []Token, start, end int) (*Select, bool, *Error) {
	parts, distinct, seps, err := unionParts(toks)
	if err != nil {
		return nil, true, err
	}
	if len(parts) < 2 {
		return nil, false, nil
	}
	last := parts[len(parts)-1]
	k := unionTail(last)
	if k < 0 {
		s, err := ps.union(all, parts, seps, distinct, start, end)
		return s, true, err
	}
	// ORDER BY, LIMIT, OFFSET or FETCH after the last query orders or cuts
	// the union's rows, not the last query's (SQL's and Flink's reading):
	// SELECT * FROM the union, then the clauses, as for a subquery in FROM
	parts[len(parts)-1] = last[:k]
	uEnd := last[k-1].End()
	u, err := ps.union(all, parts, seps, distinct, start, uEnd)
	if err != nil {
		return nil, true, err
	}
	name := "$" + strconv.FormatInt(int64(start), 36) + "_tail"
	text := "SELECT * FROM `" + name + "`"
	if len(text) > uEnd-start { // (never: two queries and UNION are longer)
		return nil, true, Errorf(start, "internal error: a UNION too short for its placeholder")
	}
	head := []Token{{Kind: TokIdent, Text: "SELECT", Offset: start}, {Kind: TokOp, Text: "*", Offset: start + 7},
		{Kind: TokIdent, Text: "FROM", Offset: start + 9}, {Kind: TokQuotedIdent, Text: "`" + name + "`", Offset: start + 14}}
	r := newRegion(all, append(head, last[k:]...), start, end)
	r.pre = []edit{{start, uEnd, text + strings.Repeat(" ", uEnd-start-len(text))}}
	d := &derived{region: r, rels: map[string]*Relation{name: {Range: Range{Start: start, End: uEnd}, Selects: []*Select{u}, Union: unionWord(seps[len(seps)-1])}}} // (the last separator is the outermost: unionTree)
	s, err := ps.plainQuery(r, d)
	return s, true, err
}

// unionWord is how a union is written: "UNION" for distinct, else "UNION
// ALL" (Relation.Union).
func unionWord(distinct bool) string {
	if distinct {
		return "UNION"
	}
	return "UNION ALL"
}

// union parses parts, queries joined by UNION [ALL] (seps, distinct:
// unionParts), spanning [start, end), as one SELECT * FROM them.
func (ps *parseState) union(all []Token, parts [][]Token, seps []bool, distinct bool, start, end int) (*Select, *Error) {
	if mixed(seps) {
		return ps.unionTree(all, parts, seps, start, end)
	}
	return ps.unionSelect(all, parts, start, end, distinct)
}

// unionTail returns the index in toks, the last query of a UNION [ALL], of
// its first clause outside parentheses that belongs to the whole union
// (ORDER BY, LIMIT, OFFSET, FETCH), -1 when it has none.
func unionTail(toks []Token) int {
	d := 0
	for i, t := range toks {
		switch {
		case t.isOp("("):
			d++
		case t.isOp(")"):
			d--
		case d > 0:
		case t.is("ORDER") && i+1 < len(toks) && toks[i+1].is("BY"), t.is("LIMIT"), t.is("OFFSET"), t.is("FETCH"):
			if i == 0 {
				return -1
			}
			return i
		}
	}
	return -1
}

// unionSelect is SELECT [DISTINCT] * FROM the UNION ALL of parts (a
// placeholder relation); the planner reads DISTINCT as a GROUP BY of every
// column (planner/rule_distinct.go).
func (ps *parseState) unionSelect(all []Token, parts [][]Token, start, end int, distinct bool) (*Select, *Error) {
	rel, err := ps.unionAll(all, parts, start, end)
	if err != nil {
		return nil, err
	}
	return ps.relSelect(rel, start, end, distinct, 0)
}

// relSelect is SELECT [DISTINCT] * FROM rel, the UNION ALL of its queries (a
// placeholder relation named by start and n, unique within a unionTree).
func (ps *parseState) relSelect(rel *Relation, start, end int, distinct bool, n int) (*Select, *Error) {
	rel.Distinct = distinct
	rel.Union = unionWord(distinct)
	name := "$" + strconv.FormatInt(int64(start), 36)
	if n > 0 {
		name += "_" + strconv.Itoa(n)
	}
	text := "SELECT * FROM `" + name + "`"
	if distinct {
		text = "SELECT DISTINCT * FROM `" + name + "`"
	}
	node, perr := ps.tidbParse(text)
	if perr != nil {
		return nil, Errorf(start, "internal error: %v", perr)
	}
	q, _ := node.(*ast.SelectStmt)
	s := &Select{Range: Range{Start: start, End: end}, Derived: map[string]*Relation{name: rel}, Casts: CastTypes{},
		Query: q, Joins: map[*ast.Join]JoinKind{}, FieldText: map[*ast.SelectField]string{},
		Locate: func(ast.Node) int { return start }}
	return s, nil
}

// withQuery parses WITH name AS (query) [, name AS (query)] ... query.
func (ps *parseState) withQuery(all, toks []Token, start, end int) (*Select, *Error) {
	var ctes []*CTE
	i := 1
	for {
		if i >= len(toks) || toks[i].Kind != TokIdent && toks[i].Kind != TokQuotedIdent {
			at := end
			if i < len(toks) {
				at = toks[i].Offset
			}
			return nil, Errorf(at, "expected a name after WITH: WITH q AS (SELECT ...) SELECT ... FROM q")
		}
		nt := toks[i]
		if i == 1 && nt.is("RECURSIVE") && nt.Kind == TokIdent && i+1 < len(toks) && !toks[i+1].is("AS") {
			return nil, Errorf(nt.Offset, "WITH RECURSIVE is not supported (nor in Flink SQL): a stream query does not recurse; write WITH q AS (SELECT ...) without RECURSIVE")
		}
		if i+2 >= len(toks) || !toks[i+1].is("AS") || !toks[i+2].isOp("(") {
			at := end
			if i+1 < len(toks) {
				at = toks[i+1].Offset
			}
			return nil, Errorf(at, "expected AS ( after %s: WITH %s AS (SELECT ...) (column lists after the name are not supported)", termtext.Shorten(nt.Value(), 30), termtext.Shorten(nt.Value(), 30))
		}
		closeAt := matching(toks[i+2:])
		if closeAt < 0 {
			return nil, Errorf(toks[i+2].Offset, "this ( is never closed")
		}
		closeAt += i + 2
		inner := toks[i+3 : closeAt]
		if len(inner) == 0 {
			return nil, Errorf(toks[closeAt].Offset, "expected a query inside WITH %s AS (...)", termtext.Shorten(nt.Value(), 30))
		}
		rel, err := ps.relation(all, inner, inner[0].Offset, toks[closeAt].Offset)
		if err != nil {
			return nil, err
		}
		for _, c := range ctes {
			if strings.EqualFold(c.Name, nt.Value()) {
				return nil, Errorf(nt.Offset, "WITH defines %s twice", termtext.Shorten(nt.Value(), 30))
			}
		}
		ctes = append(ctes, &CTE{Name: nt.Value(), NamePos: nt.Offset, Rel: rel})
		i = closeAt + 1
		if i < len(toks) && toks[i].isOp(",") {
			i++
			continue
		}
		break
	}
	if i >= len(toks) {
		return nil, Errorf(end, "expected the query after WITH's definitions: WITH q AS (...) SELECT ... FROM q")
	}
	if !toks[i].is("SELECT") && !toks[i].isOp("(") {
		return nil, Errorf(toks[i].Offset, "expected SELECT after WITH's definitions")
	}
	sel, err := ps.query(all, toks[i:], toks[i].Offset, end)
	if err != nil {
		return nil, err
	}
	sel.With = append(ctes, sel.With...)
	sel.Start = start
	return sel, nil
}

// createView parses the rest of CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name
// AS query; c stands after VIEW.
func (ps *parseState) createView(c *cursor, span Range) (Stmt, *Error) {
	cv := &CreateView{Range: span}
	if c.peek().is("IF") && c.peekAt(1).is("NOT") && c.peekAt(2).is("EXISTS") {
		c.i += 3
		cv.IfNotExists = true
	}
	t := c.peek()
	if t.Kind != TokIdent && t.Kind != TokQuotedIdent || c.atEnd() {
		return nil, c.expected("the view's name: CREATE VIEW v AS SELECT ...")
	}
	c.next()
	cv.Name, cv.NamePos = t.Value(), t.Offset
	if !c.word("AS") {
		if c.peek().isOp("(") {
			return nil, Errorf(c.peek().Offset, "a view's columns are named by its query (SELECT x AS name): write CREATE VIEW %s AS SELECT ...", termtext.Shorten(cv.Name, 30))
		}
		return nil, c.expected("AS after the view's name: CREATE VIEW " + termtext.Shorten(cv.Name, 30) + " AS SELECT ...")
	}
	if c.atEnd() {
		return nil, c.expected("the view's query after AS")
	}
	toks := c.toks[c.i:]
	rel, err := ps.relation(c.all, toks, toks[0].Offset, c.end)
	if err != nil {
		return nil, err
	}
	cv.Rel = rel
	cv.Text = ps.src[toks[0].Offset:c.end]
	return cv, nil
}

// dropView parses the rest of DROP [TEMPORARY] VIEW [IF EXISTS] name; c
// stands after VIEW.
func (ps *parseState) dropView(c *cursor, span Range) (Stmt, *Error) {
	dv := &DropView{Range: span}
	if c.peek().is("IF") && c.peekAt(1).is("EXISTS") {
		c.i += 2
		dv.IfExists = true
	}
	t := c.peek()
	if t.Kind != TokIdent && t.Kind != TokQuotedIdent || c.atEnd() {
		return nil, c.expected("the view's name: DROP VIEW v")
	}
	c.next()
	dv.Name, dv.NamePos = t.Value(), t.Offset
	return dv, c.expectEnd("DROP VIEW " + termtext.Shorten(t.Text, 30))
}
