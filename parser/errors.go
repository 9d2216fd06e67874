package parser

import "fmt"

// Error is an error found in a script at a byte offset: syntax errors from the
// parser, and the name, type and planning errors of later stages, which all point at
// the offending token. Format renders it for a user.
type Error struct {
	Offset int    // byte offset into Script.Source of the offending token
	Msg    string // what is wrong and what to do, without position
	// File is the script Offset is in; nil means the script of the statement being
	// run or parsed (FormatError renders against the text it is given). Parse sets
	// it on its errors; File.Attach sets it on others.
	File *File
}

// Pos returns where the error is: its File and Offset.
func (e *Error) Pos() Pos { return Pos{File: e.File, Offset: e.Offset} }

// Error returns Msg alone; use Format for the position, source line and caret.
func (e *Error) Error() string { return e.Msg }

// Errorf is a convenience constructor for *Error.
func Errorf(offset int, format string, args ...any) *Error {
	return &Error{Offset: offset, Msg: fmt.Sprintf(format, args...)}
}
