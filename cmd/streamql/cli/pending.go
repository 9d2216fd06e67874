package cli

import (
	"fmt"

	"streamql/internal/session"
	"streamql/internal/termtext"
	"streamql/parser"
)

// pendingNotice prints, in the REPL or when stderr is a terminal, the line
// naming the pending side branches a main query's job ran with and the rows
// each took (SPEC 2.1, session.PendingNotice); scripts in pipes and CI keep
// their stderr as it was.
func (s *Session) pendingNotice(job *session.Job, stats session.Stats) {
	if !s.Interactive && !stderrTerminal(s.Stderr) {
		return
	}
	if l := session.PendingNotice(job, stats); l != "" {
		printNotice(s.Stderr, l)
	}
}

var (
	_ session.Noticer = (*Session)(nil)
	_ session.Warner  = (*Session)(nil)
)

// Warn implements session.Warner: a planning warning goes to stderr, in
// scripts as in the REPL, as "warning: " and the message with its line,
// column, source line and caret (SPEC 4's form of a planning error).
func (s *Session) Warn(script *parser.Script, w *parser.Error) {
	fmt.Fprintln(s.Stderr, "warning: "+termtext.String(parser.FormatError(script.Name, script.Source, w), termtext.Message))
}

// Notice implements session.Noticer: in the REPL a notice about a statement
// (a DECIMAL column read as DOUBLE at CREATE) goes to stderr; scripts say it
// in EXPLAIN only, so their stderr stays as it was.
func (s *Session) Notice(line string) {
	if s.Interactive {
		printNotice(s.Stderr, line)
	}
}
