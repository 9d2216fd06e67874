package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"streamql/catalog"
	"streamql/internal/session"
	"streamql/internal/tune"
	"streamql/parser"
)

const tuneUsage = `usage: streamql tune script.sql [--rows N] [--target P] [--format table|json]

Reads the inputs of the script's streams that have an event time (the bounded
ones whole, the first --rows N rows of the others) without running its queries,
and prints per stream: a histogram of how late rows arrive (running max event
time - event time); for watermark delays 0, 1 s, 5 s, 30 s, 1 min and 5 min the
share of rows that would be late (SPEC 2.3) and late for each window query of
the script, and the latency each delay adds to window results; the smallest
delay that keeps late rows at or under --target, as a WATERMARK clause; rows
whose time jumps more than 1 h ahead of the rows before (with a
'watermark.max-future' to set), and partitions that stop while others go on.

flags:
`

// tuneFarAhead is the jump (ms) above the rows before that `tune` reports as
// far ahead: the 'watermark.max-future' it suggests.
const tuneFarAhead = 3600000

// runTune is `streamql tune script.sql` (SPEC 4, "Finding out why"; package
// internal/tune measures): it returns the exit status, 0 done, 1 an input that
// could not be read, 2 a bad flag or a script error (syntax, names, types).
func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := pflag.NewFlagSet("streamql tune", pflag.ContinueOnError)
	fl.SetOutput(stderr)
	rows := fl.Int("rows", 100000, "read at most the first `N` rows of an unbounded stream")
	target := fl.String("target", "0.1%", "the late share to stay under, `P`: a percentage (0.1%) or a fraction (0.001)")
	format := fl.String("format", "table", "output: table or json")
	help := fl.BoolP("help", "h", false, "print this help and exit")
	fl.Usage = func() {
		fmt.Fprint(stderr, tuneUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		printError(stderr, "streamql tune: %v; see streamql tune --help", err)
		return exitPlanning
	}
	if *help {
		fmt.Fprint(stdout, tuneUsage)
		fl.SetOutput(stdout)
		fl.PrintDefaults()
		return exitOK
	}
	share, err := parseShare(*target)
	if err != nil {
		printError(stderr, "streamql tune: --target %s: %v", *target, err)
		return exitPlanning
	}
	if *format != "table" && *format != "json" {
		printError(stderr, "streamql tune: --format %s: use table or json", *format)
		return exitPlanning
	}
	if *rows < 1 {
		printError(stderr, "streamql tune: --rows %d must be at least 1", *rows)
		return exitPlanning
	}
	if fl.NArg() != 1 {
		printError(stderr, "streamql tune: give one script, e.g. streamql tune job.sql")
		return exitPlanning
	}
	path := fl.Arg(0)
	// the script as the command line runs it: its .read scripts first
	// (exportInputs, the order export uses), then its own statements
	inputs, err := exportInputs(ctx, path, nil)
	if err != nil {
		printError(stderr, "%v", unwrapPath(err))
		return exitPlanning
	}
	sess := NewSession(io.Discard, stderr, strings.NewReader(""))
	windows := map[*catalog.Stream][]tune.Window{}
	rowLate := map[*catalog.Stream]bool{} // tune.Input.RowLate
	var order []*catalog.Stream
	seen := map[*catalog.Stream]bool{}
	for _, input := range inputs {
		script, err := parser.Parse(input.Name, input.Source)
		if err != nil {
			printParseError(stderr, input.Name, input.Source, err)
			return exitPlanning
		}
		abs, _ := filepath.Abs(input.Name)
		sc := &scriptCtx{script: script, dir: filepath.Dir(abs)}
		for _, st := range script.Stmts {
			switch st := st.(type) {
			case *parser.CreateStream:
				if err := sess.Session.Exec(ctx, script, sc.dir, st); err != nil {
					return sess.report(sc, err)
				}
				if x := sess.Cat.Lookup(st.Name); x != nil && !seen[x] {
					seen[x] = true
					order = append(order, x)
				}
			case *parser.CreateView, *parser.DropView, *parser.CreateFunction, *parser.DropFunction, *parser.DropStream, *parser.Set, *parser.Insert:
				// what the script's queries need to plan (views, functions,
				// settings) and the rows of its values streams; no job runs
				if err := sess.Session.Exec(ctx, script, sc.dir, st); err != nil {
					return sess.report(sc, err)
				}
			case *parser.Select:
				q, err := sess.Session.PlanTune(ctx, script, st)
				if err != nil {
					return sess.report(sc, err)
				}
				for _, st := range q.RowLate {
					rowLate[st] = true
				}
				if q.Window != nil {
					windows[q.Stream] = append(windows[q.Stream], *q.Window)
				}
			}
		}
	}
	var reports []*tune.Report
	for _, st := range order {
		col := st.EventTime
		if col < 0 && len(windows[st]) == 0 {
			continue
		}
		in, closeSrc, err := sess.Session.ReadEventTimes(ctx, st, *rows)
		if err != nil {
			printError(stderr, "stream %s: %v", st.Name, err)
			return exitRuntime
		}
		if in == nil {
			continue
		}
		in.Windows, in.RowLate, in.ScriptMs = windows[st], rowLate[st], session.ScriptDelay(st)
		reports = append(reports, tune.Analyze(*in, tune.Options{Target: share, FarAhead: tuneFarAhead}))
		closeSrc()
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if reports == nil {
			reports = []*tune.Report{}
		}
		if err := enc.Encode(reports); err != nil {
			return exitRuntime
		}
		return exitOK
	}
	if len(reports) == 0 {
		fmt.Fprintln(stdout, "no stream of the script has an event time (WATERMARK FOR) or a window query")
	}
	for k, r := range reports {
		if k > 0 {
			fmt.Fprintln(stdout)
		}
		printTune(stdout, r, isTerminal(stdout))
	}
	return exitOK
}

// parseShare reads --target: "0.1%" or a fraction "0.001", in [0, 1).
func parseShare(v string) (float64, error) {
	s, pct := strings.TrimSpace(v), false
	if strings.HasSuffix(s, "%") {
		s, pct = strings.TrimSpace(strings.TrimSuffix(s, "%")), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if pct {
		f /= 100
	}
	if err != nil || f < 0 || f >= 1 {
		return 0, fmt.Errorf("not a share of rows; write a percentage such as 0.1%% or a fraction such as 0.001")
	}
	return f, nil
}

// printTune writes r as tables; blocks draws the histogram with block
// characters (a terminal), '#' otherwise.
func printTune(w io.Writer, r *tune.Report, blocks bool) {
	what := fmt.Sprintf("%d rows", r.Rows)
	if r.Truncated {
		what = fmt.Sprintf("the first %d rows", r.Rows)
	}
	fmt.Fprintf(w, "stream %s, event time %s: %s\n", r.Stream, r.Column, what)
	fmt.Fprintln(w, "how late rows arrive (running max event time - event time):")
	most := 1
	for _, b := range r.Histogram {
		most = max(most, b.Rows)
	}
	bar := "#"
	if blocks {
		bar = "█"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, b := range r.Histogram {
		n := b.Rows * 40 / most
		if b.Rows > 0 && n == 0 {
			n = 1
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", b.Label, b.Rows, strings.Repeat(bar, n))
	}
	tw.Flush()
	fmt.Fprintln(w, "rows late per watermark delay:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "  delay\tlate (SPEC 2.3)"
	if len(r.Delays) > 0 {
		for _, wl := range r.Delays[0].Windows {
			head += "\tlate for " + wl.Window
		}
	}
	fmt.Fprintln(tw, head+"\twindow results later by")
	for _, d := range r.Delays {
		line := fmt.Sprintf("  %s\t%s", tune.DurationText(d.DelayMs), lateText(d.Late, d.Share))
		for _, wl := range d.Windows {
			line += "\t" + lateText(wl.Late, wl.Share)
		}
		fmt.Fprintln(tw, line+"\t"+tune.DurationText(d.AddsMs))
	}
	tw.Flush()
	late := "late rows"
	if r.For == "windows" {
		late = "rows late for each window query"
	}
	fmt.Fprintf(w, "suggested (%s at most %s): %s  -- %d late row(s)\n", late, strconv.FormatFloat(r.Target*100, 'f', -1, 64)+"%", r.Watermark, r.SuggestedLate)
	if d := r.Script; d != nil && d.DelayMs != r.SuggestedMs {
		line := fmt.Sprintf("the script's delay %s: %s late (SPEC 2.3)", tune.DurationText(d.DelayMs), lateText(d.Late, d.Share))
		for _, wl := range d.Windows {
			line += fmt.Sprintf(", %s late for %s", lateText(wl.Late, wl.Share), wl.Window)
		}
		if r.ScriptMeetsTarget {
			line += ": within the target"
		} else {
			line += ": above the target (rows late on purpose, to show a late output, or a delay to raise to the suggestion)"
		}
		fmt.Fprintln(w, line)
	}
	if r.Rows > 0 && r.Target*float64(r.Rows) < 1 {
		fmt.Fprintf(w, "(%s of %d rows is less than one row: the suggestion leaves no row late; give --target to allow some)\n", strconv.FormatFloat(r.Target*100, 'f', -1, 64)+"%", r.Rows)
	}
	if len(r.FarAhead) == 0 {
		fmt.Fprintln(w, "rows far ahead: none")
	} else {
		fmt.Fprintf(w, "rows far ahead (more than %s above the rows before; without the option each makes the rows after it late): add %s\n", tune.DurationText(tuneFarAhead), r.MaxFuture)
		for k, j := range r.FarAhead {
			if k == 10 {
				fmt.Fprintf(w, "  ... %d more\n", len(r.FarAhead)-k)
				break
			}
			fmt.Fprintf(w, "  %s  %s ahead\n", j.Position, tune.DurationText(j.AheadMs))
		}
	}
	if len(r.Idle) == 0 {
		fmt.Fprintln(w, "idle partitions: none")
		return
	}
	fmt.Fprintln(w, "idle partitions (their rows stop while others go on; they hold the watermark back until 'scan.watermark.idle-timeout'):")
	for _, x := range r.Idle {
		fmt.Fprintf(w, "  partition %d: last row %s, %s behind\n", x.Partition, x.Last, tune.DurationText(x.BehindMs))
	}
}

func lateText(n int, share float64) string {
	return fmt.Sprintf("%d (%s%%)", n, strconv.FormatFloat(share*100, 'f', 2, 64))
}
