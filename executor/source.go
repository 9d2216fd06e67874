package executor

import (
	"context"
	"fmt"
	"io"
	"sync"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/csvdec"
	"streamql/planner"
)

// ErrWaiting is returned by Source.Next when the source has no row ready and is
// about to wait for input; the job flushes its sinks and calls Next again with
// the same batch.
var ErrWaiting = connector.ErrWaiting

// BadRow is a malformed input row (alias of the CSV decoder's type, shared by all
// decoders).
type BadRow = csvdec.BadRow

// Source produces batches of a stream's rows; the connectors of SPEC 1 live in
// executor/connector, one file each.
type Source = connector.Source

// Unreader is a Source that takes back the rows of its last batch a job did not
// use (connector.Unreader: stdin, SPEC 1). A wrapper (SetSourceHook) passes
// Unread on.
type Unreader = connector.Unreader

// Env gives jobs what they open, and keeps what lives longer than one job: the
// session's stdin, the rows inserted into values streams, the clock of paced
// datagen streams. The working directory of relative paths comes from each
// stream's BaseDir. The zero value (with Stdin set) is ready to use.
type Env struct {
	// Stdin is the process's standard input, read by stdin streams.
	Stdin io.Reader
	// Clock paces datagen streams and gives their event time; nil is the wall
	// clock (tests inject a fake one).
	Clock connector.Clock
	// StateMaxBytes bounds the state of each job's stateful operators in bytes
	// (SPEC 1: the session setting 'state.max-bytes'); 0 is the default, 2 GiB.
	StateMaxBytes int64

	mu     sync.Mutex
	stdin  *connector.Stdin
	values map[*catalog.Stream]*connector.Table
	feeds  map[*catalog.Stream]*connector.Feed
	wrap   func(st *catalog.Stream, src Source) Source
}

// SetSourceHook makes every source a job opens pass through f (nil: none). The
// wrapper's methods are called one at a time, but not always on the job's
// goroutine: a bounded file is decoded ahead on a goroutine of its own
// (prefetch.go). The CLI's progress bar uses it.
func (e *Env) SetSourceHook(f func(st *catalog.Stream, src Source) Source) { e.wrap = f }

// Open opens the source of st (see open), through the source hook when one is set.
func (e *Env) Open(ctx context.Context, st *catalog.Stream) (Source, error) {
	src, err := e.open(ctx, st)
	if err != nil || e.wrap == nil {
		return src, err
	}
	return e.wrap(st, src), nil
}

// open opens the source of st by its connector. Errors name the stream, the
// option and what to do.
func (e *Env) open(ctx context.Context, st *catalog.Stream) (Source, error) {
	newDec := func(r io.Reader) (connector.Decoder, error) { return newDecoder(st, r) }
	if st.Connector == planner.NoFrom {
		return &oneRow{}, nil
	}
	switch st.Connector.Name {
	case "file":
		return connector.OpenFile(ctx, st, newDec)
	case "stdin":
		e.mu.Lock()
		if e.stdin == nil {
			e.stdin = &connector.Stdin{R: e.Stdin}
		}
		in := e.stdin
		e.mu.Unlock()
		return in.Open(ctx, st, newDec)
	case "socket":
		return connector.OpenSocket(ctx, st, newDec)
	case "datagen":
		return connector.OpenDatagen(ctx, st, e.Clock)
	case "values":
		return e.table(st).Open(), nil
	case "go":
		return e.Feed(st).Open(ctx), nil
	}
	return nil, fmt.Errorf("stream %s: unknown connector '%s'", st.Name, st.Connector.Name)
}

// Insert appends rows to the values stream st (INSERT INTO ... VALUES, SPEC 3); a
// job reading st reads the rows inserted before it starts. A stream declared
// anew under a dropped one's name starts empty.
func (e *Env) Insert(ins *planner.Insert) {
	e.table(ins.Stream).Append(ins.Rows)
}

// Feed returns the queue of the Go-fed stream st ('connector'='go'), made at
// the first call; jobs reading st read from it.
func (e *Env) Feed(st *catalog.Stream) *connector.Feed {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.feeds == nil {
		e.feeds = map[*catalog.Stream]*connector.Feed{}
	}
	f := e.feeds[st]
	if f == nil {
		f = connector.NewFeed(st)
		e.feeds[st] = f
	}
	return f
}

func (e *Env) table(st *catalog.Stream) *connector.Table {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.values == nil {
		e.values = map[*catalog.Stream]*connector.Table{}
	}
	t := e.values[st]
	if t == nil {
		t = connector.NewTable(st.Types())
		e.values[st] = t
	}
	return t
}
