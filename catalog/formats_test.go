package catalog_test

import (
	"slices"
	"testing"

	"streamql/catalog"
)

// TestFormatTable: the one table of formats gives each of its users the
// list SPEC names: the record formats 'format' takes (SPEC 1, 2.8), the
// formats a sink writes (SPEC 2.5, 2.8), the output formats of --format with
// the default first (SPEC 4), each output format's --side-dir extension and
// whether it prints tables, and the record format a file's name reads as.
func TestFormatTable(t *testing.T) {
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"record formats", catalog.FormatNames(), []string{"csv", "json", "debezium-json", "canal-json", "maxwell-json"}},
		{"sink formats", catalog.WritableFormats(), []string{"csv", "json", "debezium-json"}},
		{"output formats", catalog.PrintFormats(), []string{"table", "csv", "tsv", "json", "plain", "markdown"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s %q, want %q", c.what, c.got, c.want)
		}
	}
	for name, want := range map[string]struct {
		ext     string
		tabular bool
	}{"table": {".txt", true}, "csv": {".csv", false}, "tsv": {".tsv", false}, "json": {".json", false}, "plain": {".txt", false}, "markdown": {".md", true}} {
		f := catalog.PrintFormat(name)
		if f == nil || f.Ext != want.ext || f.Tabular != want.tabular {
			t.Errorf("output format %s: %+v, want ext %s, tabular %v", name, f, want.ext, want.tabular)
		}
	}
	// the kinds do not mix: an output format is not a stream's format
	for _, n := range []string{"table", "tsv", "plain", "markdown"} {
		if catalog.LookupFormat(n) != nil {
			t.Errorf("LookupFormat(%q) found an output format", n)
		}
	}
	for _, n := range []string{"debezium-json", "canal-json", "maxwell-json"} {
		if f := catalog.LookupFormat(n); f == nil || !f.Changelog || catalog.PrintFormat(n) != nil {
			t.Errorf("changelog format %s: %+v", n, f)
		}
	}
	for path, want := range map[string]string{"a.json": "json", "dir/A.JSONL": "json", "x.ndjson": "json", "x.csv": "csv", "x.tsv": "csv", "x": "csv", "x.json.gz": "csv"} {
		if got := catalog.FileFormat(path); got != want {
			t.Errorf("FileFormat(%q) = %s, want %s", path, got, want)
		}
	}
}
