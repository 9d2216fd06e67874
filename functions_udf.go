package streamql

import (
	"streamql/executor/expr"
)

// RegisterFunc registers fn as the scalar function name of this session's SQL
// (SPEC 2.10, user-defined functions): later statements call it like a
// built-in function, SHOW FUNCTIONS lists it, DROP FUNCTION removes it.
//
// fn is a Go func whose parameters and first result are int64 (BIGINT),
// float64 (DOUBLE), bool (BOOLEAN) or string (VARCHAR), or pointers to them.
// NULLs: a NULL argument for a value parameter gives NULL without calling fn;
// a pointer parameter receives nil for NULL; a pointer result returns NULL as
// nil. fn may return a second result of type error: a non-nil error (or a
// panic) sends the row to the stream's errors output with the function's
// name and the error, the call gives NULL, and the job goes on.
//
// Calls are checked at planning against fn's parameters: a wrong argument
// type is a planning error with a caret under the argument (BIGINT converts
// to DOUBLE, as for built-ins). name is letters, digits and '_' (any case);
// registering a built-in function's name, or a name already registered, is
// an error (DROP FUNCTION first). Different jobs may call fn at once.
func (s *Session) RegisterFunc(name string, fn any) error {
	f, err := expr.GoFunction(name, fn)
	if err != nil {
		return &Error{Kind: KindPlanning, Msg: err.Error()}
	}
	if err := s.eng.Funcs.Add(f, false); err != nil {
		return &Error{Kind: KindPlanning, Msg: err.Error()}
	}
	return nil
}
