package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"streamql/catalog/functions"
)

// functionWords are the completions of the function table's names
// (catalog/functions.Functions, SPEC 2.10): "NAME(" for a call, "NAME " for the
// names written without parentheses (CURRENT_TIMESTAMP, the DATE/TIME
// literals, CASE, CAST's keyword is a keyword already).
func functionWords() []string {
	var out []string
	for _, n := range functions.Names() {
		if strings.Contains(n, " ") {
			continue // IS DISTINCT FROM: keywords
		}
		if functions.Lookup(n).Syntax {
			continue // ITEM, ARRAY_VALUE_CONSTRUCTOR: written arr[i], ARRAY[...]
		}
		switch n {
		case "CASE", "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "DATE", "TIME", "TIMESTAMP":
			out = append(out, n+" ")
		default:
			out = append(out, n+"(")
		}
	}
	return out
}

// writeFunctionHelp writes `.help functions`: each function of the table by
// group, with its signatures and what it returns.
func writeFunctionHelp(out io.Writer) error {
	w := bufio.NewWriter(out)
	for _, g := range functions.Groups {
		fmt.Fprintf(w, "%s functions:\n", strings.ToUpper(g.Key[:1])+g.Key[1:])
		for _, f := range functions.Functions {
			if f.Group != g.Key {
				continue
			}
			fmt.Fprintf(w, "  %-18s %s\n", f.Name, f.Doc)
			for _, s := range f.Signatures() {
				fmt.Fprintf(w, "  %-18s   %s\n", "", s)
			}
		}
	}
	fmt.Fprintln(w, "SHOW FUNCTIONS lists them with their NULL rules; unknown names get the closest ones.")
	return w.Flush()
}
