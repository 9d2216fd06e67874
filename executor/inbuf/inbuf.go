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
)

// maxEmptyReads is how many times in a row Fill lets the source return no bytes
// and no error before it gives up with io.ErrNoProgress.
const maxEmptyReads = 100

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
}

// Init makes b read src into a buffer of size bytes (at least 1), which grows
// when one record fills it. name prefixes the error Fill returns for a source
// that breaks the io.Reader contract.
func (b *Buffer) Init(src io.Reader, size int, name string) {
	*b = Buffer{src: src, name: name, buf: make([]byte, max(size, 1))}
}

// Data returns the bytes read and not consumed yet. They belong to b: see the
// package doc for how long they stay valid.
func (b *Buffer) Data() []byte { return b.buf[b.start:b.end] }

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
// Data fills it) and reads the source once, again while the source returns
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
		nb := make([]byte, 2*len(b.buf))
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
