package session

import (
	"os"
	"path/filepath"

	"streamql/catalog/functions"
	"streamql/executor/expr"
	"streamql/parser"
)

// WasmLimits are the sandbox caps of the WASM functions CREATE FUNCTION
// compiles from now on (SPEC 2.10): memory pages and time per call.
var WasmLimits = expr.DefaultWasmLimits

// createFunction runs CREATE FUNCTION name AS 'module.wasm' (SPEC 2.10): it
// reads the module (a path relative to dir, the script's directory),
// compiles it once and registers it in the session's functions.
func (s *Session) createFunction(dir string, st *parser.CreateFunction) error {
	if s.Funcs.Lookup(st.Name) != nil {
		if st.IfNotExists {
			return nil
		}
		return parser.Errorf(st.NamePos, "function %s already exists; DROP FUNCTION %s first", st.Name, st.Name)
	}
	if functions.Lookup(st.Name) != nil {
		return parser.Errorf(st.NamePos, "%s is a built-in function; choose another name", st.Name)
	}
	path := st.Path
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	code, err := os.ReadFile(path)
	if err != nil {
		return parser.Errorf(st.PathPos+1, "cannot read the module of function %s: %v", st.Name, err)
	}
	f, err := expr.WasmFunction(st.Name, st.Path, code, WasmLimits)
	if err != nil {
		return parser.Errorf(st.PathPos+1, "function %s: %v", st.Name, err)
	}
	if err := s.Funcs.Add(f, false); err != nil {
		return parser.Errorf(st.NamePos, "%v", err)
	}
	return nil
}

// dropFunction runs DROP FUNCTION [IF EXISTS] name (SPEC 3): jobs planned
// before keep calling it.
func (s *Session) dropFunction(st *parser.DropFunction) error {
	if !s.Funcs.Drop(st.Name) && !st.IfExists {
		if functions.Lookup(st.Name) != nil {
			return parser.Errorf(st.NamePos, "%s is a built-in function; DROP FUNCTION removes user functions only", st.Name)
		}
		return parser.Errorf(st.NamePos, "unknown function %s (SHOW FUNCTIONS lists them; DROP FUNCTION IF EXISTS ignores a missing one)", st.Name)
	}
	return nil
}
