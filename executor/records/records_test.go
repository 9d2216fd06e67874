package records_test

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"streamql/catalog"
	"streamql/executor/inbuf"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// lines is a toy format over one VARCHAR column: a record is a line (LF or
// CRLF), "bad" is malformed, an empty line is blank.
type lines struct{ pend int }

func (f *lines) Scan(data []byte, _ int, eof bool) (int, int, records.Kind, bool) {
	for i := f.pend; i < len(data); i++ {
		if data[i] == '\n' {
			f.pend = 0
			n := i
			if n > 0 && data[n-1] == '\r' {
				n--
			}
			return n, i + 1, blank(n), true
		}
	}
	if !eof {
		f.pend = len(data)
		return 0, 0, 0, false
	}
	f.pend = 0
	return len(data), len(data), blank(len(data)), true
}

func blank(n int) records.Kind {
	if n == 0 {
		return records.Blank
	}
	return 0
}
func (f *lines) Dropped()  { f.pend = 0 }
func (f *lines) Refilled() {}
func (f *lines) Record(b *vector.Batch, rec []byte) string {
	if string(rec) == "bad" {
		return "bad record"
	}
	b.Cols[0].S[b.N] = rec
	return ""
}

var types = []catalog.Type{catalog.Varchar}

// readAll decodes all of in (read one byte at a time, through a buffer of
// bufSize bytes) into "line:text" and "line!raw!reason" entries.
func readAll(t *testing.T, in string, c records.Config) []string {
	t.Helper()
	var r records.Reader
	c.Types = types
	r.Init(iotest.OneByteReader(strings.NewReader(in)), &lines{}, c)
	b := vector.NewBatch(types)
	var out []string
	for {
		var bad []records.BadRow
		err := r.Decode(b, &bad)
		k := 0
		for i := 0; i <= b.N; i++ {
			for ; k < len(bad) && bad[k].Index == i; k++ {
				out = append(out, strconv.FormatInt(bad[k].Line, 10)+"!"+string(bad[k].Raw)+"!"+bad[k].Reason)
			}
			if i < b.N {
				out = append(out, strconv.FormatInt(b.Pos[i], 10)+":"+string(b.Cols[0].S[i]))
			}
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestReaderLinesBlankHeaderBOM(t *testing.T) {
	got := readAll(t, "\xEF\xBB\xBFname\n\na\r\nbad\nb", records.Config{Name: "toy", BufSize: 2, Header: true})
	want := []string{"3:a", "4!bad!bad record", "5:b"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestReaderMaxRecord(t *testing.T) {
	// SPEC 1 'max-record-size': a longer record is malformed, raw its first bytes,
	// and reading goes on after it; one of exactly the limit is a row.
	got := readAll(t, "12345678\n123456789abc\r\nok\n123456789", records.Config{Name: "toy", BufSize: 4, MaxRecord: 8})
	tl := inbuf.TooLong(8)
	want := []string{"1:12345678", "2!123456789abc!" + tl, "3:ok", "4!123456789!" + tl}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

type checker struct{}

func (checker) Check(first, last int64, text []byte) ([]byte, string, bool) {
	if first == 2 {
		return []byte("raw2"), "invalid bytes", true
	}
	return nil, "", false
}

func TestReaderLineChecker(t *testing.T) {
	got := readAll(t, "a\nb\nc\n", records.Config{Name: "toy", BufSize: 64, Lines: checker{}})
	want := []string{"1:a", "2!raw2!invalid bytes", "3:c"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestReaderRest(t *testing.T) {
	var r records.Reader
	r.Init(strings.NewReader("a\nb\nc\n"), &lines{}, records.Config{Name: "toy", Types: types, BufSize: 64})
	b := vector.NewBatch(types)
	var bad []records.BadRow
	if err := r.Decode(b, &bad); err != nil || b.N != 3 {
		t.Fatalf("Decode: %d rows, %v", b.N, err)
	}
	for rows, want := range map[int]string{0: "a\nb\nc\n", 1: "b\nc\n", 3: "", -1: ""} {
		if got := string(r.Rest(rows)); got != want {
			t.Errorf("Rest(%d) = %q, want %q", rows, got, want)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	var r records.Reader
	cfgErr := errors.New("toy: bad option")
	r.Init(strings.NewReader("a\n"), &lines{}, records.Config{Name: "toy", Types: types, BufSize: 64, Err: cfgErr})
	var bad []records.BadRow
	if err := r.Decode(vector.NewBatch(types), &bad); err != cfgErr {
		t.Errorf("Decode with Config.Err = %v, want %v", err, cfgErr)
	}
	r.Init(strings.NewReader("a\n"), &lines{}, records.Config{Name: "toy", Types: types, BufSize: 64})
	err := r.Decode(vector.NewBatch([]catalog.Type{catalog.BigInt}), &bad)
	if err == nil || err.Error() != "toy: batch column 1 is BIGINT, decoder reads VARCHAR" {
		t.Errorf("Decode into a BIGINT batch: %v", err)
	}
}

func TestReaderNoAllocs(t *testing.T) {
	in := strings.Repeat("abc\n", 5000)
	src := strings.NewReader(in)
	var r records.Reader
	r.Init(src, &lines{}, records.Config{Name: "toy", Types: types, BufSize: 1 << 16})
	b := vector.NewBatch(types)
	bad := make([]records.BadRow, 0, 4)
	allocs := testing.AllocsPerRun(20, func() {
		if err := r.Decode(b, &bad); err == io.EOF {
			src.Reset(in)
		}
	})
	if allocs != 0 {
		t.Errorf("Decode allocates %v times per batch, want 0", allocs)
	}
}

// TestReaderLimit: with Config.Limit the input ends before the first record
// (or blank line) that starts at or after Limit bytes, and End tells that
// record's offset and line; a record starting before Limit is read whole.
// Continues with HeaderPending still skips the header (a chunk of a file,
// executor/chunked); Init again reuses the reader.
func TestReaderLimit(t *testing.T) {
	in := "\xEF\xBB\xBFab\ncd\n\nlonger record\nz\n" // records start at 3, 6, 9 (blank), 10, 24
	for _, tc := range []struct {
		limit int64
		want  string
		end   records.End
	}{
		{1, "", records.End{Offset: 3, Line: 1}},
		{4, "1:ab", records.End{Offset: 6, Line: 2, HeaderDone: true}},
		{6, "1:ab", records.End{Offset: 6, Line: 2, HeaderDone: true}},
		{9, "1:ab|2:cd", records.End{Offset: 9, Line: 3, HeaderDone: true}},
		{10, "1:ab|2:cd", records.End{Offset: 10, Line: 4, HeaderDone: true}},
		{11, "1:ab|2:cd|4:longer record", records.End{Offset: 24, Line: 5, HeaderDone: true}},
		{100, "1:ab|2:cd|4:longer record|5:z", records.End{Offset: 26, Line: 6, HeaderDone: true}},
	} {
		var r records.Reader
		for range 2 { // the second time through Init again
			r.Init(iotest.OneByteReader(strings.NewReader(in)), &lines{}, records.Config{Name: "toy", Types: types, BufSize: 2, Limit: tc.limit})
			var got []string
			b := vector.NewBatch(types)
			for {
				var bad []records.BadRow
				err := r.Decode(b, &bad)
				if err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				for i := range b.N {
					got = append(got, strconv.FormatInt(b.Pos[i], 10)+":"+string(b.Cols[0].S[i]))
				}
			}
			if strings.Join(got, "|") != tc.want || r.End() != tc.end {
				t.Errorf("limit %d: %q, end %+v; want %q, end %+v", tc.limit, got, r.End(), tc.want, tc.end)
			}
		}
	}
	got := readAll(t, "\n\nname\nx\n", records.Config{Name: "toy", BufSize: 2, Header: true, Continues: true, HeaderPending: true})
	if strings.Join(got, "|") != "4:x" {
		t.Errorf("HeaderPending: %q, want the header on line 3 skipped", got)
	}
}

// TestOwnRaw: the malformed rows' raw texts are copied into the arena (after
// what it held) and stay whole when the buffer they pointed into changes.
func TestOwnRaw(t *testing.T) {
	buf := []byte("bad one|bad two")
	bad := []records.BadRow{{Raw: buf[:7]}, {Raw: buf[8:]}, {Raw: buf[:0]}}
	arena := records.OwnRaw([]byte("kept"), bad)
	copy(buf, "###############")
	if string(arena[:4]) != "kept" || string(bad[0].Raw) != "bad one" || string(bad[1].Raw) != "bad two" || len(bad[2].Raw) != 0 {
		t.Fatalf("arena %q, raws %q %q %q", arena, bad[0].Raw, bad[1].Raw, bad[2].Raw)
	}
}
