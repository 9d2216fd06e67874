package expr

import (
	"fmt"
	"reflect"
	"strings"

	"streamql/catalog"
	"streamql/executor/vector"
)

// GoFunction returns a user function (SPEC 2.10) named name that calls fn, a
// Go func whose parameters and first result are among
//
//	int64 (BIGINT), float64 (DOUBLE), bool (BOOLEAN), string (VARCHAR)
//
// or pointers to them. The NULL convention: a NULL argument for a value
// parameter gives NULL without calling fn; a pointer parameter receives nil
// for NULL (fn then decides). A pointer result returns NULL as nil. fn may
// have a second result of type error: a non-nil error, like a panic, sends
// the row to the errors output with the function's name and the error, and
// the call gives NULL. The arguments are checked against the parameters at
// planning (BIGINT converts to DOUBLE, NULL to any type). fn is called from
// one goroutine per job, but different jobs may call it at once.
func GoFunction(name string, fn any) (*Function, error) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return nil, fmt.Errorf("function %s: %T is not a func", name, fn)
	}
	t := v.Type()
	if t.IsVariadic() || t.NumOut() < 1 || t.NumOut() > 2 || (t.NumOut() == 2 && t.Out(1) != errorType) {
		return nil, fmt.Errorf("function %s: %s must return one value, or a value and an error", name, t)
	}
	sig := Sig{}
	ptrArg := make([]bool, t.NumIn())
	takesNulls := false
	for k := 0; k < t.NumIn(); k++ {
		typ, ptr, ok := goSQLType(t.In(k))
		if !ok {
			return nil, fmt.Errorf("function %s: parameter %d is %s; use int64, float64, bool, string or a pointer to one", name, k+1, t.In(k))
		}
		sig.Args = append(sig.Args, typ)
		ptrArg[k] = ptr
		takesNulls = takesNulls || ptr
	}
	res, resPtr, ok := goSQLType(t.Out(0))
	if !ok {
		return nil, fmt.Errorf("function %s: the result is %s; use int64, float64, bool, string or a pointer to one", name, t.Out(0))
	}
	sig.Result = res
	upper := strings.ToUpper(name)
	withErr := t.NumOut() == 2
	f := &Function{
		Name: name, Group: "user", Sigs: []Sig{sig}, TakesNulls: takesNulls,
		Nulls:   "a NULL argument gives NULL (a pointer parameter receives nil)",
		Failure: "an error or panic sends the row to the errors output; the call gives NULL",
		Doc:     "Go function " + t.String(),
	}
	f.Impl = &UserFunc{Prepare: func(args []Arg, result catalog.Type, fails *Context) (RowFunc, error) {
		in := make([]reflect.Value, len(sig.Args))
		for k := range in {
			if ptrArg[k] {
				in[k] = reflect.New(t.In(k).Elem())
			}
		}
		call := make([]reflect.Value, len(in)) // a row function runs on one goroutine
		return func(a []*vector.Vec, i int, out *vector.Vec) (ok bool) {
			for k, vec := range a {
				null := vec.Null[i]
				if null && !ptrArg[k] {
					return false
				}
				var x reflect.Value
				switch sig.Args[k] {
				case catalog.BigInt:
					x = reflect.ValueOf(vec.I[i])
				case catalog.Double:
					x = reflect.ValueOf(vec.F[i])
				case catalog.Boolean:
					x = reflect.ValueOf(vec.B[i])
				default:
					x = reflect.ValueOf(string(vec.S[i]))
				}
				if ptrArg[k] {
					if null {
						x = reflect.Zero(t.In(k))
					} else {
						in[k].Elem().Set(x)
						x = in[k]
					}
				}
				call[k] = x
			}
			defer func() {
				if p := recover(); p != nil {
					fails.fail(upper, i, fmt.Sprint("panic: ", p), false)
					ok = false
				}
			}()
			r := v.Call(call)
			if withErr && !r[1].IsNil() {
				fails.fail(upper, i, r[1].Interface().(error).Error(), false)
				return false
			}
			x := r[0]
			if resPtr {
				if x.IsNil() {
					return false
				}
				x = x.Elem()
			}
			switch result {
			case catalog.BigInt:
				out.I[i] = x.Int()
			case catalog.Double:
				out.F[i] = x.Float()
			case catalog.Boolean:
				out.B[i] = x.Bool()
			default:
				start := len(out.Arena)
				out.Arena = append(out.Arena, x.String()...)
				setText(out, i, start)
			}
			return true
		}, nil
	}}
	return f, nil
}

var errorType = reflect.TypeFor[error]()

// goSQLType is the SQL type of a Go parameter or result type, and whether it
// is a pointer (NULL as nil).
func goSQLType(t reflect.Type) (catalog.Type, bool, bool) {
	ptr := false
	if t.Kind() == reflect.Pointer {
		ptr, t = true, t.Elem()
	}
	switch t {
	case reflect.TypeFor[int64]():
		return catalog.BigInt, ptr, true
	case reflect.TypeFor[float64]():
		return catalog.Double, ptr, true
	case reflect.TypeFor[bool]():
		return catalog.Boolean, ptr, true
	case reflect.TypeFor[string]():
		return catalog.Varchar, ptr, true
	}
	return catalog.Unknown, false, false
}
