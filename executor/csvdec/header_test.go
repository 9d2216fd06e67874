package csvdec

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"streamql/catalog"
)

func TestReadHeader(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a,b,c\n1,2,3\n", []string{"a", "b", "c"}},
		{"\xef\xbb\xbf\r\n\"x,y\";\"q\"\"\";z\r\n1", []string{"x,y", "q\"", "z"}},
		{"", nil},
		{"only", []string{"only"}},
	} {
		delim := byte(',')
		if strings.Contains(tc.in, ";") {
			delim = ';'
		}
		got, err := ReadHeader(strings.NewReader(tc.in), delim, 0)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ReadHeader(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := ReadHeader(strings.NewReader(strings.Repeat("x", 2<<20)), 0, 0); err == nil {
		t.Error("a 2 MiB header line: no error")
	}
}

// TestHeaderMap: SPEC 1's rule, by names when every declared column is in the
// header (case-insensitive, undeclared header fields ignored), else by
// position (nil), and nil when the header is the columns in order.
func TestHeaderMap(t *testing.T) {
	for _, tc := range []struct {
		names, header []string
		want          []int
	}{
		{[]string{"deviceNo", "ts"}, []string{"TS", "extra", "DEVICENO"}, []int{1, -1, 0}},
		{[]string{"a", "b"}, []string{"a", "b"}, nil},
		{[]string{"a", "b"}, []string{"a", "c"}, nil},
		{[]string{"a", "b"}, []string{"a", "b", "c"}, []int{0, 1, -1}},
		{[]string{"a"}, nil, nil},
	} {
		if got := HeaderMap(tc.names, tc.header); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("HeaderMap(%q, %q) = %v, want %v", tc.names, tc.header, got, tc.want)
		}
	}
}

// TestDecodeByHeader decodes a file whose header orders the columns
// otherwise, with an undeclared field, quoted fields, a record of the wrong
// field count (malformed: the header's count is the rule) and a ragged one.
func TestDecodeByHeader(t *testing.T) {
	in := "temperature,extra,deviceNo,ts\n10.5,x,d1,1\n\"80.25\",\"y,z\",\"d\"\"2\",2\n1.0,x,d3\n"
	types := []catalog.Type{V, I, D}
	opts := Options{Header: true, FieldMap: HeaderMap([]string{"deviceNo", "ts", "temperature"}, []string{"temperature", "extra", "deviceNo", "ts"})}
	res, err := decodeAll(t, strings.NewReader(in), types, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"2:d1|1|10.5", "3:d\"2|2|80.25"}; !reflect.DeepEqual(res.rows, want) {
		t.Errorf("rows %q, want %q", res.rows, want)
	}
	if len(res.bad) != 1 || res.bad[0].Reason != "expected 4 fields (as the header has), got 3" {
		t.Errorf("bad %+v", res.bad)
	}
	opts.AllowRagged = true
	res, _ = decodeAll(t, strings.NewReader(in), types, opts)
	if len(res.rows) != 3 || res.rows[2] != "4:d3|∅|1.0" {
		t.Errorf("ragged: rows %q", res.rows)
	}
}

// TestDecodeByHeaderZeroAllocs: mapping by the header's names allocates
// nothing per batch, as the positional paths.
func TestDecodeByHeaderZeroAllocs(t *testing.T) {
	in := append([]byte("temperature,ts,deviceNo\n"), sensorCSVReordered(20000)...)
	types := []catalog.Type{V, I, D}
	opts := Options{Header: true, FieldMap: []int{2, 1, 0}}
	d := NewDecoder(bytes.NewReader(in), []string{"deviceNo", "ts", "temperature"}, types, opts)
	if allocs := batchAllocs(t, d, types); allocs != 0 {
		t.Errorf("%v allocations per batch", allocs)
	}
}

// sensorCSVReordered is sensorCSV's rows with the fields in the order
// temperature, ts, deviceNo.
func sensorCSVReordered(n int) []byte {
	var out []byte
	for _, l := range bytes.Split(bytes.TrimRight(sensorCSV(n, false), "\n"), []byte("\n")) {
		f := bytes.Split(l, []byte(","))
		out = append(append(append(append(append(append(out, f[2]...), ','), f[1]...), ','), f[0]...), '\n')
	}
	return out
}
