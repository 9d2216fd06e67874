// Package inbuf is the read buffer under the input format decoders
// (executor/csvdec, executor/jsondec) and the transcoding reader
// (executor/textenc): one buffer that a source is read into and that a record
// scanner consumes from the front. What a record is stays the scanner's
// business; the Buffer only reads, keeps count, and makes room.
//
// # Ownership and validity
//
// A Buffer owns its bytes. Data returns a slice of them, not a copy, and a
// caller may keep slices of it (the decoders hand out VARCHAR values and
// BadRow.Raw that point into it, valid until their next Decode). Such slices
// stay valid and unchanged until the next call of Fill: Consume and SkipBOM
// only move the start of Data forward, while Fill moves the unconsumed bytes
// to the front of the buffer (or into a new, larger one) and reads over what
// was consumed. So a caller calls Fill only when nothing it handed out is still
// in use and no complete record remains in Data.
//
// For a live source (a socket, stdin) the caller also calls Fill only when it
// has nothing to return: Fill blocks in the source's Read, so a decoder that
// holds rows returns them first and reads again on its next call.
package inbuf

import (
	"bytes"
	"errors"
	"io"
	"strconv"
)

// maxEmptyReads is how many times in a row Fill lets the source return no bytes
// and no error before it gives up with io.ErrNoProgress.
const maxEmptyReads = 100

// DefaultMaxRecord is the default of the stream option 'max-record-size'
// (SPEC 1): 64 MiB, in bytes.
const DefaultMaxRecord = 64 << 20

// RawPrefix is how much of a record longer than 'max-record-size' the errors
// side output's raw keeps (SPEC 1): its first 64 KiB, in bytes.
const RawPrefix = 64 << 10

// ErrFull is returned by Fill when Data fills a buffer that may not grow (see
// SetMax): the caller should have consumed or skipped the record first.
var ErrFull = errors.New("read buffer full")

// TooLong is the reason of a record longer than maxRecord bytes (SPEC 1,
// 'max-record-size'): it names the option and says what to do.
func TooLong(maxRecord int) string {
	size := strconv.Itoa(maxRecord) + " bytes"
	for _, u := range []struct {
		name string
		n    int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if maxRecord >= u.n && maxRecord%u.n == 0 {
			size = strconv.Itoa(maxRecord/u.n) + u.name
			break
		}
	}
	return "record longer than 'max-record-size' (" + size + "; raw holds its first 64 KiB); raise the stream option 'max-record-size', or check the input for a missing line end"
}

// AppendPrefix appends to raw what fits of b in raw's first RawPrefix bytes:
// how a decoder keeps the start of a record too long to buffer.
func AppendPrefix(raw, b []byte) []byte {
	if room := RawPrefix - len(raw); room > 0 {
		raw = append(raw, b[:min(room, len(b))]...)
	}
	return raw
}

// UTF8BOM is the UTF-8 byte order mark, which the decoders skip at the start
// of their input.
var UTF8BOM = []byte{0xEF, 0xBB, 0xBF}

// Buffer is a read buffer over a source. Its zero value is not usable: call
// Init. It is used in place (it is meant to be a field of its owner) and is not
// safe for concurrent use.
type Buffer struct {
	src        io.Reader
	name       string // prefix of error messages: "csv", "json", ...
	buf        []byte // buf[start:end] is read and not consumed yet
	start, end int
	eof        bool  // src returned io.EOF
	err        error // src returned another error, which Fill returns from then on
	bytesRead  int64
	bomDone    bool
	max        int // the buffer grows to at most max bytes; 0 = no limit
}

// Init makes b read src into a buffer of size bytes (at least 1), which grows
// when one record fills it. name prefixes the error Fill returns for a source
// that breaks the io.Reader contract.
//
// A Buffer used before may be Init again: its memory is reused when it is at
// least size bytes, so every slice it gave is invalid from then on.
func (b *Buffer) Init(src io.Reader, size int, name string) {
	buf := b.buf[:cap(b.buf)]
	if len(buf) < max(size, 1) {
		buf = make([]byte, max(size, 1))
	}
	*b = Buffer{src: src, name: name, buf: buf}
}

// SetMax bounds the buffer's growth: Fill grows it to at most n bytes (n > 0),
// and returns ErrFull when Data fills it. A buffer already larger stays as it
// is. The decoders set it from 'max-record-size' (SPEC 1) so that memory stays
// bounded whatever the input; they skip a longer record instead of filling.
func (b *Buffer) SetMax(n int) { b.max = n }

// Data returns the bytes read and not consumed yet. They belong to b: see the
// package doc for how long they stay valid.
func (b *Buffer) Data() []byte { return b.buf[b.start:b.end] }

// Since returns the buffered bytes from position pos (a value Start gave since
// the last Fill) to the end of what was read: the bytes consumed since then
// and Data. Like Data they belong to b and stay valid until the next Fill. A
// decoder uses it to hand back the input of rows a job did not use.
func (b *Buffer) Since(pos int) []byte { return b.buf[pos:b.end] }

// LineOf returns the 1-based line where rest starts, given line, the line
// where Data starts: rest is a slice Since gave (it ends with Data), and the
// line ends (LF, CRLF) in its bytes before Data are subtracted. A decoder uses
// it to tell how many input lines a job used when it hands back rest (SPEC 1,
// stdin positions go on across jobs).
func (b *Buffer) LineOf(rest []byte, line int64) int64 {
	if n := len(rest) - (b.end - b.start); n > 0 {
		line -= int64(bytes.Count(rest[:n], []byte{'\n'}))
	}
	return line
}

// Start returns the position of Data()[0] in the buffer. Positions of the
// buffered bytes hold until the next Fill (Consume only advances Start), so a
// scanner may cache them until then.
func (b *Buffer) Start() int { return b.start }

// Consume drops the first n bytes of Data (n <= len(Data())). The bytes stay
// where they are until the next Fill.
func (b *Buffer) Consume(n int) { b.start += n }

// EOF reports whether the source has ended: Data holds all that is left of the
// input, so an incomplete record at its end is the last one.
func (b *Buffer) EOF() bool { return b.eof }

// BytesRead returns the number of bytes read from the source so far (a byte
// order mark included), for progress reporting.
func (b *Buffer) BytesRead() int64 { return b.bytesRead }

// SkipBOM drops bom (a byte order mark; empty for none) when the input starts
// with it. It reports false while it cannot tell yet: Data is a proper prefix
// of bom and the source has not ended, so the caller must Fill and ask again.
// Once it has reported true it does nothing and reports true.
func (b *Buffer) SkipBOM(bom []byte) bool {
	if b.bomDone {
		return true
	}
	return b.skipBOM(bom)
}

func (b *Buffer) skipBOM(bom []byte) bool {
	avail := b.Data()
	if len(avail) < len(bom) && !b.eof && bytes.HasPrefix(bom, avail) {
		return false
	}
	if len(bom) > 0 && bytes.HasPrefix(avail, bom) {
		b.start += len(bom)
	}
	b.bomDone = true
	return true
}

// Fill is called when the caller has taken from Data all it can (no complete
// record remains) and holds no slice of the buffer that is still in use. It
// makes room (moving Data to the front of the buffer, doubling the buffer when
// Data fills it, up to SetMax's bound: ErrFull past it) and reads the source once, again while the source returns
// neither bytes nor an error, up to io.ErrNoProgress; a count outside
// 0..len(p) is an error. It invalidates every slice of the buffer and every
// position Start gave.
//
// A read that ends the input (io.EOF) or fails keeps the bytes it brought in
// Data and returns nil. After the end, EOF reports true, the caller takes the
// rest of Data as the last records, and Fill returns io.EOF once Data is
// empty; after a failure, Fill returns the source's error instead of reading.
func (b *Buffer) Fill() error {
	if b.eof && b.start == b.end {
		return io.EOF
	}
	if b.err != nil {
		return b.err
	}
	if b.start > 0 {
		copy(b.buf, b.buf[b.start:b.end])
		b.end -= b.start
		b.start = 0
	}
	if b.end == len(b.buf) {
		size := 2 * len(b.buf)
		if b.max > 0 && size > b.max {
			if len(b.buf) >= b.max {
				return ErrFull
			}
			size = b.max
		}
		nb := make([]byte, size)
		copy(nb, b.buf[:b.end])
		b.buf = nb
	}
	for tries := 0; ; tries++ {
		n, err := b.src.Read(b.buf[b.end:])
		if n < 0 || n > len(b.buf)-b.end {
			return errors.New(b.name + ": reader returned an invalid count")
		}
		b.end += n
		b.bytesRead += int64(n)
		if err == io.EOF {
			b.eof = true
			return nil
		}
		if err != nil {
			b.err = err
			return nil
		}
		if n > 0 {
			return nil
		}
		if tries >= maxEmptyReads {
			return io.ErrNoProgress
		}
	}
}
