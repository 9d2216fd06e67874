package export

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"streamql/catalog"
)

// flinkType returns Flink's name of a SPEC 1 type (VARCHAR is STRING,
// TIMESTAMP is TIMESTAMP(3)).
func flinkType(t catalog.Type) string {
	switch t {
	case catalog.BigInt:
		return "BIGINT"
	case catalog.Double:
		return "DOUBLE"
	case catalog.Varchar:
		return "STRING"
	case catalog.Boolean:
		return "BOOLEAN"
	case catalog.Timestamp:
		return "TIMESTAMP(3)"
	}
	switch t.Kind() { // SPEC 2.10's nested types are Flink's
	case catalog.KindArray:
		return "ARRAY<" + flinkType(t.Elem()) + ">"
	case catalog.KindMap:
		return "MAP<" + flinkType(t.Key()) + ", " + flinkType(t.Elem()) + ">"
	case catalog.KindRow:
		var fs []string
		for _, f := range t.Fields() {
			fs = append(fs, quote(f.Name)+" "+flinkType(f.Type))
		}
		return "ROW<" + strings.Join(fs, ", ") + ">"
	}
	return "STRING"
}

// quote back-quotes a Flink identifier (“ ` “ doubled inside).
func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// str renders a Flink string literal (” inside).
func str(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// kv is one Flink table option.
type kv struct{ k, v string }

// rowtimeName is the computed column that carries the event time of a stream
// whose WATERMARK FOR column is BIGINT (epoch ms): Flink's time attributes
// must be TIMESTAMP(3) or TIMESTAMP_LTZ(3).
func rowtimeName(st *catalog.Stream) string {
	return timeColName(st, st.EventTime)
}

// timeColName is the computed TIMESTAMP_LTZ(3) column of BIGINT column i.
func timeColName(st *catalog.Stream, i int) string {
	base := st.Columns[i].Name + "_rowtime"
	n := base
	for i := 2; st.Column(n) >= 0; i++ {
		n = fmt.Sprintf("%s%d", base, i)
	}
	return n
}

// bigintTime reports whether st's event time is a BIGINT column (so Flink
// gets a rowtime computed column).
func bigintTime(st *catalog.Stream) bool {
	return st != nil && st.Watermark != nil && st.EventTime >= 0 && st.Columns[st.EventTime].Type == catalog.BigInt
}

// createTable renders the CREATE TABLE of a declared stream (or, for a values
// stream, the view over its rows) and records its differences.
func (x *exporter) createTable(d *streamDecl, sink, source bool) (string, error) {
	st := d.st
	name := x.tableOf[st]
	conn := st.Connector.Name
	if conn == "values" {
		return x.valuesView(d)
	}
	var cols []string
	for _, c := range st.Columns {
		if c.Computed != nil { // (Flink's own form; the expression as written)
			cols = append(cols, "  "+quote(c.Name)+" AS "+c.Computed.Text)
			continue
		}
		if c.Metadata != "" {
			cols = append(cols, "  "+quote(c.Name)+" "+flinkType(c.Type)+" METADATA FROM '"+c.Metadata+"'")
			continue
		}
		cols = append(cols, "  "+quote(c.Name)+" "+flinkType(c.Type))
	}
	if w := d.decl.Watermark; w != nil {
		p := x.wmPrinter(d)
		e, err := p.expr(w.Expr)
		if err != nil {
			return "", &ScriptError{Script: d.script, Err: err}
		}
		col := quote(st.Columns[st.EventTime].Name)
		if bigintTime(st) {
			rt := quote(rowtimeName(st))
			cols = append(cols, "  "+rt+" AS TO_TIMESTAMP_LTZ("+col+", 3)")
			cols = append(cols, "  WATERMARK FOR "+rt+" AS TO_TIMESTAMP_LTZ("+e+", 3)")
		} else {
			cols = append(cols, "  WATERMARK FOR "+col+" AS "+e)
		}
	}
	if len(st.PrimaryKey) > 0 { // SPEC 1, Flink's own clause
		ks := make([]string, len(st.PrimaryKey))
		for i, k := range st.PrimaryKey {
			ks[i] = quote(k)
		}
		cols = append(cols, "  PRIMARY KEY ("+strings.Join(ks, ", ")+") NOT ENFORCED")
	}
	for _, i := range x.windowTime[st] { // BIGINT window time without WATERMARK FOR (batch mode)
		cols = append(cols, "  "+quote(timeColName(st, i))+" AS TO_TIMESTAMP_LTZ("+quote(st.Columns[i].Name)+", 3)")
	}
	opts := x.connectorOptions(d, sink, source)
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n%s\n) WITH (\n", quote(name), strings.Join(cols, ",\n"))
	for i, o := range opts {
		sep := ","
		if i == len(opts)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s = %s%s\n", str(o.k), str(o.v), sep)
	}
	b.WriteString(");\n")
	return b.String(), nil
}

// connectorOptions maps a stream's connector and options to Flink's (SPEC 1's
// names follow Flink's where one exists) and records what has no equivalent.
func (x *exporter) connectorOptions(d *streamDecl, sink, source bool) []kv {
	st, o := d.st, d.st.Options
	at := d.decl.WithPos
	optAt := func(key string) int {
		for _, op := range d.decl.Options {
			if strings.EqualFold(op.Key, key) {
				return op.KeyPos
			}
		}
		return at
	}
	var out []kv
	add := func(k, v string) { out = append(out, kv{k, v}) }
	switch st.Connector.Name {
	case "file":
		add("connector", "filesystem")
		p, ok := flinkPath(st, o["path"])
		if !ok {
			x.diff(d.script, optAt("path"), "stream %s: 'path' = '%s' is relative and the working directory cannot be read to make it absolute; Flink resolves it from its own working directory: give an absolute path", st.Name, o["path"])
		}
		add("path", p)
		out = append(out, x.formatOptions(d, "format", optAt, source)...)
		if o["follow"] == "true" {
			x.diff(d.script, optAt("follow"), "stream %s: 'follow'='true' tails one file; Flink's filesystem source reads the files under 'path' once (its 'source.monitor-interval' watches a directory for new files, not a growing file)", st.Name)
		}
		if sink {
			x.diff(d.script, d.decl.NamePos, "stream %s: as a sink, Flink's filesystem connector writes a directory of part files at 'path' (csv without a header line, committed at checkpoints or the job's end), not one file replaced or appended to ('sink.mode')", st.Name)
		}
	case "kafka":
		add("connector", "kafka")
		add("topic", o["topic"])
		for _, k := range sortedKeys(o) {
			if strings.HasPrefix(k, "properties.") {
				add(k, o[k])
			}
		}
		for _, k := range []string{"scan.startup.mode", "scan.startup.timestamp-millis", "scan.startup.specific-offsets",
			"scan.bounded.mode", "scan.bounded.timestamp-millis", "scan.watermark.idle-timeout",
			"sink.delivery-guarantee", "sink.transactional-id-prefix"} {
			if v := o[k]; v != "" && !(k == "scan.bounded.mode" && v == "unbounded") {
				add(k, v)
			}
		}
		if kf := o["key.fields"]; kf != "" {
			kfmt := o["key.format"]
			if kfmt == "" {
				kfmt = o["format"]
			}
			add("key.fields", strings.ReplaceAll(kf, ",", ";"))
			add("key.format", kfmt)
			out = append(out, x.formatOptions(d, "value.format", optAt, source)...)
		} else {
			out = append(out, x.formatOptions(d, "format", optAt, source)...)
		}
		if _, ok := o["properties.group.id"]; !ok && !sink {
			add("properties.group.id", "streamql-export")
		}
		if o["sink.delivery-guarantee"] == "exactly-once" {
			x.diff(d.script, optAt("sink.delivery-guarantee"), "stream %s: streamql's exactly-once sinks of a job share one Kafka transaction with the source offsets; each Flink Kafka sink has its own transactions, committed at checkpoints (enable checkpointing, or no row is committed)", st.Name)
		}
	case "upsert-kafka": // SPEC 2.8: Flink's own connector, with its option names
		add("connector", "upsert-kafka")
		add("topic", o["topic"])
		for _, k := range sortedKeys(o) {
			if strings.HasPrefix(k, "properties.") {
				add(k, o[k])
			}
		}
		for _, k := range []string{"key.format", "key.fields-prefix", "value.format", "value.fields-include", "scan.bounded.mode",
			"sink.delivery-guarantee", "sink.transactional-id-prefix"} {
			if v := o[k]; v != "" && !(k == "scan.bounded.mode" && v == "unbounded") && !(k == "value.fields-include" && v == "ALL") {
				add(k, v)
			}
		}
		if source && o["errors"] != "fail" {
			x.diff(d.script, d.decl.NamePos, "stream %s: a malformed record (a tombstone without a key, a value its columns cannot hold) goes to streamql's errors output; Flink fails the job at the first one", st.Name)
		}
	case "datagen":
		add("connector", "datagen")
		for _, k := range []string{"number-of-rows", "rows-per-second"} {
			if v := o[k]; v != "" {
				add(k, v)
			}
		}
		for _, k := range sortedKeys(o) {
			if !strings.HasPrefix(k, "fields.") {
				continue
			}
			switch {
			case strings.HasSuffix(k, ".values"):
				x.diff(d.script, optAt(k), "stream %s: Flink's datagen has no '%s' (values to pick from): the column gets random values", st.Name, k)
			case strings.HasSuffix(k, ".kind") && o[k] == "random":
				// Flink's default
			default:
				add(k, o[k])
			}
		}
		x.diff(d.script, at, "stream %s: Flink's datagen draws other random rows than streamql's seeded generator ('seed' has no Flink equivalent)", st.Name)
	default: // socket, stdin, go: no Flink connector
		p := st.Name + "." + o["format"]
		if o["format"] == "" {
			p = st.Name + ".csv"
		}
		add("connector", "filesystem")
		add("path", p)
		out = append(out, x.formatOptions(d, "format", optAt, source)...)
		x.diff(d.script, at, "stream %s: connector '%s' has no Flink connector; the table reads the file '%s' instead: replace it by your source", st.Name, st.Connector.Name, p)
	}
	return out
}

// flinkPath is a file stream's 'path' p as the Flink script gives it:
// absolute, resolved as streamql resolves it (SPEC 1: a relative path against
// the folder of the script that declares the stream, Stream.BaseDir, or the
// working directory when it has none; executor/connector.OpenFile), since
// Flink resolves a relative path from its own working directory, and would
// read or write another file. ok is false when the working directory cannot
// be read (p is then returned as streamql would open it, still relative).
func flinkPath(st *catalog.Stream, p string) (string, bool) {
	if p == "" || filepath.IsAbs(p) {
		return p, true
	}
	full := p
	if st.BaseDir != "" {
		full = filepath.Join(st.BaseDir, p)
	}
	abs, err := filepath.Abs(full)
	if err != nil {
		return full, false
	}
	return abs, true
}

// formatOptions maps the format options of SPEC 1 (format, csv.*, errors,
// encoding) to Flink's csv and json formats, under the key fmtKey ('format' or
// Kafka's 'value.format').
func (x *exporter) formatOptions(d *streamDecl, fmtKey string, optAt func(string) int, source bool) []kv {
	st, o := d.st, d.st.Options
	f := o["format"]
	if f == "" {
		return nil
	}
	out := []kv{{fmtKey, f}}
	allText := true
	for _, c := range st.Columns {
		if c.Type != catalog.Varchar {
			allText = false
		}
	}
	if f == "csv" {
		if v := o["csv.delimiter"]; v != "" && v != "," {
			if v == "\t" {
				v = `\t`
			}
			out = append(out, kv{"csv.field-delimiter", v})
		}
		if v := o["csv.quote"]; v != "" && v != `"` {
			out = append(out, kv{"csv.quote-character", v})
		}
		if v := o["csv.null-literal"]; v != "" {
			out = append(out, kv{"csv.null-literal", v})
		}
		if o["csv.header"] == "true" {
			x.diff(d.script, optAt("csv.header"), "stream %s: Flink's csv format has no header line option: the first line is read as a row (remove it from the file, or map columns by position)", st.Name)
		}
		if o["csv.allow-ragged"] == "true" {
			if allText {
				out = append(out, kv{"csv.ignore-parse-errors", "true"}) // only ragged rows can fail when every column is text
			} else {
				x.diff(d.script, optAt("csv.allow-ragged"), "stream %s: 'csv.allow-ragged' has no Flink equivalent for non-text columns ('csv.ignore-parse-errors' would also turn bad values into NULL)", st.Name)
			}
		}
	}
	if cf := catalog.LookupFormat(f); cf != nil && cf.Changelog { // SPEC 2.8: flink-json's options, same names
		for _, k := range sortedKeys(o) {
			if strings.HasPrefix(k, f+".") && !strings.HasSuffix(k, ".ignore-parse-errors") {
				out = append(out, kv{k, o[k]})
			}
		}
		if source && o["errors"] == "skip" { // Flink's option drops the record, as 'skip' does
			return append(out, kv{f + ".ignore-parse-errors", "true"})
		}
	}
	if e := o["encoding"]; e != "" && !strings.EqualFold(e, "utf-8") && !strings.EqualFold(e, "utf8") {
		x.diff(d.script, optAt("encoding"), "stream %s: Flink's %s format reads UTF-8 only ('encoding'='%s'): convert the data first", st.Name, f, e)
	}
	switch {
	case !source: // malformed rows exist only where rows are read
	case o["errors.stream"] != "":
		x.diff(d.script, optAt("errors.stream"), "stream %s: malformed rows go to the dead-letter stream %s ('errors.stream'); Flink has no dead-letter output and fails the job at the first one", st.Name, o["errors.stream"])
	case o["errors"] == "skip":
		x.diff(d.script, optAt("errors"), "stream %s: 'errors'='skip' drops a malformed row; Flink's '%s.ignore-parse-errors' keeps it with NULL fields, so it is not set: Flink fails the job at the first one", st.Name, f)
	case o["errors"] == "fail":
		// Flink's own behaviour: the job fails at the first malformed row
	default:
		side := o["errors.side"]
		if side == "" {
			side = "errors"
		}
		x.diff(d.script, d.decl.NamePos, "stream %s: malformed rows go to the side output '%s'; Flink has no such output and fails the job at the first one (declare 'errors'='fail' to make streamql do the same)", st.Name, side)
	}
	return out
}

// valuesView renders a values stream as a Flink view over its INSERT INTO …
// VALUES rows (one VALUES list, columns cast to their types).
func (x *exporter) valuesView(d *streamDecl) (string, error) {
	st := d.st
	var rows []string
	for _, vi := range x.values[st] {
		p := x.plainPrinter(vi.script, vi.ins.Casts)
		for _, r := range vi.ins.Rows {
			vals := make([]string, len(st.Columns))
			for i := range vals {
				vals[i] = "NULL"
			}
			for i, e := range r {
				ci := i
				if len(vi.ins.Columns) > 0 {
					ci = st.Column(vi.ins.Columns[i])
				}
				s, err := p.expr(e)
				if err != nil {
					return "", &ScriptError{Script: vi.script, Err: err}
				}
				vals[ci] = s
			}
			for i, c := range st.Columns {
				vals[i] = "CAST(" + vals[i] + " AS " + flinkType(c.Type) + ")"
			}
			rows = append(rows, "  ("+strings.Join(vals, ", ")+")")
		}
	}
	var names []string
	for _, c := range st.Columns {
		names = append(names, quote(c.Name))
	}
	if len(rows) == 0 {
		var nulls []string
		for _, c := range st.Columns {
			nulls = append(nulls, "CAST(NULL AS "+flinkType(c.Type)+")")
		}
		return fmt.Sprintf("CREATE TEMPORARY VIEW %s (%s) AS\n  SELECT %s FROM (VALUES (1)) WHERE FALSE;\n", quote(x.tableOf[st]), strings.Join(names, ", "), strings.Join(nulls, ", ")), nil
	}
	return fmt.Sprintf("CREATE TEMPORARY VIEW %s (%s) AS VALUES\n%s;\n", quote(x.tableOf[st]), strings.Join(names, ", "), strings.Join(rows, ",\n")), nil
}

// sortedKeys returns m's keys in order (options print in a stable order).
func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
