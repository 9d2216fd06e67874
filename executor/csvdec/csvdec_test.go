package csvdec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

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

// result is everything a decoder produced, in order: good rows as "line:v1|v2|..."
// (NULL as ∅) and bad rows as "bad line:raw:reason".
type result struct {
	rows []string
	bad  []BadRow
	all  []string // rows and bad rows interleaved in decode order
}

func formatRow(b *vector.Batch, i int) string {
	var sb strings.Builder
	sb.WriteString(strconv.FormatInt(b.Pos[i], 10))
	sb.WriteByte(':')
	for j, c := range b.Cols {
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
// way, and returns what it produced.
func decodeAll(t testing.TB, r io.Reader, types []catalog.Type, opts Options) (result, error) {
	names := make([]string, len(types))
	for i := range names {
		names[i] = "c" + strconv.Itoa(i+1)
	}
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
		if b.N > vector.Cap {
			t.Fatalf("batch of %d rows", b.N)
		}
		k := 0
		for i := 0; i <= b.N; i++ {
			for k < len(bad) && bad[k].Index == i {
				br := bad[k]
				br.Raw = bytes.Clone(br.Raw)
				res.bad = append(res.bad, br)
				res.all = append(res.all, fmt.Sprintf("bad %d:%s", br.Line, br.Raw))
				k++
			}
			if i < b.N {
				s := formatRow(b, i)
				res.rows = append(res.rows, s)
				res.all = append(res.all, s)
			}
		}
		if k != len(bad) {
			t.Fatalf("bad row indexes out of order or beyond the batch: %+v", bad)
		}
	}
}

func TestDecodeRules(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		types []catalog.Type
		opts  Options
		rows  []string
		bad   []badWant
	}{
		{
			name:  "simple",
			in:    "a,1,1.5\nb,2,2.5\n",
			types: []catalog.Type{V, I, D},
			rows:  []string{"1:a|1|1.5", "2:b|2|2.5"},
		},
		{
			name:  "no final newline",
			in:    "a,1\nb,2",
			types: []catalog.Type{V, I},
			rows:  []string{"1:a|1", "2:b|2"},
		},
		{
			name:  "CRLF line ends",
			in:    "a,1\r\nb,2\r\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:a|1", "2:b|2"},
		},
		{
			name:  "lone CR is data",
			in:    "a\rb,1\nc,2\r",
			types: []catalog.Type{V, V},
			rows:  []string{"1:a\rb|1", "2:c|2\r"},
		},
		{
			name:  "lone CR in a number column is bad",
			in:    "a,1\rb\n",
			types: []catalog.Type{V, I},
			bad:   []badWant{{1, "a,1\rb", "column c2: \"1\\rb\" is not a valid BIGINT"}},
		},
		{
			name:  "quoted field with delimiter",
			in:    "\"a,b\",1\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:a,b|1"},
		},
		{
			name:  "quoted newline and line numbers",
			in:    "x,1\n\"multi\nline\",2\ny,3\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:x|1", "2:multi\nline|2", "4:y|3"},
		},
		{
			name:  "CRLF inside quotes stays CRLF",
			in:    "\"a\r\nb\",1\r\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:a\r\nb|1"},
		},
		{
			name:  "doubled quotes",
			in:    "\"say \"\"hi\"\"\",1\n\"\"\"\",2\n\"\",3\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:say \"hi\"|1", "2:\"|2", "3:|3"},
		},
		{
			name:  "quoted number",
			in:    "\" 12 \",\"1.5\"\n",
			types: []catalog.Type{I, D},
			rows:  []string{"1:12|1.5"},
		},
		{
			name:  "quote inside unquoted field is data",
			in:    "ab\"c,x\"y\"\n",
			types: []catalog.Type{V, V},
			rows:  []string{"1:ab\"c|x\"y\""},
		},
		{
			name:  "text after closing quote",
			in:    "\"ab\"c,1\nok,2\n",
			types: []catalog.Type{V, I},
			rows:  []string{"2:ok|2"},
			bad:   []badWant{{1, "\"ab\"c,1", "text after closing quote"}},
		},
		{
			name:  "text after closing quote in a multi-line record",
			in:    "\"a\nb\"x,1\nok,2\n",
			types: []catalog.Type{V, I},
			rows:  []string{"3:ok|2"},
			bad:   []badWant{{1, "\"a\nb\"x,1", "text after closing quote"}},
		},
		{
			name:  "quote never closed",
			in:    "ok,1\n\"abc,2\nd,3\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:ok|1"},
			bad:   []badWant{{2, "\"abc,2\nd,3", "quote never closed"}},
		},
		{
			name:  "quote never closed without final newline",
			in:    "ok,1\nx,\"abc",
			types: []catalog.Type{V, I},
			rows:  []string{"1:ok|1"},
			bad:   []badWant{{2, "x,\"abc", "quote never closed"}},
		},
		{
			name:  "closing quote at end of input",
			in:    "x,\"abc\"",
			types: []catalog.Type{V, V},
			rows:  []string{"1:x|abc"},
		},
		{
			name:  "BOM skipped",
			in:    "\xEF\xBB\xBFa,1\nb,x\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:a|1"},
			bad:   []badWant{{2, "b,x", "not a valid BIGINT"}},
		},
		{
			name:  "BOM not part of raw",
			in:    "\xEF\xBB\xBFa,x\n",
			types: []catalog.Type{V, I},
			bad:   []badWant{{1, "a,x", "not a valid BIGINT"}},
		},
		{
			name:  "BOM only at the start",
			in:    "a,1\n\xEF\xBB\xBFb,2\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:a|1", "2:\xEF\xBB\xBFb|2"},
		},
		{
			name:  "only a BOM",
			in:    "\xEF\xBB\xBF",
			types: []catalog.Type{V, I},
		},
		{
			name:  "blank lines skipped and counted",
			in:    "\n\na,1\n\r\n\nb,2\n\n",
			types: []catalog.Type{V, I},
			rows:  []string{"3:a|1", "6:b|2"},
		},
		{
			name:  "blank lines in a one-column stream",
			in:    "a\n\nb\n\"\"\n",
			types: []catalog.Type{V},
			rows:  []string{"1:a", "3:b", "4:"},
		},
		{
			name:  "one-column null literal",
			in:    "a\nNULL\n",
			types: []catalog.Type{V},
			opts:  Options{NullLiteral: []byte("NULL"), HasNull: true},
			rows:  []string{"1:a", "2:∅"},
		},
		{
			name:  "header skipped",
			in:    "name,n\na,1\n",
			types: []catalog.Type{V, I},
			opts:  Options{Header: true},
			rows:  []string{"2:a|1"},
		},
		{
			name:  "header after blank lines, malformed header",
			in:    "\n\"name\"x,n,extra\na,1\n",
			types: []catalog.Type{V, I},
			opts:  Options{Header: true},
			rows:  []string{"3:a|1"},
		},
		{
			name:  "BOM then header",
			in:    "\xEF\xBB\xBFname,n\r\na,1\r\n",
			types: []catalog.Type{V, I},
			opts:  Options{Header: true},
			rows:  []string{"2:a|1"},
		},
		{
			name:  "multi-line header",
			in:    "\"na\nme\",n\na,1\n",
			types: []catalog.Type{V, I},
			opts:  Options{Header: true},
			rows:  []string{"3:a|1"},
		},
		{
			name:  "semicolon delimiter",
			in:    "a;1,5\n\"x;y\";2\n",
			types: []catalog.Type{V, V},
			opts:  Options{Delimiter: ';'},
			rows:  []string{"1:a|1,5", "2:x;y|2"},
		},
		{
			name:  "tab delimiter",
			in:    "a\t 1\t2.5\n",
			types: []catalog.Type{V, I, D},
			opts:  Options{Delimiter: '\t'},
			rows:  []string{"1:a|1|2.5"},
		},
		{
			name:  "custom quote",
			in:    "'a,''b''',1\n\"x,2\n",
			types: []catalog.Type{V, V},
			opts:  Options{Quote: '\''},
			rows:  []string{"1:a,'b'|1", "2:\"x|2"},
		},
		{
			name:  "empty fields",
			in:    ",,,,\n\"\",\"\",\"\",\"\",\"\"\n",
			types: []catalog.Type{V, I, D, B, T},
			rows:  []string{"1:|∅|∅|∅|∅", "2:|∅|∅|∅|∅"},
		},
		{
			// SPEC 1: a VARCHAR field keeps its spaces, quoted or not; only a
			// non-VARCHAR field of spaces is empty (NULL).
			name:  "spaces-only fields",
			in:    "  ,  ,\t, ,  \n\"  \",\" \",\"\t\",\" \",\"  \"\n\t,1,1,true,1\n",
			types: []catalog.Type{V, I, D, B, T},
			rows:  []string{"1:  |∅|∅|∅|∅", "2:  |∅|∅|∅|∅", "3:\t|1|1.0|true|1"},
		},
		{
			name:  "spaces-only varchar with empty null literal",
			in:    "  ,\"  \",\n",
			types: []catalog.Type{V, V, V},
			opts:  Options{HasNull: true},
			rows:  []string{"1:  |  |∅"},
		},
		{
			name:  "spaces-only varchar with a null literal of spaces",
			in:    "  ,   ,\"  \"\n",
			types: []catalog.Type{V, V, V},
			opts:  Options{HasNull: true, NullLiteral: []byte("  ")},
			rows:  []string{"1:∅|   |  "},
		},
		{
			name:  "line of spaces in a one-column stream",
			in:    "a\n   \n\nb\n",
			types: []catalog.Type{V},
			rows:  []string{"1:a", "2:   ", "4:b"},
		},
		{
			name:  "trimmed values, untrimmed varchar",
			in:    " a , 1 , 2.5 , TRUE , 2021-01-17 12:48:29.123 \n",
			types: []catalog.Type{V, I, D, B, T},
			rows:  []string{"1: a |1|2.5|true|1610887709123"},
		},
		{
			name:  "null literal",
			in:    "NULL,NULL,NULL,\"NULL\",x\n\\N,1,\\N,\\N,\\N\n",
			types: []catalog.Type{V, I, D, V, V},
			opts:  Options{NullLiteral: []byte("NULL"), HasNull: true},
			rows:  []string{"1:∅|∅|∅|NULL|x"},
			bad:   []badWant{{2, "\\N,1,\\N,\\N,\\N", "column c3: \"\\\\N\" is not a valid DOUBLE"}},
		},
		{
			name:  "null literal \\N and trimmed",
			in:    "\\N, \\N ,\\N\n",
			types: []catalog.Type{V, I, B},
			opts:  Options{NullLiteral: []byte(`\N`), HasNull: true},
			rows:  []string{"1:∅|∅|∅"},
		},
		{
			name:  "empty null literal keeps quoted empty varchar",
			in:    ",\"\",1\n",
			types: []catalog.Type{V, V, I},
			opts:  Options{NullLiteral: []byte(""), HasNull: true},
			rows:  []string{"1:∅||1"},
		},
		{
			name:  "field count",
			in:    "a,1\nb\nc,2,3\nd,4\n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:a|1", "4:d|4"},
			bad:   []badWant{{2, "b", "expected 2 fields, got 1"}, {3, "c,2,3", "expected 2 fields, got 3"}},
		},
		{
			name:  "field count before values",
			in:    "b,x\n",
			types: []catalog.Type{V, I, I},
			bad:   []badWant{{1, "b,x", "expected 3 fields, got 2"}},
		},
		{
			name:  "ragged",
			in:    "a\nb,2\nc,3,x,y\n\"d\",\"4\",\"z\"\n",
			types: []catalog.Type{V, I},
			opts:  Options{AllowRagged: true},
			rows:  []string{"1:a|∅", "2:b|2", "3:c|3", "4:d|4"},
		},
		{
			name:  "ragged varchar missing is NULL",
			in:    "a\n",
			types: []catalog.Type{V, V, V},
			opts:  Options{AllowRagged: true},
			rows:  []string{"1:a|∅|∅"},
		},
		{
			name:  "types",
			in:    "-9223372036854775808,1e400,false,1610035289736\n+7,-0,True,2021-01-17T20:48:29+08:00\n",
			types: []catalog.Type{I, D, B, T},
			rows:  []string{"1:-9223372036854775808|Infinity|false|1610035289736", "2:7|-0.0|true|1610887709000"},
		},
		{
			name:  "bad values name the column",
			in:    "9223372036854775808,1,true,0\n1,inf,true,0\n1,1,yes,0\n1,1,true,2021-02-30\n",
			types: []catalog.Type{I, D, B, T},
			bad: []badWant{
				{1, "9223372036854775808,1,true,0", "column c1: \"9223372036854775808\" is not a valid BIGINT"},
				{2, "1,inf,true,0", "column c2: \"inf\" is not a valid DOUBLE"},
				{3, "1,1,yes,0", "column c3: \"yes\" is not a valid BOOLEAN"},
				{4, "1,1,true,2021-02-30", "column c4: \"2021-02-30\" is not a valid TIMESTAMP"},
			},
		},
		{
			name:  "CJK",
			in:    "设备1,温度,88.2\n\"设备,9\",\"多\n行\",50.0\n",
			types: []catalog.Type{V, V, D},
			rows:  []string{"1:设备1|温度|88.2", "2:设备,9|多\n行|50.0"},
		},
		{
			name:  "invalid UTF-8 in varchar",
			in:    "a\xff,1\nb,2\n\"c\xc3\",3\n",
			types: []catalog.Type{V, I},
			rows:  []string{"2:b|2"},
			bad:   []badWant{{1, "a\xff,1", "column c1: invalid UTF-8"}, {3, "\"c\xc3\",3", "column c1: invalid UTF-8"}},
		},
		{
			name:  "invalid UTF-8 in a number column",
			in:    "a,1\xff\n",
			types: []catalog.Type{V, I},
			bad:   []badWant{{1, "a,1\xff", "not a valid BIGINT"}},
		},
		{
			name:  "empty input",
			in:    "",
			types: []catalog.Type{V, I},
		},
		{
			name:  "only blank lines",
			in:    "\n\r\n\n",
			types: []catalog.Type{V, I},
		},
		{
			name:  "spaces-only line is a record",
			in:    "a,1\n  \n",
			types: []catalog.Type{V, I},
			rows:  []string{"1:a|1"},
			bad:   []badWant{{2, "  ", "expected 2 fields, got 1"}},
		},
		{
			name:  "trailing delimiter",
			in:    "a,\n\"b\",\n",
			types: []catalog.Type{V, V},
			rows:  []string{"1:a|", "2:b|"},
		},
		{
			name:  "quote char only at field start opens",
			in:    "a,b\"\"c,\"d\"\n",
			types: []catalog.Type{V, V, V},
			rows:  []string{"1:a|b\"\"c|d"},
		},
		{
			name:  "record longer than max-record-size",
			in:    "a,1\nbbbbbbbbbbbb,2\r\nc,3\n",
			types: []catalog.Type{V, I},
			opts:  Options{MaxRecord: 8},
			rows:  []string{"1:a|1", "3:c|3"},
			bad:   []badWant{{2, "bbbbbbbbbbbb,2", "record longer than 'max-record-size' (8 bytes"}},
		},
		{
			name:  "records of exactly max-record-size, LF and CRLF",
			in:    "abcdef,1\r\nabcdef,2\nabcdef,3",
			types: []catalog.Type{V, I},
			opts:  Options{MaxRecord: 8},
			rows:  []string{"1:abcdef|1", "2:abcdef|2", "3:abcdef|3"},
		},
		{
			name:  "quoted multi-line record longer than max-record-size",
			in:    "a,1\n\"x\nyyyyyyyyyyy\nz,\"\"\n\",2\nc,3\n",
			types: []catalog.Type{V, I},
			opts:  Options{MaxRecord: 8},
			rows:  []string{"1:a|1", "6:c|3"},
			bad:   []badWant{{2, "\"x\nyyyyyyyyyyy\nz,\"\"\n\",2", "'max-record-size'"}},
		},
		{
			name:  "long record at the end without a line end",
			in:    "a,1\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
			types: []catalog.Type{V, I},
			opts:  Options{MaxRecord: 8},
			rows:  []string{"1:a|1"},
			bad:   []badWant{{2, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "'max-record-size'"}},
		},
		{
			name:  "long header is skipped",
			in:    "nameeeeeeeeeeeeeeee,n\na,1\n",
			types: []catalog.Type{V, I},
			opts:  Options{MaxRecord: 8, Header: true},
			rows:  []string{"2:a|1"},
		},
		{
			name:  "allow-ragged: invalid UTF-8 in a dropped extra field",
			in:    "a,1,ok,\xff\nb,2,\xfe\nc,3,x\n\"d\",4,\"\xff\"\n",
			types: []catalog.Type{V, I},
			opts:  Options{AllowRagged: true},
			rows:  []string{"3:c|3"},
			bad: []badWant{
				{1, "a,1,ok,\xff", "field 4: invalid UTF-8"},
				{2, "b,2,\xfe", "field 3: invalid UTF-8"},
				{4, "\"d\",4,\"\xff\"", "field 3: invalid UTF-8"},
			},
		},
		{
			name:  "quoted field followed by CR then data",
			in:    "\"a\"\rb,1\n",
			types: []catalog.Type{V, I},
			bad:   []badWant{{1, "\"a\"\rb,1", "text after closing quote"}},
		},
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one-byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"data-err": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
	for _, tt := range tests {
		for rname, mk := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				res, err := decodeAll(t, mk(tt.in), tt.types, tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				if !equalStrings(res.rows, tt.rows) {
					t.Errorf("rows:\n got %q\nwant %q", res.rows, tt.rows)
				}
				if len(res.bad) != len(tt.bad) {
					t.Fatalf("bad rows: got %d %+v, want %+v", len(res.bad), res.bad, tt.bad)
				}
				for i, want := range tt.bad {
					got := res.bad[i]
					if got.Line != want.line || string(got.Raw) != want.raw || !strings.Contains(got.Reason, want.reason) {
						t.Errorf("bad[%d] = %d %q %q, want %d %q reason containing %q", i, got.Line, got.Raw, got.Reason, want.line, want.raw, want.reason)
					}
				}
			})
		}
	}
}

type badWant struct {
	line   int64
	raw    string
	reason string
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

// TestSensorsBad decodes the shared bad-rows case.
func TestSensorsBad(t *testing.T) {
	data, err := os.ReadFile("../../../shared/cases/bad-rows/sensors_bad.csv")
	if err != nil {
		t.Skip("shared case not available:", err)
	}
	res, err := decodeAll(t, bytes.NewReader(data), []catalog.Type{V, I, D}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantRows := []string{
		"1:设备8|1610035289736|84.3",
		"3:设备5|1610035371758|38.8",
		"6:设备,9|1610035623427|50.0",
		"8:设备7|1610035877019|88.2",
	}
	if !equalStrings(res.rows, wantRows) {
		t.Errorf("rows:\n got %q\nwant %q", res.rows, wantRows)
	}
	wantBad := []struct {
		line int64
		raw  string
	}{{2, "设备1,abc,10.2"}, {5, "设备2,1610035543127"}, {7, "设备3,1610035705302,12.5,extra"}}
	if len(res.bad) != len(wantBad) {
		t.Fatalf("bad rows %+v", res.bad)
	}
	for i, w := range wantBad {
		if res.bad[i].Line != w.line || string(res.bad[i].Raw) != w.raw {
			t.Errorf("bad[%d] = %d %q, want %d %q", i, res.bad[i].Line, res.bad[i].Raw, w.line, w.raw)
		}
		t.Logf("line %d: %s", res.bad[i].Line, res.bad[i].Reason)
	}
	if res.bad[0].Reason != `column c2: "abc" is not a valid BIGINT` {
		t.Errorf("reason %q", res.bad[0].Reason)
	}
}

// TestBadRowIndex checks Index against the good rows of the same batch.
func TestBadRowIndex(t *testing.T) {
	in := "x\na,1\nb,2\ny\nc,3\nz\n"
	d := NewDecoder(strings.NewReader(in), []string{"s", "n"}, []catalog.Type{V, I}, Options{})
	b := vector.NewBatch([]catalog.Type{V, I})
	var bad []BadRow
	if err := d.Decode(b, &bad); err != nil {
		t.Fatal(err)
	}
	if b.N != 3 || len(bad) != 3 {
		t.Fatalf("N=%d bad=%d", b.N, len(bad))
	}
	for i, want := range []int{0, 2, 3} {
		if bad[i].Index != want {
			t.Errorf("bad[%d].Index = %d, want %d", i, bad[i].Index, want)
		}
	}
	bad = bad[:0]
	if err := d.Decode(b, &bad); err != io.EOF {
		t.Fatalf("second Decode: %v", err)
	}
}

// TestBatching checks full batches, positions across batches and BytesRead.
func TestBatching(t *testing.T) {
	var sb strings.Builder
	const n = 5000
	for i := range n {
		fmt.Fprintf(&sb, "dev%d,%d\n", i, i)
	}
	in := sb.String()
	d := NewDecoder(strings.NewReader(in), []string{"s", "n"}, []catalog.Type{V, I}, Options{})
	b := vector.NewBatch([]catalog.Type{V, I})
	var bad []BadRow
	got := 0
	for {
		bad = bad[:0]
		err := d.Decode(b, &bad)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			if b.Cols[1].I[i] != int64(got) || b.Pos[i] != int64(got+1) || string(b.Cols[0].S[i]) != "dev"+strconv.Itoa(got) {
				t.Fatalf("row %d: %s", got, formatRow(b, i))
			}
			got++
		}
	}
	if got != n {
		t.Fatalf("got %d rows", got)
	}
	if d.BytesRead() != int64(len(in)) {
		t.Errorf("BytesRead = %d, want %d", d.BytesRead(), len(in))
	}
}

// TestLongRecord checks a record far longer than the initial buffer.
func TestLongRecord(t *testing.T) {
	long := strings.Repeat("x", 3*initialBufSize+17)
	quoted := strings.Repeat("a\"\"b\n", initialBufSize/2)
	in := "a,1\n" + long + ",2\n\"" + quoted + "\",3\nb,4\n"
	for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
		res, err := decodeAll(t, r, []catalog.Type{V, I}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		unq := strings.ReplaceAll(quoted, "\"\"", "\"")
		want := []string{"1:a|1", "2:" + long + "|2", "3:" + unq + "|3", fmt.Sprintf("%d:b|4", 4+strings.Count(quoted, "\n"))}
		if !equalStrings(res.rows, want) {
			t.Fatalf("long records decoded wrongly (%d rows)", len(res.rows))
		}
	}
}

// liveReader hands out the chunks it is given and fails the test if Read is called
// while the decoder should have returned its rows.
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
// again when no complete record remains (a socket would block there).
func TestLiveSource(t *testing.T) {
	r := &liveReader{chunks: []string{"a,1\nb,", "2\n", "c,3\n\"d\n", "x\",4\n"}}
	d := NewDecoder(r, nil, []catalog.Type{V, I}, Options{})
	b := vector.NewBatch([]catalog.Type{V, I})
	var bad []BadRow
	want := [][]string{{"1:a|1"}, {"2:b|2"}, {"3:c|3"}, {"4:d\nx|4"}}
	for i, w := range want {
		bad = bad[:0]
		if err := d.Decode(b, &bad); err != nil {
			t.Fatal(err)
		}
		var got []string
		for j := 0; j < b.N; j++ {
			got = append(got, formatRow(b, j))
		}
		if !equalStrings(got, w) {
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
	r := io.MultiReader(strings.NewReader("a,1\nb,2\nc,"), iotest.ErrReader(boom))
	d := NewDecoder(r, nil, []catalog.Type{V, I}, Options{})
	b := vector.NewBatch([]catalog.Type{V, I})
	var bad []BadRow
	if err := d.Decode(b, &bad); err != nil || b.N != 2 {
		t.Fatalf("first Decode: %v, %d rows", err, b.N)
	}
	if err := d.Decode(b, &bad); err != boom {
		t.Fatalf("second Decode: %v", err)
	}
	if err := d.Decode(b, &bad); err != boom {
		t.Fatalf("third Decode: %v", err)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{Delimiter: '"'}, {Quote: ','}, {Delimiter: '\n'}, {Quote: '\r'}} {
		d := NewDecoder(strings.NewReader("a\n"), nil, []catalog.Type{V}, o)
		var bad []BadRow
		if err := d.Decode(vector.NewBatch([]catalog.Type{V}), &bad); err == nil || err == io.EOF {
			t.Errorf("options %+v: no error", o)
		}
	}
	d := NewDecoder(strings.NewReader("a\n"), nil, []catalog.Type{V, I}, Options{})
	var bad []BadRow
	if err := d.Decode(vector.NewBatch([]catalog.Type{V}), &bad); err == nil {
		t.Error("batch with too few columns: no error")
	}
	if err := d.Decode(vector.NewBatch([]catalog.Type{V, D}), &bad); err == nil {
		t.Error("batch with a wrong column type: no error")
	}
}

// TestExtraBatchColumns checks that columns beyond the decoder's are left alone.
func TestExtraBatchColumns(t *testing.T) {
	d := NewDecoder(strings.NewReader("a,1\nb\n"), nil, []catalog.Type{V, I}, Options{AllowRagged: true})
	b := vector.NewBatch([]catalog.Type{V, I, I})
	b.Cols[2].I[0], b.Cols[2].I[1] = 7, 8
	var bad []BadRow
	if err := d.Decode(b, &bad); err != nil || b.N != 2 {
		t.Fatalf("Decode: %v, %d rows", err, b.N)
	}
	if b.Cols[2].Null[0] || b.Cols[2].Null[1] || b.Cols[2].I[0] != 7 || b.Cols[2].I[1] != 8 || !b.Cols[1].Null[1] {
		t.Error("extra column touched or missing field not NULL")
	}
}

// TestBufferReuse checks that values of one batch are intact until the next Decode
// even when the decoder moves data within its buffer between batches.
func TestBufferReuse(t *testing.T) {
	var sb strings.Builder
	for i := range 40000 {
		if i%7 == 0 {
			fmt.Fprintf(&sb, "\"q\"\"%d\",%d\n", i, i)
		} else {
			fmt.Fprintf(&sb, "value-%d,%d\n", i, i)
		}
	}
	res, err := decodeAll(t, iotest.HalfReader(strings.NewReader(sb.String())), []catalog.Type{V, I}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.rows {
		var want string
		if i%7 == 0 {
			want = fmt.Sprintf("%d:q\"%d|%d", i+1, i, i)
		} else {
			want = fmt.Sprintf("%d:value-%d|%d", i+1, i, i)
		}
		if r != want {
			t.Fatalf("row %d = %q, want %q", i, r, want)
		}
	}
}

// sensorCSV makes n rows of deviceNo,ts,temperature.
// With quoted, every third device name is quoted with a doubled quote inside.
func sensorCSV(n int, quoted bool) []byte {
	var buf bytes.Buffer
	ts := int64(1610035289736)
	for i := range n {
		if quoted && i%3 == 0 {
			buf.WriteString(`"dev""ice-`)
			buf.WriteString(strconv.Itoa(i % 500))
			buf.WriteString(`",`)
		} else {
			buf.WriteString("device-")
			buf.WriteString(strconv.Itoa(i % 500))
			buf.WriteByte(',')
		}
		buf.WriteString(strconv.FormatInt(ts+int64(i)*1013, 10))
		buf.WriteByte(',')
		buf.Write(textconv.AppendDouble(nil, float64(i%1000)/10+0.5))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func TestDecodeZeroAllocs(t *testing.T) {
	for name, in := range map[string][]byte{"plain": sensorCSV(20000, false), "quoted": sensorCSV(20000, true)} {
		types := []catalog.Type{V, I, D}
		d := NewDecoder(bytes.NewReader(in), []string{"deviceNo", "ts", "temperature"}, types, Options{})
		if allocs := batchAllocs(t, d, types); allocs != 0 {
			t.Errorf("%s: %v allocations per batch", name, allocs)
		}
	}
}

// batchAllocs returns the allocations per Decode call of d (after three
// calls to warm up: the arenas grow during the first batches), failing t on
// an error or a bad row.
func batchAllocs(t *testing.T, d *Decoder, types []catalog.Type) float64 {
	t.Helper()
	b := vector.NewBatch(types)
	bad := make([]BadRow, 0, 16)
	for range 3 {
		bad = bad[:0]
		if err := d.Decode(b, &bad); err != nil {
			t.Fatal(err)
		}
	}
	return testing.AllocsPerRun(10, func() {
		bad = bad[:0]
		if err := d.Decode(b, &bad); err != nil {
			t.Fatal(err)
		}
		if len(bad) != 0 {
			t.Fatalf("bad rows: %+v", bad[0])
		}
	})
}

// BenchmarkDecode decodes a generated 100k-row sensor CSV (VARCHAR, BIGINT,
// DOUBLE): plain, and with a third of the names quoted with a doubled quote
// inside (copied into the arena). An op is the whole input (about 98 batches,
// one new decoder: 3 allocations per op, none per batch).
func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct {
		name   string
		quoted bool
	}{{"plain", false}, {"quoted", true}} {
		b.Run(bc.name, func(b *testing.B) {
			data := sensorCSV(100000, bc.quoted)
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

// TestNoQuadratic decodes lines full of quotes, which once made scanning quadratic.
func TestNoQuadratic(t *testing.T) {
	n := 1 << 20
	inputs := []string{
		"a" + strings.Repeat("\"", n) + ",1\n",            // quotes as data
		"a" + strings.Repeat("\"x", n/2) + ",1\n",         // quotes as data, spread
		strings.Repeat("\"\",", n/3) + "\"\"\n",           // many quoted empty fields
		"\"" + strings.Repeat("\"\"", n/2) + "\",1\n",     // many doubled quotes
		strings.Repeat("\n", n) + "a,1\n",                 // many blank lines
		"\"a\"" + strings.Repeat("x\"", n/2) + ",1\n",     // text after closing quote
		strings.Repeat("a,", n/2) + "1\n",                 // many fields
		"\"" + strings.Repeat("a\n", n/2) + "\",1\nb,2\n", // long multi-line field
		strings.Repeat("\"a\"\"b\",\"c\"\n", n/10),        // many short quoted records
		strings.Repeat("ab\"c,d\"\n", n/8),                // many short records with data quotes
	}
	for i, in := range inputs {
		start := time.Now()
		for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
			if _, err := decodeAll(t, r, []catalog.Type{V, V}, Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d > 30*time.Second { // quadratic scanning would take hours
			t.Errorf("input %d took %v", i, d)
		}
	}
}

// TestNotNull checks that a NULL in a NotNull column (the event-time column)
// makes the row malformed, whether the field is empty, the null literal, or
// missing in a ragged row (SPEC 2.3).
func TestNotNull(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt}
	opts := Options{NotNull: []bool{false, true}, HasNull: true, NullLiteral: []byte("null"), AllowRagged: true}
	d := NewDecoder(strings.NewReader("a,1\nb,\nc,null\nd\n,5\n"), []string{"w", "ts"}, types, opts)
	b := vector.NewBatch(types)
	var bad []BadRow
	if err := d.Decode(b, &bad); err != nil {
		t.Fatal(err)
	}
	if b.N != 2 || b.Cols[1].I[0] != 1 || b.Cols[1].I[1] != 5 {
		t.Errorf("good rows: n=%d", b.N)
	}
	var lines []int64
	for _, x := range bad {
		lines = append(lines, x.Line)
		if !strings.Contains(x.Reason, "column ts") {
			t.Errorf("reason %q does not name the column", x.Reason)
		}
	}
	if fmt.Sprint(lines) != "[2 3 4]" {
		t.Errorf("bad lines %v, want [2 3 4]", lines)
	}
}
