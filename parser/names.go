package parser

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"

	"streamql/internal/termtext"
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

// SideNameProblem returns what is wrong with v as a side output name (SPEC 2.1:
// 1 to 64 characters, no control characters, not main, no '/'), as a message for
// a user, or "" when v is a good name. Control characters in the message are
// written \xNN.
func SideNameProblem(v string) string {
	n := 0
	for _, r := range v {
		n++
		if termtext.IsControl(r) || r == '\t' {
			// the message shows a tab as \x09 too: a raw one reads as spaces
			return fmt.Sprintf("a side name cannot contain control characters (\\x%02x at character %d of '%s'): side names become file names; use letters, digits, '-' or '_'",
				r, n, strings.ReplaceAll(shorten(termtext.String(v, termtext.Source), 40), "\t", `\x09`))
		}
	}
	switch {
	case n == 0:
		return "a side name cannot be empty"
	case n > 64:
		return fmt.Sprintf("a side name has at most 64 characters (this one has %d)", n)
	case v == "main":
		return "'main' is the name of the main output and cannot name a side output"
	case strings.Contains(v, "/"):
		return "a side name cannot contain '/'"
	}
	return ""
}
