package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"streamql/cmd/streamql/render"
	"streamql/internal/editdist"
	"streamql/internal/session"
	"streamql/parser"
)

// Dot commands (SPEC 4, REPL): `.format json`, `.read FILE`, ... They work at the
// REPL prompt and on a line of their own in scripts, outside any statement, as
// in sqlite and DuckDB: a line whose first character other than spaces and tabs
// is '.', where a statement could start (at the start of the script or after a
// ';'). A '.' inside a statement, a string or a comment is not a command. The
// command goes to the end of its line.

// dotLine is one dot command of a script.
type dotLine struct {
	Offset int    // byte offset of the '.' in the script's source
	Text   string // from the '.' to the end of its line, without the line break
}

// scriptInfo is what the session knows of a script besides its statements.
type scriptInfo struct {
	dots []dotLine
	path string // the script's file, for .read cycles; "" for -e, stdin and the REPL
}

// exitError is an error already reported to the user (a script run by .read
// printed its own error): report returns its status without printing anything.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// parseScript parses src (the script called name; path is its file or "") like
// parser.Parse, after taking out its dot lines, and checks every dot line's
// syntax, so a bad dot line, like a syntax error, means nothing runs (SPEC 4).
// Errors are *parser.Error at offsets into src. The script's Source is src as
// given, dot lines included, so that messages show them. Parsing a long script
// takes seconds; once ctx is done (a stop signal, SPEC 4: every phase stops
// within 100 ms) it returns ctx's error at once, and the parse, which touches
// nothing the session shares, ends on its own.
func (s *Session) parseScript(ctx context.Context, name, path, src string) (*parser.Script, error) {
	type parsed struct {
		sc   *parser.Script
		dots []dotLine
		err  error
	}
	ch := make(chan parsed, 1)
	go func() {
		sql, dots := splitDots(src)
		for _, d := range dots {
			if _, err := parseDot(d); err != nil {
				ch <- parsed{err: err}
				return
			}
		}
		sc, err := parser.Parse(name, sql)
		ch <- parsed{sc, dots, err}
	}()
	var p parsed
	select {
	case p = <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	sc, dots := p.sc, p.dots
	if p.err != nil {
		return nil, p.err
	}
	sc.Source = src // the statements' spans never cover a dot line
	if len(dots) > 0 || path != "" {
		if s.scripts == nil {
			s.scripts = map[*parser.Script]*scriptInfo{}
		}
		s.scripts[sc] = &scriptInfo{dots: dots, path: path}
	}
	return sc, nil
}

// splitDots returns src with every dot line blanked out with spaces (offsets,
// lines and columns of the SQL stay as they were) and the dot lines in order.
func splitDots(src string) (string, []dotLine) {
	var dots []dotLine
	var buf []byte // a copy of src, made at the first dot line
	base := 0      // toks start at this offset of src
	toks := parser.Tokens(src)
	atStart := true // no significant token since the start or the last ';'
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		off := base + t.Offset
		switch {
		case t.Kind == parser.TokSemicolon:
			atStart = true
		case t.Kind == parser.TokComment:
		case atStart && strings.HasPrefix(t.Text, ".") && t.Kind != parser.TokNumber && onlyBlanksBefore(src, off):
			end := len(src)
			if j := strings.IndexByte(src[off:], '\n'); j >= 0 {
				end = off + j
			}
			dots = append(dots, dotLine{Offset: off, Text: strings.TrimSuffix(src[off:end], "\r")})
			if buf == nil {
				buf = []byte(src)
			}
			for k := off; k < end; k++ {
				buf[k] = ' '
			}
			// skip the line's tokens; a token running past its end (a quote or
			// a comment opened in the dot line) means lexing again after it
			for i+1 < len(toks) && base+toks[i+1].End() <= end {
				i++
			}
			if i+1 < len(toks) && base+toks[i+1].Offset < end {
				base, toks, i = end, parser.Tokens(src[end:]), -1
			}
		default:
			atStart = false
		}
	}
	if buf == nil {
		return src, nil
	}
	return string(buf), dots
}

// onlyBlanksBefore reports whether only spaces and tabs stand between the
// start of off's line and off.
func onlyBlanksBefore(src string, off int) bool {
	for k := off - 1; k >= 0 && src[k] != '\n'; k-- {
		if src[k] != ' ' && src[k] != '\t' && src[k] != '\r' {
			return false
		}
	}
	return true
}

// dotCmd is a parsed dot command: its name as typed, its arguments and their
// offsets in the script.
type dotCmd struct {
	line    dotLine
	name    string
	args    []string
	argPos  []int
	rest    string // the text after the name (.read's file name may hold spaces)
	restPos int
}

// parseDot splits a dot line into command and arguments and checks them
// (SPEC 4 lists the commands). Errors are *parser.Error at the offending word.
func parseDot(d dotLine) (*dotCmd, *parser.Error) {
	text := strings.TrimRight(d.Text, " \t\r")
	text = strings.TrimRight(strings.TrimSuffix(text, ";"), " \t") // `.timer on;` as typed by habit
	c := &dotCmd{line: d}
	for i := 0; i < len(text); {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		if j > i {
			if c.name == "" {
				c.name = text[i:j]
				c.rest = strings.TrimSpace(text[j:])
				c.restPos = d.Offset + len(text) - len(strings.TrimLeft(text[j:], " \t"))
			} else {
				c.args = append(c.args, text[i:j])
				c.argPos = append(c.argPos, d.Offset+i)
			}
		}
		i = j
	}
	if c.name == ".mode" {
		c.name = ".format" // DuckDB's and sqlite's spelling (issue 29 item 6)
	}
	errAt := func(k int, format string, a ...any) *parser.Error {
		off := d.Offset
		if k >= 0 && k < len(c.argPos) {
			off = c.argPos[k]
		}
		return parser.Errorf(off, format, a...)
	}
	switch c.name {
	case ".help", ".h", ".?":
		if len(c.args) > 1 || len(c.args) == 1 && !strings.EqualFold(c.args[0], "functions") {
			return nil, errAt(0, "%s takes no argument or 'functions'", c.name)
		}
	case ".quit", ".exit", ".q", ".streams", ".tables":
		if len(c.args) > 0 {
			return nil, errAt(0, "%s takes no arguments", c.name)
		}
	case ".schema":
		if q := c.rest; len(q) >= 2 && q[0] == '`' && q[len(q)-1] == '`' {
			// one back-quoted name, which may hold spaces (`` is a back-quote)
			c.args, c.argPos = []string{strings.ReplaceAll(q[1:len(q)-1], "``", "`")}, []int{c.restPos}
		} else if len(q) >= 2 && q[0] == '\'' && q[len(q)-1] == '\'' {
			// one quoted file name, kept quoted (executed as DESCRIBE 'file')
			c.args, c.argPos = []string{q}, []int{c.restPos}
		}
		if len(c.args) > 1 {
			return nil, errAt(1, ".schema takes one stream name or quoted file name: .schema NAME or .schema 'file.csv'")
		}
	case ".format":
		if len(c.args) > 1 || len(c.args) == 1 && !render.ValidFormat(strings.ToLower(c.args[0])) {
			return nil, errAt(0, "unknown format '%s'; %suse one of %s", strings.Join(c.args, " "), editdist.DidYouMean(strings.Join(c.args, " "), render.Formats), strings.Join(render.Formats, ", "))
		}
	case ".timer":
		if len(c.args) > 1 {
			return nil, errAt(1, ".timer takes on or off")
		}
		if len(c.args) == 1 {
			if _, ok := timerValues[strings.ToLower(c.args[0])]; !ok {
				return nil, errAt(0, ".timer takes on or off, not '%s'", c.args[0])
			}
		}
	case ".read":
		if c.rest == "" {
			return nil, errAt(-1, ".read takes a file name: .read FILE")
		}
	default:
		return nil, errAt(-1, "unknown command %s; .help lists the commands", c.name)
	}
	return c, nil
}

var timerValues = session.TimerValues

// execDot runs the dot line d of the script sc. Messages of the command itself
// (.help, .format without argument) go to out. It returns a *parser.Error
// positioned in the script for a bad command, an unknown stream or a file that
// .read cannot read or that is already being run (a cycle), or an exitError
// when the script that .read ran failed.
func (s *Session) execDot(ctx context.Context, sc *scriptCtx, d dotLine, out io.Writer) error {
	c, perr := parseDot(d)
	if perr != nil {
		return perr
	}
	switch c.name {
	case ".quit", ".exit", ".q":
		s.Closed = true // the run ends here, with status 0
	case ".help", ".h", ".?":
		if len(c.args) == 1 {
			return writeFunctionHelp(out)
		}
		w := bufio.NewWriter(out)
		for _, m := range metaCommands {
			fmt.Fprintf(w, "%-20s %s\n", strings.TrimSpace(m.name+" "+m.args), m.help)
		}
		fmt.Fprint(w, replHelp)
		return w.Flush()
	case ".streams", ".tables":
		return s.execStmt(ctx, sc, &parser.ShowStreams{})
	case ".schema":
		if len(c.args) == 0 { // every relation a query may read: streams, then views (SPEC 2.6)
			if err := s.execStmt(ctx, sc, &parser.ShowStreams{}); err != nil || len(s.Cat.Views()) == 0 {
				return err
			}
			return s.execStmt(ctx, sc, &parser.ShowViews{})
		}
		name := c.args[0]
		if len(name) >= 2 && name[0] == '\'' && name[len(name)-1] == '\'' { // a file's inferred schema, as DESCRIBE 'file' (SPEC 1)
			return s.execStmt(ctx, sc, &parser.Describe{File: strings.ReplaceAll(name[1:len(name)-1], "''", "'"), NamePos: c.argPos[0]})
		}
		if len(name) >= 2 && name[0] == '`' && name[len(name)-1] == '`' {
			name = name[1 : len(name)-1]
		}
		if s.Cat.Lookup(name) == nil && s.Cat.LookupView(name) == nil { // (a view's columns too, SPEC 2.6)
			return parser.Errorf(c.argPos[0], "unknown stream or view '%s'; .schema without a name lists them (SPEC 2.6: views too)", name)
		}
		return s.execStmt(ctx, sc, &parser.Describe{Name: name, NamePos: c.argPos[0]})
	case ".format":
		if len(c.args) == 0 {
			_, err := fmt.Fprintf(out, "format: %s\n", s.Format)
			return err
		}
		s.Format = strings.ToLower(c.args[0])
	case ".timer":
		if len(c.args) == 0 {
			_, err := fmt.Fprintf(out, "timer: %s\n", map[bool]string{true: "on", false: "off"}[s.Timer])
			return err
		}
		s.Timer = timerValues[strings.ToLower(c.args[0])]
	case ".read":
		return s.readScript(ctx, sc, c)
	}
	return nil
}

// readScript runs .read FILE: FILE (quotes and a leading ~/ allowed) relative to
// the folder of the script that reads it, parsed whole and run as a script (its
// pending side branches run at its end, SPEC 2.1).
func (s *Session) readScript(ctx context.Context, sc *scriptCtx, c *dotCmd) error {
	path := c.rest
	if len(path) >= 2 && (path[0] == '\'' || path[0] == '"') && path[len(path)-1] == path[0] {
		path = path[1 : len(path)-1]
	}
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(sc.dir, path)
	}
	key := scriptKey(path)
	for i, r := range s.reading {
		if r == key {
			chain := append(append([]string{}, s.reading[i:]...), key)
			return parser.Errorf(c.restPos, ".read cycle: %s is already being run (%s); remove one of the .read lines", path, strings.Join(chain, " → "))
		}
	}
	b, err := loadScriptFile(ctx, path)
	if ctx.Err() != nil {
		fmt.Fprintln(s.Stderr, "interrupted")
		return exitError(exitInterrupt)
	}
	if err != nil {
		return parser.Errorf(c.restPos, "cannot read script %s: %v", path, unwrapPath(err))
	}
	inner, err := s.parseScript(ctx, path, path, string(b))
	if ctx.Err() != nil {
		fmt.Fprintln(s.Stderr, "interrupted")
		return exitError(exitInterrupt)
	}
	if err != nil {
		printParseError(s.Stderr, path, string(b), err)
		return exitError(exitPlanning)
	}
	if code := s.ExecScript(ctx, inner, filepath.Dir(path)); code != exitOK {
		return exitError(code)
	}
	return nil
}

// scriptKey is the name of a script file for finding .read cycles: its
// absolute path with symbolic links resolved when it exists.
func scriptKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return path
}
