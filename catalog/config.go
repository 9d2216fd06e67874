package catalog

import "strings"

// Config is a declared stream's options parsed into typed fields, once, when
// the stream is declared (Stream.Configure; issue 22 item 5): what the
// planner, the executor and the CLI read of a stream instead of its option
// strings. Each connector's spec makes its own (ConnectorSpec.Configure):
// *FileConfig for 'file', *KafkaConfig for 'kafka' and 'upsert-kafka', the
// bare *SharedConfig for the others.
type Config interface {
	// Shared returns the options every connector's stream may have (the
	// decoding and errors options of SPEC 1); never nil.
	Shared() *SharedConfig
}

// CSVConfig is the csv format's options (SPEC 1: csv.*), as ValidateOptions
// normalised them.
type CSVConfig struct {
	// Delimiter and Quote are 'csv.delimiter' and 'csv.quote' (one byte;
	// 0 when the stream has no such option, which the decoder reads as its
	// default).
	Delimiter, Quote byte
	// Header is 'csv.header' = 'true': the first line names the fields.
	Header bool
	// AllowRagged is 'csv.allow-ragged' = 'true'.
	AllowRagged bool
	// NullLiteral is 'csv.null-literal'; HasNullLiteral says it is given
	// (an empty literal is one: empty unquoted fields read as NULL).
	NullLiteral    string
	HasNullLiteral bool
}

// SharedConfig holds the options that many connectors share (SPEC 1: the
// decoding options of formatOptions, 'errors', 'errors.side',
// 'errors.stream', 'watermark.max-future'; SPEC 2.8: the changelog formats'
// options). A field is its zero value when the stream's connector has no such
// option. It is a Config itself, for connectors with no options of their own
// that the engine reads.
type SharedConfig struct {
	// Format is 'format' (csv, json, or a changelog format: FormatSpec), ""
	// when the connector has none.
	Format string
	CSV    CSVConfig
	// Encoding is 'encoding' (a name executor/textenc knows), "" when none.
	Encoding string
	// MaxRecordSize is 'max-record-size' in bytes, 0 when the stream has none
	// (the decoder's default then applies).
	MaxRecordSize int64
	// Errors is 'errors': side, skip or fail ("" when none); ValidateOptions
	// makes a changelog format's 'ignore-parse-errors' = 'true' skip.
	Errors string
	// ErrorsSide is 'errors.side', the errors side output's name; "" when none.
	ErrorsSide string
	// ErrorsStream is 'errors.stream', the dead-letter sink's name (SPEC 2.5);
	// "" when none.
	ErrorsStream string
	// MaxFuture is 'watermark.max-future' as given (normalised text, EXPLAIN
	// prints it) and MaxFutureMillis its length in milliseconds; HasMaxFuture
	// says it is set (SPEC 4).
	MaxFuture       string
	MaxFutureMillis int64
	HasMaxFuture    bool
	// DebeziumSchemaInclude is 'debezium-json.schema-include' = 'true' (SPEC 2.8).
	DebeziumSchemaInclude bool
	// CanalDatabaseInclude and CanalTableInclude are canal-json's
	// 'canal-json.database.include' and 'canal-json.table.include' (RE2, whole
	// name), "" when not given.
	CanalDatabaseInclude, CanalTableInclude string
}

// Shared returns c itself.
func (c *SharedConfig) Shared() *SharedConfig { return c }

// FileConfig is the typed configuration of a 'file' stream (SPEC 1, 2.5).
type FileConfig struct {
	SharedConfig
	// Path is 'path' as written; a relative one is resolved against
	// Stream.BaseDir.
	Path string
	// Follow is 'follow' = 'true' (tail -F).
	Follow bool
	// SinkFIFO is 'sink.fifo' = 'true'; SinkFollowSymlinks 'sink.follow-symlinks' = 'true'.
	SinkFIFO, SinkFollowSymlinks bool
	// SinkMode is 'sink.mode': truncate or append.
	SinkMode string
}

// KafkaConfig is the typed configuration of a 'kafka' or 'upsert-kafka'
// stream (SPEC 2.5, 2.8): the options the engine reads outside the
// connector (EXPLAIN's scale-out lines, the join of two topics' check).
type KafkaConfig struct {
	SharedConfig
	// Topic is 'topic'; Servers 'properties.bootstrap.servers'.
	Topic, Servers string
	// GroupID is 'properties.group.id', "" when none: the stream is read in
	// that consumer group, the processes sharing its partitions.
	GroupID string
	// StartupMode and BoundedMode are 'scan.startup.mode' ("" when not
	// given) and 'scan.bounded.mode'.
	StartupMode, BoundedMode string
	// KeyFields is 'key.fields' as written (column names separated by ';'),
	// "" when none.
	KeyFields string
	// KeyFormat and ValueFormat are 'key.format' and 'value.format'
	// (upsert-kafka; a kafka sink's 'key.format'), "" when not given.
	KeyFormat, ValueFormat string
	// DeliveryGuarantee is 'sink.delivery-guarantee'.
	DeliveryGuarantee string
}

// KeyFieldNames returns 'key.fields' split at ';' (and ','), without empty names.
func (c *KafkaConfig) KeyFieldNames() []string {
	return strings.FieldsFunc(c.KeyFields, func(r rune) bool { return r == ';' || r == ',' })
}

// ParseShared reads the shared options of opts (a stream's Options, with
// defaults filled in) into a SharedConfig. Every option it reads was checked
// by ValidateOptions; a value of a stream made by hand that does not parse
// is an error naming the option.
func ParseShared(opts map[string]string) (SharedConfig, error) {
	c := SharedConfig{
		Format:                opts["format"],
		Encoding:              opts["encoding"],
		Errors:                opts["errors"],
		ErrorsSide:            opts["errors.side"],
		ErrorsStream:          opts["errors.stream"],
		DebeziumSchemaInclude: opts["debezium-json.schema-include"] == "true",
		CanalDatabaseInclude:  opts["canal-json.database.include"],
		CanalTableInclude:     opts["canal-json.table.include"],
	}
	c.CSV = CSVConfig{Delimiter: firstByte(opts["csv.delimiter"]), Quote: firstByte(opts["csv.quote"]),
		Header: opts["csv.header"] == "true", AllowRagged: opts["csv.allow-ragged"] == "true"}
	c.CSV.NullLiteral, c.CSV.HasNullLiteral = opts["csv.null-literal"]
	if v, ok := opts["max-record-size"]; ok {
		n, err := ParseSize(v)
		if err != nil {
			return c, &OptionError{Key: "max-record-size", Msg: err.Error()}
		}
		c.MaxRecordSize = n
	}
	if v, ok := opts[MaxFutureOption]; ok {
		d, err := ParseDuration(v)
		if err != nil {
			return c, &OptionError{Key: MaxFutureOption, Msg: err.Error()}
		}
		c.MaxFuture, c.MaxFutureMillis, c.HasMaxFuture = v, d.Milliseconds(), true
	}
	return c, nil
}

// firstByte returns the first byte of s, 0 for "".
func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// Configure parses s's Options into s.Config: its connector's
// ConnectorSpec.Configure, or the shared options alone when the connector has
// none (or s has no connector). Declaring a stream calls it once
// (internal/session), as does Catalog.Add for a stream made without it; call
// it again after changing Options. Errors are an *OptionError naming the
// option.
func (s *Stream) Configure() error {
	c, err := s.parseConfig()
	s.Config = c
	if s.physical != nil { // (it shares s's Options)
		s.physical.Config = c
	}
	return err
}

// SetOption sets s's option key (as the connector's spec spells it) to value
// and parses s's options again (Configure): the one way to change a declared
// stream's option (the CLI's consumer-group suffix of a test run, a test).
func (s *Stream) SetOption(key, value string) error {
	s.Options[key] = value
	return s.Configure()
}

func (s *Stream) parseConfig() (Config, error) {
	sh, err := ParseShared(s.Options)
	if err != nil {
		return &sh, err
	}
	if s.Connector != nil && s.Connector.Configure != nil {
		return s.Connector.Configure(s, sh)
	}
	return &sh, nil
}

// config returns s.Config, or, for a stream made without Configure (a test's,
// a planner's derived relation), its options parsed now.
func (s *Stream) config() Config {
	if s.Config != nil {
		return s.Config
	}
	c, _ := s.parseConfig()
	return c
}

// Shared returns s's shared options (SharedConfig); never nil.
func (s *Stream) Shared() *SharedConfig { return s.config().Shared() }

// File returns s's configuration as a 'file' stream, nil for a stream over
// another connector.
func (s *Stream) File() *FileConfig {
	c, _ := s.config().(*FileConfig)
	return c
}

// Kafka returns s's configuration as a 'kafka' or 'upsert-kafka' stream, nil
// for a stream over another connector.
func (s *Stream) Kafka() *KafkaConfig {
	c, _ := s.config().(*KafkaConfig)
	return c
}
