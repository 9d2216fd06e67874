package planner

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/parser"
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
	for ri, r := range s.rels {
		if tbl != "" && !strings.EqualFold(tbl, r.name) {
			continue
		}
		if i := r.stream.Column(col); i >= 0 {
			if found >= 0 {
				if len(s.rels) > 1 && s.prefer == ri {
					found, typ, foundRel = r.offset+i, r.stream.Columns[i].Type, ri
					continue
				}
				if len(s.rels) > 1 && s.prefer == foundRel {
					continue
				}
				return 0, 0, parser.Errorf(s.pos(n), "column '%s' is ambiguous: it is %s.%s and %s.%s; qualify it with a stream name or alias", col, s.rels[foundRel].name, col, r.name, col)
			}
			found, typ, foundRel = r.offset+i, r.stream.Columns[i].Type, ri
		}
	}
	if found < 0 && s.hidden != "" && strings.EqualFold(tbl, s.hidden) {
		return 0, 0, parser.Errorf(s.pos(n), "'%s.%s' is a column of the join's build side %s: a semi or anti join outputs left rows only, so only the left stream's columns can be selected", tbl, col, s.hidden)
	}
	if found < 0 {
		if tbl != "" && s.rel(tbl) < 0 {
			return 0, 0, parser.Errorf(s.pos(n), "unknown stream or alias '%s' in '%s.%s'; the query reads %s", tbl, tbl, col, s.relNames())
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

func (s *scope) relNames() string {
	var n []string
	for _, r := range s.rels {
		n = append(n, r.name)
	}
	return strings.Join(n, ", ")
}

func (s *scope) columnList(tbl string) string {
	var parts []string
	for _, r := range s.rels {
		if tbl != "" && !strings.EqualFold(tbl, r.name) {
			continue
		}
		parts = append(parts, r.name+" has "+strings.Join(r.stream.Names(), ", "))
	}
	return strings.Join(parts, "; ")
}

func (s *scope) pos(n ast.Node) int {
	if s.locate == nil {
		return 0
	}
	return s.locate(n)
}
