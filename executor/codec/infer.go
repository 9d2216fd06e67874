package codec

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"streamql/catalog"
	"streamql/catalog/textconv"
)

// InferRows is how many rows InferSchema reads (SPEC 1: the first 1,000).
const InferRows = 1000

// InferSchema returns the columns of a csv or json lines file read without
// a declared schema (SPEC 1: CREATE STREAM s WITH (...) without a column
// list, FROM 'file.csv', DESCRIBE 'file.json'): names from the csv header
// (header true, which the caller decides with CSVHasHeader unless
// 'csv.header' is written; else column1, column2, ...) or the json keys in the order
// they first appear; types from the first InferRows rows, the first of
// BIGINT, DOUBLE, BOOLEAN, TIMESTAMP that reads every value of the column,
// else VARCHAR (a column with no value is VARCHAR). format is "csv" or
// "json"; delim and quote are csv's (0: ',' and '"'). Errors name the path.
func InferSchema(path, format string, delim, quote byte, header bool) ([]catalog.Column, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot infer the columns of '%s': %v", path, err)
	}
	defer f.Close()
	rec := Lookup(format)
	if rec == nil || rec.Infer == nil {
		return nil, fmt.Errorf("cannot infer the columns of '%s': format '%s' has no names; declare the columns", path, format)
	}
	names, kinds, err := rec.Infer(f, InferOptions{Delim: delim, Quote: quote, Header: header})
	if err != nil {
		return nil, fmt.Errorf("cannot infer the columns of '%s': %v", path, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("cannot infer the columns of '%s': it has no rows; declare the columns: CREATE STREAM s (col TYPE, ...) WITH (...)", path)
	}
	cols := make([]catalog.Column, len(names))
	for i, n := range names {
		cols[i] = catalog.Column{Name: n, Type: kinds[i].Type()}
	}
	return cols, nil
}

// CSVHasHeader reports whether the first line of the csv file at path is a
// header, for a file read without a column list and without 'csv.header'
// (SPEC 1: names from the csv header), as DuckDB's sniffer decides: it is
// not when its values read as the types the column's other values (of the
// next InferRows records) infer, in every column, and at least one of them
// is a BIGINT, DOUBLE, BOOLEAN or TIMESTAMP value (a headerless file of
// readings such as queries/sensors.csv: 设备8,1610035289736,84.3), since
// taking such a line as names would lose a row and name columns after data;
// otherwise it is (a file of text columns only, or of one line, keeps its
// first line as names). delim and quote are csv's (0: ',' and '"'). Errors
// name the path.
func CSVHasHeader(path string, delim, quote byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("cannot infer the columns of '%s': %v", path, err)
	}
	defer f.Close()
	if delim == 0 {
		delim = ','
	}
	cr := csv.NewReader(bufio.NewReader(skipBOM(f)))
	cr.Comma, cr.FieldsPerRecord, cr.LazyQuotes = rune(delim), -1, true
	_ = quote // (encoding/csv quotes with '"' only, as inferCSV)
	first, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return true, nil
		}
		return false, fmt.Errorf("cannot infer the columns of '%s': %v", path, err)
	}
	kinds := make([]Kind, len(first))
	for n := 0; n < InferRows; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, fmt.Errorf("cannot infer the columns of '%s': %v", path, err)
		}
		for i, v := range rec {
			if i < len(kinds) {
				kinds[i].see([]byte(v))
			}
		}
	}
	typed := false
	for i, v := range first {
		t := kinds[i].Type()
		if t == catalog.Varchar || len(textconv.Trim([]byte(v))) == 0 {
			continue // (text fits any name; an empty value is no value)
		}
		var one Kind
		one.see([]byte(v))
		if !readsAs(one, t) {
			return true, nil // (a name such as ts above BIGINT values)
		}
		typed = true
	}
	return !typed, nil
}

// readsAs reports whether the values k has seen all read as type t.
func readsAs(k Kind, t catalog.Type) bool {
	switch t {
	case catalog.BigInt:
		return !k.notInt
	case catalog.Double:
		return !k.notDouble
	case catalog.Boolean:
		return !k.notBool
	case catalog.Timestamp:
		return !k.notTimestamp
	}
	return true
}

// Kind is what the values of one column seen so far can all be read as
// (Record.Infer's result): its type is the first of BIGINT, DOUBLE, BOOLEAN,
// TIMESTAMP that reads every value, else VARCHAR.
type Kind struct {
	seen                  bool // a value was seen
	notInt, notDouble     bool
	notBool, notTimestamp bool
}

// see narrows k by one text value (csv, or a json string); empty is no value.
func (k *Kind) see(v []byte) {
	v = textconv.Trim(v)
	if len(v) == 0 {
		return
	}
	k.seen = true
	if _, ok := textconv.ParseInt(v); !ok {
		k.notInt = true
	}
	if _, ok := textconv.ParseDouble(v); !ok {
		k.notDouble = true
	}
	if _, ok := textconv.ParseBool(v); !ok {
		k.notBool = true
	}
	if _, ok := textconv.ParseTimestamp(v); !ok || !bytes.ContainsAny(v, "-:") {
		k.notTimestamp = true // (epoch digits read as BIGINT)
	}
}

// Type returns the SQL type the values seen so far read as.
func (k *Kind) Type() catalog.Type {
	switch {
	case !k.seen:
		return catalog.Varchar
	case !k.notInt:
		return catalog.BigInt
	case !k.notDouble:
		return catalog.Double
	case !k.notBool:
		return catalog.Boolean
	case !k.notTimestamp:
		return catalog.Timestamp
	}
	return catalog.Varchar
}

// inferCSV is csv's Record.Infer.
func inferCSV(r io.Reader, o InferOptions) ([]string, []Kind, error) {
	delim, quote, header := o.Delim, o.Quote, o.Header
	if delim == 0 {
		delim = ','
	}
	cr := csv.NewReader(bufio.NewReader(skipBOM(r)))
	cr.Comma, cr.FieldsPerRecord, cr.LazyQuotes, cr.ReuseRecord = rune(delim), -1, true, true
	_ = quote // (encoding/csv quotes with '"' only: good enough to sniff types)
	var names []string
	var kinds []Kind
	for n := 0; n <= InferRows; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if n == 0 && header {
			names = append(names, rec...)
			kinds = make([]Kind, len(names))
			continue
		}
		for len(kinds) < len(rec) && !header {
			names = append(names, "column"+strconv.Itoa(len(kinds)+1))
			kinds = append(kinds, Kind{})
		}
		for i, f := range rec {
			if i < len(kinds) {
				kinds[i].see([]byte(f))
			}
		}
	}
	return names, kinds, nil
}

// inferJSON is json's Record.Infer.
func inferJSON(r io.Reader, _ InferOptions) ([]string, []Kind, error) {
	sc := bufio.NewScanner(skipBOM(r))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var names []string
	var kinds []Kind
	at := map[string]int{}
	for n := 0; n < InferRows && sc.Scan(); {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		n++
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			continue // not an object: a malformed row when read
		}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				break
			}
			key, _ := kt.(string)
			var v any
			if err := dec.Decode(&v); err != nil {
				break
			}
			i, ok := at[key]
			if !ok {
				i = len(names)
				at[key] = i
				names, kinds = append(names, key), append(kinds, Kind{})
			}
			k := &kinds[i]
			switch v := v.(type) {
			case nil:
			case json.Number:
				k.see([]byte(v.String()))
				k.notBool, k.notTimestamp = true, true
			case bool:
				k.seen, k.notInt, k.notDouble, k.notTimestamp = true, true, true, true
			case string:
				k.see([]byte(v))
			default: // objects and arrays are kept as their JSON text
				k.seen, k.notInt, k.notDouble, k.notBool, k.notTimestamp = true, true, true, true, true
			}
		}
	}
	return names, kinds, sc.Err()
}

// skipBOM returns r without a leading UTF-8 BOM.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	return br
}
