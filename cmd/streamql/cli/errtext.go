package cli

import (
	"errors"
	"fmt"
	"io"

	"streamql/internal/termtext"
	"streamql/parser"
)

// printError writes one error to w (stderr) as "error: " and the message made
// from format and args, with every control character shown as \xNN (line feeds
// kept: a message with a source excerpt spans lines). Error texts carry user
// data (paths, option values, names, socket errors, the statement line), and
// SPEC 4 keeps data from driving the terminal; escaping here, where every error
// reaches stderr, covers them all. Text already escaped is left as it is.
func printError(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, "error: "+termtext.String(fmt.Sprintf(format, args...), termtext.Message))
}

// printParseError writes the error of parsing the script name (its text src)
// to w: a *parser.Error with its line, column, source line and caret (SPEC
// 4), any other error as its text.
func printParseError(w io.Writer, name, src string, err error) {
	var pe *parser.Error
	if errors.As(err, &pe) {
		printError(w, "%s", parser.FormatError(name, src, pe))
		return
	}
	printError(w, "%s", err.Error())
}

// printNotice writes one line of a job's notices (malformed and late rows,
// SPEC 1 and 2.4; the --timer line) to w with its control characters shown as
// \xNN: stream, side and query texts come from the script.
func printNotice(w io.Writer, line string) {
	fmt.Fprintln(w, termtext.String(line, termtext.Line))
}
