package session

import (
	"strings"

	"streamql/executor/expr"
)

// functionColumns are SHOW FUNCTIONS' columns.
var functionColumns = []string{"name", "signatures", "null rule", "deterministic", "on failure", "description"}

// functionRows are SHOW FUNCTIONS' rows: every function of the table
// (executor/expr.Functions, SPEC 2.10), aliases after the name.
func functionRows() [][]string {
	var rows [][]string
	for _, f := range expr.Functions {
		name := f.Name
		if len(f.Aliases) > 0 {
			name += " (" + strings.Join(f.Aliases, ", ") + ")"
		}
		det := "yes"
		if f.Volatile {
			det = "no"
		}
		rows = append(rows, []string{name, strings.Join(f.Signatures(), "; "), f.Nulls, det, f.Failure, f.Doc})
	}
	return rows
}
