package streamql

import (
	"context"
	"errors"
	"time"

	"streamql/catalog"
	"streamql/planner"
)

// ErrCanceled is the cause of a job ended by Session.Cancel: the *Error Exec
// returns then wraps it (errors.Is(err, ErrCanceled)).
var ErrCanceled = errors.New("streamql: canceled by Session.Cancel")

// JobStatus is what Session.Running reports about the statement running.
type JobStatus struct {
	// Statement is the statement's text ("RUN" for the pending side branches
	// ExecScript runs at its end).
	Statement string
	// Started is when the statement started.
	Started time.Time
	// GoStreams are the Go-fed streams ('connector'='go') the statement's
	// job reads, with the rows pushed to each so far and whether it was
	// closed: a job over a stream nobody pushes to, nor closes, waits for
	// ever (cancel it with Session.Cancel or Exec's context).
	GoStreams []GoStreamStatus
}

// GoStreamStatus is one Go-fed stream of a running job (JobStatus).
type GoStreamStatus struct {
	Name   string
	Pushed int64 // rows pushed by Session.Push since the session opened
	Closed bool  // Session.CloseStream was called
}

// running is the statement Exec is running.
type running struct {
	text    string
	started time.Time
	cancel  context.CancelCauseFunc
	streams []string // the Go-fed streams its job reads
}

// Running returns the status of the statement that Exec or ExecScript is
// running, and false when none runs. It is safe to call from any goroutine.
func (s *Session) Running() (JobStatus, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return JobStatus{}, false
	}
	st := JobStatus{Statement: s.cur.text, Started: s.cur.started}
	for _, n := range s.cur.streams {
		k := catalog.FoldName(n)
		st.GoStreams = append(st.GoStreams, GoStreamStatus{Name: n, Pushed: s.pushed[k], Closed: s.closed[k]})
	}
	return st, true
}

// Cancel ends the statement running (a job waiting for rows of a Go-fed
// stream that nobody pushes, say), as canceling Exec's context does: Exec
// returns an *Error wrapping ErrCanceled, and what the job routed so far was
// given to OnRows. It does nothing when no statement runs. It is safe to call
// from any goroutine.
func (s *Session) Cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		s.cur.cancel(ErrCanceled)
	}
}

// begin records text as the statement running, canceled by cancel.
func (s *Session) begin(text string, cancel context.CancelCauseFunc) {
	s.mu.Lock()
	s.cur = &running{text: text, started: time.Now(), cancel: cancel}
	s.mu.Unlock()
}

// end records that no statement runs.
func (s *Session) end() {
	s.mu.Lock()
	s.cur = nil
	s.mu.Unlock()
}

// jobStarts records the Go-fed streams job reads, for Running.
func (s *Session) jobStarts(job *planner.Job) {
	var names []string
	for _, st := range job.Streams() {
		if st.Connector != nil && st.Connector.PushedFromGo {
			names = append(names, st.Name)
		}
	}
	s.mu.Lock()
	if s.cur != nil {
		s.cur.streams = names
	}
	s.mu.Unlock()
}

// counted adds n pushed rows to stream's count, or marks it closed.
func (s *Session) counted(stream string, n int64, closed bool) {
	k := catalog.FoldName(stream)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pushed == nil {
		s.pushed, s.closed = map[string]int64{}, map[string]bool{}
	}
	s.pushed[k] += n
	if closed {
		s.closed[k] = true
	}
}
