package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"streamql/internal/export"
	"streamql/parser"
)

const exportUsage = `usage: streamql export --flink [--strict] [--side-dir DIR] script.sql [more.sql]

Prints the scripts as one Flink 2.x SQL script (SPEC 4, "Taking a script to a
cluster"): a CREATE TABLE per stream, a print table per output without a sink
(a filesystem table under DIR with --side-dir), and one EXECUTE STATEMENT SET.
What Flink does differently is listed in a comment block at the top, each item
with its script line; --strict refuses the export then (exit status 2).

flags:
`

// runExport is `streamql export --flink` (internal/export): it returns 0 with
// the Flink script on stdout, 2 for a script that does not plan or export, a
// missing --flink, or, with --strict, any difference (listed on stderr).
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := pflag.NewFlagSet("streamql export", pflag.ContinueOnError)
	fl.SetOutput(stderr)
	flink := fl.Bool("flink", false, "write Flink SQL (the only target)")
	strict := fl.Bool("strict", false, "fail (exit 2) when Flink would behave differently anywhere")
	sideDir := fl.String("side-dir", "", "side outputs without a sink become filesystem tables DIR/<name>.csv instead of print tables")
	help := fl.BoolP("help", "h", false, "print this help and exit")
	fl.Usage = func() {
		fmt.Fprint(stderr, exportUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		printError(stderr, "%v (streamql export --help)", err)
		return exitPlanning
	}
	if *help {
		fmt.Fprint(stdout, exportUsage)
		fl.SetOutput(stdout)
		fl.PrintDefaults()
		return exitOK
	}
	if !*flink {
		printError(stderr, "streamql export needs a target: write streamql export --flink script.sql")
		return exitPlanning
	}
	if fl.NArg() == 0 {
		printError(stderr, "streamql export --flink needs at least one script: streamql export --flink script.sql")
		return exitPlanning
	}
	var inputs []export.Input
	for _, name := range fl.Args() {
		var err error
		if inputs, err = exportInputs(ctx, name, inputs, 0); err != nil {
			printError(stderr, "%v", err)
			return exitPlanning
		}
	}
	out, _, err := export.Export(inputs, export.Options{SideDir: *sideDir, Strict: *strict})
	if err != nil {
		printError(stderr, "%s", err.Error())
		return exitPlanning
	}
	fmt.Fprint(stdout, out)
	return exitOK
}

// exportInputs appends the script file name to inputs as the command line
// would run it: each of its `.read FILE` lines (SPEC 4, the dot commands)
// first, as scripts of their own (a path relative to the script's folder),
// then its statements with every dot line blanked out; the other dot
// commands (.format, .timer, ...) shape the command line's output only and
// are left out. depth bounds nested .read.
func exportInputs(ctx context.Context, name string, inputs []export.Input, depth int) ([]export.Input, error) {
	if depth > 16 {
		return nil, fmt.Errorf("%s: .read nests more than 16 scripts deep", name)
	}
	b, err := loadScriptFile(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("cannot read script %s: %v", name, err)
	}
	sql, dots := splitDots(string(b))
	from := 0 // the script's statements before each .read come before its inputs, as the command line runs them
	for _, d := range dots {
		c, perr := parseDot(d)
		if perr != nil {
			return nil, fmt.Errorf("%s", parser.FormatError(name, string(b), perr))
		}
		if c.name != ".read" || len(c.args) == 0 {
			continue
		}
		path := c.rest
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(name), path)
		}
		if part := blankOutside(sql, from, d.Offset); strings.TrimSpace(part) != "" {
			inputs = append(inputs, export.Input{Name: name, Source: part})
		}
		from = d.Offset
		if inputs, err = exportInputs(ctx, path, inputs, depth+1); err != nil {
			return nil, err
		}
	}
	return append(inputs, export.Input{Name: name, Source: blankOutside(sql, from, len(sql))}), nil
}

// blankOutside returns src with every byte outside [from, to) but line
// breaks made a space, so that a part of a script keeps its statements'
// lines and columns (errors point into the whole file).
func blankOutside(src string, from, to int) string {
	if from == 0 && to == len(src) {
		return src
	}
	b := []byte(src)
	for i := range b {
		if (i < from || i >= to) && b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}
