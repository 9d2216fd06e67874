package jsondec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/vector"
)

const (
	V = catalog.Varchar
	I = catalog.BigInt
	D = catalog.Double
	B = catalog.Boolean
	T = catalog.Timestamp
)

// result is everything a decoder produced: good rows as "line:v1|v2|..." (NULL as
// ∅) and bad rows as "bad line:raw:reason", in decode order.
type result struct {
	all []string
	bad []BadRow
}

func formatRow(b *vector.Batch, ncols, i int) string {
	var sb strings.Builder
	sb.WriteString(strconv.FormatInt(b.Pos[i], 10))
	sb.WriteByte(':')
	for j, c := range b.Cols[:ncols] {
		if j > 0 {
			sb.WriteByte('|')
		}
		if c.Null[i] {
			sb.WriteString("∅")
			continue
		}
		switch c.Type {
		case catalog.Varchar:
			sb.Write(c.S[i])
		case catalog.BigInt, catalog.Timestamp:
			sb.WriteString(strconv.FormatInt(c.I[i], 10))
		case catalog.Double:
			sb.Write(textconv.AppendDouble(nil, c.F[i]))
		case catalog.Boolean:
			sb.Write(textconv.AppendBool(nil, c.B[i]))
		}
	}
	return sb.String()
}

// decodeAll runs a decoder over r to the end, checking the Decode contract on the
// way.
func decodeAll(t testing.TB, r io.Reader, names []string, types []catalog.Type, opts Options) (result, error) {
	d := NewDecoder(r, names, types, opts)
	b := vector.NewBatch(types)
	var res result
	var bad []BadRow
	for calls := 0; ; calls++ {
		if calls > 1e6 {
			t.Fatal("Decode does not end")
		}
		bad = bad[:0]
		err := d.Decode(b, &bad)
		if err == io.EOF {
			if b.N != 0 || len(bad) != 0 {
				t.Fatalf("io.EOF with %d rows and %d bad rows", b.N, len(bad))
			}
			return res, nil
		}
		if err != nil {
			return res, err
		}
		if b.N == 0 && len(bad) == 0 {
			t.Fatal("Decode returned nothing and no error")
		}
		k := 0
		for i := 0; i <= b.N; i++ {
			for k < len(bad) && bad[k].Index == i {
				br := bad[k]
				br.Raw = bytes.Clone(br.Raw)
				res.bad = append(res.bad, br)
				res.all = append(res.all, fmt.Sprintf("bad %d:%s:%s", br.Line, br.Raw, br.Reason))
				k++
			}
			if i < b.N {
				res.all = append(res.all, formatRow(b, len(types), i))
			}
		}
		if k != len(bad) {
			t.Fatalf("bad row indexes out of order or beyond the batch: %+v", bad)
		}
	}
}

func TestDecodeRules(t *testing.T) {
	vid := []string{"v", "i", "d"}
	tests := []struct {
		name  string
		in    string
		names []string
		types []catalog.Type
		want  []string
	}{
		{"simple", `{"v":"a","i":1,"d":1.5}` + "\n" + `{"v":"b","i":2,"d":2.5}` + "\n",
			vid, []catalog.Type{V, I, D}, []string{"1:a|1|1.5", "2:b|2|2.5"}},
		{"no final newline", `{"v":"a"}` + "\n" + `{"v":"b"}`,
			[]string{"v"}, []catalog.Type{V}, []string{"1:a", "2:b"}},
		{"CRLF, blank and whitespace-only lines", "\r\n" + `{"v":"a"}` + "\r\n\n  \t \r\n" + `{"v":"b"}` + "\r\n",
			[]string{"v"}, []catalog.Type{V}, []string{"2:a", "5:b"}},
		{"BOM skipped", "\xEF\xBB\xBF{\"v\":\"a\"}\n",
			[]string{"v"}, []catalog.Type{V}, []string{"1:a"}},
		{"BOM only at the start", "{\"v\":\"a\"}\n\xEF\xBB\xBF{\"v\":\"b\"}\n",
			[]string{"v"}, []catalog.Type{V}, []string{"1:a", "bad 2:\xEF\xBB\xBF{\"v\":\"b\"}:not a JSON object"}},
		{"names case-sensitive, extra fields ignored, any order",
			`{"I":5,"x":{"a":[1,{"b":null}]},"d":2,"v":"z","i":7,"y":[]}` + "\n",
			vid, []catalog.Type{V, I, D}, []string{"1:z|7|2.0"}},
		{"last duplicate wins", `{"i":1,"i":2,"v":"a","v":null}` + "\n",
			vid[:2], []catalog.Type{V, I}, []string{"1:∅|2"}},
		{"missing and null are NULL", `{}` + "\n" + `{"v":null,"i":null,"d":null}` + "\n" + ` { "d" : 1 } ` + "\n",
			vid, []catalog.Type{V, I, D}, []string{"1:∅|∅|∅", "2:∅|∅|∅", "3:∅|∅|1.0"}},
		{"BIGINT numbers exact, no fraction, no exponent",
			`{"i":9223372036854775807}` + "\n" + `{"i":-9223372036854775808}` + "\n" + `{"i":9007199254740993}` + "\n" + `{"i":-0}` + "\n" +
				`{"i":12.5}` + "\n" + `{"i":1e3}` + "\n" + `{"i":1.0}` + "\n" + `{"i":9223372036854775808}` + "\n" + `{"i":1E0}` + "\n",
			[]string{"i"}, []catalog.Type{I}, []string{"1:9223372036854775807", "2:-9223372036854775808", "3:9007199254740993", "4:0",
				"bad 5:{\"i\":12.5}:column i: 12.5 is not a valid BIGINT",
				"bad 6:{\"i\":1e3}:column i: 1e3 is not a valid BIGINT",
				"bad 7:{\"i\":1.0}:column i: 1.0 is not a valid BIGINT",
				"bad 8:{\"i\":9223372036854775808}:column i: 9223372036854775808 is not a valid BIGINT",
				"bad 9:{\"i\":1E0}:column i: 1E0 is not a valid BIGINT"}},
		{"numeric strings read as text", `{"i":" 12 ","d":"+6.25E-02","b":"TRUE","t":"2021-01-17 12:48:29.123"}` + "\n" +
			`{"i":"-7","d":"NaN","b":" false","t":"1610035289736"}` + "\n" + `{"d":"1e3","t":"2021-01-17T12:48:29Z"}` + "\n" +
			`{"i":"\u0031\u0032"}` + "\n",
			[]string{"i", "d", "b", "t"}, []catalog.Type{I, D, B, T},
			[]string{"1:12|0.0625|true|1610887709123", "2:-7|NaN|false|1610035289736", "3:∅|1000.0|∅|1610887709000", "4:12|∅|∅|∅"}},
		{"bad text in strings", `{"i":"1.5"}` + "\n" + `{"i":""}` + "\n" + `{"d":"abc"}` + "\n" + `{"d":"inf"}` + "\n" + `{"b":"yes"}` + "\n" + `{"t":"yesterday"}` + "\n",
			[]string{"i", "d", "b", "t"}, []catalog.Type{I, D, B, T},
			[]string{`bad 1:{"i":"1.5"}:column i: "1.5" is not a valid BIGINT`,
				`bad 2:{"i":""}:column i: "" is not a valid BIGINT`,
				`bad 3:{"d":"abc"}:column d: "abc" is not a valid DOUBLE`,
				`bad 4:{"d":"inf"}:column d: "inf" is not a valid DOUBLE`,
				`bad 5:{"b":"yes"}:column b: "yes" is not a valid BOOLEAN`,
				`bad 6:{"t":"yesterday"}:column t: "yesterday" is not a valid TIMESTAMP`}},
		{"DOUBLE numbers", `{"d":-0}` + "\n" + `{"d":1e400}` + "\n" + `{"d":2.5E-3}` + "\n" + `{"d":0.1}` + "\n" + `{"d":12345678901234567890}` + "\n",
			[]string{"d"}, []catalog.Type{D}, []string{"1:-0.0", "2:Infinity", "3:0.0025", "4:0.1", "5:1.2345678901234567E19"}},
		{"BOOLEAN literals; numbers are not booleans", `{"b":true}` + "\n" + `{"b":false}` + "\n" + `{"b":1}` + "\n",
			[]string{"b"}, []catalog.Type{B}, []string{"1:true", "2:false", "bad 3:{\"b\":1}:column b: 1 is not a valid BOOLEAN"}},
		{"TIMESTAMP numbers are epoch ms", `{"t":1610035289736}` + "\n" + `{"t":1.5}` + "\n",
			[]string{"t"}, []catalog.Type{T}, []string{"1:1610035289736", "bad 2:{\"t\":1.5}:column t: 1.5 is not a valid TIMESTAMP"}},
		{"wrong JSON types for numbers", `{"i":true}` + "\n" + `{"i":[1]}` + "\n" + `{"d":{"a":1}}` + "\n",
			[]string{"i", "d"}, []catalog.Type{I, D},
			[]string{`bad 1:{"i":true}:column i: true is not a valid BIGINT`,
				`bad 2:{"i":[1]}:column i: [1] is not a valid BIGINT`,
				`bad 3:{"d":{"a":1}}:column d: {"a":1} is not a valid DOUBLE`}},
		{"VARCHAR keeps compact JSON text of non-strings",
			`{"v":12.50}` + "\n" + `{"v":true}` + "\n" + `{"v":false}` + "\n" + `{"v": { "a" : [ 1 , "x y" , {} ] , "b":"\u00e9 \"q\"" } }` + "\n" + `{"v":[]}` + "\n" + `{"v":-1E+2}` + "\n",
			[]string{"v"}, []catalog.Type{V},
			[]string{"1:12.50", "2:true", "3:false", `4:{"a":[1,"x y",{}],"b":"\u00e9 \"q\""}`, "5:[]", "6:-1E+2"}},
		{"string escapes", `{"v":"a\"b\\c\/d\be\ff\ng\rh\ti\u00e9\u4e2d\ud83d\ude00\u0000"}` + "\n",
			[]string{"v"}, []catalog.Type{V}, []string{"1:a\"b\\c/d\be\ff\ng\rh\ti\u00e9中😀\x00"}},
		{"UTF-8 names and values, escaped names", `{"设备":"温度","\u0061":"x","a\u0062":"y"}` + "\n",
			[]string{"设备", "a", "ab"}, []catalog.Type{V, V, V}, []string{"1:温度|x|y"}},
		{"not an object", "[1,2]\n\"x\"\n12\nnull\nabc\n",
			[]string{"v"}, []catalog.Type{V},
			[]string{"bad 1:[1,2]:not a JSON object", "bad 2:\"x\":not a JSON object", "bad 3:12:not a JSON object",
				"bad 4:null:not a JSON object", "bad 5:abc:not a JSON object"}},
		{"broken JSON", `{"v":1` + "\n" + `{"v":1,}` + "\n" + `{"v" 1}` + "\n" + `{"v":1} x` + "\n" + `{"v":1}{"v":2}` + "\n" +
			`{v:1}` + "\n" + `{"v":01}` + "\n" + `{"v":+1}` + "\n" + `{"v":.5}` + "\n" + `{"v":1.}` + "\n" + `{"v":NaN}` + "\n" + `{"v":tru}` + "\n" +
			`{"v":"a` + "\n" + `{"v":"\x"}` + "\n" + `{"v":"\u12"}` + "\n" + "{\"v\":\"a\tb\"}\n" + `{"v":[1,]}` + "\n" + `{"v":{"a"}}` + "\n" + `{"v":[1 2]}` + "\n" +
			`{"v":"\ud800"}` + "\n" + `{"v":"\udc00\ud800"}` + "\n" + `{"v":"\ud800\u0041"}` + "\n" + `{` + "\n" + `{"x":[[[` + "\n",
			[]string{"v"}, []catalog.Type{V},
			[]string{
				`bad 1:{"v":1:invalid JSON: the line ends too early (expected ',' or '}' after a field)`,
				`bad 2:{"v":1,}:invalid JSON at byte 8: expected a field name`,
				`bad 3:{"v" 1}:invalid JSON at byte 6: expected ':' after a field name`,
				`bad 4:{"v":1} x:invalid JSON at byte 9: text after the object`,
				`bad 5:{"v":1}{"v":2}:invalid JSON at byte 8: text after the object`,
				`bad 6:{v:1}:invalid JSON at byte 2: expected a field name`,
				`bad 7:{"v":01}:invalid JSON at byte 7: expected ',' or '}' after a field`,
				`bad 8:{"v":+1}:invalid JSON at byte 6: expected a value`,
				`bad 9:{"v":.5}:invalid JSON at byte 6: expected a value`,
				`bad 10:{"v":1.}:invalid JSON at byte 8: invalid number`,
				`bad 11:{"v":NaN}:invalid JSON at byte 6: expected a value`,
				`bad 12:{"v":tru}:invalid JSON at byte 6: expected a value`,
				`bad 13:{"v":"a:invalid JSON: the line ends inside a string`,
				`bad 14:{"v":"\x"}:invalid JSON at byte 7: invalid escape`,
				`bad 15:{"v":"\u12"}:invalid JSON at byte 7: invalid \u escape`,
				"bad 16:{\"v\":\"a\tb\"}:invalid JSON at byte 8: control character in a string",
				`bad 17:{"v":[1,]}:invalid JSON at byte 9: expected a value`,
				`bad 18:{"v":{"a"}}:invalid JSON at byte 10: expected ':' after a field name`,
				`bad 19:{"v":[1 2]}:invalid JSON at byte 9: expected ',' or ']' in an array`,
				`bad 20:{"v":"\ud800"}:invalid JSON at byte 7: \u escape of half a surrogate pair`,
				`bad 21:{"v":"\udc00\ud800"}:invalid JSON at byte 7: \u escape of half a surrogate pair`,
				`bad 22:{"v":"\ud800\u0041"}:invalid JSON at byte 7: \u escape of half a surrogate pair`,
				`bad 23:{:invalid JSON: the line ends too early (expected a field name)`,
				`bad 24:{"x":[[[:invalid JSON: the line ends inside an object or array`,
			}},
		{"invalid UTF-8 anywhere", "{\"v\":\"a\xffb\"}\n{\"x\":\"\xc3\"}\n{\"v\":\"\xed\xa0\x80\"}\n{\"v\":\"ok\"}\n",
			[]string{"v"}, []catalog.Type{V},
			[]string{"bad 1:{\"v\":\"a\xffb\"}:invalid UTF-8 at byte 8", "bad 2:{\"x\":\"\xc3\"}:invalid UTF-8 at byte 7",
				"bad 3:{\"v\":\"\xed\xa0\x80\"}:invalid UTF-8 at byte 7", "4:ok"}},
		{"a bad line does not hide the next", `{"i":"x"}` + "\n" + `{"i":3}` + "\n",
			[]string{"i"}, []catalog.Type{I}, []string{`bad 1:{"i":"x"}:column i: "x" is not a valid BIGINT`, "2:3"}},
		{"long value in a reason is shortened", `{"i":"` + strings.Repeat("é", 40) + `"}` + "\n",
			[]string{"i"}, []catalog.Type{I},
			[]string{`bad 1:{"i":"` + strings.Repeat("é", 40) + `"}:column i: "` + strings.Repeat("é", 31) + `... is not a valid BIGINT`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				res, err := decodeAll(t, r, tc.names, tc.types, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !equalStrings(res.all, tc.want) {
					t.Fatalf("got\n%s\nwant\n%s", strings.Join(res.all, "\n"), strings.Join(tc.want, "\n"))
				}
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDeepNesting checks that deeply nested ignored values are checked without
// recursion.
func TestDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	in := `{"x":` + deep + `,"v":"a"}` + "\n" + `{"x":` + deep[:len(deep)-1] + `}` + "\n"
	res, err := decodeAll(t, strings.NewReader(in), []string{"v"}, []catalog.Type{V}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.all) != 2 || res.all[0] != "1:a" || len(res.bad) != 1 || !strings.Contains(res.bad[0].Reason, "expected ',' or ']' in an array") {
		t.Fatalf("got %d results, bad %+v", len(res.all), res.bad)
	}
}

// TestNotNull checks that a NULL in a NotNull column makes the row malformed.
func TestNotNull(t *testing.T) {
	in := `{"w":"a","ts":1}` + "\n" + `{"w":"b"}` + "\n" + `{"w":"c","ts":null}` + "\n" + `{"ts":5}` + "\n"
	res, err := decodeAll(t, strings.NewReader(in), []string{"w", "ts"}, []catalog.Type{V, I}, Options{NotNull: []bool{false, true}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1:a|1", `bad 2:{"w":"b"}:column ts: the event-time column is NULL`,
		`bad 3:{"w":"c","ts":null}:column ts: the event-time column is NULL`, "4:∅|5"}
	if !equalStrings(res.all, want) {
		t.Fatalf("got %q", res.all)
	}
}

// TestBatching checks batches of at most vector.Cap rows, bad rows' Index, and
// BytesRead.
func TestBatching(t *testing.T) {
	var sb strings.Builder
	n := 3*vector.Cap + 5
	for i := range n {
		if i%100 == 7 {
			sb.WriteString("oops\n")
			continue
		}
		fmt.Fprintf(&sb, `{"i":%d}`+"\n", i)
	}
	in := sb.String()
	d := NewDecoder(strings.NewReader(in), []string{"i"}, []catalog.Type{I}, Options{})
	b := vector.NewBatch([]catalog.Type{I})
	var bad []BadRow
	seen := 0
	for {
		bad = bad[:0]
		err := d.Decode(b, &bad)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.N > vector.Cap {
			t.Fatalf("batch of %d", b.N)
		}
		k := 0
		for i := 0; i <= b.N; i++ {
			for k < len(bad) && bad[k].Index == i {
				if bad[k].Line != int64(seen+1) || string(bad[k].Raw) != "oops" {
					t.Fatalf("bad row %+v at %d", bad[k], seen)
				}
				seen++
				k++
			}
			if i < b.N {
				if b.Cols[0].I[i] != int64(seen) || b.Pos[i] != int64(seen+1) {
					t.Fatalf("row %d: %d at line %d", seen, b.Cols[0].I[i], b.Pos[i])
				}
				seen++
			}
		}
	}
	if seen != n {
		t.Fatalf("saw %d rows, want %d", seen, n)
	}
	if d.BytesRead() != int64(len(in)) {
		t.Errorf("BytesRead = %d, want %d", d.BytesRead(), len(in))
	}
}

// TestLongLine checks a line far longer than the initial buffer.
func TestLongLine(t *testing.T) {
	long := strings.Repeat("x", 3*initialBufSize+17)
	in := `{"v":"a"}` + "\n" + `{"v":"` + long + `"}` + "\n" + `{"v":"b"}` + "\n"
	for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
		res, err := decodeAll(t, r, []string{"v"}, []catalog.Type{V}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !equalStrings(res.all, []string{"1:a", "2:" + long, "3:b"}) {
			t.Fatalf("long line decoded wrongly (%d rows)", len(res.all))
		}
	}
}

// TestNoQuadratic reads one huge line arriving in small pieces: the scan for its
// end must not start over at every read.
func TestNoQuadratic(t *testing.T) {
	in := `{"v":"` + strings.Repeat("y", 8<<20) + `"}` + "\n"
	saved := bufSize
	bufSize = 64
	defer func() { bufSize = saved }()
	r := &chunkReader{s: in, n: 4096}
	res, err := decodeAll(t, r, []string{"v"}, []catalog.Type{V}, Options{})
	if err != nil || len(res.all) != 1 {
		t.Fatal(err, len(res.all))
	}
}

type chunkReader struct {
	s string
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.s)
	r.s = r.s[k:]
	return k, nil
}

// liveReader hands out chunks and counts reads.
type liveReader struct {
	chunks []string
	reads  int
}

func (r *liveReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	r.reads++
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	if r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

// TestLiveSource checks that Decode returns the rows it holds instead of reading
// again when no complete line remains (a socket would block there).
func TestLiveSource(t *testing.T) {
	r := &liveReader{chunks: []string{`{"v":"a"}` + "\n" + `{"v":`, `"b"}` + "\n", `{"v":"c"}` + "\n" + "x\n{", `"v":"d"}` + "\n"}}
	d := NewDecoder(r, []string{"v"}, []catalog.Type{V}, Options{})
	b := vector.NewBatch([]catalog.Type{V})
	var bad []BadRow
	want := []string{"1:a", "2:b", "3:c bad", "5:d"}
	for i, w := range want {
		bad = bad[:0]
		if err := d.Decode(b, &bad); err != nil {
			t.Fatal(err)
		}
		var got []string
		for j := 0; j < b.N; j++ {
			got = append(got, formatRow(b, 1, j))
		}
		if len(bad) > 0 {
			got = append(got, "bad")
		}
		if strings.Join(got, " ") != w {
			t.Fatalf("Decode %d = %q, want %q", i, got, w)
		}
		if r.reads != i+1 {
			t.Fatalf("Decode %d: %d reads, want %d", i, r.reads, i+1)
		}
	}
	if err := d.Decode(b, &bad); err != io.EOF {
		t.Fatalf("last Decode: %v", err)
	}
}

// TestReadError checks that rows before a read error are returned, then the error.
func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(`{"i":1}`+"\n"+`{"i":2}`+"\n"+`{"i"`), iotest.ErrReader(boom))
	d := NewDecoder(r, []string{"i"}, []catalog.Type{I}, Options{})
	b := vector.NewBatch([]catalog.Type{I})
	var bad []BadRow
	if err := d.Decode(b, &bad); err != nil || b.N != 2 {
		t.Fatalf("first Decode: %v, %d rows", err, b.N)
	}
	for range 2 {
		if err := d.Decode(b, &bad); err != boom {
			t.Fatalf("Decode after the rows: %v", err)
		}
	}
}

// TestBatchShape checks the errors for a batch of the wrong shape, and that
// columns beyond the decoder's are left alone.
func TestBatchShape(t *testing.T) {
	d := NewDecoder(strings.NewReader(`{"v":"a","i":1}`+"\n"+`{"v":"b"}`+"\n"), []string{"v", "i"}, []catalog.Type{V, I}, Options{})
	var bad []BadRow
	if err := d.Decode(vector.NewBatch([]catalog.Type{V}), &bad); err == nil {
		t.Error("batch with too few columns: no error")
	}
	if err := d.Decode(vector.NewBatch([]catalog.Type{V, D}), &bad); err == nil {
		t.Error("batch with a wrong column type: no error")
	}
	b := vector.NewBatch([]catalog.Type{V, I, I})
	b.Cols[2].I[0], b.Cols[2].I[1] = 7, 8
	if err := d.Decode(b, &bad); err != nil || b.N != 2 {
		t.Fatalf("Decode: %v, %d rows", err, b.N)
	}
	if b.Cols[2].Null[0] || b.Cols[2].Null[1] || b.Cols[2].I[0] != 7 || b.Cols[2].I[1] != 8 || !b.Cols[1].Null[1] {
		t.Error("extra column touched or missing field not NULL")
	}
}

// TestBufferReuse checks that values of a batch stay intact until the next Decode
// while the decoder moves data in its buffer between batches.
func TestBufferReuse(t *testing.T) {
	var sb strings.Builder
	for i := range 40000 {
		if i%7 == 0 {
			fmt.Fprintf(&sb, `{"v":"q\"%d","o":{ "n" : %d }}`+"\n", i, i)
		} else {
			fmt.Fprintf(&sb, `{"v":"value-%d","o":{"n":%d}}`+"\n", i, i)
		}
	}
	res, err := decodeAll(t, iotest.HalfReader(strings.NewReader(sb.String())), []string{"v", "o"}, []catalog.Type{V, V}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.all {
		want := fmt.Sprintf(`%d:value-%d|{"n":%d}`, i+1, i, i)
		if i%7 == 0 {
			want = fmt.Sprintf(`%d:q"%d|{"n":%d}`, i+1, i, i)
		}
		if r != want {
			t.Fatalf("row %d = %q, want %q", i, r, want)
		}
	}
}

// sensorJSON makes n lines of {"deviceNo":...,"ts":...,"temperature":...}; with
// escaped, every third name has an escaped quote (copied into the arena).
func sensorJSON(n int, escaped bool) []byte {
	var buf bytes.Buffer
	ts := int64(1610035289736)
	for i := range n {
		buf.WriteString(`{"deviceNo":"`)
		if escaped && i%3 == 0 {
			buf.WriteString(`dev\"ice-`)
		} else {
			buf.WriteString("device-")
		}
		buf.WriteString(strconv.Itoa(i % 500))
		buf.WriteString(`","ts":`)
		buf.WriteString(strconv.FormatInt(ts+int64(i)*1013, 10))
		buf.WriteString(`,"temperature":`)
		buf.Write(textconv.AppendDouble(nil, float64(i%1000)/10+0.5))
		buf.WriteString("}\n")
	}
	return buf.Bytes()
}

func TestDecodeZeroAllocs(t *testing.T) {
	for name, in := range map[string][]byte{"plain": sensorJSON(20000, false), "escaped": sensorJSON(20000, true)} {
		types := []catalog.Type{V, I, D}
		d := NewDecoder(bytes.NewReader(in), []string{"deviceNo", "ts", "temperature"}, types, Options{})
		b := vector.NewBatch(types)
		bad := make([]BadRow, 0, 16)
		for range 3 { // warm up: the arenas grow during the first batches
			bad = bad[:0]
			if err := d.Decode(b, &bad); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(10, func() {
			bad = bad[:0]
			if err := d.Decode(b, &bad); err != nil {
				t.Fatal(err)
			}
			if len(bad) != 0 || b.N == 0 {
				t.Fatalf("%d rows, bad rows: %+v", b.N, bad)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per batch", name, allocs)
		}
	}
}

func TestSensorValues(t *testing.T) {
	in := sensorJSON(3, true)
	res, err := decodeAll(t, bytes.NewReader(in), []string{"deviceNo", "ts", "temperature"}, []catalog.Type{V, I, D}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`1:dev"ice-0|1610035289736|0.5`, "2:device-1|1610035290749|0.6", "3:device-2|1610035291762|0.7"}
	if !equalStrings(res.all, want) {
		t.Fatalf("got %q", res.all)
	}
}

// BenchmarkDecode decodes 100k generated sensor lines (VARCHAR, BIGINT, DOUBLE):
// plain, and with a third of the names holding an escaped quote.
func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct {
		name    string
		escaped bool
	}{{"plain", false}, {"escaped", true}} {
		b.Run(bc.name, func(b *testing.B) {
			data := sensorJSON(100000, bc.escaped)
			types := []catalog.Type{V, I, D}
			names := []string{"deviceNo", "ts", "temperature"}
			batch := vector.NewBatch(types)
			bad := make([]BadRow, 0, 16)
			rd := bytes.NewReader(data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			rows := 0
			for b.Loop() {
				rd.Reset(data)
				d := NewDecoder(rd, names, types, Options{})
				for {
					bad = bad[:0]
					err := d.Decode(batch, &bad)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rows += batch.N
				}
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
