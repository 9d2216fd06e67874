package parser

import (
	"errors"
	"fmt"
)

// File is one script's text under its name (a file path as given, "-e", "stdin"
// or "repl"), as go/token's File: a byte offset into it resolves to the name, a
// line and a column. Parse makes one per Script; a *Error that carries a File is
// rendered against that file's text, whatever script is running when it is
// reported (SPEC 4: a stream's WATERMARK error points into the script that
// declared the stream). A nil *File stands for "the current script".
type File struct {
	name, src string
}

// NewFile returns the File of the script text src named name.
func NewFile(name, src string) *File { return &File{name: name, src: src} }

// Name returns the file's name; "" for a nil File.
func (f *File) Name() string {
	if f == nil {
		return ""
	}
	return f.name
}

// Source returns the file's whole text; "" for a nil File.
func (f *File) Source() string {
	if f == nil {
		return ""
	}
	return f.src
}

// Pos returns the position of byte offset off in f.
func (f *File) Pos(off int) Pos { return Pos{File: f, Offset: off} }

// Attach returns err with f recorded as the file of every *Error in err's chain
// that has none yet (an Error's Offset is into its own script: Attach says which).
// A nil f or an err without an *Error returns err unchanged.
func (f *File) Attach(err error) error {
	var pe *Error
	if f != nil && errors.As(err, &pe) && pe.File == nil {
		pe.File = f
	}
	return err
}

// Pos is a position in a script: its File and a byte offset into the File's text
// (as go/token.Pos resolved by a FileSet).
type Pos struct {
	File   *File
	Offset int
}

// Line returns the 1-based line and column (in characters) of p in its file; an
// offset outside the text is clamped to it.
func (p Pos) Line() (line, col int) { return Position(p.File.Source(), p.Offset) }

// String renders p as "<file>, line L, column C", or "line L, column C" when the
// file has no name (a REPL entry); the form of SPEC 4's error messages.
func (p Pos) String() string {
	line, col := p.Line()
	where := fmt.Sprintf("line %d, column %d", line, col)
	if n := p.File.Name(); n != "" {
		where = n + ", " + where
	}
	return where
}
