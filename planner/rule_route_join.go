package planner

import (
	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// This file routes a joined relation's rows through its pending side
// branches (SPEC 2.1, 2.6, 2.7): a statement's main query that joins a
// stream (or a view) on which side branches wait reads it as the relation
// of the rows no branch took. The branches run in that relation's job, at
// the stream's output, by first match in declaration order, as they would
// in a job whose main query reads the stream alone; their side outputs are
// the reading job's (ruleDerivedJob), and what they did not take reaches
// the join, its late output included.
//
// Decided (SPEC 2.1's "probe side" for a join of two relations): each
// input of the join routes its own rows through the branches pending on
// it, before the join, so both inputs of a join of two streams with
// branches do; a relation the FROM reads twice (a self-join) routes at its
// first reader in FROM order, and the other reads it whole (SPEC 2.1: a
// build side is read separately and whole).

// routeJoined replaces, in leaves (the relations of a main query's join,
// in FROM order), each relation with pending branches (Planner.Routes) by
// the relation of the rows they leave (routedRelation), the first reader
// of each only, and notes it in Planner.Branched. Its error is a planning
// error of that relation's job (a side name clash, SPEC 2.1).
func (sp *selectPlan) routeJoined(leaves [][]fromLeaf) error {
	p := sp.p
	if p.Routes == nil || !sp.route {
		return nil
	}
	for s := range leaves {
		for i, l := range leaves[s] {
			if l.st == nil || plan.DerivedOf(l.st) != nil && plan.DerivedOf(l.st).Of == nil {
				continue // (a subquery or WITH name: no branch attaches to it)
			}
			o := plan.Origin(l.st)
			done := false
			for _, r := range p.Branched {
				done = done || plan.Origin(r) == o
			}
			if done {
				continue // (a self-join: the first reader routes)
			}
			branches := p.Routes(l.st)
			if len(branches) == 0 {
				continue
			}
			st, err := p.routedRelation(l.st, l.name, branches)
			if err != nil {
				return err
			}
			p.Branched = append(p.Branched, l.st)
			l.st = st
			leaves[s][i] = l
			sp.resolved[l.ts] = l
		}
	}
	return nil
}

// routedRelation returns the relation named name (st's alias in FROM) of
// the rows of st that none of branches (pending on st, in declaration
// order) takes: a derived relation (SPEC 2.6) whose one part is the job of
// branches with SELECT * FROM st as its main query.
func (p *Planner) routedRelation(st *catalog.Stream, name string, branches []*Branch) (*catalog.Stream, error) {
	text := "SELECT * FROM " + catalog.QuoteName(st.Name)
	if d := plan.DerivedOf(st); d != nil && d.Of != nil {
		text = "SELECT * FROM " + catalog.QuoteName(d.Name)
	}
	script, err := parser.Parse("", text)
	if err != nil {
		return nil, err
	}
	sel, ok := script.Stmts[0].(*parser.Select)
	if !ok {
		return nil, parser.Errorf(0, "cannot read %s through its side branches", st.Name)
	}
	rel := &parser.Relation{Selects: []*parser.Select{sel}}
	if p.relFiles == nil {
		p.relFiles = map[*parser.Relation]*parser.File{}
	}
	p.relFiles[rel] = script.File
	return p.planRelationWith(rel, routedKind, name, text, branches)
}

// routedSides returns a planning error at offset at when a side branch
// that an input of join both routes (routedRelation) is named like one of
// the join's late outputs, or like a branch of the other input with other
// columns: the job writes each side name to one output (SPEC 2.1: two
// branches of one job share a name only with the same schema), and a
// derived relation's outputs would be renamed instead.
func routedSides(both *plan.BothJoin, at int) error {
	type side struct {
		b  *Branch
		in string
	}
	seen := map[string]side{}
	for _, in := range both.Inputs {
		d := plan.DerivedOf(in.Stream)
		if d == nil || d.Kind != routedKind {
			continue
		}
		for _, b := range d.Parts[0].Branches {
			for s, late := range both.Late {
				if b.Side == late && !sameSchema(b.Columns, both.Inputs[s].Stream.Columns) {
					return parser.Errorf(at, "side branch '%s' pending on %s has the name of the join's late output of %s but other columns (SPEC 2.1: one side name, one schema): declare the branch with another side name%s", b.Side, in.Name, both.Inputs[s].Name, renameLate(both.LateNamed[s]))
				}
			}
			if o, ok := seen[b.Side]; ok && o.in != in.Name && !sameSchema(o.b.Columns, b.Columns) {
				return parser.Errorf(at, "side branches '%s' pending on %s and on %s have different columns, and this join runs both in one job (SPEC 2.1: one side name, one schema): declare one of them with another side name, or both with the same columns", b.Side, o.in, in.Name)
			}
			seen[b.Side] = side{b, in.Name}
		}
	}
	return nil
}

// renameLate is the end of routedSides' advice: how to rename a join's late
// output, when the query did not name it (named: LATE INTO SIDE gave it).
func renameLate(named bool) string {
	if named {
		return ", or give the late output another name in LATE INTO SIDE"
	}
	return ", or name the late outputs with LATE INTO SIDE 'x', 'y' at the end of this query"
}

// routedKind is the plan.Derived.Kind of a relation routedRelation makes.
const routedKind = plan.RoutedKind

// BranchedParts returns the relations through which job j's main query reads
// joined streams with their side branches (routedRelation), in FROM order,
// through the joins of a FROM of more than two relations: each is named as
// the FROM reads the stream, and its one part's Branches are those
// branches, its Main passes the rest on.
func BranchedParts(j *Job) []*plan.Derived {
	var out []*plan.Derived
	var walk func(b *Branch)
	walk = func(b *Branch) {
		if b == nil || b.Both == nil {
			return
		}
		for _, in := range b.Both.Inputs {
			d := plan.DerivedOf(in.Stream)
			switch {
			case d == nil || len(d.Parts) != 1:
			case d.Kind == routedKind:
				out = append(out, d)
			case d.Kind == "join":
				walk(d.Parts[0].Main)
			}
		}
	}
	if j != nil {
		walk(j.Main)
	}
	return out
}
