// Package sidename holds the rule for side output names (SPEC 2.1), shared by
// the parser (INTO SIDE) and the catalog (the 'errors.side' option); it is a
// leaf, so that neither imports the other.
package sidename

import (
	"fmt"
	"strings"

	"streamql/internal/termtext"
)

// Problem returns what is wrong with v as a side output name (SPEC 2.1:
// 1 to 64 characters, no control characters, not main, no '/'), as a message for
// a user, or "" when v is a good name. Control characters in the message are
// written \xNN.
func Problem(v string) string {
	n := 0
	for _, r := range v {
		n++
		if termtext.IsControl(r) || r == '\t' {
			// the message shows a tab as \x09 too: a raw one reads as spaces
			return fmt.Sprintf("a side name cannot contain control characters (\\x%02x at character %d of '%s'): side names become file names; use letters, digits, '-' or '_'",
				r, n, strings.ReplaceAll(termtext.Shorten(termtext.String(v, termtext.Source), 40), "\t", `\x09`))
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
