package parser

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"

	"streamql/internal/sidename"
)

// reserved holds the reserved words of the SQL dialect (TiDB's, upper case).
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range parser.Keywords {
		if k.Reserved {
			m[k.Word] = true
		}
	}
	return m
}()

// IsReserved reports whether w (any case) is a reserved word, which names a
// stream or a column only when back-quoted (`select`): CREATE STREAM, DROP
// STREAM and DESCRIBE refuse it bare, as the queries do.
func IsReserved(w string) bool { return reserved[strings.ToUpper(w)] }

// ReservedWords returns the reserved words, upper case, in no particular order.
func ReservedWords() []string {
	out := make([]string, 0, len(reserved))
	for w := range reserved {
		out = append(out, w)
	}
	return out
}

// reservedMsg is the one message for a reserved word used as a name, wherever it
// stands.
func reservedMsg(t Token) string {
	return fmt.Sprintf("%s is a reserved word: write `%s` to use it as a name", strings.ToUpper(t.Text), t.Text)
}

func reservedError(t Token) *Error { return &Error{Offset: t.Offset, Msg: reservedMsg(t)} }

// checkSideName validates a side name token (SPEC 2.1); the error is at the token.
func checkSideName(t Token) *Error {
	if why := SideNameProblem(t.Value()); why != "" {
		return &Error{Offset: t.Offset, Msg: why}
	}
	return nil
}

// SideNameProblem returns what is wrong with v as a side output name (SPEC 2.1),
// or "" when v is a good name: sidename.Problem, the one rule the parser and
// the catalog ('errors.side') share.
func SideNameProblem(v string) string { return sidename.Problem(v) }
