package catalog

import "strings"

// FormatSpec declares a record format once (SPEC 1 formats, SPEC 2.8
// changelog formats): what 'format' accepts, whether a stream reading it is
// updating, and whether a sink can write it. The executor holds the decoders
// and encoders (executor.newDecoder, executor/cdc, the file and Kafka sinks);
// this table is what the catalog, the planner and the connectors ask.
type FormatSpec struct {
	Name string
	// Changelog says each record carries row kinds (+I, -U, +U, -D; SPEC
	// 2.8): a stream reading it is updating.
	Changelog bool
	// Writes says a sink can write it; a changelog format that writes takes
	// an updating query (SPEC 2.8: 'format'='debezium-json').
	Writes bool
	Doc    string
}

// formats are the formats of SPEC 1 and 2.8, in the order messages list them.
var formats = []FormatSpec{
	{Name: "csv", Writes: true, Doc: "comma-separated values"},
	{Name: "json", Writes: true, Doc: "one JSON object per line"},
	{Name: "debezium-json", Changelog: true, Writes: true, Doc: "Debezium's change envelope: before, after, op = c/r/u/d (Flink's debezium-json)"},
	{Name: "canal-json", Changelog: true, Doc: "Canal's change records: data, old, type = INSERT/UPDATE/DELETE (Flink's canal-json); read only"},
	{Name: "maxwell-json", Changelog: true, Doc: "Maxwell's change records: data, old, type = insert/update/delete (Flink's maxwell-json); read only"},
}

// LookupFormat returns the format named name (exactly as SPEC spells it), or nil.
func LookupFormat(name string) *FormatSpec {
	for i := range formats {
		if formats[i].Name == name {
			return &formats[i]
		}
	}
	return nil
}

// FormatNames returns every format's name, in the table's order.
func FormatNames() []string {
	n := make([]string, len(formats))
	for i, f := range formats {
		n[i] = f.Name
	}
	return n
}

// WritableFormats returns the names of the formats a sink writes (SPEC 2.5, 2.8).
func WritableFormats() []string {
	var n []string
	for _, f := range formats {
		if f.Writes {
			n = append(n, f.Name)
		}
	}
	return n
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
		if strings.HasPrefix(k, f.Name+".") {
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
