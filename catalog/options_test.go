package catalog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"streamql/catalog"
	_ "streamql/executor/connector"       // registers the connectors of SPEC 1
	_ "streamql/executor/connector/kafka" // registers kafka and upsert-kafka
)

func opts(kv ...string) []catalog.Option {
	var o []catalog.Option
	for i := 0; i < len(kv); i += 2 {
		o = append(o, catalog.Option{Key: kv[i], Value: kv[i+1], KeyPos: i, ValuePos: i + 1})
	}
	return o
}

func TestValidateOptions(t *testing.T) {
	cols := []catalog.Column{{Name: "product", Type: catalog.Varchar}, {Name: "qty", Type: catalog.BigInt}}
	spec, vals, err := catalog.ValidateOptions(opts("connector", "file", "path", "x.csv", "csv.delimiter", `\t`), cols, 0)
	if err != nil || spec.Name != "file" || vals["csv.delimiter"] != "\t" || vals["format"] != "csv" || vals["errors"] != "side" || vals["errors.side"] != "errors" {
		t.Fatalf("file: %v %v %v", spec, vals, err)
	}
	// Flink's name of the file connector (SPEC 1: "`file` (also Flink's
	// name `filesystem`)") is the same connector with the same options
	if spec, fvals, err := catalog.ValidateOptions(opts("connector", "filesystem", "path", "x.csv", "csv.delimiter", `\t`), cols, 0); err != nil || spec.Name != "file" || fmt.Sprint(fvals) != fmt.Sprint(vals) {
		t.Fatalf("filesystem: %v %v %v, want file's %v", spec, fvals, err, vals)
	}
	_, vals, err = catalog.ValidateOptions(opts("connector", "datagen", "fields.PRODUCT.values", "a,b", "fields.qty.kind", "sequence"), cols, 0)
	if err != nil || vals["fields.product.values"] != "a,b" || vals["fields.qty.kind"] != "sequence" {
		t.Fatalf("datagen pattern options: %v %v", vals, err)
	}
	bad := []struct {
		o    []catalog.Option
		want string
		pos  int
	}{
		{opts("connector", "file"), "needs option 'path'", 0},
		{opts("connector", "nope"), "unknown connector 'nope'", 1},
		{opts("connector", "filesytem"), "unknown connector 'filesytem'; did you mean 'filesystem'? use one of:", 1},
		{opts("connector", "kafak"), "unknown connector 'kafak'; did you mean 'kafka'? use one of:", 1},
		// Flink's stdout and discarding sinks say what takes their place (any case)
		{opts("connector", "print", "print-identifier", "x"), "unknown connector 'print'; Flink's 'print' sink is not needed here: a query without INSERT INTO prints its rows", 1},
		{opts("connector", "PRINT"), "--format plain prints them as print() does", 1},
		{opts("connector", "blackhole"), "unknown connector 'blackhole'; Flink's 'blackhole' sink is not needed here: EXPLAIN ANALYZE SELECT … runs a query with its outputs discarded", 1},
		{opts("connector", "printt"), "unknown connector 'printt'; use one of:", 1},
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
		// a typo names the option it is nearest to (two edits at most), any case
		{opts("connector", "file", "path", "x", "fromat", "csv"), "unknown option 'fromat' for connector 'file'; did you mean 'format'? valid options:", 4},
		{opts("connector", "file", "path", "x", "CSV.HEADR", "true"), "did you mean 'csv.header'?", 4},
		{opts("connector", "file", "path", "x", "zzzzzz", "csv"), "for connector 'file'; valid options:", 4},
		{opts("connector", "file", "path", "x", "path", "y"), "twice", 4},
		{opts("path", "x"), "needs WITH ('connector'", 0},
		{opts("connector", "file", "path", "x", "errors.side", "../evil"), "not a side output name", 5},
		{opts("connector", "file", "path", "x", "errors.side", "main"), "not a side output name", 5},
		{opts("connector", "file", "path", "x", "errors.side", ""), "not a side output name", 5},
		{opts("connector", "file", "path", "x", "errors.side", "bad\nname"), "control characters", 5},
		{opts("connector", "file", "path", "x", "errors.side", "x\x00"), "control characters", 5},
	}
	for _, c := range bad {
		_, _, err := catalog.ValidateOptions(c.o, cols, 0)
		pe, ok := err.(*catalog.PosError)
		if !ok || !strings.Contains(pe.Msg, c.want) || pe.Pos != c.pos {
			t.Errorf("%v: error %v, want %q at %d", c.o, err, c.want, c.pos)
		}
	}
}

// TestMaxRecordSizeOption: 'max-record-size' defaults to 64MiB on every
// connector that reads bytes, and a bad value names the option (SPEC 1).
func TestMaxRecordSizeOption(t *testing.T) {
	cols := []catalog.Column{{Name: "v", Type: catalog.Varchar}}
	for conn, kv := range map[string][]string{"file": {"path", "x"}, "stdin": nil, "socket": {"port", "1"}} {
		_, vals, err := catalog.ValidateOptions(opts(append([]string{"connector", conn}, kv...)...), cols, 0)
		if err != nil || vals["max-record-size"] != "64MiB" {
			t.Errorf("%s: default max-record-size %q, %v", conn, vals["max-record-size"], err)
		}
	}
	_, _, err := catalog.ValidateOptions(opts("connector", "stdin", "max-record-size", "10XB"), cols, 0)
	if err == nil || !strings.Contains(err.Error(), "option 'max-record-size'") || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("bad max-record-size: %v", err)
	}
}

// TestSizeOptionsTakeFlinkUnits: every memory-size option of every registered
// connector (catalog.OptSize) takes Flink's units with Flink's meaning
// (catalog.ParseSize, TestParseSizeUnits), '64kb' being 64 KiB as '64MiB'
// and '64m' agree, and a bad one is an error naming the option and the units.
func TestSizeOptionsTakeFlinkUnits(t *testing.T) {
	cols := []catalog.Column{{Name: "v", Type: catalog.Varchar}}
	n := 0
	for _, name := range catalog.ConnectorNames() {
		spec := catalog.LookupConnector(name)
		for _, o := range spec.Options {
			if o.Kind != catalog.OptSize || strings.ContainsAny(o.Name, "#*") {
				continue
			}
			n++
			base := []string{"connector", name}
			for _, req := range spec.Options {
				if req.Required && req.Name != o.Name {
					base = append(base, req.Name, "1")
				}
			}
			for v, want := range map[string]int64{"64kb": 64 << 10, "64 KB": 64 << 10, "64k": 64 << 10, "64MiB": 64 << 20, "64m": 64 << 20, "2 gibibytes": 2 << 30, "100 bytes": 100, "100b": 100, "100": 100} {
				_, vals, err := catalog.ValidateOptions(opts(append(base, o.Name, v)...), cols, 0)
				if err != nil {
					t.Errorf("%s: '%s' = '%s': %v", name, o.Name, v, err)
					continue
				}
				if got, err := catalog.ParseSize(vals[o.Name]); err != nil || got != want {
					t.Errorf("%s: '%s' = '%s' is %d bytes (%v), want %d", name, o.Name, v, got, err, want)
				}
			}
			_, _, err := catalog.ValidateOptions(opts(append(base, o.Name, "64 kbytes")...), cols, 0)
			if err == nil || !strings.Contains(err.Error(), "option '"+o.Name+"'") || !strings.Contains(err.Error(), "kb, KiB or kibibytes") {
				t.Errorf("%s: '%s' = '64 kbytes': %v, want an error naming the option and the units", name, o.Name, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no connector has a memory-size option")
	}
}

// TestRequiredOptionNotEmpty: every required option of every registered
// connector given empty (or as blanks) is an error at its value that names it,
// instead of a failure when the job runs.
func TestRequiredOptionNotEmpty(t *testing.T) {
	n := 0
	for _, name := range catalog.ConnectorNames() {
		spec := catalog.LookupConnector(name)
		for _, req := range spec.Options {
			if !req.Required {
				continue
			}
			for _, empty := range []string{"", "  "} {
				opts := []catalog.Option{{Key: "connector", Value: name}}
				for _, os := range spec.Options {
					if os.Required && os.Name != req.Name {
						opts = append(opts, catalog.Option{Key: os.Name, Value: "1"})
					}
				}
				opts = append(opts, catalog.Option{Key: req.Name, Value: empty, ValuePos: 77})
				_, _, err := catalog.ValidateOptions(opts, []catalog.Column{{Name: "x", Type: catalog.BigInt}}, 0)
				var pe *catalog.PosError
				if !errors.As(err, &pe) || pe.Pos != 77 || !strings.Contains(pe.Msg, "'"+req.Name+"'") {
					t.Errorf("connector %s, option %s = %q: %v, want an error at the value naming the option", name, req.Name, empty, err)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no connector has a required option: nothing was checked")
	}
}
