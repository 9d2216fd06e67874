package csvdec

import (
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/inbuf"
	"streamql/executor/vector"
)

// endless is head, then n bytes of fill (n < 0: forever), then tail.
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
	if e.n != 0 {
		k := len(p)
		if e.n > 0 && int64(k) > e.n {
			k = int(e.n)
		}
		for i := range p[:k] {
			p[i] = e.fill
		}
		if e.n > 0 {
			e.n -= int64(k)
		}
		return k, nil
	}
	if len(e.tail) == 0 {
		return 0, io.EOF
	}
	k := copy(p, e.tail)
	e.tail = e.tail[k:]
	return k, nil
}

// TestMaxRecordBoundedMemory reads 48 MiB records (unquoted, and quoted over
// many lines) with a 1 MiB 'max-record-size': each is one malformed row whose
// raw is its first 64 KiB, the rows after it are read with the right line
// numbers, and the decoder allocates a small multiple of the limit, not of the
// record (SPEC 1).
func TestMaxRecordBoundedMemory(t *testing.T) {
	const size = 48 << 20
	for _, tc := range []struct {
		name     string
		src      *endless
		rawStart string
		line     int64 // of the row after the long record
	}{
		{"unquoted", &endless{head: []byte("a,1\n"), fill: 'x', n: size, tail: []byte(",2\nb,3\n")}, "xxxx", 3},
		{"quoted lines", &endless{head: []byte("a,1\n\""), fill: '\n', n: size, tail: []byte("\",2\nb,3\n")}, "\"\n\n\n", 3 + size},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res, err := decodeAll(t, tc.src, []catalog.Type{V, I}, Options{MaxRecord: 1 << 20})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("allocated %d MiB for a %d MiB record with a 1 MiB limit", alloc>>20, size>>20)
			}
			want := []string{"1:a|1", strconv.FormatInt(tc.line, 10) + ":b|3"}
			if !equalStrings(res.rows, want) {
				t.Errorf("rows %q, want %q", res.rows, want)
			}
			if len(res.bad) != 1 {
				t.Fatalf("bad rows: %d", len(res.bad))
			}
			bad := res.bad[0]
			if bad.Line != 2 || len(bad.Raw) != inbuf.RawPrefix || !strings.HasPrefix(string(bad.Raw), tc.rawStart) ||
				!strings.Contains(bad.Reason, "'max-record-size' (1MiB") {
				t.Errorf("bad row: line %d, raw of %d bytes %q..., reason %q", bad.Line, len(bad.Raw), bad.Raw[:min(8, len(bad.Raw))], bad.Reason)
			}
		})
	}
}

// TestRest checks what a decoder hands back for a later reader of the same
// input (stdin, SPEC 1): byte for byte, after the rows used.
func TestRest(t *testing.T) {
	in := "\xEF\xBB\xBFa,1\nbad\n\nb,2\nc,3\nd,"
	d := NewDecoder(strings.NewReader(in), []string{"s", "n"}, []catalog.Type{V, I}, Options{})
	b := vector.NewBatch([]catalog.Type{V, I})
	var bad []BadRow
	for b.N == 0 {
		if err := d.Decode(b, &bad); err != nil {
			t.Fatal(err)
		}
	}
	if b.N != 3 || len(bad) != 1 {
		t.Fatalf("%d rows, %d bad", b.N, len(bad))
	}
	for rows, want := range map[int]string{
		-1: "d,",
		0:  in,
		1:  "bad\n\nb,2\nc,3\nd,",
		2:  "c,3\nd,",
		3:  "d,",
	} {
		if got := string(d.Rest(rows)); got != want {
			t.Errorf("Rest(%d) = %q, want %q", rows, got, want)
		}
	}
}
