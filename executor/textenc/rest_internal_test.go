package textenc

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestForgetBounded: with KeepRest, the kept source bytes stay about what the
// reader of the text has not used (Forget), however long the input, and the
// text read matches the input.
func TestForgetBounded(t *testing.T) {
	e, _ := Lookup("utf-16le")
	src, _ := e.Encode([]byte(strings.Repeat("a line of text,1\n", 20000)))
	r := NewReader(iotest.HalfReader(bytes.NewReader(src)), e)
	r.KeepRest()
	var text []byte
	buf := make([]byte, 1000)
	most := 0
	for {
		r.Forget(int64(len(text))) // everything read is used
		n, err := r.Read(buf)
		text = append(text, buf[:n]...)
		most = max(most, len(r.hist))
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if string(text) != strings.Repeat("a line of text,1\n", 20000) {
		t.Fatal("text differs from the input")
	}
	if most > 4*initialBufSize {
		t.Errorf("kept %d source bytes at most; want about the %d of one read", most, initialBufSize)
	}
	if rest := r.Rest(nil); len(rest) != 0 {
		t.Errorf("Rest after all was used: %d bytes", len(rest))
	}
}
