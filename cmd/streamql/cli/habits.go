package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// valueFlags are the flags that take a value as the next argument, for
// aliasArgs.
var valueFlags = map[string]bool{"-e": true, "--execute": true, "-f": true, "--file": true, "--format": true, "--side-dir": true, "--cpuprofile": true, "--memprofile": true}

// aliasArgs returns args with psql's and DuckDB's -c SQL spelled -e SQL
// (issue 29 item 6), so that -c and -e may be mixed and keep their order. An
// argument that is a flag's value, or after "--", is left alone.
func aliasArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == "--":
			return out
		case valueFlags[a]:
			i++ // its value
		case a == "-c":
			out[i] = "-e"
			i++
		case strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--"):
			out[i] = "-e" + a[2:] // -cSQL
		}
	}
	return out
}

// quitWords are psql's and DuckDB's ways to leave, which the REPL takes alone
// on a line outside a statement, like .quit (issue 29 item 6).
var quitWords = map[string]bool{"exit": true, "quit": true, `\q`: true, "exit;": true, "quit;": true}

// isNewCase reports whether dir is a test case without expected/ yet: a
// query.sql alone, which `streamql test --update` makes a case (issue 29
// item 6) by creating its expected/ from a run.
func isNewCase(dir string) bool {
	q, err := os.Stat(filepath.Join(dir, "query.sql"))
	return err == nil && !q.IsDir() && newCase(filepath.Join(dir, "expected"))
}

// newCase reports whether the expected/ folder exp does not exist.
func newCase(exp string) bool {
	_, err := os.Stat(exp)
	return errors.Is(err, fs.ErrNotExist)
}
