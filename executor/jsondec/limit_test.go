package jsondec

import (
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"streamql/catalog"
	"streamql/executor/inbuf"
	"streamql/executor/vector"
)

// endless is head, then n bytes of fill, then tail.
type endless struct {
	head, tail []byte
	fill       byte
	n          int64
}

func (e *endless) Read(p []byte) (int, error) {
	if len(e.head) > 0 {
		k := copy(p, e.head)
		e.head = e.head[k:]
		return k, nil
	}
	if e.n > 0 {
		k := int(min(int64(len(p)), e.n))
		for i := range p[:k] {
			p[i] = e.fill
		}
		e.n -= int64(k)
		return k, nil
	}
	if len(e.tail) == 0 {
		return 0, io.EOF
	}
	k := copy(p, e.tail)
	e.tail = e.tail[k:]
	return k, nil
}

// TestMaxRecord: a line longer than 'max-record-size' is one malformed row
// naming the option, whose raw is its first 64 KiB (or all of it when
// shorter), and reading goes on after it; a 48 MiB line with a 1 MiB limit
// costs a small multiple of the limit (SPEC 1).
func TestMaxRecord(t *testing.T) {
	in := `{"v":"a"}` + "\n" + `{"v":"0123456789"}` + "\r\n" + `{"v":"b"}` + "\n" + `{"v":"long at the end"}`
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
		res, err := decodeAll(t, r, []string{"v"}, []catalog.Type{V}, Options{MaxRecord: 12})
		if err != nil {
			t.Fatal(err)
		}
		reason := "record longer than 'max-record-size' (12 bytes; raw holds its first 64 KiB); raise the stream option 'max-record-size', or check the input for a missing line end"
		want := []string{"1:a", `bad 2:{"v":"0123456789"}:` + reason, "3:b", `bad 4:{"v":"long at the end"}:` + reason}
		if !equalStrings(res.all, want) {
			t.Errorf("got %q\nwant %q", res.all, want)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	src := &endless{head: []byte(`{"v":"a"}` + "\n" + `{"v":"`), fill: 'x', n: 48 << 20, tail: []byte(`"}` + "\n" + `{"v":"b"}` + "\n")}
	res, err := decodeAll(t, src, []string{"v"}, []catalog.Type{V}, Options{MaxRecord: 1 << 20})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("allocated %d MiB for a 48 MiB line with a 1 MiB limit", alloc>>20)
	}
	if len(res.all) != 3 || res.all[0] != "1:a" || res.all[2] != "3:b" || len(res.bad) != 1 ||
		len(res.bad[0].Raw) != inbuf.RawPrefix || !strings.HasPrefix(string(res.bad[0].Raw), `{"v":"xxx`) {
		t.Errorf("rows %d, bad %d", len(res.all), len(res.bad))
	}
}

// TestRest checks what a decoder hands back for a later reader of the same
// input (stdin, SPEC 1): byte for byte, after the rows used.
func TestRest(t *testing.T) {
	in := `{"v":"a"}` + "\nnot json\n\n" + `{"v":"b"}` + "\n" + `{"v":`
	d := NewDecoder(strings.NewReader(in), []string{"v"}, []catalog.Type{V}, Options{})
	b := vector.NewBatch([]catalog.Type{V})
	var bad []BadRow
	for b.N == 0 {
		if err := d.Decode(b, &bad); err != nil {
			t.Fatal(err)
		}
	}
	if b.N != 2 || len(bad) != 1 {
		t.Fatalf("%d rows, %d bad", b.N, len(bad))
	}
	for rows, want := range map[int]string{-1: `{"v":`, 0: in, 1: "not json\n\n" + `{"v":"b"}` + "\n" + `{"v":`, 2: `{"v":`} {
		if got := string(d.Rest(rows)); got != want {
			t.Errorf("Rest(%d) = %q, want %q", rows, got, want)
		}
	}
}
