package kafka

import (
	"context"
	"errors"
	"fmt"
	"streamql/executor/connector"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/catalog"
)

// kafkaStreamOf declares a kafka stream with the given options (key, value
// pairs) as CREATE STREAM does: ValidateOptions, then the spec's Validate.
func kafkaStreamOf(t *testing.T, kv ...string) (*catalog.Stream, error) {
	t.Helper()
	o := []catalog.Option{{Key: "connector", Value: "kafka"}, {Key: "topic", Value: "t"}, {Key: "properties.bootstrap.servers", Value: "127.0.0.1:1"}}
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, catalog.Option{Key: kv[i], Value: kv[i+1]})
	}
	cols := []catalog.Column{{Name: "deviceNo", Type: catalog.Varchar}, {Name: "temperature", Type: catalog.Double}}
	spec, vals, err := catalog.ValidateOptions(o, cols, 0)
	if err != nil {
		return nil, err
	}
	st := &catalog.Stream{Name: "s", Columns: cols, Options: vals, Connector: spec}
	return st, spec.Validate(st)
}

// TestKafkaOptions: the checks of SPEC 1's kafka row beyond the option kinds,
// each naming the option, and properties.* passed through only where franz-go
// has the property.
func TestKafkaOptions(t *testing.T) {
	st, err := kafkaStreamOf(t, "properties.client.id", "me", "properties.isolation.level", "read_committed",
		"properties.acks", "all", "scan.startup.mode", "timestamp", "scan.startup.timestamp-millis", "1000",
		"scan.bounded.mode", "latest-offset", "key.fields", "deviceNo", "scan.watermark.idle-timeout", "10 s")
	if err != nil {
		t.Fatalf("a valid kafka stream: %v", err)
	}
	if st.Options["properties.client.id"] != "me" || !st.Connector.Bounded(st.Options) {
		t.Errorf("options %v: want properties.client.id kept and the stream bounded", st.Options)
	}
	if st, _ := kafkaStreamOf(t); st.Connector.Bounded(st.Options) {
		t.Errorf("a kafka stream without scan.bounded.mode is bounded")
	}
	for _, tc := range []struct {
		kv        []string
		key, want string
	}{
		{[]string{"properties.security.protocol", "SSL"}, "properties.security.protocol", "not supported"},
		{[]string{"properties.acks", "2"}, "properties.acks", "not all, -1, 1 or 0"},
		{[]string{"properties.enable.auto.commit", "true"}, "properties.enable.auto.commit", "commits the offsets"},
		{[]string{"scan.startup.mode", "timestamp"}, "scan.startup.mode", "needs the option 'scan.startup.timestamp-millis'"},
		{[]string{"scan.startup.timestamp-millis", "5"}, "scan.startup.timestamp-millis", "applies only with"},
		{[]string{"scan.bounded.mode", "timestamp"}, "scan.bounded.mode", "scan.bounded.timestamp-millis"},
		{[]string{"scan.startup.mode", "group-offsets"}, "scan.startup.mode", "properties.group.id"},
		{[]string{"scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "partition:0"}, "scan.startup.specific-offsets", "needs both"},
		{[]string{"scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "partition:0,offset:x"}, "scan.startup.specific-offsets", "not partition:<n>,offset:<n>"},
		{[]string{"scan.watermark.idle-timeout", "soon"}, "scan.watermark.idle-timeout", "not a duration"},
		{[]string{"key.fields", "nope"}, "key.fields", "'nope' is not a column"},
		{[]string{"key.format", "json"}, "key.format", "only with 'key.fields'"},
		{[]string{"sink.delivery-guarantee", "exactly-once"}, "sink.delivery-guarantee", "sink.transactional-id-prefix"},
		{[]string{"sink.transactional-id-prefix", "p"}, "sink.transactional-id-prefix", "only with"},
		{[]string{"encoding", "gbk"}, "encoding", "UTF-8"},
		{[]string{"csv.header", "true"}, "csv.header", "no header"},
	} {
		_, err := kafkaStreamOf(t, tc.kv...)
		var oe *connector.OptionError
		if !errors.As(err, &oe) || oe.Key != tc.key || !strings.Contains(oe.Msg, tc.want) {
			t.Errorf("%v: error %v; want an connector.OptionError on %s saying %q", tc.kv, err, tc.key, tc.want)
		}
	}
	_, err = kafkaStreamOf(t, "properties.sasl.mechanism", "PLAIN")
	if err == nil || !strings.Contains(err.Error(), "client.id") {
		t.Errorf("an unsupported property: %v; want the supported ones listed", err)
	}
}

// TestKafkaProducerPropertiesAgreeWithClient: the producer properties that
// franz-go refuses only when the client opens (idempotence with more than one
// request in flight, transactions without idempotence) are refused when the
// stream is created, with an OptionError, and every combination accepted then
// makes a client. The whole matrix of the properties involved is checked
// against kgo.NewClient itself (no broker is contacted).
func TestKafkaProducerPropertiesAgreeWithClient(t *testing.T) {
	for _, inFlight := range []string{"", "1", "5"} {
		for _, idem := range []string{"", "true", "false"} {
			for _, acks := range []string{"", "all", "1", "0"} {
				for _, eos := range []bool{false, true} {
					var kv []string
					for _, p := range [][2]string{{"properties.max.in.flight.requests.per.connection", inFlight}, {"properties.enable.idempotence", idem}, {"properties.acks", acks}} {
						if p[1] != "" {
							kv = append(kv, p[0], p[1])
						}
					}
					if eos {
						kv = append(kv, "sink.delivery-guarantee", "exactly-once", "sink.transactional-id-prefix", "t")
					}
					st, err := kafkaStreamOf(t, kv...)
					o, oerr := kafkaClientOpts(st.Options)
					var cerr error
					if oerr == nil {
						opts := kafkaProducerOpts(st, o)
						if eos {
							opts = append(opts, kgo.TransactionalID("t"))
						}
						var cl *kgo.Client
						if cl, cerr = kgo.NewClient(opts...); cerr == nil {
							cl.Close()
						}
					}
					var oe *connector.OptionError
					switch {
					case err == nil && cerr != nil:
						t.Errorf("%v: accepted at CREATE, but the client refuses it: %v", kv, cerr)
					case err != nil && !errors.As(err, &oe):
						t.Errorf("%v: %v; want an connector.OptionError", kv, err)
					case err != nil && inFlight != "5" && !eos:
						t.Errorf("%v: refused (%v), but only more than one request in flight or exactly-once is checked", kv, err)
					case err != nil && !strings.Contains(oe.Msg, "remove"):
						t.Errorf("%v: %v; want it to say what to remove", kv, err)
					}
					if err == nil && inFlight == "5" && idem != "false" && acks != "1" && acks != "0" {
						t.Errorf("%v: accepted, but the producer is idempotent with 5 requests in flight", kv)
					}
				}
			}
		}
	}
}

func TestParseFlinkDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"10 s": 10 * time.Second, "500ms": 500 * time.Millisecond, "1 min": time.Minute,
		"2h": 2 * time.Hour, "250": 250 * time.Millisecond, "1.5 s": 1500 * time.Millisecond, " 3 seconds ": 3 * time.Second} {
		if got, err := ParseFlinkDuration(in); err != nil || got != want {
			t.Errorf("ParseFlinkDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s", "-1 s", "10 parsecs", "1e3 s"} {
		if _, err := ParseFlinkDuration(in); err == nil {
			t.Errorf("ParseFlinkDuration(%q) gave no error", in)
		}
	}
}

func TestParseSpecificOffsets(t *testing.T) {
	got, err := parseSpecificOffsets("partition:0,offset:42; partition:1,offset:7;")
	if err != nil || len(got) != 2 || got[0] != 42 || got[1] != 7 {
		t.Errorf("got %v, %v; want 0:42 1:7", got, err)
	}
	for _, in := range []string{"", "partition:0,offset:1;partition:0,offset:2", "offset:1", "partition:-1,offset:0", "p:0,o:1"} {
		if _, err := parseSpecificOffsets(in); err == nil {
			t.Errorf("parseSpecificOffsets(%q) gave no error", in)
		}
	}
}

// TestKafkaPosition: positions keep the partition and offset apart and render
// as topic:partition:offset (SPEC 2.5).
func TestKafkaPosition(t *testing.T) {
	s := &kafkaSource{topic: "sensors"}
	for _, c := range []struct {
		p   int32
		off int64
	}{{0, 0}, {3, 41}, {1<<19 - 1, 1<<44 - 1}} {
		pos := connector.KafkaPosition(c.p, c.off)
		if p, off := connector.KafkaPartitionOf(pos); p != c.p || off != c.off || s.Partition(pos) != c.p {
			t.Errorf("KafkaPosition(%d, %d) reads back as %d, %d", c.p, c.off, p, off)
		}
	}
	if got := s.Position(connector.KafkaPosition(3, 41)); got != "sensors:3:41" {
		t.Errorf("Position = %q, want sensors:3:41", got)
	}
}

// TestKafkaRefused: no broker at 'properties.bootstrap.servers' is an error
// at once, for the source and the sink, saying what to do.
func TestKafkaRefused(t *testing.T) {
	st, err := kafkaStreamOf(t) // 127.0.0.1:1
	if err != nil {
		t.Fatal(err)
	}
	env := &connector.Env{State: &connector.State{}, NewValueDecoder: func(*catalog.Stream) (connector.ValueDecoder, error) { return nil, nil }}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := OpenKafka(ctx, st, env); err == nil || !strings.Contains(err.Error(), "nothing listens there") || !strings.Contains(err.Error(), "stream s") {
		t.Errorf("source: %v", err)
	}
	if _, err := OpenKafkaSink(ctx, st, env); err == nil || !strings.Contains(err.Error(), "nothing listens there") || !strings.Contains(err.Error(), "sink stream s") {
		t.Errorf("sink: %v", err)
	}
}

// TestKafkaBootstrapServers: each entry of 'properties.bootstrap.servers' must
// be host:port, checked at CREATE STREAM, not when a job first connects.
func TestKafkaBootstrapServers(t *testing.T) {
	for _, c := range []struct {
		v  string
		ok bool
	}{
		{"127.0.0.1:9092", true}, {"a:1, b:2", true}, {"[::1]:9092", true},
		{"127.0.0.1", false}, {"a:1,", false}, {":9092", false}, {"a:x", false}, {"a:0", false}, {"a:70000", false}, {" ", false},
	} {
		o := []catalog.Option{{Key: "connector", Value: "kafka"}, {Key: "topic", Value: "t"}, {Key: "properties.bootstrap.servers", Value: c.v}}
		cols := []catalog.Column{{Name: "x", Type: catalog.BigInt}}
		spec, vals, err := catalog.ValidateOptions(o, cols, 0)
		if err == nil {
			err = spec.Validate(&catalog.Stream{Name: "s", Columns: cols, Options: vals, Connector: spec})
		}
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "bootstrap.servers") {
			t.Errorf("bootstrap servers %q: error %v, want ok=%v and an error naming the option", c.v, err, c.ok)
		}
	}
}

// TestRebalancedErrors: the offset-commit errors by which Kafka says the group
// moved on are told apart from real failures, also when wrapped (%w), so an
// exactly-once job aborts and reads their rows again instead of stopping.
func TestRebalancedErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{kerr.IllegalGeneration, true}, {kerr.UnknownMemberID, true}, {kerr.RebalanceInProgress, true},
		{fmt.Errorf("committing the offsets of group 'g' in the transaction: %w", kerr.IllegalGeneration), true},
		{kerr.InvalidProducerEpoch, false}, {kerr.GroupAuthorizationFailed, false}, {errors.New("ILLEGAL_GENERATION"), false}, {nil, false},
	} {
		if got := rebalanced(c.err); got != c.want {
			t.Errorf("rebalanced(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestKafkaFetchSizes: a source fetches kafkaFetchPartitionBytes per
// partition and kafkaFetchBytes in all unless the stream's
// 'properties.max.partition.fetch.bytes' and 'properties.fetch.max.bytes'
// say otherwise.
func TestKafkaFetchSizes(t *testing.T) {
	for _, tc := range []struct {
		kv         []string
		part, full int32
	}{
		{nil, kafkaFetchPartitionBytes, kafkaFetchBytes},
		{[]string{"properties.max.partition.fetch.bytes", "1048576", "properties.fetch.max.bytes", "52428800"}, 1 << 20, 50 << 20},
	} {
		cl := kafkaClientOf(t, kafkaConsumerOpts, tc.kv...)
		part, full := cl.OptValue(kgo.FetchMaxPartitionBytes), cl.OptValue(kgo.FetchMaxBytes)
		cl.Close()
		if part != tc.part || full != tc.full {
			t.Errorf("%v: fetch sizes %v per partition, %v in all; want %d and %d", tc.kv, part, full, tc.part, tc.full)
		}
	}
}

// kafkaClientOf returns a client (not connected yet; the caller closes it)
// with the options opts makes for a kafka stream of the options kv, as the
// source and the sink make theirs.
func kafkaClientOf(t *testing.T, opts func(*catalog.Stream, *kafkaOpts) []kgo.Opt, kv ...string) *kgo.Client {
	t.Helper()
	st, err := kafkaStreamOf(t, kv...)
	if err != nil {
		t.Fatal(err)
	}
	o, err := kafkaClientOpts(st.Options)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(opts(st, o)...)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}
