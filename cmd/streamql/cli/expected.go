package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The expected/ files of `streamql test` are read only when they are regular
// files, whole only up to a size, and the outputs are compared with them as a
// stream (issue 30: expected/main.csv -> /dev/zero ran out of memory, a FIFO
// there hung the run).

// maxExpectedWhole is the most bytes of an expected/ file read whole: exit,
// stderr and errors.csv (compared on its first columns).
const maxExpectedWhole = 64 << 20

// maxDiffWhole is the size up to which a differing output and its expected
// file are diffed whole; past it, the diff is of the lines from the first
// difference on.
const maxDiffWhole = 1 << 20

// openExpected opens the file exp/name for reading when it is a regular file:
// a FIFO, device or folder there is an error that says so, for the caller to
// prefix with the file's name (the open does not
// wait for a FIFO's writer). A missing file gives an error matching
// fs.ErrNotExist.
func openExpected(exp, name string) (*os.File, int64, error) {
	f, err := os.OpenFile(filepath.Join(exp, name), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s); make it a file holding the expected text", fileKind(st.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// fileKind names the kind of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// readExpected reads the regular file exp/name whole, when it holds at most
// maxExpectedWhole bytes (openExpected's errors, and one naming the size).
func readExpected(exp, name string) ([]byte, error) {
	f, size, err := openExpected(exp, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxExpectedWhole+1))
	if err == nil && (size > maxExpectedWhole || len(b) > maxExpectedWhole) {
		err = fmt.Errorf("it holds %d bytes, more than the %d MiB read whole; keep it smaller", max(size, int64(len(b))), maxExpectedWhole>>20)
	}
	return b, err
}

// diffExpected compares the regular file exp/name with got as a stream, and
// returns "" when they are the same, else a unified diff (from, to: the
// sides' names): of the whole texts when both are at most maxDiffWhole
// bytes, else of maxDiffLines lines from the line of the first difference.
// It reads the file up to the first difference only.
func diffExpected(exp, name, from, to, got string) (string, error) {
	f, size, err := openExpected(exp, name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	at := -1 // the first byte that differs
	buf := make([]byte, 64<<10)
	for off := 0; at < 0; {
		n, err := io.ReadFull(f, buf)
		if n > 0 {
			rest := got[off:]
			k := min(n, len(rest))
			if i := firstDiff(buf[:k], rest[:k]); i >= 0 {
				at = off + i
			} else if k < n {
				at = off + k // got ends before the file
			}
			off += n
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if at < 0 && off != len(got) {
				at = off // the file ends before got
			}
			break
		}
		if err != nil {
			return "", err
		}
	}
	if at < 0 {
		return "", nil
	}
	if size <= maxDiffWhole && len(got) <= maxDiffWhole {
		want, err := readExpected(exp, name)
		if err != nil {
			return "", err
		}
		return unifiedDiff(from, to, string(want), got), nil
	}
	// the lines from the one holding the first difference: both sides hold
	// the same bytes before it
	start := strings.LastIndexByte(got[:min(at, len(got))], '\n') + 1
	line := strconv.Itoa(1 + strings.Count(got[:start], "\n"))
	want := make([]byte, maxDiffWhole)
	n, err := f.ReadAt(want, int64(start))
	if err != nil && err != io.EOF {
		return "", err
	}
	return unifiedDiff(from+" (from line "+line+")", to+" (from line "+line+")",
		firstLines(string(want[:n]), maxDiffLines), firstLines(got[start:min(len(got), start+maxDiffWhole)], maxDiffLines)), nil
}

// firstDiff returns the index of the first byte where a and b differ, or -1.
func firstDiff(a []byte, b string) int {
	if string(a) == b {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// maxDiffLineBytes caps each line of a diff from a first difference on.
const maxDiffLineBytes = 400

// firstLines returns the first n lines of text, each cut to maxDiffLineBytes
// (marked "…").
func firstLines(text string, n int) string {
	var b strings.Builder
	for ; n > 0 && text != ""; n-- {
		line, rest, found := strings.Cut(text, "\n")
		if len(line) > maxDiffLineBytes {
			line = strings.ToValidUTF8(line[:maxDiffLineBytes], "") + "…"
		}
		b.WriteString(line)
		if found {
			b.WriteByte('\n')
		}
		text = rest
	}
	return b.String()
}

// isNotExist says whether err is a missing file's.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
