package parser

import "strings"

// CreateFunction is CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name
// AS 'path/to/module.wasm' [LANGUAGE WASM] (SPEC 2.10, 3): a user-defined
// function run from a WebAssembly module. Path is relative to the script.
type CreateFunction struct {
	Range
	IfNotExists bool
	Name        string
	NamePos     int
	Path        string
	PathPos     int
}

// DropFunction is DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name (SPEC 3).
type DropFunction struct {
	Range
	IfExists bool
	Name     string
	NamePos  int
}

// functionWord consumes [TEMPORARY [SYSTEM]] FUNCTION and reports whether it
// was there (Flink's spellings; streamql's functions live in the session).
func functionWord(c *cursor) bool {
	i := c.i
	if c.word("TEMPORARY") {
		c.word("SYSTEM")
	}
	if c.word("FUNCTION") {
		return true
	}
	c.i = i
	return false
}

// createFunction parses the rest of CREATE FUNCTION, after FUNCTION.
func (ps *parseState) createFunction(c *cursor, span Range) (Stmt, *Error) {
	cf := &CreateFunction{Range: span}
	if c.word("IF") {
		if !c.word("NOT") || !c.word("EXISTS") {
			return nil, c.expected("NOT EXISTS after CREATE FUNCTION IF")
		}
		cf.IfNotExists = true
	}
	var err *Error
	if cf.Name, cf.NamePos, err = c.name("a function name"); err != nil {
		return nil, err
	}
	if !c.word("AS") {
		return nil, c.expected("AS 'path/to/module.wasm' after CREATE FUNCTION " + cf.Name)
	}
	t := c.peek()
	if t.Kind != TokString || c.atEnd() {
		return nil, c.expected("the module's path as a quoted string: CREATE FUNCTION " + cf.Name + " AS 'module.wasm'")
	}
	c.next()
	cf.Path, cf.PathPos = t.Value(), t.Offset
	if c.word("LANGUAGE") {
		l := c.peek()
		if c.atEnd() {
			return nil, c.expected("WASM after LANGUAGE")
		}
		c.next()
		if !strings.EqualFold(l.Text, "WASM") {
			return nil, Errorf(l.Offset, "LANGUAGE %s is not supported: streamql runs user functions compiled to WebAssembly (LANGUAGE WASM), or Go functions registered through its library", strings.ToUpper(l.Text))
		}
	}
	return cf, c.expectEnd("CREATE FUNCTION " + cf.Name + " AS '" + cf.Path + "'")
}

// dropFunction parses the rest of DROP FUNCTION, after FUNCTION.
func (ps *parseState) dropFunction(c *cursor, span Range) (Stmt, *Error) {
	df := &DropFunction{Range: span}
	if c.word("IF") {
		if !c.word("EXISTS") {
			return nil, c.expected("EXISTS after DROP FUNCTION IF")
		}
		df.IfExists = true
	}
	var err *Error
	if df.Name, df.NamePos, err = c.name("a function name"); err != nil {
		return nil, err
	}
	return df, c.expectEnd("DROP FUNCTION " + df.Name)
}
