package executor

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/parser"
	"streamql/planner"
)

var update = flag.Bool("update", false, "rewrite the expected output of data-driven test files")

// ddCase is one case of a data-driven test file: a command line, its input, and
// the expected output after a "----" line. Cases are separated by blank lines;
// lines starting with '#' before a case are comments.
type ddCase struct {
	pos      string // file:line of the command
	cmd      string
	input    string
	expected string
	comment  string
}

// readDD parses a data-driven file (the pebble/cockroachdb datadriven layout:
// command, input, "----", expected output).
func readDD(t *testing.T, path string) []ddCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var cases []ddCase
	for i := 0; i < len(lines); {
		var comment []string
		for i < len(lines) && (strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(lines[i], "#")) {
			if strings.HasPrefix(lines[i], "#") {
				comment = append(comment, lines[i])
			}
			i++
		}
		if i >= len(lines) {
			break
		}
		c := ddCase{pos: fmt.Sprintf("%s:%d", filepath.Base(path), i+1), cmd: strings.TrimSpace(lines[i]), comment: strings.Join(comment, "\n")}
		i++
		var in []string
		for i < len(lines) && lines[i] != "----" {
			in = append(in, lines[i])
			i++
		}
		if i >= len(lines) {
			t.Fatalf("%s: no ---- line", c.pos)
		}
		i++
		var out []string
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			out = append(out, lines[i])
			i++
		}
		c.input = strings.Join(in, "\n")
		c.expected = strings.Join(out, "\n")
		cases = append(cases, c)
	}
	return cases
}

// writeDD rewrites a data-driven file with the given outputs (-update).
func writeDD(t *testing.T, path string, cases []ddCase, got []string) {
	t.Helper()
	var sb strings.Builder
	for k, c := range cases {
		if k > 0 {
			sb.WriteString("\n")
		}
		if c.comment != "" {
			sb.WriteString(c.comment + "\n")
		}
		sb.WriteString(c.cmd + "\n" + c.input + "\n----\n" + got[k] + "\n")
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runDD runs every case of every file matching pattern through run and compares
// (or with -update rewrites) the expected outputs.
func runDD(t *testing.T, pattern string, run func(t *testing.T, c ddCase) string) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files %s", pattern)
	}
	for _, f := range files {
		cases := readDD(t, f)
		got := make([]string, len(cases))
		for k, c := range cases {
			got[k] = strings.TrimRight(run(t, c), "\n")
			if !*update && got[k] != c.expected {
				t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", c.pos, c.cmd, got[k], c.expected)
			}
		}
		if *update {
			writeDD(t, f, cases, got)
		}
	}
}

// routeLog is a sink that writes, for each input row of the probe stream, the
// output that took it with its projected values, or "-" when no output took it
// (no branch's WHERE held, the main query dropped it, or the LIMIT ended the job
// before it); and the malformed rows for the errors outputs.
type routeLog struct {
	job *planner.Job
	sb  strings.Builder
	row int
}

func (l *routeLog) Rows(r *Step) error {
	dest := destsOf(r)
	for i := 0; i < r.N; i++ {
		l.row++
		k := dest[i]
		if k < 0 {
			fmt.Fprintf(&l.sb, "row %d: -\n", l.row)
			continue
		}
		p := r.Parts[k]
		var vals []string
		for c, v := range p.Cols {
			t := l.job.Outputs[p.Output].Columns[c].Type
			if v.Null[i] {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(vector.AppendValue(nil, t, v, i)))
			}
		}
		fmt.Fprintf(&l.sb, "row %d: %s (%s)\n", l.row, l.job.Outputs[p.Output].Name, strings.Join(vals, ", "))
	}
	return nil
}

func (l *routeLog) Errors(name string, rows []ErrorRow) error {
	for _, r := range rows {
		fmt.Fprintf(&l.sb, "%s: %s %s\n", name, r.Position, r.Error)
	}
	return nil
}
func (l *routeLog) Flush() error { return nil }
func (l *routeLog) Close() error { return nil }

// TestRouter runs the data-driven router cases of testdata/router (SPEC 2.1:
// first-match routing over ordered side branches, then main; joins inside
// branches; LIMIT). A case's input is a script: CREATE STREAM over 'values'
// streams, INSERT INTO for the input rows, then side branches (INTO SIDE) that
// stay pending until a main SELECT of their stream, or RUN, runs a job with
// them (SPEC 2.1's pending rules; at the end of the case the branches still
// pending are listed). The output lists each job's routing of its input rows.
func TestRouter(t *testing.T) {
	runDD(t, "testdata/router/*.txt", func(t *testing.T, c ddCase) string {
		if c.cmd != "route" {
			t.Fatalf("%s: unknown command %q", c.pos, c.cmd)
		}
		return routeScript(t, c.input)
	})
}

// routeScript runs a router case's script and returns its routing log.
func routeScript(t *testing.T, src string) string {
	script, err := parser.Parse("case", src)
	if err != nil {
		return "error: " + err.Error()
	}
	cat := catalog.New()
	env := &Env{}
	p := &planner.Planner{Cat: cat, Source: src}
	var pending []*planner.Branch
	var sb strings.Builder
	fail := func(err error) string {
		if pe, ok := err.(*parser.Error); ok {
			return sb.String() + "error: " + pe.Msg
		}
		return sb.String() + "error: " + err.Error()
	}
	take := func(st *catalog.Stream) []*planner.Branch {
		var mine, rest []*planner.Branch
		for _, b := range pending {
			if b.Stream == st {
				mine = append(mine, b)
			} else {
				rest = append(rest, b)
			}
		}
		pending = rest
		return mine
	}
	runOne := func(st *catalog.Stream, main *planner.Branch) error {
		job, err := planner.NewJob(st, take(st), main, src)
		if err != nil {
			return err
		}
		log := &routeLog{job: job}
		_, err = Run(context.Background(), job, env, func() (Sink, error) { return log, nil })
		fmt.Fprintf(&sb, "job on %s:\n%s", st.Name, log.sb.String())
		return err
	}
	for _, stmt := range script.Stmts {
		switch st := stmt.(type) {
		case *parser.CreateStream:
			x := &catalog.Stream{Name: st.Name, EventTime: -1}
			for _, c := range st.Columns {
				typ, err := catalog.ParseType(c.Type)
				if err != nil {
					return fail(err)
				}
				x.Columns = append(x.Columns, catalog.Column{Name: c.Name, Type: typ})
			}
			if w := st.Watermark; w != nil {
				x.EventTime, x.Watermark = x.Column(w.Column), planner.Watermark(w)
			}
			if x.Connector, x.Options, err = planner.ValidateOptions(st.Options, x.Columns, st.WithPos); err != nil {
				return fail(err)
			}
			cat.Add(x)
		case *parser.Insert:
			ins, err := p.PlanInsert(st)
			if err != nil {
				return fail(err)
			}
			env.Insert(ins)
		case *parser.Select:
			b, err := p.PlanSelect(st)
			if err != nil {
				return fail(err)
			}
			if b.Side != "" {
				pending = append(pending, b)
				continue
			}
			if err := runOne(b.Stream, b); err != nil {
				return fail(err)
			}
		case *parser.Run:
			for len(pending) > 0 {
				if err := runOne(pending[0].Stream, nil); err != nil {
					return fail(err)
				}
			}
		default:
			return fail(fmt.Errorf("statement %T is not supported in a router case", stmt))
		}
	}
	for _, b := range pending {
		fmt.Fprintf(&sb, "pending: '%s' on %s\n", b.Side, b.Stream.Name)
	}
	return sb.String()
}
