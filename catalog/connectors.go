package catalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"streamql/internal/editdist"
	"streamql/internal/sidename"
)

// OptionKind is the value type of a connector option.
type OptionKind uint8

// Option value kinds.
const (
	OptString   OptionKind = iota // any text
	OptBool                       // true or false, any case
	OptInt                        // a non-negative decimal integer
	OptChar                       // exactly one byte; '\t' is accepted for a tab
	OptEnum                       // one of OptionSpec.Values
	OptNumber                     // a number (datagen bounds)
	OptSize                       // a byte size: bytes, or a number with a unit, as Flink's MemorySize (ParseSize)
	OptDuration                   // a duration: a number and a unit, '1 h', '500 ms' (ParseDuration)
)

// OptionSpec declares one option of a connector once: validation, DESCRIBE and the
// unknown-option error all come from it (DESIGN: catalog).
type OptionSpec struct {
	// Name is the option key. A '#' stands for a column name of the stream, so
	// "fields.#.kind" matches 'fields.qty.kind' (SPEC 1, datagen). A name
	// ending in ".*" matches every key with that prefix and something after it,
	// kept as written ("properties.*": the Kafka client's properties, SPEC 1).
	Name     string
	Kind     OptionKind
	Values   []string // for OptEnum
	Default  string   // "" when the option has no default
	Required bool
	Doc      string
}

// ConnectorSpec declares a connector: its name, its options, whether a stream
// over it ends by itself (SPEC 1, connector table), the checks its options need
// beyond their kinds, the capabilities the engine asks instead of its name, and
// its opener. Each connector's file under executor/connector registers one spec
// with RegisterConnector; nothing else names a connector (see the package doc of
// executor/connector).
type ConnectorSpec struct {
	Name    string
	Doc     string
	Options []OptionSpec
	// Bounded reports whether a stream with these (validated) options ends.
	Bounded func(opts map[string]string) bool
	// Validate checks a declared stream's options (filled in and of the right
	// kinds) against what the option specs cannot say, such as a port range or
	// bounds that fit a column's type; nil checks nothing. It returns an
	// *OptionError for a bad option value (the caller positions it at that
	// option's value) or another error (positioned at the WITH clause).
	Validate func(st *Stream) error
	// Configure parses a declared stream's options (filled in and checked,
	// st.Options) into its typed Config (Stream.Configure), given the shared
	// options already parsed; nil makes the stream's Config the *SharedConfig
	// alone. Errors are an *OptionError naming the option.
	Configure func(st *Stream, shared SharedConfig) (Config, error)
	// Caps declares what streams over this connector can do beyond reading
	// rows (caps.go): CapPartitioned, CapGroups, CapRecordMetadata, CapHandBack,
	// CapSinkKinds, CapDeadLetters, CapAbort, CapReread (with ReadOnce),
	// CapReadWhole. (A stream's CapBounded, CapSink
	// and CapUpdates come from Bounded, Writes and Upserts: Stream.Caps.)
	// executor/connector binds each to its typed handle when a stream is
	// opened and its tests check the declaration against the implementation.
	Caps Caps
	// Repeatable says that two reads of a stream over this connector with
	// these options give the same rows in the same order, so the same
	// CURRENT_WATERMARK stamps (SPEC 2.3): a bounded file, values, the
	// nexmark generator; not a consumer group's partitions, a socket, the
	// clock's datagen times or a followed file that may rotate between
	// them. nil: never. The planner proves a join of a stream with an
	// aggregate of its own rows by it (planner/rule_join_extreme.go).
	Repeatable func(opts map[string]string) bool
	// ReadOnce says that a stream over this connector with these options
	// loses its declared CapReread (caps.go): a Kafka stream with
	// 'properties.group.id', whose two consumers in one group would split
	// the partitions. nil: the declared Caps hold for every option.
	ReadOnce func(opts map[string]string) bool
	// OnceWhy is, for a connector whose streams may lack CapReread but
	// declare CapReadWhole (a Kafka consumer group), why two reads of such a
	// stream in its group in one job get only some rows each, and what to do
	// instead: the planner's refusal of such a job
	// (planner/rule_read_once.go) says it after the stream's name. (A
	// stream with neither is read once and fanned out to its readers:
	// planner/rule_tee.go.)
	OnceWhy string
	// KnownSize says a bounded stream over this connector reads input of a
	// size known up front and never waits for more (a file): the CLI shows a
	// progress bar and the executor decodes ahead (SPEC 4).
	KnownSize bool
	// TakesInsert says the stream's rows come from INSERT INTO ... VALUES (SPEC 3).
	TakesInsert bool
	// ReadsStdin says the stream reads the process's standard input, so the SQL
	// may not come from there too (SPEC 1).
	ReadsStdin bool
	// PushedFromGo says the stream's rows are pushed by the Go program that
	// embeds streamql (the streamql package's Session.Push, connector 'go'); the
	// command line cannot feed such a stream.
	PushedFromGo bool
	// Writes says a stream over this connector can be a sink (SPEC 2.5): its
	// Source has a sink opener. connector.Register sets it.
	Writes bool
	// Upserts says a stream over this connector reads and writes upserts keyed
	// by its PRIMARY KEY (SPEC 2.8, 'upsert-kafka'): as a source it is
	// updating (Stream.Updating), as a sink it takes an updating query.
	Upserts bool
	// OpColumn says a csv or json sink over this connector writes each row's
	// kind into a first column op (SPEC 2.8: a file sink of an updating
	// relation holds the changelog, op first; Stream.OpColumn).
	OpColumn bool
	// Source is the executor's side of the connector (its source opener, and
	// later its sink opener), set by the connector's file; catalog never looks
	// inside it, so catalog does not import the executor (the model is
	// database/sql's driver registry).
	Source any
}

// OptionError is a bad option value found when a stream is declared (returned by
// ConnectorSpec.Validate): Key is the option as the connector's spec spells it
// (fields.<column>.min), Msg the reason. Its text is "option 'Key': Msg".
type OptionError struct {
	Key string
	Msg string
}

func (e *OptionError) Error() string { return fmt.Sprintf("option '%s': %s", e.Key, e.Msg) }

// formatOptions are the decoding options shared by connectors that read bytes (SPEC 1).
var formatOptions = []OptionSpec{
	{Name: "format", Kind: OptEnum, Values: FormatNames(), Default: "csv", Doc: "record format: csv, json (one object per line), or a changelog format: debezium-json, canal-json, maxwell-json (SPEC 2.8)"},
	{Name: "csv.delimiter", Kind: OptChar, Default: ",", Doc: "field delimiter, one byte"},
	{Name: "csv.header", Kind: OptBool, Default: "false", Doc: "true skips the first line"},
	{Name: "csv.quote", Kind: OptChar, Default: `"`, Doc: "quote character (RFC 4180 quoting)"},
	{Name: "csv.null-literal", Kind: OptString, Doc: "an unquoted field equal to this is NULL"},
	{Name: "csv.allow-ragged", Kind: OptBool, Default: "false", Doc: "true reads missing trailing fields as NULL and drops extra ones"},
	{Name: "encoding", Kind: OptString, Default: "utf-8", Doc: "input text encoding (utf-8, gbk, gb18030, latin1, windows-1252, utf-16le, utf-16be; common aliases)"},
	{Name: "max-record-size", Kind: OptSize, Default: "64MiB", Doc: "longest record read; a longer one is malformed (bytes, or with a unit: 64kb, 64MiB, 1g; ParseSize)"},
	{Name: "errors", Kind: OptEnum, Values: []string{"side", "skip", "fail"}, Default: "side", Doc: "malformed rows: side (to the errors side output), skip, or fail"},
	{Name: "errors.side", Kind: OptString, Default: "errors", Doc: "name of the errors side output"},
	{Name: "errors.stream", Kind: OptString, Doc: "sink stream that gets the malformed rows instead of the errors side output (SPEC 2.5, dead letters)"},
	{Name: MaxFutureOption, Kind: OptDuration, Doc: "a row whose event time is more than this (e.g. '1 h') above the stream's watermark goes to the errors output and does not move the watermark (SPEC 4, needs WATERMARK FOR)"},
}

// WithFormat returns a connector's own options followed by the decoding options
// shared by every connector that reads bytes (SPEC 1: format, csv.*, encoding,
// max-record-size, errors, errors.side; SPEC 2.8: the changelog formats'
// options, formats.go), which ValidateOptions checks.
func WithFormat(own ...OptionSpec) []OptionSpec {
	return append(append(own, formatOptions...), changelogOptions...)
}

var (
	connMu     sync.RWMutex
	connectors = map[string]*ConnectorSpec{}
)

// RegisterConnector adds spec to the connectors CREATE STREAM accepts by
// spec.Name (the 'connector' option). It is called once per connector, from the
// init of the connector's file; it panics when the name is empty, taken, or the
// spec has no Bounded rule (a programming error, as in database/sql.Register).
func RegisterConnector(spec *ConnectorSpec) {
	connMu.Lock()
	defer connMu.Unlock()
	if spec == nil || spec.Name == "" || spec.Bounded == nil {
		panic("catalog: RegisterConnector needs a spec with a Name and a Bounded rule")
	}
	if connectors[spec.Name] != nil {
		panic("catalog: connector '" + spec.Name + "' is registered twice")
	}
	connectors[spec.Name] = spec
}

// connectorAliases are Flink's names of connectors that SPEC 1 names
// otherwise ("`file` (also Flink's name `filesystem`)").
var connectorAliases = map[string]string{"filesystem": "file"}

// LookupConnector returns the registered connector named name (exactly, as
// SPEC 1 spells it, or by its Flink name, connectorAliases), or nil.
func LookupConnector(name string) *ConnectorSpec {
	connMu.RLock()
	defer connMu.RUnlock()
	if a, ok := connectorAliases[name]; ok {
		name = a
	}
	return connectors[name]
}

// ConnectorNames returns the registered connector names, sorted.
func ConnectorNames() []string {
	connMu.RLock()
	defer connMu.RUnlock()
	var n []string
	for k := range connectors {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// WriterNames returns the names of the registered connectors that can be
// sinks (ConnectorSpec.Writes; SPEC 2.5), sorted.
func WriterNames() []string {
	var out []string
	for _, n := range ConnectorNames() {
		if LookupConnector(n).Writes {
			out = append(out, n)
		}
	}
	return out
}

// match reports whether key matches the spec name, where '#' in the spec stands for
// one column name of cols (case-insensitive). It returns the canonical key (the
// column name as declared).
func (o *OptionSpec) match(key string, cols []Column) (string, bool) {
	if pre, ok := strings.CutSuffix(o.Name, "*"); ok && strings.HasSuffix(pre, ".") {
		return key, len(key) > len(pre) && strings.HasPrefix(key, pre)
	}
	i := strings.IndexByte(o.Name, '#')
	if i < 0 {
		return o.Name, key == o.Name
	}
	pre, suf := o.Name[:i], o.Name[i+1:]
	if len(key) <= len(pre)+len(suf) || !strings.HasPrefix(key, pre) || !strings.HasSuffix(key, suf) {
		return "", false
	}
	col := key[len(pre) : len(key)-len(suf)]
	for _, c := range cols {
		if strings.EqualFold(c.Name, col) {
			return pre + c.Name + suf, true
		}
	}
	return "", false
}

// encodings is what RegisterEncodings registered.
var encodings struct {
	known func(name string) bool
	names func() []string
}

// RegisterEncodings gives ValidateOptions the text encodings the decoders
// read (SPEC 1: 'encoding'): known reports whether a name is one, names lists
// them for the message. executor/connector registers executor/textenc's, so
// that catalog imports no executor package; before that any name passes.
func RegisterEncodings(known func(name string) bool, names func() []string) {
	encodings.known, encodings.names = known, names
}

// Option is one 'key' = 'value' pair of a CREATE STREAM's WITH (...), with
// the byte offsets of its key and value in the script (parser.Option).
type Option struct {
	Key, Value       string
	KeyPos, ValuePos int
}

// PosError is an error at a byte offset of the script (Pos), with its
// message; the caller positions it (planner.ValidateOptions makes it a
// *parser.Error with the statement line and a caret).
type PosError struct {
	Pos int
	Msg string
}

// Error returns the message.
func (e *PosError) Error() string { return e.Msg }

func errorf(pos int, format string, args ...any) *PosError {
	return &PosError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// flinkSinkHint is what the error for an unknown connector says to a Flink
// user who named one of Flink's sinks that streamql does without (any case):
// 'print' (a query without INSERT INTO prints its rows, --format plain as
// Flink's print() does, SPEC 4) and 'blackhole' (EXPLAIN ANALYZE runs a query
// with its outputs discarded, SPEC 3); "" for any other name.
func flinkSinkHint(name string) string {
	switch strings.ToLower(name) {
	case "print":
		return "Flink's 'print' sink is not needed here: a query without INSERT INTO prints its rows (SELECT … FROM …; --format plain prints them as print() does, INTO SIDE 'name' gives them a name of their own); "
	case "blackhole":
		return "Flink's 'blackhole' sink is not needed here: EXPLAIN ANALYZE SELECT … runs a query with its outputs discarded (and says what each operator did); "
	}
	return ""
}

// ValidateOptions checks the WITH options of a CREATE STREAM against the connector
// named by 'connector' and returns the connector and the options with defaults
// filled in. stmtPos is the offset of the statement's WITH. Errors are *PosError
// at the offending key or value: a missing or unknown connector, an unknown
// option (the message lists the valid ones), a duplicate, a bad value for the
// option's kind, a missing required option or one given empty (or as blanks).
func ValidateOptions(opts []Option, cols []Column, stmtPos int) (*ConnectorSpec, map[string]string, error) {
	var spec *ConnectorSpec
	for _, o := range opts {
		if o.Key == "connector" {
			spec = LookupConnector(o.Value)
			if spec == nil {
				return nil, nil, errorf(o.ValuePos, "unknown connector '%s'; %s%suse one of: %s", o.Value, flinkSinkHint(o.Value), editdist.DidYouMean(o.Value, append(ConnectorNames(), "filesystem")), strings.Join(ConnectorNames(), ", "))
			}
		}
	}
	if spec == nil {
		return nil, nil, errorf(stmtPos, "CREATE STREAM needs WITH ('connector' = '...'); connectors: %s", strings.Join(ConnectorNames(), ", "))
	}
	vals := map[string]string{}
	written := map[string]bool{"connector": true}
	for _, o := range opts {
		if o.Key == "connector" {
			continue
		}
		var os *OptionSpec
		key := ""
		for i := range spec.Options {
			if k, ok := spec.Options[i].match(o.Key, cols); ok {
				os, key = &spec.Options[i], k
				break
			}
		}
		if os == nil {
			return nil, nil, errorf(o.KeyPos, "unknown option '%s' for connector '%s'; %svalid options: %s", o.Key, spec.Name, editdist.DidYouMean(o.Key, spec.optionNames()), strings.Join(spec.optionNames(), ", "))
		}
		if written[key] {
			return nil, nil, errorf(o.KeyPos, "option '%s' is given twice", o.Key)
		}
		v, err := os.check(o.Value)
		if err != nil {
			return nil, nil, errorf(o.ValuePos, "option '%s': %v", o.Key, err)
		}
		if os.Required && strings.TrimSpace(v) == "" {
			return nil, nil, errorf(o.ValuePos, "option '%s' is empty; give %s", o.Key, os.Doc)
		}
		if why := sidename.Problem(v); key == "errors.side" && why != "" {
			return nil, nil, errorf(o.ValuePos, "option 'errors.side': not a side output name: %s", why)
		}
		if key == "encoding" {
			if encodings.known != nil && (!encodings.known(v) || strings.TrimSpace(v) == "") {
				return nil, nil, errorf(o.ValuePos, "option 'encoding': unknown encoding '%s'; use one of: %s", v, strings.Join(encodings.names(), ", "))
			}
		}
		vals[key] = v
		written[key] = true
	}
	for _, os := range spec.Options {
		if strings.Contains(os.Name, "#") || strings.HasSuffix(os.Name, "*") {
			continue
		}
		if _, ok := vals[os.Name]; !ok {
			if os.Required {
				return nil, nil, errorf(stmtPos, "connector '%s' needs option '%s' (%s)", spec.Name, os.Name, os.Doc)
			}
			if os.Default != "" {
				vals[os.Name] = os.Default
			}
		}
	}
	if q, d := vals["csv.quote"], vals["csv.delimiter"]; q != "" && q == d {
		at := stmtPos
		for _, o := range opts {
			if o.Key == "csv.quote" || o.Key == "csv.delimiter" {
				at = o.ValuePos
			}
		}
		return nil, nil, errorf(at, "'csv.quote' and 'csv.delimiter' are both '%s'; they must differ", q)
	}
	if f, ok := vals["format"]; ok {
		// SPEC 1: the csv.* options are the csv format's (and debezium-json.*
		// debezium-json's, SPEC 2.8); silently ignored they would hide a mistake
		for _, o := range opts {
			if of := formatOf(o.Key); of != "" && of != f {
				return nil, nil, errorf(o.KeyPos, "option '%s' applies to 'format' = '%s', but this stream's format is %s; remove it (or write 'format' = '%s')", o.Key, of, f, of)
			}
		}
		if vals[f+".ignore-parse-errors"] == "true" { // Flink's name for 'errors' = 'skip'
			for _, o := range opts {
				if o.Key == "errors" && vals["errors"] != "skip" {
					return nil, nil, errorf(o.ValuePos, "option 'errors' = '%s' contradicts '%s.ignore-parse-errors' = 'true' (which drops malformed records); remove one of them", o.Value, f)
				}
			}
			vals["errors"] = "skip"
		}
	}
	return spec, vals, nil
}

func (s *ConnectorSpec) optionNames() []string {
	n := []string{"connector"}
	for _, o := range s.Options {
		n = append(n, strings.ReplaceAll(strings.ReplaceAll(o.Name, "#", "<column>"), "*", "<name>"))
	}
	return n
}

// check validates v for the option's kind and returns it normalised.
func (o *OptionSpec) check(v string) (string, error) {
	switch o.Kind {
	case OptBool:
		switch strings.ToLower(v) {
		case "true", "false":
			return strings.ToLower(v), nil
		}
		return "", fmt.Errorf("'%s' is not true or false", v)
	case OptInt:
		if _, err := strconv.ParseUint(v, 10, 63); err != nil {
			return "", fmt.Errorf("'%s' is not a non-negative integer", v)
		}
	case OptNumber:
		if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return "", fmt.Errorf("'%s' is not a number", v)
		}
	case OptSize:
		if _, err := ParseSize(v); err != nil {
			return "", err
		}
	case OptDuration:
		if _, err := ParseDuration(v); err != nil {
			return "", err
		}
	case OptChar:
		if v == `\t` {
			return "\t", nil
		}
		if len(v) != 1 {
			return "", fmt.Errorf("'%s' must be exactly one character (one byte; write '\\t' for a tab)", v)
		}
		if v == "\n" || v == "\r" { // SPEC 1: records end at LF or CRLF
			return "", fmt.Errorf("'\\x%02x' is a line end, which ends a record; choose another character", v[0])
		}
	case OptEnum:
		for _, x := range o.Values {
			if strings.EqualFold(x, v) {
				return x, nil
			}
		}
		return "", fmt.Errorf("'%s' is not one of %s", v, strings.Join(o.Values, ", "))
	}
	return v, nil
}

// sizeUnits are the units ParseSize takes, in lower case: Flink's
// MemorySize.MemoryUnit (b, bytes; k, kb, kibibytes; m, mb, mebibytes; g, gb,
// gibibytes; t, tb, tebibytes, all powers of 1024) and the IEC symbols KiB,
// MiB, GiB and TiB this engine took first.
var sizeUnits = map[string]int64{
	"": 1, "b": 1, "bytes": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "kibibytes": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "mebibytes": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "gibibytes": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40, "tebibytes": 1 << 40,
}

// sizeForms says which forms ParseSize takes, for its errors.
const sizeForms = "write a positive whole number of bytes, optionally followed by a unit: b or bytes; k, kb, KiB or kibibytes; m, mb, MiB or mebibytes; g, gb, GiB or gibibytes; t, tb, TiB or tebibytes (any case, each a power of 1024 as in Flink), e.g. '64MiB', '64mb' or '2g'"

// ParseSize reads a byte size, the one parser of every memory-size option
// (SPEC 1: the stream option 'max-record-size' and the session setting
// 'state.max-bytes'), as Flink's MemorySize.parse: a decimal integer of
// bytes, optionally followed (spaces allowed) by a unit of sizeUnits, in any
// case; k/kb/KiB are all 1024 bytes, m/mb/MiB 1024², and so on. Unlike Flink
// it refuses 0 (no size of a record or of the state is 0). It returns the size
// in bytes, or an error (for the caller to prefix with the option's name)
// saying which forms are accepted.
func ParseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	d := 0
	for d < len(s) && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	unit := strings.ToLower(strings.TrimSpace(s[d:]))
	mult, ok := sizeUnits[unit]
	if !ok && d > 0 {
		return 0, fmt.Errorf("'%s' is not a size: '%s' is not a unit; %s", v, strings.TrimSpace(s[d:]), sizeForms)
	}
	if !ok || d == 0 || strings.TrimLeft(s[:d], "0") == "" {
		return 0, fmt.Errorf("'%s' is not a size; %s", v, sizeForms)
	}
	n, err := strconv.ParseInt(s[:d], 10, 64) // (digits only: its one error is a number past int64)
	if err != nil || n > (1<<62)/mult {
		return 0, fmt.Errorf("'%s' is too large a size: at most 4611686018427387904 bytes (2^62, 4194304TiB)", v)
	}
	return n * mult, nil
}
