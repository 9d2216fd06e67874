package csvdec

import (
	"bytes"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/executor/inbuf"
)

// FuzzDecode checks the decoder two ways:
//
//   - differential: where SPEC 1's rules coincide with encoding/csv's (all-VARCHAR
//     columns, quote '"', no CR, valid UTF-8, no BOM (a VARCHAR field of spaces
//     keeps them, as in encoding/csv), and input that encoding/csv reads without any error in strict mode), both give
//     the same records, and a record whose field count differs from the column
//     count is a bad row at the same line;
//   - properties, for any input and options: no panic, and the same result
//     whether the input arrives at once or one byte per Read (live sources), with
//     every bad row's raw text found in the input and line numbers never going
//     back.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		"a,b,c\n1,2,3\n",
		"\"a,b\",c\n\"x\"\"y\",z\n",
		"a,\"multi\nline\",c\n",
		"a,b\r\n\"c\r\nd\",e\r\n",
		"\xEF\xBB\xBFa,b\n",
		"\n\na,b\n\n",
		"a;b\n1;2\n",
		"a\tb\n",
		"\"abc,1\n",
		"\"ab\"c,1\n",
		"ab\"c,1\n",
		"NULL,1\n\\N,2\n",
		"设备1,abc,10.2\n\"设备,9\",1,2\n",
		"a\xff,1\n",
		",,\n\"\",\"\",\n",
		"1,2.5,true,2021-01-17 12:48:29.123\n",
		"a\rb,c\r",
		"\"\"\"\"\n",
		"x",
		"",
		// fields and lines of spaces only (kept in VARCHAR, NULL otherwise)
		"  ,  \n   \n\" \", \t\n",
		// records longer than a small 'max-record-size' (typesSel >= 128)
		"a,1\nbbbbbbbbbbbbbbbbbbbbbbbb,2\r\nc,3\n",
		"\"long\nquoted\nrecord\nover\nlines\",1\nd,4",
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r",
		// ragged rows with invalid UTF-8 in a dropped extra field
		"a,1,\xff\nb,2,\"\xfe\"\nc,3,ok,\xc3\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i), uint8(i*7))
		f.Add([]byte(s), uint8(i)|64, uint8(128+i)) // allow-ragged, small max-record-size
	}
	// Small buffers: fuzzing runs faster and exercises compaction and growth.
	saved := bufSize
	bufSize = 64
	f.Cleanup(func() { bufSize = saved })
	f.Fuzz(func(t *testing.T, data []byte, sel, typesSel uint8) {
		differential(t, data, sel)
		properties(t, data, sel, typesSel)
	})
}

func differential(t *testing.T, data []byte, sel uint8) {
	if bytes.IndexByte(data, '\r') >= 0 || !utf8.Valid(data) || bytes.HasPrefix(data, inbuf.UTF8BOM) {
		return
	}
	comma := []rune{',', ';', '\t', '|'}[sel%4]
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	var recs [][]string
	var lines []int
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return // a form where the rules differ (bare quotes, broken quotes)
		}
		line, _ := cr.FieldPos(0)
		recs = append(recs, rec)
		lines = append(lines, line)
	}
	ncols := 1 + int(sel/4)%4
	if len(recs) > 0 && sel%2 == 0 {
		ncols = len(recs[0])
	}
	types := make([]catalog.Type, ncols)
	for i := range types {
		types[i] = catalog.Varchar
	}
	res, err := decodeAll(t, bytes.NewReader(data), types, Options{Delimiter: byte(comma)})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, rec := range recs {
		if len(rec) != ncols {
			want = append(want, "bad "+strconv.Itoa(lines[i])+":")
			continue
		}
		want = append(want, strconv.Itoa(lines[i])+":"+strings.Join(rec, "|"))
	}
	var got []string
	for _, s := range res.all {
		if strings.HasPrefix(s, "bad ") {
			s = s[:strings.IndexByte(s, ':')+1]
		}
		got = append(got, s)
	}
	if !equalStrings(got, want) {
		t.Fatalf("input %q (comma %q, %d columns):\n got %q\nwant %q", data, comma, ncols, got, want)
	}
	for _, b := range res.bad {
		if !strings.HasPrefix(b.Reason, "expected ") {
			t.Fatalf("input %q: unexpected reason %q", data, b.Reason)
		}
	}
}

func properties(t *testing.T, data []byte, sel, typesSel uint8) {
	all := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Double, catalog.Boolean, catalog.Timestamp}
	ncols := 1 + int(typesSel)%4
	types := make([]catalog.Type, ncols)
	for i := range types {
		types[i] = all[(int(typesSel)/4+i*int(sel))%len(all)]
	}
	opts := Options{
		Delimiter:   []byte{',', ';', '\t', 'x'}[sel%4],
		Quote:       []byte{'"', '\'', '"', 'y'}[(sel/4)%4],
		Header:      sel&16 != 0,
		HasNull:     sel&32 != 0,
		NullLiteral: []byte("NULL"),
		AllowRagged: sel&64 != 0,
	}
	if sel&128 != 0 {
		opts.NullLiteral = nil
	}
	if typesSel&128 != 0 {
		opts.MaxRecord = 1 + int(typesSel)%16
	}
	whole, err1 := decodeAll(t, bytes.NewReader(data), types, opts)
	// Byte by byte, starting from a one-byte buffer that must grow.
	saved := bufSize
	bufSize = 1
	bytewise, err2 := decodeAll(t, iotest.OneByteReader(bytes.NewReader(data)), types, opts)
	bufSize = saved
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !equalStrings(whole.all, bytewise.all) {
		t.Fatalf("input %q: whole and byte-wise reads differ:\n%q\n%q", data, whole.all, bytewise.all)
	}
	var last int64
	for _, s := range whole.all {
		s = strings.TrimPrefix(s, "bad ")
		line, err := strconv.ParseInt(s[:strings.IndexByte(s, ':')], 10, 64)
		if err != nil || line < last || line < 1 {
			t.Fatalf("input %q: line numbers %q", data, whole.all)
		}
		last = line
	}
	for _, b := range whole.bad {
		if !bytes.Contains(data, b.Raw) || b.Reason == "" {
			t.Fatalf("input %q: bad row %+v", data, b)
		}
	}
}

// FuzzPlainAgrees: for any input, the one-pass paths of unquoted records
// (plainRow, recordPlain) give what the general path alone gives: the same
// rows, values, number texts, malformed rows and rest of the input, with the
// batches keeping their texts or not (vector.Batch.NoText).
func FuzzPlainAgrees(f *testing.F) {
	for _, s := range []string{"设备1,1610035289754,72.6\n设备2,1610035289762,9.6\r\n", "a,1,2\n,,\n1,2,3,4\nx\ry,5,.5\n", "b,00,1.\n", "a,\"1\",2\n"} {
		f.Add([]byte(s), uint8(0), false)
	}
	typeSets := [][]catalog.Type{
		{catalog.Varchar, catalog.BigInt, catalog.Double},
		{catalog.Double, catalog.Double},
		{catalog.BigInt, catalog.Varchar},
		{catalog.Varchar},
	}
	f.Fuzz(func(t *testing.T, in []byte, sel uint8, noText bool) {
		types := typeSets[int(sel)%len(typeSets)]
		delim := []byte{',', ';'}[int(sel/4)%2]
		opts := Options{Delimiter: delim, AllowRagged: sel&0x10 != 0}
		fast := decodeForCompare(t, in, types, opts, delim, noText)
		plainRecords = false
		slow := decodeForCompare(t, in, types, opts, delim, noText)
		plainRecords = true
		if strings.Join(fast.rows, "\n") != strings.Join(slow.rows, "\n") || strings.Join(fast.texts, "\n") != strings.Join(slow.texts, "\n") || strings.Join(fast.bad, "\n") != strings.Join(slow.bad, "\n") {
			t.Fatalf("the one-pass path gave\n%q\n%q\n%q\nthe general path\n%q\n%q\n%q", fast.rows, fast.texts, fast.bad, slow.rows, slow.texts, slow.bad)
		}
	})
}
