// Package textenc owns SPEC 1's 'encoding' option: it turns input in a declared
// text encoding (gbk, gb18030, latin1, windows-1252, utf-16le, utf-16be) into the
// UTF-8 that the format decoders (executor/csvdec, executor/jsondec) read, without
// ever altering a row silently.
//
// # Design
//
// A Reader sits between the source and a decoder. It transcodes whole lines, split
// on the SOURCE encoding's line end (the byte 0x0A, or the 2-byte unit 0x000A in
// UTF-16, aligned on 2-byte units from the start of the input), and writes each
// line to its output followed by one LF. A lone CR is data and a CRLF's CR stays
// at the end of the line's text, so the output has exactly the source's lines and
// the decoders' line numbers (counted on LFs in their input) stay right.
//
// golang.org/x/text decoders replace invalid input by U+FFFD without an error. The
// Reader transcodes all complete lines in its buffer at once and, only when the
// output holds a U+FFFD, goes over those lines one by one, decoding rune by rune:
// a U+FFFD whose source bytes are not the encoding's own encoding of U+FFFD marks
// the line invalid. An invalid line is still written to the output (with U+FFFD
// in place of the invalid bytes, so quotes and delimiters keep their meaning), and
// the Reader keeps a copy of its input bytes and a reason. A decoder asks Check,
// once per record, whether one of the record's lines was invalid; if so the record
// is malformed and its raw text is the input bytes.
//
// A CSV record may span lines inside quotes. Such a record is malformed when any of
// its lines is invalid; it is reported at its first line, and its raw text is its
// input bytes: the invalid lines' bytes as read, the valid lines' decoded text
// encoded back (which gives the input bytes back, except for the rare byte
// sequences an encoding decodes to the same character as another: gbk reads both
// 0x80 and 0xA2E3 as €, and writes € as 0x80), joined by the encoding's LF.
//
// Memory stays bounded (SetMaxLine, from 'max-record-size'): a line of more
// source bytes than can decode to a record of that size is transcoded in parts
// as it arrives, so the decoder sees it and skips it as too long.
//
// A byte order mark at the start of the input (FF FE for utf-16le, FE FF for
// utf-16be, 84 31 95 33 for gb18030) is dropped; it is never part of a row.
// Latin-1 has no invalid bytes; windows-1252 has five (0x81, 0x8D, 0x8F, 0x90,
// 0x9D).
package textenc

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"streamql/executor/inbuf"
)

// Encoding is a text encoding the 'encoding' option names.
type Encoding struct {
	// Name is the canonical name: utf-8, gbk, gb18030, latin1, windows-1252,
	// utf-16le or utf-16be.
	Name string
	enc  encoding.Encoding // nil for UTF-8
	// unit is 2 for UTF-16 (line ends are 2-byte units), else 1.
	unit      int
	bigEndian bool
	lf        []byte // LF in this encoding
	bom       []byte // byte order mark dropped at the start of the input, or nil
	fffd      []byte // U+FFFD in this encoding, or nil when it has none
}

// IsUTF8 reports whether e is UTF-8, which the decoders read directly (they check
// UTF-8 validity themselves).
func (e *Encoding) IsUTF8() bool { return e.enc == nil }

func (e *Encoding) String() string { return e.Name }

// LF returns the line end (U+000A) in e: one byte, or two for UTF-16. The
// caller must not change it.
func (e *Encoding) LF() []byte {
	if len(e.lf) == 0 {
		return lfUTF8
	}
	return e.lf
}

// Encode returns UTF-8 text encoded in e (for tests and tools).
func (e *Encoding) Encode(text []byte) ([]byte, error) {
	if e.enc == nil {
		return bytes.Clone(text), nil
	}
	return e.enc.NewEncoder().Bytes(text)
}

var (
	utf8Enc    = &Encoding{Name: "utf-8"}
	gbkEnc     = newEncoding("gbk", simplifiedchinese.GBK, 1, false, nil)
	gb18030Enc = newEncoding("gb18030", simplifiedchinese.GB18030, 1, false, []byte{0x84, 0x31, 0x95, 0x33})
	latin1Enc  = newEncoding("latin1", charmap.ISO8859_1, 1, false, nil)
	cp1252Enc  = newEncoding("windows-1252", charmap.Windows1252, 1, false, nil)
	utf16leEnc = newEncoding("utf-16le", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), 2, false, []byte{0xFF, 0xFE})
	utf16beEnc = newEncoding("utf-16be", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), 2, true, []byte{0xFE, 0xFF})
)

func newEncoding(name string, enc encoding.Encoding, unit int, bigEndian bool, bom []byte) *Encoding {
	e := &Encoding{Name: name, enc: enc, unit: unit, bigEndian: bigEndian, bom: bom}
	e.lf, _ = enc.NewEncoder().Bytes([]byte{'\n'})
	if b, err := enc.NewEncoder().Bytes([]byte("\uFFFD")); err == nil && !bytes.Equal(b, []byte{0x1A}) {
		e.fffd = b
	}
	return e
}

// names maps a normalised name (lower case, without '-', '_', ' ' and '.') to its
// encoding.
var names = map[string]*Encoding{
	"utf8": utf8Enc, "unicode11utf8": utf8Enc,

	"gbk": gbkEnc, "cp936": gbkEnc, "ms936": gbkEnc, "windows936": gbkEnc,
	"gb2312": gbkEnc, "csgb2312": gbkEnc, "euccn": gbkEnc, "xgbk": gbkEnc,

	"gb18030": gb18030Enc,

	"latin1": latin1Enc, "l1": latin1Enc, "iso88591": latin1Enc, "iso885911987": latin1Enc,
	"isoir100": latin1Enc, "cp819": latin1Enc, "ibm819": latin1Enc, "csisolatin1": latin1Enc,

	"windows1252": cp1252Enc, "cp1252": cp1252Enc, "xcp1252": cp1252Enc,

	"utf16le": utf16leEnc, "utf16be": utf16beEnc,
}

// Names lists the canonical encoding names, for messages and docs.
func Names() []string {
	return []string{"utf-8", "gbk", "gb18030", "latin1", "windows-1252", "utf-16le", "utf-16be"}
}

// Lookup returns the encoding named name, case-insensitively and ignoring '-', '_',
// '.' and spaces, with common aliases (utf8; cp936, gb2312 for gbk; iso-8859-1,
// l1 for latin1; cp1252). An empty name is UTF-8.
func Lookup(name string) (*Encoding, error) {
	key := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', ' ', '.':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, name)
	if key == "" {
		return utf8Enc, nil
	}
	if e := names[key]; e != nil {
		return e, nil
	}
	return nil, fmt.Errorf("unknown encoding '%s'; use one of: %s", name, strings.Join(Names(), ", "))
}

const initialBufSize = 64 << 10

// bufSize is the size of a new Reader's source buffer; tests make it tiny.
var bufSize = initialBufSize

// badLine is an input line with bytes invalid in the encoding.
type badLine struct {
	line   int64  // 1-based line number
	raw    []byte // the line's input bytes without its LF (a CRLF's CR kept)
	reason string
}

// Reader transcodes its source to UTF-8 line by line and remembers the lines that
// hold invalid bytes (see the package doc). It is not safe for concurrent use.
//
// Read never reads from the source while it holds transcoded text, so a decoder on
// a live source sees each complete line as soon as it arrives. It blocks (reading
// the source again) until a whole line, the end of the input or an error arrives.
type Reader struct {
	e    *Encoding
	dec  transform.Transformer
	encd *encoding.Encoder // built on first use, for Check's multi-line raw text

	in      inbuf.Buffer // in.Data() is source text not transcoded yet
	scanned int          // in.Data()[:scanned] holds no complete line (a multiple of e.unit)

	out    []byte // out[outPos:] is transcoded text not returned yet
	outPos int

	line int64 // line number of the next line to transcode

	// maxLine (source bytes; 0 = no limit): a line at least this long is
	// transcoded in parts as it arrives (part is set meanwhile), so the
	// decoder sees it and skips it as too long (SetMaxLine).
	maxLine int
	part    bool

	bad     []badLine // invalid lines not yet passed by Check, in line order
	badHead int

	// Hand-back (KeepRest): a copy of the source bytes transcoded since the
	// start of the oldest chunk the decoder may still give back, hist[0] being
	// the source byte at offset marks[0].src; marks are the chunks' starts.
	keep    bool
	hist    []byte
	marks   []mark
	textOut int64 // UTF-8 bytes transcoded so far
}

// mark is where one transcoded chunk starts: its offset in the output text
// and in the source (bytes, from the start of the input).
type mark struct{ text, src int64 }

// NewReader returns a Reader of src, in encoding e (which must not be UTF-8).
func NewReader(src io.Reader, e *Encoding) *Reader {
	if e.IsUTF8() {
		panic("textenc: NewReader with utf-8")
	}
	r := &Reader{
		e:    e,
		dec:  e.enc.NewDecoder(),
		line: 1,
	}
	r.in.Init(src, bufSize, "textenc")
	return r
}

// SetMaxLine bounds the Reader's memory for the decoder's 'max-record-size'
// of maxRecord bytes (SPEC 1): a line of more source bytes than can decode to a
// record that long is passed on in parts as it arrives, instead of being
// buffered whole, and the decoder reports it as too long.
func (r *Reader) SetMaxLine(maxRecord int) {
	r.maxLine = r.e.unit * (maxRecord + 2) // a source unit decodes to at least one byte
	r.in.SetMax(r.maxLine)
}

// KeepRest makes the Reader keep the source bytes of the text it has passed
// on and the decoder may not have used, so that Rest can give them back byte
// for byte (the session's stdin, read on by a later job: SPEC 1). It costs a
// copy of the input, in a buffer that Forget keeps to what the decoder holds.
func (r *Reader) KeepRest() { r.keep = true }

// Keeps reports whether KeepRest was called.
func (r *Reader) Keeps() bool { return r.keep }

// NoBOM tells the Reader that its input does not start at the start of the
// stream (a later job reading stdin on): a byte order mark is only at the
// very start of the input, so leading bytes that look like one are data.
func (r *Reader) NoBOM() { r.in.SkipBOM(nil) }

// Forget drops the kept source bytes (KeepRest) of the output text before
// offset text (bytes of UTF-8 from the start of the output), which the decoder
// has used for good. The decoder calls it when it starts a batch.
func (r *Reader) Forget(text int64) {
	if !r.keep || len(r.marks) < 2 {
		return
	}
	k := 0
	for k+1 < len(r.marks) && r.marks[k+1].text <= text {
		k++
	}
	cut := int(r.marks[k].src - r.marks[0].src)
	if k == 0 || 2*cut < len(r.hist) && 2*k < len(r.marks) {
		return // move only once half of the buffer can go: amortised O(1) a byte
	}
	r.hist = r.hist[:copy(r.hist, r.hist[cut:])]
	r.marks = r.marks[:copy(r.marks, r.marks[k:])]
}

// Rest returns the source bytes of the output text unused (the decoder's
// unused text: the suffix of what it read from r, starting at a line start)
// followed by what r read and did not transcode yet, byte for byte as the
// source gave them (KeepRest must have been called). Lines map one to one
// between source and output (the package doc), so the unused text's line
// ends find where its source bytes start. All of the text unused gives back
// the byte order mark dropped before it too. The result is a new slice.
func (r *Reader) Rest(unused []byte) []byte {
	pending := r.out[r.outPos:]
	k := bytes.Count(unused, lfUTF8) + bytes.Count(pending, lfUTF8)
	hist := r.hist
	if len(unused)+len(pending) == 0 {
		hist = hist[len(hist):]
	} else {
		// The text unused is the last k lines, plus an unfinished one, of what
		// was transcoded: skip the source lines before them.
		skip := r.e.count(hist) - k
		for ; skip > 0; skip-- {
			i := r.e.index(hist)
			hist = hist[i+len(r.e.lf):]
		}
	}
	rest := make([]byte, 0, len(hist)+len(r.in.Data()))
	return append(append(rest, hist...), r.in.Data()...)
}

// count returns the number of LFs of encoding e in b (b starting on a
// character boundary).
func (e *Encoding) count(b []byte) int {
	if e.unit == 1 {
		return bytes.Count(b, lfUTF8)
	}
	n := 0
	for {
		i := e.index(b)
		if i < 0 {
			return n
		}
		n++
		b = b[i+2:]
	}
}

// kept records the chunk src (source bytes about to be consumed, at the start
// of r.in.Data()) that transcodes to the text appended after offset r.textOut.
func (r *Reader) kept(src []byte) {
	if !r.keep {
		return
	}
	off := r.in.BytesRead() - int64(len(r.in.Data()))
	if len(r.marks) > 0 && r.marks[0].src+int64(len(r.hist)) != off {
		r.hist, r.marks = r.hist[:0], r.marks[:0] // (unreachable: chunks are contiguous)
	}
	if len(r.marks) == 0 && r.textOut == 0 && off > 0 && int(off) <= len(r.e.bom) {
		// The first chunk after a dropped BOM: keep the BOM with it, so that
		// giving back all of the text gives back the input from its start.
		r.hist, off = append(r.hist, r.e.bom[:off]...), 0
	}
	r.marks = append(r.marks, mark{text: r.textOut, src: off})
	r.hist = append(r.hist, src...)
}

// BytesRead returns the number of source bytes read so far.
func (r *Reader) BytesRead() int64 { return r.in.BytesRead() }

// Read writes transcoded UTF-8 text to p. It returns io.EOF at the end of the
// input, and the source's read error once the text read before it is returned.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if r.outPos < len(r.out) {
			n := copy(p, r.out[r.outPos:])
			r.outPos += n
			return n, nil
		}
		if r.transcode() {
			continue
		}
		// All transcoded text is returned: read the source (transcode consumes
		// all of the input once it has ended, so this returns io.EOF then).
		if err := r.in.Fill(); err != nil {
			return 0, err
		}
	}
}

// transcode turns the complete lines in the buffer (all of it at the end of the
// input) into r.out. It reports whether it consumed input.
func (r *Reader) transcode() bool {
	if !r.in.SkipBOM(r.e.bom) {
		return false // cannot tell yet
	}
	data := r.in.Data()
	final := r.in.EOF()
	if len(data) == 0 {
		return false
	}
	n := len(data)
	if !final {
		n = r.lastLineEnd()
		if n == 0 {
			if r.part || r.maxLine > 0 && len(data) >= r.maxLine {
				return r.transcodePart(data)
			}
			return false
		}
	}
	r.part = false
	chunk := data[:n]
	r.kept(chunk)
	r.in.Consume(n)
	r.scanned = 0
	r.out = r.decode(r.out[:0], chunk)
	r.outPos = 0
	if bytes.Contains(r.out, fffdUTF8) {
		// Some bytes may be invalid: go over the lines one by one.
		r.out = r.out[:0]
		for len(chunk) > 0 {
			k := r.e.index(chunk)
			text, next := chunk, chunk[len(chunk):]
			if k >= 0 {
				text, next = chunk[:k], chunk[k+len(r.e.lf):]
			}
			start := len(r.out)
			r.out = r.decode(r.out, text)
			if bytes.Contains(r.out[start:], fffdUTF8) {
				if off, seq, bad := r.firstInvalid(text); bad {
					r.bad = append(r.bad, badLine{
						line:   r.line,
						raw:    bytes.Clone(text),
						reason: fmt.Sprintf("invalid %s input at byte %d: % x", r.e.Name, off+1, seq),
					})
				}
			}
			if k >= 0 {
				r.out = append(r.out, '\n')
				r.line++
			}
			chunk = next
		}
	} else {
		r.line += int64(bytes.Count(r.out, lfUTF8))
	}
	r.textOut += int64(len(r.out))
	return true
}

// partSize is the most source bytes transcodePart turns into text at once.
const partSize = 256 << 10

// transcodePart transcodes the start of a line longer than maxLine (data holds
// no line end) into r.out, at most partSize bytes, keeping a character cut at
// the end for the next call. A part with invalid bytes marks the line invalid
// once, with its first inbuf.RawPrefix bytes as raw. It reports whether it
// consumed input.
func (r *Reader) transcodePart(data []byte) bool {
	src := data[:min(len(data), partSize)&^(r.e.unit-1)]
	r.part = true
	r.dec.Reset()
	out := r.out[:0]
	n := 0
	for {
		if need := len(out) + 3*(len(src)-n) + utf8.UTFMax; cap(out) < need {
			out = growTo(out, need)
		}
		nDst, nSrc, err := r.dec.Transform(out[len(out):cap(out)], src[n:], false)
		out = out[:len(out)+nDst]
		n += nSrc
		if err != transform.ErrShortDst || nSrc == 0 && nDst == 0 {
			break
		}
	}
	if n == 0 {
		return false
	}
	if bytes.Contains(out, fffdUTF8) && (len(r.bad) == 0 || r.bad[len(r.bad)-1].line != r.line) {
		if off, seq, bad := r.firstInvalid(src[:n]); bad {
			r.bad = append(r.bad, badLine{
				line:   r.line,
				raw:    bytes.Clone(src[:min(n, inbuf.RawPrefix)]),
				reason: fmt.Sprintf("invalid %s input at byte %d: % x", r.e.Name, off+1, seq),
			})
		}
	}
	r.kept(src[:n])
	r.textOut += int64(len(out))
	r.in.Consume(n)
	r.scanned = 0
	r.out, r.outPos = out, 0
	return true
}

var (
	fffdUTF8 = []byte("\uFFFD")
	lfUTF8   = []byte{'\n'}
)

// lastLineEnd returns the length of the complete lines at the start of
// r.in.Data() (0 for none), scanning only what was not scanned before.
func (r *Reader) lastLineEnd() int {
	data := r.in.Data()
	from := r.scanned
	last := -1
	if r.e.unit == 1 {
		if k := bytes.LastIndexByte(data[from:], '\n'); k >= 0 {
			last = from + k + 1
		}
	} else {
		for i := from; ; {
			k := r.e.index(data[i:])
			if k < 0 {
				break
			}
			i += k + 2
			last = i
		}
	}
	if last < 0 {
		// No line end yet: next time scan only what arrives (whole units).
		r.scanned = len(data) &^ (r.e.unit - 1)
		return 0
	}
	return last
}

// index returns the offset of the first LF of encoding e in b (b starting on a
// character boundary; for UTF-16 on a 2-byte unit), or -1.
func (e *Encoding) index(b []byte) int {
	if e.unit == 1 {
		return bytes.IndexByte(b, '\n')
	}
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '\n')
		if k < 0 {
			return -1
		}
		k += i
		if e.bigEndian {
			if k%2 == 1 && b[k-1] == 0 {
				return k - 1
			}
		} else if k%2 == 0 && k+1 < len(b) && b[k+1] == 0 {
			return k
		}
		i = k + 1
	}
}

// decode appends src decoded (invalid bytes as U+FFFD) to dst.
func (r *Reader) decode(dst, src []byte) []byte {
	r.dec.Reset()
	for {
		if cap(dst)-len(dst) < 3*len(src)+utf8.UTFMax {
			dst = growTo(dst, len(dst)+3*len(src)+utf8.UTFMax)
		}
		nDst, nSrc, err := r.dec.Transform(dst[len(dst):cap(dst)], src, true)
		dst = dst[:len(dst)+nDst]
		src = src[nSrc:]
		if err == nil || len(src) == 0 {
			return dst
		}
		if err != transform.ErrShortDst {
			// Unreachable for these decoders; keep the bytes visible as invalid.
			dst = append(dst, fffdUTF8...)
			src = src[1:]
		}
	}
}

func growTo(b []byte, n int) []byte {
	nb := make([]byte, len(b), max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}

// firstInvalid decodes line rune by rune and returns the offset and bytes of the
// first sequence that decodes to U+FFFD without being the encoding of U+FFFD.
func (r *Reader) firstInvalid(line []byte) (off int, seq []byte, bad bool) {
	var dst [utf8.UTFMax]byte
	for i := 0; i < len(line); {
		nDst, nSrc := 0, 0
		// The smallest dst that takes a rune holds exactly that rune.
		for k := 1; k <= utf8.UTFMax && nDst == 0; k++ {
			r.dec.Reset()
			nDst, nSrc, _ = r.dec.Transform(dst[:k], line[i:], true)
		}
		if nSrc == 0 {
			return i, line[i : i+1], true // no progress: treat the byte as invalid
		}
		if nDst > 0 {
			if c, _ := utf8.DecodeRune(dst[:nDst]); c == utf8.RuneError && !bytes.Equal(line[i:i+nSrc], r.e.fffd) {
				return i, line[i : i+nSrc], true
			}
		}
		i += nSrc
	}
	return 0, nil, false
}

// Check reports whether one of the input lines first..last (a record read from
// this Reader's output; text is its decoded text without its final line end) held
// bytes invalid in the encoding. If so it returns the record's input bytes (see
// the package doc; they stay valid) and the reason, naming the line when the
// record spans lines. Records must be checked in input order: lines before first
// are forgotten.
func (r *Reader) Check(first, last int64, text []byte) (raw []byte, reason string, bad bool) {
	for r.badHead < len(r.bad) && r.bad[r.badHead].line < first {
		r.bad[r.badHead] = badLine{}
		r.badHead++
	}
	if r.badHead == len(r.bad) {
		r.bad, r.badHead = r.bad[:0], 0
		return nil, "", false
	}
	if r.badHead >= 64 && 2*r.badHead >= len(r.bad) { // every line bad: keep the queue small
		n := copy(r.bad, r.bad[r.badHead:])
		clear(r.bad[n:])
		r.bad, r.badHead = r.bad[:n], 0
	}
	b := &r.bad[r.badHead]
	if b.line > last {
		return nil, "", false
	}
	if first == last {
		return b.raw, b.reason, true
	}
	reason = "line " + strconv.FormatInt(b.line, 10) + ": " + b.reason
	if r.encd == nil {
		r.encd = r.e.enc.NewEncoder()
	}
	k := r.badHead
	for ln := first; ; ln++ {
		i := bytes.IndexByte(text, '\n')
		part := text
		if i >= 0 {
			part = text[:i]
		}
		if k < len(r.bad) && r.bad[k].line == ln {
			raw = append(raw, r.bad[k].raw...)
			k++
		} else {
			r.encd.Reset()
			enc, err := r.encd.Bytes(part)
			if err != nil { // unreachable: the line was decoded from this encoding
				enc = part
			}
			raw = append(raw, enc...)
		}
		if i < 0 {
			break
		}
		raw = append(raw, r.e.lf...)
		text = text[i+1:]
	}
	return raw, reason, true
}
