package planner

import (
	"strings"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/parser"
)

// The ARRAY and MAP functions of Flink 2.x (SPEC 2.10: ARRAY_CONTAINS,
// ARRAY_SORT, MAP_KEYS, ...): each rule types the call from its arguments'
// types, which the function table's signatures cannot express (the result
// is the ARRAY's type, its element type, an ARRAY of a MAP's keys, ...), and
// reports a wrong argument with a caret under it.
func init() {
	for _, name := range []string{"array_contains", "array_position", "array_remove", "array_append", "array_prepend",
		"array_distinct", "array_reverse", "array_slice", "array_concat", "array_union", "array_intersect", "array_except",
		"array_max", "array_min", "array_sort", "array_join", "map_keys", "map_values", "map_entries", "map_from_arrays", "map_union"} {
		registerFunc(funcRule{compile: ruleCollection}, name)
	}
	// SPLIT is a TiDB keyword: the parser writes the call SQ_SP (funcsyntax.go)
	registerFunc(funcRule{compile: func(c *funcCall) (*Expr, error) {
		c.name = "split"
		return c.bindTable(functions.Lookup("SPLIT"))
	}}, "sq_sp", "split")
}

// ruleCollection binds a call of one of the ARRAY and MAP functions.
func ruleCollection(c *funcCall) (*Expr, error) {
	name := strings.ToUpper(c.name)
	f := functions.Lookup(name)
	lo, hi := 1, 1
	switch name {
	case "ARRAY_CONTAINS", "ARRAY_POSITION", "ARRAY_REMOVE", "ARRAY_APPEND", "ARRAY_PREPEND", "ARRAY_UNION",
		"ARRAY_INTERSECT", "ARRAY_EXCEPT", "MAP_FROM_ARRAYS":
		lo, hi = 2, 2
	case "ARRAY_SLICE", "ARRAY_JOIN":
		lo, hi = 2, 3
	case "ARRAY_SORT":
		lo, hi = 1, 3
	case "ARRAY_CONCAT", "MAP_UNION":
		lo, hi = 1, 1<<20
	}
	if err := c.arity(lo, hi); err != nil {
		return nil, err
	}
	kind := catalog.KindArray
	if strings.HasPrefix(name, "MAP_") && name != "MAP_FROM_ARRAYS" {
		kind = catalog.KindMap
	}
	x := c.args[0]
	if x.Type.Kind() != kind {
		return nil, c.wrongArg(0, name+" needs "+map[catalog.Kind]string{catalog.KindArray: "an ARRAY", catalog.KindMap: "a MAP"}[kind])
	}
	t := x.Type
	switch name {
	case "ARRAY_CONTAINS", "ARRAY_POSITION", "ARRAY_REMOVE", "ARRAY_APPEND", "ARRAY_PREPEND":
		if err := c.convert(1, t.Elem(), "an element of "+t.String()); err != nil {
			if u, ok := catalog.LeastRestrictive(t.Elem(), c.args[1].Type); ok && u != t.Elem() {
				// (a DOUBLE part where the ARRAY has BIGINT: Flink converts the element to the ARRAY's type, never the ARRAY)
				return nil, parser.Errorf(c.sc.pos(c.n.Args[1]), "%v; it does not convert to %s without loss (as in Flink): CAST the ARRAY, CAST(... AS %s)", err, t.Elem(), catalog.ArrayOf(u))
			}
			return nil, err
		}
		switch name {
		case "ARRAY_CONTAINS":
			t = catalog.Boolean
		case "ARRAY_POSITION":
			t = catalog.BigInt
		}
	case "ARRAY_SLICE":
		for k := 1; k < len(c.args); k++ {
			if err := c.convert(k, catalog.BigInt, "a BIGINT offset"); err != nil {
				return nil, err
			}
		}
	case "ARRAY_CONCAT", "ARRAY_UNION", "ARRAY_INTERSECT", "ARRAY_EXCEPT", "MAP_UNION":
		var err error
		if t, err = c.sameNested(kind); err != nil {
			return nil, err
		}
	case "ARRAY_MAX", "ARRAY_MIN", "ARRAY_SORT", "ARRAY_JOIN":
		if t.Elem().IsNested() {
			return nil, c.wrongArg(0, name+" needs an ARRAY of BIGINT, DOUBLE, VARCHAR, BOOLEAN or TIMESTAMP")
		}
		switch name {
		case "ARRAY_MAX", "ARRAY_MIN":
			t = t.Elem()
		case "ARRAY_SORT":
			for k := 1; k < len(c.args); k++ {
				if err := c.convert(k, catalog.Boolean, "a BOOLEAN"); err != nil {
					return nil, err
				}
			}
		case "ARRAY_JOIN":
			for k := 1; k < len(c.args); k++ {
				if err := c.convert(k, catalog.Varchar, "a VARCHAR"); err != nil {
					return nil, err
				}
			}
			t = catalog.Varchar
		}
	case "MAP_KEYS":
		t = catalog.ArrayOf(t.Key())
	case "MAP_VALUES":
		t = catalog.ArrayOf(t.Elem())
	case "MAP_ENTRIES":
		t = catalog.ArrayOf(catalog.RowOf([]catalog.Field{{Name: "key", Type: t.Key()}, {Name: "value", Type: t.Elem()}}))
	case "MAP_FROM_ARRAYS":
		if c.args[1].Type.Kind() != catalog.KindArray {
			return nil, c.wrongArg(1, name+" needs an ARRAY of values")
		}
		t = catalog.MapOf(t.Elem(), c.args[1].Type.Elem())
	}
	return c.sc.tableCall(c.n, f, t, c.args)
}

// wrongArg is the error of argument k, which is not what the function needs.
func (c *funcCall) wrongArg(k int, need string) error {
	a := c.args[k]
	return parser.Errorf(c.sc.pos(c.n.Args[k]), "%s, got %s (%s)", need, exprTextOf(a), a.Type)
}

// convert converts argument k to t (NULL to any type, BIGINT to DOUBLE) or
// returns the error at it, saying it needs what.
func (c *funcCall) convert(k int, t catalog.Type, what string) error {
	if c.args[k] = coerce(c.args[k], t); c.args[k].Type != t {
		return c.wrongArg(k, strings.ToUpper(c.name)+" needs "+what+" here")
	}
	return nil
}

// sameNested gives the arguments (ARRAYs or MAPs, of kind) one type: their
// common type (catalog.LeastRestrictive: an ARRAY<BIGINT> with an
// ARRAY<DOUBLE> is an ARRAY<DOUBLE>, ROWs of one shape are named as the
// first; cast element by element), else an error at the first that has
// none.
func (c *funcCall) sameNested(kind catalog.Kind) (catalog.Type, error) {
	t := c.args[0].Type
	for k, a := range c.args {
		u, ok := catalog.LeastRestrictive(t, a.Type)
		if a.Type.Kind() != kind || !ok {
			return 0, c.wrongArg(k, strings.ToUpper(c.name)+" needs values of one type, "+t.String())
		}
		t = u
	}
	for k, a := range c.args {
		c.args[k] = castTo(a, t)
	}
	return t, nil
}
