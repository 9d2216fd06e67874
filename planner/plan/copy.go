package plan

import (
	"reflect"

	"streamql/catalog"
)

// CopyRelation returns st, a derived relation (DerivedOf: a view's
// catalog.View.Stream), as one reader's own: a copy of the relation and of
// everything of this package it holds at any depth (its Derived, the jobs
// of its parts and their branches, joins and expressions, and the derived
// relations those read, in turn), with the pointers between them kept as
// they are among the copies (a part's Main.Both is its Both, a job's
// DerivedOutputs are keyed by its parts' copies). What is not this
// package's is shared: declared streams (a Tee or an open is keyed by
// them), connector specs, parsed text. It returns st itself when st is
// not a derived relation.
//
// Planning a query writes into the jobs of the relations it reads (the
// readers' windows a part refuses rows by, Job.ReaderWindows; the fan-outs
// it reads through, Job.Tees), and runs them with what it wrote. A view's
// jobs are planned once, at CREATE VIEW, and every query over the view
// reads them, in any session over the catalog, concurrently: the planner
// reads a view through a copy (copy on read, as Flink plans a view's query
// anew for each reader) so that no planning ever writes into the catalog's
// objects (issue 22: the plan is data).
func CopyRelation(st *catalog.Stream) *catalog.Stream {
	if DerivedOf(st) == nil {
		return st
	}
	c := copier{done: map[copyKey]reflect.Value{}, holds: map[reflect.Type]bool{}}
	cp := c.value(reflect.ValueOf(st)).Interface().(*catalog.Stream)
	DerivedOf(cp).Of = Origin(st)
	return cp
}

// Origin returns the relation of the catalog that st is a reader's copy of
// (CopyRelation: a view's catalog.View.Stream), st itself when st is no
// copy. Two reads of one view, planned apart, have one Origin: the
// session keeps a view's pending side branches by it (SPEC 2.1, 2.6).
func Origin(st *catalog.Stream) *catalog.Stream {
	if d := DerivedOf(st); d != nil && d.Of != nil {
		return d.Of
	}
	return st
}

// copier copies a plan graph for CopyRelation: done maps each pointer
// copied (by address and type) to its copy, so shared pointers stay
// shared among the copies and cycles end; holds caches holdsPlan by type.
type copier struct {
	done  map[copyKey]reflect.Value
	holds map[reflect.Type]bool
}

type copyKey struct {
	addr uintptr
	typ  reflect.Type
}

var (
	planPkg    = reflect.TypeFor[Job]().PkgPath()
	streamType = reflect.TypeFor[*catalog.Stream]()
)

// holdsPlan reports whether a value of type t may reach a value of this
// package's types (or a derived relation, which holds them): what copy must
// go into; anything else is shared as it is.
func (c *copier) holdsPlan(t reflect.Type) bool {
	if h, ok := c.holds[t]; ok {
		return h
	}
	c.holds[t] = false // (a type that reaches itself: its other fields decide)
	h := false
	switch t.Kind() {
	case reflect.Pointer: // (a pointer to another package's value is shared: a connector spec is compared by address)
		h = t == streamType || t.Elem().PkgPath() == planPkg && c.holdsPlan(t.Elem())
	case reflect.Interface:
		h = true // (catalog.Stream.Derived holds a *Derived)
	case reflect.Slice, reflect.Array:
		h = c.holdsPlan(t.Elem())
	case reflect.Map:
		h = c.holdsPlan(t.Key()) || c.holdsPlan(t.Elem())
	case reflect.Struct:
		if t.PkgPath() == planPkg {
			h = true
			break
		}
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && c.holdsPlan(f.Type) {
				h = true
				break
			}
		}
	}
	c.holds[t] = h
	return h
}

// value returns the copy of v: v itself when its type holds nothing of
// this package.
func (c *copier) value(v reflect.Value) reflect.Value {
	t := v.Type()
	if !c.holdsPlan(t) {
		return v
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		if t == streamType && DerivedOf(v.Interface().(*catalog.Stream)) == nil {
			return v // (a declared stream: shared, as the catalog holds it)
		}
		k := copyKey{v.Pointer(), t}
		if cp, ok := c.done[k]; ok {
			return cp
		}
		cp := reflect.New(t.Elem())
		c.done[k] = cp
		cp.Elem().Set(v.Elem()) // (then each field that holds the package's values is copied in turn)
		c.fields(cp.Elem())
		return cp
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		e := c.value(v.Elem())
		cp := reflect.New(t).Elem()
		cp.Set(e)
		return cp
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		cp := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := range v.Len() {
			cp.Index(i).Set(c.value(v.Index(i)))
		}
		return cp
	case reflect.Array:
		cp := reflect.New(t).Elem()
		for i := range v.Len() {
			cp.Index(i).Set(c.value(v.Index(i)))
		}
		return cp
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		cp := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); {
			cp.SetMapIndex(c.value(it.Key()), c.value(it.Value()))
		}
		return cp
	case reflect.Struct:
		cp := reflect.New(t).Elem()
		cp.Set(v)
		c.fields(cp)
		return cp
	}
	return v
}

// fields replaces each exported field of the struct s (settable) that
// holds this package's values with its copy; unexported fields stay as
// they are (catalog.Stream's indexes of its columns).
func (c *copier) fields(s reflect.Value) {
	t := s.Type()
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && c.holdsPlan(f.Type) {
			s.Field(i).Set(c.value(s.Field(i)))
		}
	}
}
