package catalog

import (
	"strings"
	"testing"

	"streamql/parser"
)

func TestParseType(t *testing.T) {
	ok := map[string]Type{
		"BIGINT": BigInt, "int": BigInt, "INTEGER": BigInt, "smallint": BigInt, "TINYINT": BigInt,
		"DOUBLE": Double, "FLOAT": Double, "REAL": Double, "DECIMAL(10, 2)": Double,
		"VARCHAR": Varchar, "varchar(20)": Varchar, "STRING": Varchar, "TEXT": Varchar, "CHAR": Varchar,
		"BOOLEAN": Boolean, "TIMESTAMP": Timestamp, "TIMESTAMP(3)": Timestamp,
	}
	for name, want := range ok {
		if got, err := ParseType(name); err != nil || got != want {
			t.Errorf("ParseType(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	for _, bad := range []string{"BLOB", "TIMESTAMP(6)", "INT(3", "", "BOOLEAN(1)"} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) gave no error", bad)
		}
	}
}

func opts(kv ...string) []parser.Option {
	var o []parser.Option
	for i := 0; i < len(kv); i += 2 {
		o = append(o, parser.Option{Key: kv[i], Value: kv[i+1], KeyPos: i, ValuePos: i + 1})
	}
	return o
}

func TestValidateOptions(t *testing.T) {
	cols := []Column{{Name: "product", Type: Varchar}, {Name: "qty", Type: BigInt}}
	spec, vals, err := ValidateOptions(opts("connector", "file", "path", "x.csv", "csv.delimiter", `\t`), cols, 0)
	if err != nil || spec.Name != "file" || vals["csv.delimiter"] != "\t" || vals["format"] != "csv" || vals["errors"] != "side" || vals["errors.side"] != "errors" {
		t.Fatalf("file: %v %v %v", spec, vals, err)
	}
	_, vals, err = ValidateOptions(opts("connector", "datagen", "fields.PRODUCT.values", "a,b", "fields.qty.kind", "sequence"), cols, 0)
	if err != nil || vals["fields.product.values"] != "a,b" || vals["fields.qty.kind"] != "sequence" {
		t.Fatalf("datagen pattern options: %v %v", vals, err)
	}
	bad := []struct {
		o    []parser.Option
		want string
		pos  int
	}{
		{opts("connector", "file"), "needs option 'path'", 0},
		{opts("connector", "nope"), "unknown connector 'nope'", 1},
		{opts("connector", "file", "path", "x", "pth", "y"), "valid options: connector, path, follow", 4},
		{opts("connector", "file", "path", "x", "csv.header", "yes"), "not true or false", 5},
		{opts("connector", "file", "path", "x", "csv.delimiter", ";;"), "exactly one character", 5},
		// a line end as delimiter or quote is refused at CREATE STREAM (exit 2),
		// not when the job runs
		{opts("connector", "file", "path", "x", "csv.delimiter", "\n"), `'\x0a' is a line end`, 5},
		{opts("connector", "file", "path", "x", "csv.delimiter", "\r"), `'\x0d' is a line end`, 5},
		{opts("connector", "file", "path", "x", "csv.quote", "\n"), `'\x0a' is a line end`, 5},
		{opts("connector", "stdin", "csv.quote", "\r"), `'\x0d' is a line end`, 3},
		// csv.* options on a json stream are a mistake, not ignored
		{opts("connector", "file", "path", "x", "format", "json", "csv.header", "true"), "applies to 'format' = 'csv'", 6},
		{opts("connector", "stdin", "format", "JSON", "csv.null-literal", "NULL"), "format is json", 4},
		{opts("connector", "file", "path", "x", "errors", "ignore"), "side, skip, fail", 5},
		{opts("connector", "datagen", "fields.nosuch.kind", "random"), "unknown option 'fields.nosuch.kind'", 2},
		{opts("connector", "file", "path", "x", "path", "y"), "twice", 4},
		{opts("path", "x"), "needs WITH ('connector'", 0},
		{opts("connector", "file", "path", "x", "errors.side", "../evil"), "not a side output name", 5},
		{opts("connector", "file", "path", "x", "errors.side", "main"), "not a side output name", 5},
		{opts("connector", "file", "path", "x", "errors.side", ""), "not a side output name", 5},
		{opts("connector", "file", "path", "x", "errors.side", "bad\nname"), "control characters", 5},
		{opts("connector", "file", "path", "x", "errors.side", "x\x00"), "control characters", 5},
	}
	for _, c := range bad {
		_, _, err := ValidateOptions(c.o, cols, 0)
		pe, ok := err.(*parser.Error)
		if !ok || !strings.Contains(pe.Msg, c.want) || pe.Offset != c.pos {
			t.Errorf("%v: error %v, want %q at %d", c.o, err, c.want, c.pos)
		}
	}
}

// TestMaxRecordSize: the stream option 'max-record-size' (SPEC 1) takes bytes
// or KiB, MiB, GiB, defaults to 64MiB, and a bad value names the option.
func TestMaxRecordSize(t *testing.T) {
	for v, want := range map[string]int64{"1": 1, "4096": 4096, "512KiB": 512 << 10, "64MiB": 64 << 20, "1GiB": 1 << 30, "2 mib": 2 << 20} {
		if got, err := ParseSize(v); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", v, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1.5MiB", "10MB", "MiB", "abc", "99999999999GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) gave no error", bad)
		}
	}
	cols := []Column{{Name: "v", Type: Varchar}}
	for conn, kv := range map[string][]string{"file": {"path", "x"}, "stdin": nil, "socket": {"port", "1"}} {
		_, vals, err := ValidateOptions(opts(append([]string{"connector", conn}, kv...)...), cols, 0)
		if err != nil || vals["max-record-size"] != "64MiB" {
			t.Errorf("%s: default max-record-size %q, %v", conn, vals["max-record-size"], err)
		}
	}
	_, _, err := ValidateOptions(opts("connector", "stdin", "max-record-size", "10MB"), cols, 0)
	if err == nil || !strings.Contains(err.Error(), "option 'max-record-size'") || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("bad max-record-size: %v", err)
	}
}
