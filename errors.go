package streamql

import (
	"errors"
	"fmt"

	"streamql/parser"
)

// ErrorKind says when an error happened (SPEC 4, exit statuses).
type ErrorKind int

// The kinds of *Error.
const (
	// KindSyntax: the text does not parse; nothing of it ran (exit status 2).
	KindSyntax ErrorKind = iota + 1
	// KindPlanning: a statement was refused before its job started (names,
	// types, options, planning); the statements before it ran (exit status 2).
	KindPlanning
	// KindRuntime: a job failed while running (a read error, a row that
	// 'errors'='fail' refuses, the state limit, a failing OnRows, or ctx's end)
	// (exit status 1; 130 for a cancel at the command line).
	KindRuntime
)

// String returns "syntax", "planning" or "runtime".
func (k ErrorKind) String() string {
	switch k {
	case KindSyntax:
		return "syntax"
	case KindPlanning:
		return "planning"
	case KindRuntime:
		return "runtime"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// ExitStatus returns the command line's exit status for the kind (SPEC 4): 2
// for Syntax and Planning, 1 for Runtime.
func (k ErrorKind) ExitStatus() int {
	if k == KindRuntime {
		return 1
	}
	return 2
}

// Pos is where in a script an error is: the script's name (a file name, "-e"
// for Exec), and the 1-based line and column (in characters). The zero Pos
// (Line 0) means the error has no position (most runtime errors).
type Pos struct {
	File   string
	Line   int
	Column int
}

// String renders p as the command line does: "file, line L, column C".
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	if p.File == "" {
		return fmt.Sprintf("line %d, column %d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s, line %d, column %d", p.File, p.Line, p.Column)
}

// Error is an error of Exec, ExecScript or Open: its Kind, its Pos (for syntax
// and planning errors) and the message, which says what is wrong and what to
// do. Unwrap gives the underlying error (ctx.Err() after a cancel).
type Error struct {
	Kind ErrorKind
	Pos  Pos
	Msg  string

	err          error
	name, source string // the script, for Format
}

// Error returns the message with its position when it has one.
func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.err }

// Format renders the error as the command line prints it after "error: ": for
// a positioned error the message, then "file, line L, column C:", the
// statement's line and a caret under the column (SPEC 4); else the message.
func (e *Error) Format() string {
	var pe *parser.Error
	if errors.As(e.err, &pe) {
		return parser.FormatError(e.name, e.source, pe)
	}
	return e.Msg
}

// newError wraps err of the script name with text source: a *parser.Error is
// of kind (Syntax or Planning) and positioned, any other error is Runtime.
func newError(kind ErrorKind, name, source string, err error) *Error {
	e := &Error{Kind: KindRuntime, Msg: err.Error(), err: err, name: name, source: source}
	var pe *parser.Error
	if errors.As(err, &pe) {
		e.Kind = kind
		e.Msg = pe.Msg
		if pe.File != nil {
			e.name, e.source = pe.File.Name(), pe.File.Source()
		}
		line, col := parser.Position(e.source, pe.Offset)
		e.Pos = Pos{File: e.name, Line: line, Column: col}
	}
	return e
}
