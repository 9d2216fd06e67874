package catalog

import (
	"slices"
	"strings"
)

// FormatSpec declares a format once, in the one table of formats (issue 22
// item 5): the record formats a stream's 'format' takes (SPEC 1, SPEC 2.8's
// changelog formats), which the connectors decode and the sinks write, and
// the output formats the command line prints (SPEC 4: --format, SET
// 'format'), with their --side-dir file extension and whether they print
// tables. The code of each format is registered once against this table:
// a record format's decoder, schema inferrer and encoders in executor/codec
// (the catalog imports no executor package), an output format's printer in
// cmd/streamql/render; each registry's test fails for a format here without
// its code. This table is what the catalog, the planner, the connectors, the
// session and the command line ask.
type FormatSpec struct {
	Name string
	// Reads says a stream's 'format' takes it: a record format, which the
	// connectors that read bytes decode (SPEC 1, 2.8).
	Reads bool
	// Changelog says each record carries row kinds (+I, -U, +U, -D; SPEC
	// 2.8): a stream reading it is updating.
	Changelog bool
	// Writes says a sink stream can write it; a changelog format that writes
	// takes an updating query (SPEC 2.8: 'format'='debezium-json').
	Writes bool
	// Prints says the command line prints results in it (SPEC 4: --format).
	Prints bool
	// Tabular says it prints tables (rows laid out together, a result redrawn
	// as it changes: table, markdown), not a line per row.
	Tabular bool
	// Ext is the extension of a --side-dir file printed in it (SPEC 4), ""
	// for a format that does not print.
	Ext string
	// FileExts are the extensions of a file that FROM 'file' reads in this
	// record format (SPEC 1: "x.jsonl" reads json), lower case.
	FileExts []string
	Doc      string
}

// formats are the formats of SPEC 1, 2.8 and 4, in an order that lists each
// kind in the order messages and help list it: the record formats csv, json,
// debezium-json, canal-json, maxwell-json; the output formats table (the
// default), csv, tsv, json, plain, markdown.
var formats = []FormatSpec{
	{Name: "table", Prints: true, Tabular: true, Ext: ".txt", Doc: "a boxed table, redrawn as an updating result changes"},
	{Name: "csv", Reads: true, Writes: true, Prints: true, Ext: ".csv", FileExts: []string{".csv"}, Doc: "comma-separated values"},
	{Name: "tsv", Prints: true, Ext: ".tsv", Doc: "tab-separated values"},
	{Name: "json", Reads: true, Writes: true, Prints: true, Ext: ".json", FileExts: []string{".json", ".jsonl", ".ndjson"}, Doc: "one JSON object per line"},
	{Name: "debezium-json", Reads: true, Changelog: true, Writes: true, Doc: "Debezium's change envelope: before, after, op = c/r/u/d (Flink's debezium-json)"},
	{Name: "canal-json", Reads: true, Changelog: true, Doc: "Canal's change records: data, old, type = INSERT/UPDATE/DELETE (Flink's canal-json); read only"},
	{Name: "maxwell-json", Reads: true, Changelog: true, Doc: "Maxwell's change records: data, old, type = insert/update/delete (Flink's maxwell-json); read only"},
	{Name: "plain", Prints: true, Ext: ".txt", Doc: "values separated by spaces, one row a line"},
	{Name: "markdown", Prints: true, Tabular: true, Ext: ".md", Doc: "a Markdown pipe table"},
}

// LookupFormat returns the record format named name (exactly as SPEC spells
// it; Reads), or nil.
func LookupFormat(name string) *FormatSpec {
	for i := range formats {
		if formats[i].Reads && formats[i].Name == name {
			return &formats[i]
		}
	}
	return nil
}

// PrintFormat returns the output format named name (SPEC 4; Prints), or nil.
func PrintFormat(name string) *FormatSpec {
	for i := range formats {
		if formats[i].Prints && formats[i].Name == name {
			return &formats[i]
		}
	}
	return nil
}

// Formats returns every format of the table, in its order (a copy): what
// the registries of the formats' code check themselves against
// (executor/codec, cmd/streamql/render's printers).
func Formats() []FormatSpec { return slices.Clone(formats) }

// names returns the names of the formats that keep says, in the table's order.
func names(keep func(*FormatSpec) bool) []string {
	var n []string
	for i := range formats {
		if keep(&formats[i]) {
			n = append(n, formats[i].Name)
		}
	}
	return n
}

// FormatNames returns the record formats' names (what 'format' takes), in
// the table's order.
func FormatNames() []string { return names(func(f *FormatSpec) bool { return f.Reads }) }

// WritableFormats returns the names of the formats a sink writes (SPEC 2.5, 2.8).
func WritableFormats() []string { return names(func(f *FormatSpec) bool { return f.Writes }) }

// RowFormats returns the names of the formats whose record is one row, that
// a stream reads and a sink writes (not a changelog): what a Kafka record's
// key and an upsert-kafka record's value are written in (SPEC 2.5, 2.8).
func RowFormats() []string {
	return names(func(f *FormatSpec) bool { return f.Reads && f.Writes && !f.Changelog })
}

// PrintFormats returns the output formats' names (SPEC 4), the default
// (table) first.
func PrintFormats() []string { return names(func(f *FormatSpec) bool { return f.Prints }) }

// FileFormat returns the record format of a file read by its name (SPEC 1:
// FROM 'x.json'): the format one of whose FileExts ends path (any case),
// else csv.
func FileFormat(path string) string {
	p := strings.ToLower(path)
	for _, f := range formats {
		for _, e := range f.FileExts {
			if strings.HasSuffix(p, e) {
				return f.Name
			}
		}
	}
	return "csv"
}

// changelogOptions are the options of the changelog formats, with Flink's
// names (flink-json's debezium-json, canal-json and maxwell-json).
var changelogOptions = []OptionSpec{
	{Name: "debezium-json.schema-include", Kind: OptBool, Doc: "true: every record is Debezium's {\"schema\": ..., \"payload\": {before, after, op}} (Kafka Connect's JSON converter with schemas)"},
	{Name: "debezium-json.ignore-parse-errors", Kind: OptBool, Doc: "true drops malformed records (as 'errors' = 'skip': they are counted, not kept)"},
	{Name: "canal-json.ignore-parse-errors", Kind: OptBool, Doc: "true drops malformed records (as 'errors' = 'skip')"},
	{Name: "canal-json.database.include", Kind: OptString, Doc: "a regular expression (RE2, whole name): only records of matching databases are read"},
	{Name: "canal-json.table.include", Kind: OptString, Doc: "a regular expression (RE2, whole name): only records of matching tables are read"},
	{Name: "maxwell-json.ignore-parse-errors", Kind: OptBool, Doc: "true drops malformed records (as 'errors' = 'skip')"},
}

// formatOf returns the format whose options key belongs to ("csv" for
// 'csv.delimiter', "debezium-json" for 'debezium-json.schema-include'), or "".
func formatOf(key string) string {
	k := strings.ToLower(key)
	for _, f := range formats {
		if f.Reads && strings.HasPrefix(k, f.Name+".") {
			return f.Name
		}
	}
	return ""
}

// Updating says whether s's rows are a changelog (SPEC 2.8) and why: "format
// 'debezium-json'" for a changelog format, "connector 'upsert-kafka'" for a
// connector that reads upserts; "" for an append-only stream.
func (s *Stream) Updating() string {
	if s.Connector != nil && s.Connector.Upserts {
		return "connector '" + s.Connector.Name + "'"
	}
	if f := LookupFormat(s.Shared().Format); f != nil && f.Changelog {
		return "format '" + f.Name + "'"
	}
	return ""
}

// TakesChanges reports whether a sink over s writes an updating query's
// changes (SPEC 2.8): an upsert connector (upsert-kafka), a changelog format
// a sink writes (debezium-json), or a csv or json file with an op column
// (OpColumn). A sink that does not takes inserts only
// (Flink's rule: it refuses an updating query at planning).
func (s *Stream) TakesChanges() bool {
	if s.Connector != nil && s.Connector.Upserts {
		return true
	}
	if s.OpColumn() {
		return true
	}
	f := LookupFormat(s.Shared().Format)
	return f != nil && f.Changelog && f.Writes
}

// OpColumn reports whether s, written as a 'file' sink in csv or json, holds
// a changelog with its kind in a first column `op` (SPEC 2.8: "file sinks of
// an updating relation hold the changelog (op first)"): its first column is
// a VARCHAR named op and it has at least one other. A query writes the
// other columns; each row's op is its kind (+I, -U, +U, -D), +I for every
// row of an append-only query.
func (s *Stream) OpColumn() bool {
	if s.Connector == nil || !s.Connector.OpColumn || len(s.Columns) < 2 {
		return false
	}
	if f := s.Shared().Format; f != "csv" && f != "json" {
		return false
	}
	c := s.Columns[0]
	return FoldName(c.Name) == FoldName("op") && c.Type == Varchar && c.Computed == nil && c.Metadata == ""
}
