package cli

import (
	"context"
	"fmt"
	"io"
	"os"
)

// maxScriptBytes is the largest script streamql reads, in bytes (8 MiB): a
// script file, a .read file, or SQL on stdin. Memory stays bounded whatever the
// input (SPEC 1, issue 9), so a larger one (or one that never ends, such as
// /dev/zero) is an error, not a read without end. Parsing and planning take
// about 200 bytes of memory per byte of script, so 8 MiB stays near the
// default 'state.max-bytes' (2 GiB).
const maxScriptBytes = 8 << 20

// errScriptTooLong is the error of a script longer than maxScriptBytes.
var errScriptTooLong = fmt.Errorf("it is longer than %d MiB, the most a script may hold; split it into several scripts (streamql a.sql b.sql, or .read)", maxScriptBytes>>20)

// loadScript reads the whole script that open gives (a file, a FIFO, stdin)
// and returns its text. It returns errScriptTooLong past maxScriptBytes, the
// reading error, or, as soon as ctx is done (a stop signal while a pipe or a
// FIFO has not ended; SPEC 4: every phase stops), ctx's error; the blocked open
// or read is then left to end with the process.
func loadScript(ctx context.Context, open func() (io.ReadCloser, error)) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() { // ends when the read ends (at the latest with the process)
		r, err := open()
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer r.Close()
		b, err := io.ReadAll(io.LimitReader(r, maxScriptBytes+1))
		if err == nil && len(b) > maxScriptBytes {
			b, err = nil, errScriptTooLong
		}
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		return res.b, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// loadScriptFile is loadScript of the file at path.
func loadScriptFile(ctx context.Context, path string) ([]byte, error) {
	return loadScript(ctx, func() (io.ReadCloser, error) { return os.Open(path) })
}

// loadScriptFrom is loadScript of r, which it does not close (stdin).
func loadScriptFrom(ctx context.Context, r io.Reader) ([]byte, error) {
	return loadScript(ctx, func() (io.ReadCloser, error) { return io.NopCloser(r), nil })
}
