package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

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
		if inputs, err = exportInputs(ctx, name, inputs); err != nil {
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
// runs it (export.ReadInputs: its .read scripts in place), reading each file
// with loadScriptFile and its dot lines with splitDots and parseDot.
func exportInputs(ctx context.Context, name string, inputs []export.Input) ([]export.Input, error) {
	return export.ReadInputs(name, func(path string) (string, []export.Read, error) {
		b, err := loadScriptFile(ctx, path)
		if err != nil {
			return "", nil, fmt.Errorf("cannot read script %s: %v", path, err)
		}
		sql, dots := splitDots(string(b))
		var reads []export.Read
		for _, d := range dots {
			c, perr := parseDot(d)
			if perr != nil {
				return "", nil, fmt.Errorf("%s", parser.FormatError(path, string(b), perr))
			}
			if c.name == ".read" && len(c.args) > 0 {
				reads = append(reads, export.Read{Offset: d.Offset, Path: c.rest})
			}
		}
		return sql, reads, nil
	}, inputs)
}
