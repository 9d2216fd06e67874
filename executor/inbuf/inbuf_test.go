package inbuf

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// script is a reader returning one scripted result per Read.
type script struct {
	steps []step
	reads int
}

type step struct {
	data string
	n    int // when not 0, the count returned instead of len(data)
	err  error
}

func (s *script) Read(p []byte) (int, error) {
	s.reads++
	if len(s.steps) == 0 {
		return 0, io.EOF
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	n := copy(p, st.data)
	if st.n != 0 {
		n = st.n
	}
	return n, st.err
}

func newBuffer(src io.Reader, size int) *Buffer {
	b := new(Buffer)
	b.Init(src, size, "test")
	return b
}

// TestFillReadsOnce checks that Fill reads the source once per call and
// appends to the unconsumed data.
func TestFillReadsOnce(t *testing.T) {
	src := &script{steps: []step{{data: "ab"}, {data: "cd"}}}
	b := newBuffer(src, 16)
	if got := string(b.Data()); got != "" {
		t.Fatalf("data before Fill: %q", got)
	}
	if err := b.Fill(); err != nil || string(b.Data()) != "ab" || src.reads != 1 {
		t.Fatalf("first Fill: %v, data %q, %d reads", err, b.Data(), src.reads)
	}
	if err := b.Fill(); err != nil || string(b.Data()) != "abcd" || src.reads != 2 {
		t.Fatalf("second Fill: %v, data %q, %d reads", err, b.Data(), src.reads)
	}
	if b.BytesRead() != 4 || b.EOF() {
		t.Fatalf("BytesRead %d, EOF %v", b.BytesRead(), b.EOF())
	}
}

// TestConsumeKeepsBytes checks the ownership rule: Consume moves neither the
// bytes nor the positions; Fill moves the unconsumed bytes to the front.
func TestConsumeKeepsBytes(t *testing.T) {
	b := newBuffer(strings.NewReader("hello world"), 8)
	if err := b.Fill(); err != nil {
		t.Fatal(err)
	}
	held := b.Data()[:5] // "hello", as a decoder hands it out
	b.Consume(6)
	if string(held) != "hello" || b.Start() != 6 || string(b.Data()) != "wo" {
		t.Fatalf("after Consume: held %q, Start %d, data %q", held, b.Start(), b.Data())
	}
	if err := b.Fill(); err != nil {
		t.Fatal(err)
	}
	if b.Start() != 0 || string(b.Data()) != "world" {
		t.Fatalf("after Fill: Start %d, data %q", b.Start(), b.Data())
	}
}

// TestGrow checks that a buffer that one record fills doubles, keeping the
// data, and that it never grows while it has room after compaction.
func TestGrow(t *testing.T) {
	in := "abcdefghij"
	b := newBuffer(iotest.OneByteReader(strings.NewReader(in)), 1)
	for i := 1; i <= len(in); i++ {
		if err := b.Fill(); err != nil {
			t.Fatal(err)
		}
		if string(b.Data()) != in[:i] {
			t.Fatalf("after %d reads: %q", i, b.Data())
		}
	}
	if c := len(b.buf); c != 16 {
		t.Fatalf("buffer size %d after 10 bytes from size 1, want 16", c)
	}
	b.Consume(len(in))
	// The next read returns (0, io.EOF).
	if err := b.Fill(); err != nil || !b.EOF() {
		t.Fatalf("Fill at the end: %v, EOF %v", err, b.EOF())
	}
	if err := b.Fill(); err != io.EOF {
		t.Fatalf("Fill after the end: %v", err)
	}
	if c := len(b.buf); c != 16 {
		t.Fatalf("buffer grew to %d with room to spare", c)
	}
}

// TestEOF checks the end-of-input bookkeeping: bytes that come with io.EOF
// are kept, Fill returns io.EOF only once they are consumed, and then for good.
func TestEOF(t *testing.T) {
	src := &script{steps: []step{{data: "x", err: io.EOF}}}
	b := newBuffer(src, 4)
	if err := b.Fill(); err != nil || !b.EOF() || string(b.Data()) != "x" {
		t.Fatalf("Fill: %v, EOF %v, data %q", err, b.EOF(), b.Data())
	}
	b.Consume(1)
	for range 2 {
		if err := b.Fill(); err != io.EOF {
			t.Fatalf("Fill at the end: %v", err)
		}
	}
	if src.reads != 1 {
		t.Fatalf("%d reads after the end", src.reads-1)
	}
}

// TestReadError checks that a read error is returned by the Fill after it,
// the bytes read with it in Data first, and that the source is not read again.
func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	src := &script{steps: []step{{data: "ab", err: boom}, {data: "never"}}}
	b := newBuffer(src, 4)
	if err := b.Fill(); err != nil || string(b.Data()) != "ab" || b.EOF() {
		t.Fatalf("Fill: %v, data %q, EOF %v", err, b.Data(), b.EOF())
	}
	for range 2 {
		if err := b.Fill(); err != boom {
			t.Fatalf("Fill after the error: %v", err)
		}
	}
	if src.reads != 1 || b.BytesRead() != 2 {
		t.Fatalf("%d reads, %d bytes", src.reads, b.BytesRead())
	}
}

// TestEmptyReads checks the guard against a source that returns nothing: a
// few empty reads are retried, more than maxEmptyReads give io.ErrNoProgress.
func TestEmptyReads(t *testing.T) {
	steps := make([]step, maxEmptyReads)
	src := &script{steps: append(steps, step{data: "a"})}
	b := newBuffer(src, 4)
	if err := b.Fill(); err != nil || string(b.Data()) != "a" {
		t.Fatalf("after %d empty reads: %v, data %q", maxEmptyReads, err, b.Data())
	}
	src = &script{steps: append(make([]step, maxEmptyReads+1), step{data: "a"})}
	b = newBuffer(src, 4)
	if err := b.Fill(); err != io.ErrNoProgress {
		t.Fatalf("after %d empty reads: %v", maxEmptyReads+1, err)
	}
}

// TestInvalidCount checks that a count outside 0..len(p) is an error naming
// the buffer's owner, and that nothing is taken from such a read.
func TestInvalidCount(t *testing.T) {
	for _, n := range []int{-1, 5} {
		b := newBuffer(&script{steps: []step{{data: "ab", n: n}}}, 4)
		err := b.Fill()
		if err == nil || err.Error() != "test: reader returned an invalid count" {
			t.Errorf("count %d: %v", n, err)
		}
		if len(b.Data()) != 0 || b.BytesRead() != 0 {
			t.Errorf("count %d: data %q, %d bytes read", n, b.Data(), b.BytesRead())
		}
	}
}

// TestSkipBOM checks the byte order mark: skipped once at the start, waited
// for while the input is a proper prefix of it, kept elsewhere.
func TestSkipBOM(t *testing.T) {
	bom := string(UTF8BOM)
	for _, c := range []struct {
		in, want string
	}{
		{"", ""},
		{bom, ""},
		{bom + "a", "a"},
		{bom + bom + "a", bom + "a"}, // only one
		{bom[:2], bom[:2]},           // a prefix at the end of the input is data
		{bom[:2] + "a", bom[:2] + "a"},
		{"a" + bom, "a" + bom},
	} {
		b := newBuffer(iotest.OneByteReader(strings.NewReader(c.in)), 1)
		for !b.SkipBOM(UTF8BOM) {
			if err := b.Fill(); err != nil {
				t.Fatalf("%q: %v", c.in, err)
			}
		}
		for {
			err := b.Fill()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", c.in, err)
			}
			if !b.SkipBOM(UTF8BOM) {
				t.Fatalf("%q: SkipBOM not settled after it settled", c.in)
			}
			if b.EOF() {
				if got := string(b.Data()); got != c.want {
					t.Errorf("%q: data %q, want %q", c.in, got, c.want)
				}
				b.Consume(len(b.Data()))
			}
		}
		if b.BytesRead() != int64(len(c.in)) {
			t.Errorf("%q: BytesRead %d", c.in, b.BytesRead())
		}
	}
	// No byte order mark: nothing is skipped and nothing waited for.
	b := newBuffer(strings.NewReader(bom), 4)
	if !b.SkipBOM(nil) {
		t.Fatal("SkipBOM(nil) not settled")
	}
	if err := b.Fill(); err != nil || !bytes.Equal(b.Data(), UTF8BOM) {
		t.Fatalf("SkipBOM(nil): %v, data %q", err, b.Data())
	}
}

// TestSetMax: the buffer grows up to its bound and no further; a full buffer
// at the bound is ErrFull, without reading.
func TestSetMax(t *testing.T) {
	src := &script{steps: []step{{data: "abcd"}, {data: "efgh"}, {data: "ijkl"}}}
	b := newBuffer(src, 4)
	b.SetMax(6)
	for range 2 {
		if err := b.Fill(); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(b.Data()); got != "abcdef" || cap(b.buf) != 6 {
		t.Fatalf("data %q, buffer of %d bytes", got, cap(b.buf))
	}
	reads := src.reads
	if err := b.Fill(); !errors.Is(err, ErrFull) || src.reads != reads {
		t.Fatalf("full buffer: %v after %d more reads", err, src.reads-reads)
	}
	b.Consume(6)
	if err := b.Fill(); err != nil || string(b.Data()) != "ijkl" { // (the script drops what does not fit a read)
		t.Fatalf("after consuming: %q %v", b.Data(), err)
	}
}

// TestSince: the bytes from a position Start gave, consumed or not, until the
// next Fill.
func TestSince(t *testing.T) {
	b := newBuffer(strings.NewReader("a,1\nb,2\n"), 64)
	if err := b.Fill(); err != nil {
		t.Fatal(err)
	}
	at := b.Start()
	b.Consume(4)
	if got := string(b.Since(at)); got != "a,1\nb,2\n" {
		t.Errorf("Since(start) = %q", got)
	}
	if got := string(b.Since(b.Start())); got != "b,2\n" {
		t.Errorf("Since(now) = %q", got)
	}
}

// TestTooLong: the reason names the option and the size in its unit, and
// AppendPrefix keeps the first RawPrefix bytes.
func TestTooLong(t *testing.T) {
	for n, want := range map[int]string{64 << 20: "(64MiB;", 512 << 10: "(512KiB;", 1 << 30: "(1GiB;", 1000: "(1000 bytes;", 1536: "(1536 bytes;"} {
		if got := TooLong(n); !strings.Contains(got, "'max-record-size' "+want) {
			t.Errorf("TooLong(%d) = %q", n, got)
		}
	}
	raw := AppendPrefix(nil, bytes.Repeat([]byte("x"), RawPrefix-1))
	raw = AppendPrefix(raw, []byte("yz"))
	raw = AppendPrefix(raw, []byte("w"))
	if len(raw) != RawPrefix || raw[len(raw)-1] != 'y' {
		t.Errorf("AppendPrefix kept %d bytes ending %q", len(raw), raw[len(raw)-1])
	}
}
