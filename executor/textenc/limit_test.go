package textenc_test

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/textenc"
)

// repeatReader gives head, then n copies of unit, then tail.
type repeatReader struct {
	head, unit, tail []byte
	n                int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if len(r.head) > 0 {
		k := copy(p, r.head)
		r.head = r.head[k:]
		return k, nil
	}
	if r.n > 0 {
		k := 0
		for r.n > 0 && len(p)-k >= len(r.unit) {
			k += copy(p[k:], r.unit)
			r.n--
		}
		return k, nil
	}
	if len(r.tail) == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.tail)
	r.tail = r.tail[k:]
	return k, nil
}

// TestMaxLine reads a 32 MiB line in gbk and in utf-16le (whose characters
// are cut by the Reader's parts) with a 1 MiB 'max-record-size': the Reader
// passes it on in parts instead of buffering it whole, the decoder reports it
// too long, and the rows after it are read (SPEC 1).
func TestMaxLine(t *testing.T) {
	for _, tc := range []struct{ enc, char string }{{"gbk", "设"}, {"utf-16le", "设"}, {"utf-16le", "\U0001F600"}} {
		e := lookup(t, tc.enc)
		unit := encode(t, e, tc.char)
		src := &repeatReader{head: encode(t, e, "a,1\n"), unit: unit, n: (32 << 20) / len(unit), tail: encode(t, e, ",2\nb,3\n")}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		tr := textenc.NewReader(src, e)
		tr.SetMaxLine(1 << 20)
		d := csvdec.NewDecoder(tr, nil, []catalog.Type{catalog.Varchar, catalog.BigInt}, csvdec.Options{Lines: tr, MaxRecord: 1 << 20})
		got := collect(t, d.Decode, 2, []catalog.Type{catalog.Varchar, catalog.BigInt})
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("%s: allocated %d MiB for a 32 MiB line with a 1 MiB limit", tc.enc, alloc>>20)
		}
		if len(got) != 3 || got[0] != "1:a|1" || got[2] != "3:b|3" ||
			!strings.HasPrefix(got[1], "bad 2:") || !strings.Contains(got[1], "'max-record-size' (1MiB") {
			t.Fatalf("%s %q: %d rows: %.200q", tc.enc, tc.char, len(got), got)
		}
		// raw is the decoded text's first 64 KiB: whole characters, no U+FFFD
		rawHex := strings.TrimPrefix(got[1][:strings.LastIndex(got[1], ":record")], "bad 2:")
		if bytes.Contains([]byte(rawHex), []byte("efbfbd")) {
			t.Errorf("%s %q: raw holds U+FFFD", tc.enc, tc.char)
		}
	}
}
