// Package connector holds the sources of SPEC 1, one file per connector: file
// (bounded, or following appends with 'follow'), stdin, socket, datagen,
// values, go and kafka (kafka*.go: a topic's source and sink, SPEC 2.5); file
// and kafka are also sinks. Each file registers its connector once, from its init (Register): the
// catalog.ConnectorSpec (options, bounded rule, checks, capabilities) and its
// Driver (the source opener; for values, the inserter), held in the spec's
// Source. executor.Env.Open looks the Driver up from the stream's spec; nothing
// outside this package switches on a connector's name (registry_test.go checks
// it). What a connector keeps across a session's jobs (the shared stdin, a values
// stream's rows) lives in the session's State under a key of its own.
//
// Live sources (stdin, socket, a followed file, a paced datagen) return
// ErrWaiting from Next when no row is ready and they are about to wait, so the
// job flushes its sinks and rows show at once (SPEC 4). They stop promptly when
// the job's context is cancelled: blocking reads run in goroutines (errgroup)
// that Close ends and waits for.
package connector

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	"streamql/executor/records"
	"streamql/executor/vector"
)

// ErrWaiting is returned by Source.Next when the source has no row ready and is
// about to wait for input; the job flushes its sinks and calls Next again with
// the same batch (a live source may still be filling it).
var ErrWaiting = errors.New("source waiting for input")

// BadRow is a malformed input row (records.BadRow, shared by all decoders).
type BadRow = records.BadRow

// Source produces batches of a stream's rows.
type Source interface {
	// Next resets b and fills it with the next rows (b.N >= 0), appending malformed
	// rows to *bad. It returns io.EOF at the end, ErrWaiting (see there), the
	// context's error once the job's context is cancelled, or a read error.
	Next(b *vector.Batch, bad *[]BadRow) error
	// Position renders a source position for messages and the errors side output
	// (SPEC 1: path:line with the path as written, stdin:line, host:port:line, or
	// the row number).
	Position(line int64) string
	// Progress returns the bytes read so far and the total (0 when unknown).
	Progress() (read, total int64)
	// Close releases the source; it stops and waits for its goroutines.
	Close() error
}

// Decoder turns a byte stream into batches (executor.Decoder has the same
// methods: csv, json, ...).
type Decoder interface {
	Decode(b *vector.Batch, bad *[]BadRow) error
	BytesRead() int64
}

// Unreader is a Source that can give back the rows of its last batch that the
// job did not use, so that a later job reading the same input (the session's
// stdin, SPEC 1) continues exactly after the last row used. A job that stops
// inside a batch (the main query's LIMIT) calls Unread before Close.
type Unreader interface {
	// Unread tells the source that only the first rows good rows of the batch
	// its last Next gave were used (and none of the malformed rows after them).
	Unread(rows int)
	// UnreadAfter tells the source that the first rows good rows and the
	// first bad malformed rows of that batch were used, and nothing after
	// the later of the two (a job that 'errors'='fail' stopped at its first
	// malformed row; a job stopped while rows were held).
	UnreadAfter(rows, bad int)
}

// HandBack is implemented by the reader a stdin source gives its decoder
// (NewDecoder): what the job does not use goes back to the next job of the
// session reading stdin (SPEC 1), so a decoder that reads through a
// transcoder keeps the source bytes to give back (see rester).
type HandBack interface {
	io.Reader
	// Continues reports whether the input goes on from where an earlier job
	// stopped, not from the start of stdin (a byte order mark is only at the
	// very start).
	Continues() bool
}

// rester is a Decoder that can give back what it read and did not decode (see
// csvdec.Decoder.Rest: the input after the first rows good rows of its last
// batch; rows < 0 for all of them).
type rester interface {
	Rest(rows int) []byte
	// RestAfter is Rest after the first rows good rows and the first bad
	// malformed rows (see csvdec.Decoder.RestAfter).
	RestAfter(rows, bad int) []byte
}

// restOf returns what dec read and the job did not use: after the first rows
// good rows and the first bad malformed rows of its last batch (rows < 0: all
// of it was used), or nil when dec cannot give back.
func restOf(dec Decoder, rows, bad int) []byte {
	r, ok := dec.(rester)
	switch {
	case !ok:
		return nil
	case rows < 0:
		return r.Rest(-1)
	}
	return r.RestAfter(rows, bad)
}

// restLiner is a Decoder that tells the input line where what it hands back
// starts (csvdec.Decoder.RestLine; rows < 0: after all it decoded).
type restLiner interface {
	RestLine(rows, bad int) int64
}

// linesUsed returns how many input lines dec consumed when the job used the
// first rows good rows and bad malformed rows of its last batch (rows < 0:
// all): the line where restOf's rest starts, minus one; 0 when dec cannot tell.
func linesUsed(dec Decoder, rows, bad int) int64 {
	r, ok := dec.(restLiner)
	if !ok {
		return 0
	}
	return max(r.RestLine(rows, bad)-1, 0)
}

// NewDecoder returns the stream's decoder (its 'format' and format options) over r.
type NewDecoder func(r io.Reader) (Decoder, error)

// Clock is the time a paced datagen stream follows. Tests inject a fake one so
// pacing is checked without sleeping.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or returns ctx.Err() once ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// WallClock is the real clock.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (WallClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// rowNumber renders a position of a source without lines (datagen, values): the
// row number (SPEC 1).
func rowNumber(line int64) string { return strconv.FormatInt(line, 10) }
