package catalog_test

import (
	"errors"
	"testing"

	"streamql/catalog"
)

// declare checks kv as a CREATE STREAM's WITH options over cols and parses
// them into the stream's typed Config, as internal/session does.
func declare(t *testing.T, cols []catalog.Column, kv ...string) *catalog.Stream {
	t.Helper()
	spec, vals, err := catalog.ValidateOptions(opts(kv...), cols, 0)
	if err != nil {
		t.Fatalf("%v: %v", kv, err)
	}
	st := &catalog.Stream{Name: "s", Columns: cols, EventTime: -1, Connector: spec, Options: vals}
	if err := st.Configure(); err != nil {
		t.Fatalf("%v: Configure: %v", kv, err)
	}
	return st
}

// TestConfigShared: the shared options (SPEC 1: format, csv.*, encoding,
// max-record-size, errors*, watermark.max-future; SPEC 2.8: the changelog
// formats') come out of Configure typed, with the defaults ValidateOptions
// fills in, and a connector without them has them zero.
func TestConfigShared(t *testing.T) {
	cols := []catalog.Column{{Name: "a", Type: catalog.Varchar}, {Name: "b", Type: catalog.BigInt}}
	st := declare(t, cols, "connector", "file", "path", "x.tsv", "csv.delimiter", `\t`, "csv.quote", "'", "csv.header", "TRUE",
		"csv.null-literal", "", "max-record-size", "2 MiB", "errors", "fail", "errors.stream", "dlq", "watermark.max-future", "1 h")
	got := *st.Shared()
	want := catalog.SharedConfig{Format: "csv", Encoding: "utf-8", MaxRecordSize: 2 << 20, Errors: "fail", ErrorsSide: "errors", ErrorsStream: "dlq",
		CSV:       catalog.CSVConfig{Delimiter: '\t', Quote: '\'', Header: true, HasNullLiteral: true},
		MaxFuture: "1 h", MaxFutureMillis: 3_600_000, HasMaxFuture: true}
	if got != want {
		t.Errorf("shared config\n%+v\nwant\n%+v", got, want)
	}
	if ms, ok := st.MaxFuture(); ms != 3_600_000 || !ok {
		t.Errorf("MaxFuture() = %d, %v", ms, ok)
	}
	// defaults, and no null literal when none is given
	st = declare(t, cols, "connector", "stdin")
	want = catalog.SharedConfig{Format: "csv", Encoding: "utf-8", MaxRecordSize: 64 << 20, Errors: "side", ErrorsSide: "errors",
		CSV: catalog.CSVConfig{Delimiter: ',', Quote: '"'}}
	if got := *st.Shared(); got != want {
		t.Errorf("stdin defaults\n%+v\nwant\n%+v", got, want)
	}
	if st.File() != nil || st.Kafka() != nil {
		t.Errorf("a stdin stream has a file or Kafka config: %T", st.Config)
	}
	// the changelog formats' options; ignore-parse-errors reads as errors = skip
	st = declare(t, cols, "connector", "file", "path", "c.json", "format", "canal-json", "canal-json.table.include", "orders|items",
		"canal-json.ignore-parse-errors", "true")
	if c := st.Shared(); c.Format != "canal-json" || c.CanalTableInclude != "orders|items" || c.CanalDatabaseInclude != "" || c.Errors != "skip" {
		t.Errorf("canal-json: %+v", c)
	}
	st = declare(t, cols, "connector", "file", "path", "d.json", "format", "debezium-json", "debezium-json.schema-include", "true")
	if c := st.Shared(); !c.DebeziumSchemaInclude || st.Updating() != "format 'debezium-json'" {
		t.Errorf("debezium-json: %+v, updating %q", c, st.Updating())
	}
	// a connector without the decoding options
	st = declare(t, cols, "connector", "datagen", "number-of-rows", "3")
	if got := *st.Shared(); got != (catalog.SharedConfig{}) {
		t.Errorf("datagen shared config %+v, want zero", got)
	}
}

// TestConfigConnectors: 'file' and 'kafka' (and 'upsert-kafka') streams get
// their own typed configs, with the connector's options in them.
func TestConfigConnectors(t *testing.T) {
	cols := []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "v", Type: catalog.BigInt}}
	f := declare(t, cols, "connector", "file", "path", "out/x.csv", "sink.mode", "append", "follow", "true").File()
	if f == nil || f.Path != "out/x.csv" || f.SinkMode != "append" || !f.Follow || f.SinkFIFO || f.Format != "csv" {
		t.Errorf("file config %+v", f)
	}
	st := declare(t, cols, "connector", "kafka", "topic", "t1", "properties.bootstrap.servers", "b:9092", "properties.group.id", "g",
		"key.fields", "k;v", "format", "json", "scan.bounded.mode", "latest-offset")
	k := st.Kafka()
	if k == nil || k.Topic != "t1" || k.Servers != "b:9092" || k.GroupID != "g" || k.KeyFields != "k;v" || k.Format != "json" ||
		k.BoundedMode != "latest-offset" || k.DeliveryGuarantee != "at-least-once" || st.File() != nil {
		t.Fatalf("kafka config %+v", k)
	}
	if n := k.KeyFieldNames(); len(n) != 2 || n[0] != "k" || n[1] != "v" {
		t.Errorf("KeyFieldNames %q", n)
	}
	up := &catalog.Stream{Name: "u", Columns: cols, EventTime: -1, PrimaryKey: []string{"k"}}
	spec, vals, err := catalog.ValidateOptions(opts("connector", "upsert-kafka", "topic", "t2", "properties.bootstrap.servers", "b:9092",
		"key.format", "csv", "value.format", "json"), cols, 0)
	if err != nil {
		t.Fatal(err)
	}
	up.Connector, up.Options = spec, vals
	if err := up.Configure(); err != nil {
		t.Fatal(err)
	}
	if k := up.Kafka(); k == nil || k.Topic != "t2" || k.KeyFormat != "csv" || k.ValueFormat != "json" || k.Format != "" || k.Errors != "side" {
		t.Errorf("upsert-kafka config %+v", k)
	}
}

// TestConfigCapabilities: the engine asks a connector's spec what it can do;
// CapGroups (a consumer group shares its partitions) is Kafka's alone.
func TestConfigCapabilities(t *testing.T) {
	for _, n := range catalog.ConnectorNames() {
		if got, want := catalog.LookupConnector(n).Caps.Has(catalog.CapGroups), n == "kafka"; got != want {
			t.Errorf("connector %s: CapGroups = %v, want %v", n, got, want)
		}
	}
}

// TestConfigUpdates: a stream changed after its declaration (SetOption), or
// made without Configure, reads its options as they are now; a bad value is
// an *OptionError naming the option.
func TestConfigUpdates(t *testing.T) {
	cols := []catalog.Column{{Name: "a", Type: catalog.Varchar}, {Name: "b", Type: catalog.BigInt, Computed: &catalog.Computed{Text: "1"}}}
	cat := catalog.New()
	st := declare(t, cols, "connector", "kafka", "topic", "t", "properties.bootstrap.servers", "b:1", "properties.group.id", "g")
	cat.Add(st)
	if err := st.SetOption("properties.group.id", "g-x"); err != nil {
		t.Fatal(err)
	}
	if st.Kafka().GroupID != "g-x" || st.Physical() == st || st.Physical().Kafka().GroupID != "g-x" {
		t.Errorf("after SetOption: group %q, the physical stream's %q", st.Kafka().GroupID, st.Physical().Kafka().GroupID)
	}
	hand := &catalog.Stream{Name: "h", EventTime: -1, Options: map[string]string{"errors": "skip", "errors.side": "bad"}}
	if c := hand.Shared(); c.Errors != "skip" || c.ErrorsSide != "bad" || hand.Config != nil {
		t.Errorf("a stream made by hand: %+v (Config %v)", c, hand.Config)
	}
	hand.Options["max-record-size"] = "lots"
	var oe *catalog.OptionError
	if err := hand.Configure(); !errors.As(err, &oe) || oe.Key != "max-record-size" {
		t.Errorf("bad max-record-size: %v", err)
	}
	hand.Options["max-record-size"] = "1KiB"
	hand.Options[catalog.MaxFutureOption] = "soon"
	if err := hand.Configure(); !errors.As(err, &oe) || oe.Key != catalog.MaxFutureOption {
		t.Errorf("bad max-future: %v", err)
	}
}
