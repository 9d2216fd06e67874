package session

import (
	"strings"

	"streamql/catalog/functions"
)

// functionColumns are SHOW FUNCTIONS' columns.
var functionColumns = []string{"name", "signatures", "null rule", "deterministic", "on failure", "description"}

// functionRows are SHOW FUNCTIONS' rows: every function of the table
// (catalog/functions.Functions, SPEC 2.10), aliases after the name, then the
// session's user functions (user).
func functionRows(user *functions.Registry) [][]string {
	var rows [][]string
	all := make([]*functions.Function, 0, len(functions.Functions))
	for k := range functions.Functions {
		all = append(all, &functions.Functions[k])
	}
	for _, f := range append(all, user.List()...) {
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
