package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/parser"
	"streamql/planner/plan"
)

// relation is one stream visible to a query under a name (its alias, or its own
// name), whose columns start at offset in the batch the query reads.
type relation struct {
	stream *catalog.Stream
	name   string // alias or stream name, as written
	offset int    // index of its first column in the batch
}

// scope binds column names of one query to batch column indexes (case-insensitive,
// SPEC: names). Expressions are compiled within a scope.
type scope struct {
	rels   []relation
	locate parser.Locator
	casts  parser.CastTypes
	src    string // the script text, for literal spellings (TRUE/FALSE)
	// watermark gives the CURRENT_WATERMARK vector's batch index of a relation's
	// event-time column, or -1 when the stream has none.
	watermark func(rel int) int
	// prefer is the relation that wins an unqualified name found in two (a
	// subquery's own stream, as in SQL), or -1 (0 by zero value: see twoScope).
	prefer int
	// hidden names the build side of a semi/anti join, whose columns a query may
	// not select (SPEC 2.2: output rows are left rows only).
	hidden string
	// uses, when set, marks the batch columns compiled expressions read
	// (Branch.Uses); nil in scopes over another batch (a join's build side).
	uses []bool
	// reads, when set, marks the batch columns compiled expressions read
	// from when it was set on, as uses does: a join's scope sets it once
	// the join's own ON terms are compiled (ruleJoinBoth), so that it marks
	// the columns the joined rows' readers read, not those the keys and
	// time bounds alone read (plan.JoinInput.Pass).
	reads []bool
	// fails is set when an expression compiled while reads is set calls a
	// function (callsFunc), whose failure prints the row it read, every
	// column, in the errors output (SPEC 1): the joined rows then carry
	// every column the join holds.
	fails bool
	// depth counts the compile calls in progress (0: compiling a whole expression).
	depth int
	// ticks counts the nodes compiled for the planning's cancellation check; nil
	// when the planning cannot be cancelled.
	ticks *ticker
	// funcs are the session's user-defined functions (SPEC 2.10), nil for none.
	funcs *functions.Registry
	// hook, when set, compiles the nodes it knows before compile1 does (the
	// aggregate row's keys, window columns and aggregate calls: rule_aggregate.go);
	// it returns nil, nil for the others.
	hook func(n ast.ExprNode) (*Expr, error)
}

// use marks batch column idx as read.
func (s *scope) use(idx int) {
	if idx >= 0 && idx < len(s.uses) {
		s.uses[idx] = true
	}
	if idx >= 0 && idx < len(s.reads) {
		s.reads[idx] = true
	}
}

// ticker checks a planning's context every tickEvery nodes, so that a long
// planning stops soon after Ctrl-C (issue 9: within 100 ms).
type ticker struct {
	ctx context.Context
	n   int
}

// tickEvery is how many AST nodes are compiled between two context checks; a
// node takes well under a microsecond, so a check comes every few hundred µs.
const tickEvery = 256

// tick counts one node and returns the context's error every tickEvery nodes once
// it is done (context.Canceled after Ctrl-C).
func (s *scope) tick() error {
	t := s.ticks
	if t == nil || t.ctx == nil {
		return nil
	}
	if t.n++; t.n%tickEvery != 0 {
		return nil
	}
	return t.ctx.Err()
}

// column resolves a column reference and returns its batch index and type.
func (s *scope) column(n *ast.ColumnNameExpr) (int, catalog.Type, error) {
	tbl, col := n.Name.Table.O, n.Name.Name.O
	found, foundRel := -1, -1
	var typ catalog.Type
	var amb []relation // the relations an ambiguous col is found in
	if p := s.prefer; tbl == "" && p >= 0 && len(s.rels) > 1 {
		if i := s.rels[p].stream.Column(col); i >= 0 { // (it wins over every other relation: twoScope's build side)
			r := s.rels[p]
			return r.offset + i, r.stream.Columns[i].Type, nil
		}
	}
	for ri, r := range s.rels {
		if tbl != "" && !strings.EqualFold(tbl, r.name) {
			continue
		}
		if i := r.stream.Column(col); i >= 0 {
			if len(amb) > 0 {
				amb = append(amb, r)
				continue
			}
			if found >= 0 {
				if len(s.rels) > 1 && s.prefer == ri {
					found, typ, foundRel = r.offset+i, r.stream.Columns[i].Type, ri
					continue
				}
				if len(s.rels) > 1 && s.prefer == foundRel {
					continue
				}
				amb = append(amb, s.rels[foundRel], r)
				continue
			}
			found, typ, foundRel = r.offset+i, r.stream.Columns[i].Type, ri
		}
	}
	if len(amb) > 0 {
		return 0, 0, parser.Errorf(s.pos(n), "%s", ambiguousText(col, amb))
	}
	if found < 0 && s.hidden != "" && strings.EqualFold(tbl, s.hidden) {
		return 0, 0, parser.Errorf(s.pos(n), "%s.%s is a column of the join's build side %s: a semi or anti join outputs left rows only, so only the left stream's columns can be selected", catalog.QuoteName(tbl), col, catalog.QuoteName(s.hidden))
	}
	if found < 0 {
		if tbl != "" && s.rel(tbl) < 0 {
			msg := fmt.Sprintf("unknown stream or alias '%s' in '%s.%s'; the query reads %s", tbl, tbl, col, s.relNames())
			for _, r := range s.rels {
				if r.stream.Column(col) < 0 {
					continue
				}
				msg += "; " + qualifyText(r.name, r.stream, tbl, col)
				break
			}
			return 0, 0, parser.Errorf(s.pos(n), "%s", msg)
		}
		return 0, 0, parser.Errorf(s.pos(n), "unknown column '%s'; %s", col, s.columnList(tbl))
	}
	return found, typ, nil
}

// rel returns the index of the relation named name, or -1.
func (s *scope) rel(name string) int {
	for i, r := range s.rels {
		if strings.EqualFold(r.name, name) {
			return i
		}
	}
	return -1
}

// relNames names the scope's relations for a message (relText).
func (s *scope) relNames() string {
	var n []string
	for _, r := range s.rels {
		n = append(n, r.text())
	}
	return strings.Join(n, ", ")
}

// columnList lists the columns of each relation (of relation tbl only when
// tbl is set) for a message: "a has k, n; b has k, ts".
func (s *scope) columnList(tbl string) string {
	var parts []string
	for _, r := range s.rels {
		if tbl != "" && !strings.EqualFold(tbl, r.name) {
			continue
		}
		parts = append(parts, r.text()+" has "+strings.Join(r.stream.Names(), ", "))
	}
	return strings.Join(parts, "; ")
}

// unaliasedName is the name a subquery in FROM without an alias is read by
// (its parts' late outputs are named by their own inputs instead:
// ruleDerivedJob). A query may qualify its
// columns with it, but no other engine reads it so (Flink names such a
// subquery EXPR$n), so messages never suggest it (relText).
const unaliasedName = "subquery"

// unaliased reports whether relation name (of stream st) is a subquery
// written without an alias.
func unaliased(name string, st *catalog.Stream) bool {
	d := plan.DerivedOf(st)
	return d != nil && d.Kind == "subquery" && strings.EqualFold(name, unaliasedName)
}

// relText names relation name (of stream st) in a message: its name as a
// query qualifies a column with it (catalog.QuoteName: a quoted file name
// 's.csv' as `s.csv`), or "the subquery without an alias" for one written
// so, whose columns a query qualifies after giving it an alias: (SELECT …)
// AS s ... s.k; "the UNION ALL" (or "the UNION") for the rows of a union
// that its ORDER BY, LIMIT or OFFSET reads (plan.Derived.Union).
func relText(name string, st *catalog.Stream) string {
	if unaliased(name, st) {
		if u := plan.DerivedOf(st).Union; u != "" {
			return "the " + u
		}
		return "the subquery without an alias"
	}
	return catalog.QuoteName(name)
}

// qualifyText says how to read column col (or "*") of relation name (of
// stream st) qualified as tbl.col, which names no relation of the query: give
// a subquery without an alias the alias, "(SELECT …) AS tbl"; write a
// relation read by an alias by it, "y.col"; else write its name or give it
// the alias, "`s.csv`.col, or give it the alias: FROM 's.csv' AS tbl".
func qualifyText(name string, st *catalog.Stream, tbl, col string) string {
	switch {
	case unaliased(name, st) && plan.DerivedOf(st).Union != "":
		// (SQL names a union's columns by the first query's names, unqualified)
		if col == "*" {
			return "the " + plan.DerivedOf(st).Union + "'s columns are read unqualified: write *"
		}
		return fmt.Sprintf("the %s's columns are read unqualified: write %s", plan.DerivedOf(st).Union, col)
	case unaliased(name, st):
		what := "the subquery's " + col
		if col == "*" {
			what = "its columns"
		}
		return fmt.Sprintf("to read %s as %s.%s, give it the alias: (SELECT …) AS %s", what, tbl, col, tbl)
	case !strings.EqualFold(name, st.Name):
		return fmt.Sprintf("write %s.%s", catalog.QuoteName(name), col)
	}
	return fmt.Sprintf("write %s.%s, or give it the alias: FROM %s AS %s", catalog.QuoteName(name), col, fromText(st.Name), tbl)
}

// fromText returns how FROM reads the relation named name in an example of a
// message: bare when it is a plain identifier, else as a quoted file name
// ('s.csv'; FROM reads a stream of that name when one exists, so this also
// reads a stream declared as `a.b`).
func fromText(name string) string {
	if catalog.QuoteName(name) == name {
		return name
	}
	return "'" + strings.ReplaceAll(name, "'", "''") + "'"
}

// exampleRels returns how an example join in a message writes two
// relations in FROM (from) and qualifies their columns (qual): by their
// names, or, for a subquery without an alias, "(SELECT …) AS s" and s, an
// alias that is not the other's name.
func exampleRels(names [2]string, sts [2]*catalog.Stream) (from, qual [2]string) {
	for i := range names {
		from[i], qual[i] = fromText(names[i]), catalog.QuoteName(names[i])
	}
	for i := range names {
		if !unaliased(names[i], sts[i]) {
			continue
		}
		for _, a := range []string{"s", "q", "t", "s1"} {
			if !strings.EqualFold(a, qual[1-i]) {
				from[i], qual[i] = "(SELECT …) AS "+a, a
				break
			}
		}
	}
	return from, qual
}

func (r relation) unaliased() bool { return unaliased(r.name, r.stream) }
func (r relation) text() string    { return relText(r.name, r.stream) }

// ambiguousText is the message of an unqualified column col that relations
// rels (two or more, in FROM order) all have (SPEC 2.7: it lists every
// qualified name, "x.id, y.id and z.id"): what to write instead, a
// subquery without an alias given one first.
func ambiguousText(col string, rels []relation) string {
	var names []string
	var other *relation // (the first relation with a name)
	for k, r := range rels {
		if r.unaliased() {
			continue
		}
		names = append(names, r.text()+"."+col)
		if other == nil {
			other = &rels[k]
		}
	}
	if len(names) == len(rels) {
		return fmt.Sprintf("column '%s' is ambiguous: it is %s; qualify it with a stream name or alias", col, andList(names))
	}
	if other == nil { // (two subqueries without an alias are refused before, as relations of one name)
		return fmt.Sprintf("column '%s' is ambiguous; give each subquery an alias, (SELECT …) AS s, and qualify it", col)
	}
	alias := "s"
	for _, r := range rels {
		if strings.EqualFold(r.name, alias) {
			alias = "q"
		}
	}
	names = append(names, "a column of the subquery without an alias")
	return fmt.Sprintf("column '%s' is ambiguous: it is %s; give the subquery an alias, (SELECT …) AS %s, and write %s.%s or %s.%s", col, andList(names), alias, other.text(), col, alias, col)
}

// andList joins two or more items as "a, b and c".
func andList(items []string) string {
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func (s *scope) pos(n ast.Node) int {
	if s.locate == nil {
		return 0
	}
	return s.locate(n)
}
