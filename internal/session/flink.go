package session

import (
	"fmt"
	"sort"
	"strings"

	"streamql/catalog"
	"streamql/executor"
	"streamql/parser"
	"streamql/planner"
	"streamql/planner/plan"
)

// SettingsLister is implemented by a Frontend that can list the settings it
// owns (SPEC 3: format, side-dir, timer) with their current values, for
// Flink's SET; (ShowSettings). A Frontend without it lists none of its own.
type SettingsLister interface {
	// Settings returns the frontend's settings, key to value as SET takes it.
	SettingValues() map[string]string
}

// metadataTypes are the types a METADATA column of each Kafka key may have
// (SPEC 1; Flink's TIMESTAMP_LTZ(3), INT, BIGINT, BYTES and MAP<STRING, BYTES>
// in this SPEC's types: the key's bytes as text, the headers as a JSON object).
var metadataTypes = map[string][]catalog.Type{
	"timestamp": {catalog.Timestamp, catalog.BigInt},
	"partition": {catalog.BigInt},
	"offset":    {catalog.BigInt},
	"key":       {catalog.Varchar},
	"headers":   {catalog.Varchar},
}

// checkMetadata checks the METADATA columns of st (SPEC 1): the stream reads
// Kafka, and each column has a type its key gives. Errors are *parser.Error
// at METADATA's key.
func checkMetadata(st *parser.CreateStream, x *catalog.Stream) error {
	for _, c := range st.Columns {
		if c.Metadata == "" {
			continue
		}
		if !x.Caps().Has(catalog.CapRecordMetadata) {
			name := "?"
			if x.Connector != nil {
				name = x.Connector.Name
			}
			return parser.Errorf(c.MetadataPos, "column %s reads Kafka metadata (METADATA FROM '%s'), but stream %s reads connector '%s': METADATA columns need 'connector'='kafka'", c.Name, c.Metadata, x.Name, name)
		}
		t := x.Columns[x.Column(c.Name)].Type
		ok := false
		var names []string
		for _, w := range metadataTypes[c.Metadata] {
			ok = ok || w == t
			names = append(names, w.String())
		}
		if !ok {
			return parser.Errorf(c.TypePos, "column %s METADATA FROM '%s' is %s; declare it %s", c.Name, c.Metadata, t, strings.Join(names, " or "))
		}
	}
	return nil
}

// computedColumns compiles the computed columns of st (SPEC 1: name AS expr,
// over the columns read from the input) into x, whose Columns hold the other
// columns already, in declaration order: each gets its place and the type of
// its expression. Errors are *parser.Error at the expression.
func computedColumns(st *parser.CreateStream, x *catalog.Stream) error {
	phys := &catalog.Stream{Name: x.Name, EventTime: -1}
	for _, c := range x.Columns {
		if c.Metadata == "" { // (a computed column reads the decoded columns only)
			phys.Columns = append(phys.Columns, c)
		}
	}
	var cols []catalog.Column
	k := 0
	for _, c := range st.Columns {
		if c.Computed == nil {
			cols = append(cols, x.Columns[k])
			k++
			continue
		}
		e, err := planner.CompileComputed(phys, c.Computed)
		if err != nil {
			return err
		}
		cols = append(cols, catalog.Column{Name: c.Name, Type: e.Type, Computed: &catalog.Computed{Text: c.Computed.Text, Def: e}})
	}
	x.Columns = cols
	return nil
}

// primaryKey checks PRIMARY KEY (k, ...) NOT ENFORCED of st (SPEC 1: every
// key column declared, none twice) and keeps it in x.PrimaryKey. Errors are
// *parser.Error at PRIMARY.
func primaryKey(st *parser.CreateStream, x *catalog.Stream) error {
	if st.PrimaryKey == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, k := range st.PrimaryKey {
		i := x.Column(k)
		if i < 0 {
			return parser.Errorf(st.PrimaryKeyPos, "PRIMARY KEY (%s): no column '%s'; columns: %s", strings.Join(st.PrimaryKey, ", "), k, strings.Join(x.Names(), ", "))
		}
		if seen[catalog.FoldName(k)] {
			return parser.Errorf(st.PrimaryKeyPos, "PRIMARY KEY (%s): column '%s' is named twice", strings.Join(st.PrimaryKey, ", "), k)
		}
		seen[catalog.FoldName(k)] = true
		x.PrimaryKey = append(x.PrimaryKey, x.Columns[i].Name)
	}
	return nil
}

// showSettings answers Flink's SET; (SPEC 3): one row per setting, key and
// value, sorted by key: the engine's 'state.max-bytes' and the frontend's.
func (s *Session) showSettings() error {
	max := s.Env.StateMaxBytes
	if max <= 0 {
		max = executor.DefaultStateMaxBytes
	}
	vals := map[string]string{"state.max-bytes": executor.FormatSize(max), MiniBatchKey: fmt.Sprint(s.MiniBatch), RuntimeModeKey: map[bool]string{false: "batch", true: "streaming"}[s.Streaming], planner.StateTTLKey: plan.FormatTTL(s.StateTTL), planner.PruneColumnsKey: fmt.Sprint(!s.KeepColumns), planner.PushFiltersKey: fmt.Sprint(!s.KeepFilters)}
	if l, ok := s.Front.(SettingsLister); ok {
		for k, v := range l.SettingValues() {
			vals[k] = v
		}
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([][]string, len(keys))
	for i, k := range keys {
		rows[i] = []string{k, vals[k]}
	}
	return s.Front.Result([]string{"key", "value"}, rows)
}

// ShowCreate returns the CREATE STREAM statement that declares x, as SHOW
// CREATE TABLE prints it: its columns with their types (a computed one with
// its expression), PRIMARY KEY,
// WATERMARK and the WITH options as written.
func ShowCreate(x *catalog.Stream) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE STREAM %s (\n", quoteName(x.Name))
	var items []string
	for _, c := range x.Columns {
		if c.Computed != nil {
			items = append(items, "  "+quoteName(c.Name)+" AS "+c.Computed.Text)
			continue
		}
		if c.Metadata != "" {
			items = append(items, "  "+quoteName(c.Name)+" "+c.Type.String()+" METADATA FROM '"+c.Metadata+"'")
			continue
		}
		items = append(items, "  "+quoteName(c.Name)+" "+c.Type.String())
	}
	if x.PrimaryKey != nil {
		ks := make([]string, len(x.PrimaryKey))
		for i, k := range x.PrimaryKey {
			ks[i] = quoteName(k)
		}
		items = append(items, "  PRIMARY KEY ("+strings.Join(ks, ", ")+") NOT ENFORCED")
	}
	if x.Watermark != nil && x.EventTime >= 0 {
		items = append(items, "  WATERMARK FOR "+quoteName(x.Columns[x.EventTime].Name)+" AS "+x.Watermark.Text)
	}
	b.WriteString(strings.Join(items, ",\n"))
	b.WriteString("\n)")
	if len(x.Written) > 0 {
		b.WriteString(" WITH (\n")
		for i, o := range x.Written {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, "  %s = %s", quoteString(o.Key), quoteString(o.Value))
		}
		b.WriteString("\n)")
	}
	return b.String()
}

// quoteName back-quotes a name, as Flink's SHOW CREATE TABLE does (so a
// reserved word such as key reads back as a name).
func quoteName(n string) string { return "`" + strings.ReplaceAll(n, "`", "``") + "`" }

// quoteString quotes v as a SQL string (” for a quote, SPEC's only escape).
func quoteString(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// showCreate answers SHOW CREATE TABLE name: one row, one column.
func (s *Session) showCreate(st *parser.ShowCreate) error {
	x := s.Cat.Lookup(st.Name)
	if x == nil {
		return parser.Errorf(st.NamePos, "unknown stream '%s'", st.Name)
	}
	return s.Front.Result([]string{"statement"}, [][]string{{ShowCreate(x)}})
}

// describe answers DESCRIBE x: a row per column with its type, the WATERMARK
// expression on the event-time column, and whether the column is in the
// PRIMARY KEY (SPEC 1; Flink's DESCRIBE shows the key as PRI), and, when the
// stream has computed columns, each one's expression (Flink's extras).
func (s *Session) describe(x *catalog.Stream) error {
	key := map[string]bool{}
	for _, k := range x.PrimaryKey {
		key[catalog.FoldName(k)] = true
	}
	cols := []string{"column", "type", "watermark"}
	if len(key) > 0 {
		cols = append(cols, "key")
	}
	computed := x.HasComputed()
	if computed {
		cols = append(cols, "extras") // (Flink's DESCRIBE names it so)
	}
	var rows [][]string
	for i, c := range x.Columns {
		wm := ""
		if i == x.EventTime && x.Watermark != nil {
			wm = x.Watermark.Text
		}
		row := []string{c.Name, c.Type.String(), wm}
		if len(key) > 0 {
			k := ""
			if key[catalog.FoldName(c.Name)] {
				k = "PRI"
			}
			row = append(row, k)
		}
		if computed {
			e := ""
			if c.Computed != nil {
				e = "AS " + c.Computed.Text
			} else if c.Metadata != "" {
				e = "METADATA FROM '" + c.Metadata + "'"
			}
			row = append(row, e)
		}
		rows = append(rows, row)
	}
	return s.Front.Result(cols, rows)
}
