package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"streamql/executor/connector"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/catalog"
)

// The 'kafka' connector (SPEC 1 connector table, SPEC 2.5): a source reading a
// topic (kafkasource.go) and a sink writing one (kafkasink.go), both through
// franz-go. This file holds the registration, the options and their checks,
// the mapping of 'properties.*' to franz-go options, and kafkaJob, which ties
// a job's Kafka sources and sinks together so that offsets are committed only
// for rows whose outputs are written.

// KafkaCommitEvery is how often a Kafka source with 'properties.group.id'
// commits the offsets of the rows whose outputs are written (after flushing
// the job's Kafka sinks), and how often an 'exactly-once' sink commits its
// transaction. A job also commits when it ends.
var KafkaCommitEvery = time.Second

// kafkaPoll bounds one wait of a Kafka source for records: a source with
// nothing to read returns ErrWaiting this often, so the job flushes its sinks
// and a table renders (SPEC 4).
const kafkaPoll = 250 * time.Millisecond

func init() {
	connector.Register(&catalog.ConnectorSpec{
		Name: "kafka", Doc: "reads or writes a Kafka topic (SPEC 2.5); bounded unless 'scan.bounded.mode' = 'unbounded'",
		Options: catalog.WithFormat(
			catalog.OptionSpec{Name: "topic", Kind: catalog.OptString, Required: true, Doc: "the topic to read or write"},
			catalog.OptionSpec{Name: "properties.bootstrap.servers", Kind: catalog.OptString, Required: true, Doc: "brokers to connect to, host:port[,host:port...]"},
			catalog.OptionSpec{Name: "properties.group.id", Kind: catalog.OptString, Doc: "consumer group: processes with the same group share the partitions and commit the offsets of rows whose outputs are written"},
			catalog.OptionSpec{Name: "scan.startup.mode", Kind: catalog.OptEnum, Values: []string{"earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"}, Doc: "where reading starts (default: group-offsets with 'properties.group.id', else earliest-offset)"},
			catalog.OptionSpec{Name: "scan.startup.timestamp-millis", Kind: catalog.OptInt, Doc: "with scan.startup.mode = timestamp: start at the first record with a timestamp at or after it (epoch ms)"},
			catalog.OptionSpec{Name: "scan.startup.specific-offsets", Kind: catalog.OptString, Doc: "with scan.startup.mode = specific-offsets: partition:0,offset:42;partition:1,offset:7 (other partitions start at their earliest offset)"},
			catalog.OptionSpec{Name: "scan.bounded.mode", Kind: catalog.OptEnum, Values: []string{"unbounded", "latest-offset", "timestamp"}, Default: "unbounded", Doc: "where reading stops: never, at the end offsets seen when the job starts, or before the first record at or after scan.bounded.timestamp-millis"},
			catalog.OptionSpec{Name: "scan.bounded.timestamp-millis", Kind: catalog.OptInt, Doc: "with scan.bounded.mode = timestamp: stop before the first record with a timestamp at or after it (epoch ms)"},
			catalog.OptionSpec{Name: "scan.watermark.idle-timeout", Kind: catalog.OptString, Doc: "a partition without records for this long (e.g. '10 s', '500 ms', '1 min') is left out of the stream's watermark until it produces again"},
			catalog.OptionSpec{Name: "key.fields", Kind: catalog.OptString, Doc: "as a sink: the columns of each record's key, separated by ';' (Kafka's murmur2 partitioner places the keyed records)"},
			catalog.OptionSpec{Name: "key.format", Kind: catalog.OptEnum, Values: catalog.RowFormats(), Doc: "as a sink: the format of the key (default: the value's 'format')"},
			catalog.OptionSpec{Name: "sink.delivery-guarantee", Kind: catalog.OptEnum, Values: []string{"at-least-once", "exactly-once"}, Default: "at-least-once", Doc: "as a sink: at-least-once flushes before the job succeeds; exactly-once writes in Kafka transactions"},
			catalog.OptionSpec{Name: "sink.transactional-id-prefix", Kind: catalog.OptString, Doc: "as an exactly-once sink: prefix of the transactional id (the stream's name is appended, then a consumer-group source's 'properties.group.instance.id', or else a random suffix unique to the job)"},
			catalog.OptionSpec{Name: "properties.*", Kind: catalog.OptString, Doc: "a Kafka client property passed to the client (see the error of an unsupported one for the list)"},
		),
		Bounded: func(o map[string]string) bool {
			return o["scan.bounded.mode"] != "" && o["scan.bounded.mode"] != "unbounded"
		},
		Validate:  checkKafka,
		Configure: configureKafka,
		Caps:      catalog.CapPartitioned | catalog.CapGroups | catalog.CapRecordMetadata | catalog.CapSinkKinds | catalog.CapDeadLetters | catalog.CapAbort | catalog.CapReread | catalog.CapReadWhole,
		// two consumers of one group split the topic's partitions
		ReadOnce: func(o map[string]string) bool { return o["properties.group.id"] != "" },
		OnceWhy:  "it is read in the consumer group 'properties.group.id', so two reads of it in the group in one job (a join's two inputs) would split its partitions between them and each see only some rows, and one read fanned out to both (as stdin's) is not done: a crash or rebalance replays each partition from the oldest row either input still holds or has not taken yet, which the fan-out does not track, so rows would be lost or doubled; drop 'properties.group.id' (each read then reads every partition), or declare a second stream over the topic with another group (a view or WITH name over it reads it again too)",
	}, &connector.Driver{Open: func(ctx context.Context, st *catalog.Stream, env *connector.Env) (connector.Source, error) {
		return OpenKafka(ctx, st, env)
	}, OpenSink: func(ctx context.Context, st *catalog.Stream, env *connector.Env) (connector.SinkWriter, error) {
		return OpenKafkaSink(ctx, st, env)
	}})
}

// configureKafka is the ConnectorSpec.Configure of 'kafka' and
// 'upsert-kafka': their options as a *catalog.KafkaConfig.
func configureKafka(st *catalog.Stream, sh catalog.SharedConfig) (catalog.Config, error) {
	o := st.Options
	return &catalog.KafkaConfig{SharedConfig: sh, Topic: o["topic"], Servers: o["properties.bootstrap.servers"],
		GroupID: o["properties.group.id"], StartupMode: o["scan.startup.mode"], BoundedMode: o["scan.bounded.mode"],
		KeyFields: o["key.fields"], KeyFormat: o["key.format"], ValueFormat: o["value.format"],
		DeliveryGuarantee: o["sink.delivery-guarantee"]}, nil
}

// checkKafka checks a kafka stream's options beyond their kinds (SPEC 1, 2.5):
// each mode's companion option is given exactly with its mode, the specific
// offsets and the idle timeout parse, key.fields names columns, exactly-once
// has a transactional-id prefix, every 'properties.*' maps to the client, and
// the format options that have no meaning for one value per record are not
// set. It returns an *OptionError naming the option.
func checkKafka(st *catalog.Stream) error {
	o := st.Options
	if e := o["encoding"]; e != "" && !strings.EqualFold(strings.ReplaceAll(e, "-", ""), "utf8") {
		return &connector.OptionError{Key: "encoding", Msg: "a Kafka record value is read as UTF-8; remove the option (or convert the topic's values to UTF-8)"}
	}
	if o["csv.header"] == "true" {
		return &connector.OptionError{Key: "csv.header", Msg: "each Kafka record value is one row, there is no header line to skip; remove the option"}
	}
	for _, b := range strings.Split(o["properties.bootstrap.servers"], ",") {
		host, port, err := net.SplitHostPort(strings.TrimSpace(b))
		if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return &connector.OptionError{Key: "properties.bootstrap.servers", Msg: fmt.Sprintf("'%s' is not host:port; write e.g. '127.0.0.1:9092' (several separated by ',')", strings.TrimSpace(b))}
		}
	}
	mode := o["scan.startup.mode"]
	companion := func(opt, wantMode, modeOpt, got string) error {
		_, has := o[opt]
		switch {
		case got == wantMode && !has:
			return &connector.OptionError{Key: modeOpt, Msg: "'" + wantMode + "' needs the option '" + opt + "'"}
		case got != wantMode && has:
			return &connector.OptionError{Key: opt, Msg: "applies only with '" + modeOpt + "' = '" + wantMode + "'; remove it or set that mode"}
		}
		return nil
	}
	if err := companion("scan.startup.timestamp-millis", "timestamp", "scan.startup.mode", mode); err != nil {
		return err
	}
	if err := companion("scan.startup.specific-offsets", "specific-offsets", "scan.startup.mode", mode); err != nil {
		return err
	}
	if err := companion("scan.bounded.timestamp-millis", "timestamp", "scan.bounded.mode", o["scan.bounded.mode"]); err != nil {
		return err
	}
	if mode == "group-offsets" && o["properties.group.id"] == "" {
		return &connector.OptionError{Key: "scan.startup.mode", Msg: "'group-offsets' reads the offsets committed by a consumer group: set 'properties.group.id'"}
	}
	if v, ok := o["scan.startup.specific-offsets"]; ok {
		if _, err := parseSpecificOffsets(v); err != nil {
			return &connector.OptionError{Key: "scan.startup.specific-offsets", Msg: err.Error()}
		}
	}
	if v, ok := o["scan.watermark.idle-timeout"]; ok {
		if _, err := ParseFlinkDuration(v); err != nil {
			return &connector.OptionError{Key: "scan.watermark.idle-timeout", Msg: err.Error()}
		}
	}
	if v, ok := o["key.fields"]; ok {
		if _, err := keyColumns(st, v); err != nil {
			return &connector.OptionError{Key: "key.fields", Msg: err.Error()}
		}
	} else if _, ok := o["key.format"]; ok {
		return &connector.OptionError{Key: "key.format", Msg: "applies only with 'key.fields'; remove it or name the key columns"}
	}
	_, hasPrefix := o["sink.transactional-id-prefix"]
	switch {
	case o["sink.delivery-guarantee"] == "exactly-once" && !hasPrefix:
		return &connector.OptionError{Key: "sink.delivery-guarantee", Msg: "'exactly-once' needs 'sink.transactional-id-prefix' (a prefix unique to this job's sink)"}
	case o["sink.delivery-guarantee"] != "exactly-once" && hasPrefix:
		return &connector.OptionError{Key: "sink.transactional-id-prefix", Msg: "applies only with 'sink.delivery-guarantee' = 'exactly-once'"}
	}
	if _, err := kafkaClientOpts(o); err != nil {
		return err
	}
	return nil
}

// specificOffset is one entry of 'scan.startup.specific-offsets'.
type specificOffset struct {
	partition int32
	offset    int64
}

// parseSpecificOffsets reads Flink's 'partition:0,offset:42;partition:1,offset:7'.
func parseSpecificOffsets(v string) (map[int32]int64, error) {
	out := map[int32]int64{}
	for _, ent := range strings.Split(v, ";") {
		ent = strings.TrimSpace(ent)
		if ent == "" {
			continue
		}
		var so specificOffset
		var hasP, hasO bool
		for _, kv := range strings.Split(ent, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(kv), ":")
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			switch {
			case !ok || err != nil || n < 0:
				return nil, fmt.Errorf("'%s' is not partition:<n>,offset:<n> (write e.g. 'partition:0,offset:42;partition:1,offset:7')", ent)
			case strings.TrimSpace(k) == "partition" && n <= 1<<31-1:
				so.partition, hasP = int32(n), true
			case strings.TrimSpace(k) == "offset":
				so.offset, hasO = n, true
			default:
				return nil, fmt.Errorf("'%s' is not partition:<n>,offset:<n> (write e.g. 'partition:0,offset:42;partition:1,offset:7')", ent)
			}
		}
		if !hasP || !hasO {
			return nil, fmt.Errorf("'%s' needs both partition:<n> and offset:<n>", ent)
		}
		if _, dup := out[so.partition]; dup {
			return nil, fmt.Errorf("partition %d is given twice", so.partition)
		}
		out[so.partition] = so.offset
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no offsets given (write e.g. 'partition:0,offset:42;partition:1,offset:7')")
	}
	return out, nil
}

// ParseFlinkDuration reads a duration as Flink options write it
// (catalog.ParseDuration: "10 s", "500ms", "1 min"; a bare number is
// milliseconds), or returns an error saying which forms are accepted.
func ParseFlinkDuration(v string) (time.Duration, error) { return catalog.ParseDuration(v) }

// keyColumns returns the indexes of the 'key.fields' columns of st (names
// separated by ';' as in Flink, or ','), or an error naming an unknown one.
func keyColumns(st *catalog.Stream, v string) ([]int, error) {
	var out []int
	for _, name := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == ',' }) {
		name = strings.TrimSpace(name)
		k := -1
		for j, c := range st.Columns {
			if strings.EqualFold(c.Name, name) {
				k = j
			}
		}
		if k < 0 {
			var names []string
			for _, c := range st.Columns {
				names = append(names, c.Name)
			}
			return nil, fmt.Errorf("'%s' is not a column of stream %s (columns: %s)", name, st.Name, strings.Join(names, ", "))
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("names no column; write the key columns separated by ';'")
	}
	return out, nil
}

// kafkaOpts are a stream's 'properties.*' as franz-go options: for every
// client, for the source's consumer only, for the sink's producer only, and
// the properties the connector itself reads.
type kafkaOpts struct {
	common, consumer, producer []kgo.Opt
	readCommitted              bool
	resetLatest                bool // auto.offset.reset = latest
	// idempotence is off: 'enable.idempotence'='false', or 'acks' 0 or 1
	notIdempotent bool
	// 'max.in.flight.requests.per.connection' (0: not set)
	inFlight int32
}

// kafkaProperty maps one Kafka client property to franz-go options.
type kafkaProperty struct {
	role  byte // 'c' consumer, 'p' producer, 'a' all
	apply func(v string, o *kafkaOpts) error
}

func msProp(role byte, f func(time.Duration) kgo.Opt) kafkaProperty {
	return kafkaProperty{role, func(v string, o *kafkaOpts) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("'%s' is not a number of milliseconds", v)
		}
		o.add(role, f(time.Duration(n)*time.Millisecond))
		return nil
	}}
}

func intProp(role byte, f func(int32) kgo.Opt) kafkaProperty {
	return kafkaProperty{role, func(v string, o *kafkaOpts) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil || n <= 0 {
			return fmt.Errorf("'%s' is not a positive integer", v)
		}
		o.add(role, f(int32(n)))
		return nil
	}}
}

func (o *kafkaOpts) add(role byte, opt kgo.Opt) {
	switch role {
	case 'c':
		o.consumer = append(o.consumer, opt)
	case 'p':
		o.producer = append(o.producer, opt)
	default:
		o.common = append(o.common, opt)
	}
}

// kafkaProperties are the Kafka client properties (Java client names) that
// map to franz-go; 'properties.<name>' passes them through (SPEC 1).
var kafkaProperties = map[string]kafkaProperty{
	"client.id":               {'a', func(v string, o *kafkaOpts) error { o.common = append(o.common, kgo.ClientID(v)); return nil }},
	"request.timeout.ms":      msProp('a', func(d time.Duration) kgo.Opt { return kgo.RequestTimeoutOverhead(d) }),
	"metadata.max.age.ms":     msProp('a', func(d time.Duration) kgo.Opt { return kgo.MetadataMaxAge(d) }),
	"connections.max.idle.ms": msProp('a', func(d time.Duration) kgo.Opt { return kgo.ConnIdleTimeout(d) }),
	"retry.backoff.ms": msProp('a', func(d time.Duration) kgo.Opt {
		return kgo.RetryBackoffFn(func(int) time.Duration { return d })
	}),
	"isolation.level": {'c', func(v string, o *kafkaOpts) error {
		switch v {
		case "read_committed":
			o.readCommitted = true
			o.consumer = append(o.consumer, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
		case "read_uncommitted":
		default:
			return fmt.Errorf("'%s' is not read_committed or read_uncommitted", v)
		}
		return nil
	}},
	"auto.offset.reset": {'c', func(v string, o *kafkaOpts) error {
		switch v {
		case "earliest":
		case "latest":
			o.resetLatest = true
		default:
			return fmt.Errorf("'%s' is not earliest or latest", v)
		}
		return nil
	}},
	"enable.auto.commit": {'c', func(v string, o *kafkaOpts) error {
		if v != "false" {
			return fmt.Errorf("streamql commits the offsets of rows whose outputs are written itself; remove the property")
		}
		return nil
	}},
	"fetch.min.bytes":           intProp('c', func(n int32) kgo.Opt { return kgo.FetchMinBytes(n) }),
	"fetch.max.bytes":           intProp('c', func(n int32) kgo.Opt { return kgo.FetchMaxBytes(n) }),
	"max.partition.fetch.bytes": intProp('c', func(n int32) kgo.Opt { return kgo.FetchMaxPartitionBytes(n) }),
	"fetch.max.wait.ms":         msProp('c', func(d time.Duration) kgo.Opt { return kgo.FetchMaxWait(d) }),
	"session.timeout.ms":        msProp('c', func(d time.Duration) kgo.Opt { return kgo.SessionTimeout(d) }),
	"heartbeat.interval.ms":     msProp('c', func(d time.Duration) kgo.Opt { return kgo.HeartbeatInterval(d) }),
	"max.poll.interval.ms":      msProp('c', func(d time.Duration) kgo.Opt { return kgo.RebalanceTimeout(d) }),
	"group.instance.id":         {'c', func(v string, o *kafkaOpts) error { o.consumer = append(o.consumer, kgo.InstanceID(v)); return nil }},
	"acks": {'p', func(v string, o *kafkaOpts) error {
		switch v {
		case "all", "-1":
			o.producer = append(o.producer, kgo.RequiredAcks(kgo.AllISRAcks()))
		case "1":
			o.producer = append(o.producer, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
			o.notIdempotent = true
		case "0":
			o.producer = append(o.producer, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
			o.notIdempotent = true
		default:
			return fmt.Errorf("'%s' is not all, -1, 1 or 0", v)
		}
		return nil
	}},
	"enable.idempotence": {'p', func(v string, o *kafkaOpts) error {
		switch v {
		case "true":
		case "false":
			o.producer = append(o.producer, kgo.DisableIdempotentWrite())
			o.notIdempotent = true
		default:
			return fmt.Errorf("'%s' is not true or false", v)
		}
		return nil
	}},
	"linger.ms":              msProp('p', func(d time.Duration) kgo.Opt { return kgo.ProducerLinger(d) }),
	"batch.size":             intProp('p', func(n int32) kgo.Opt { return kgo.ProducerBatchMaxBytes(n) }),
	"delivery.timeout.ms":    msProp('p', func(d time.Duration) kgo.Opt { return kgo.RecordDeliveryTimeout(d) }),
	"transaction.timeout.ms": msProp('p', func(d time.Duration) kgo.Opt { return kgo.TransactionTimeout(d) }),
	"max.in.flight.requests.per.connection": {'p', func(v string, o *kafkaOpts) error {
		return intProp('p', func(n int32) kgo.Opt {
			o.inFlight = n // (check: idempotence allows 1)
			return kgo.MaxProduceRequestsInflightPerBroker(int(n))
		}).apply(v, o)
	}},
	"retries": {'p', func(v string, o *kafkaOpts) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return fmt.Errorf("'%s' is not a non-negative integer", v)
		}
		o.producer = append(o.producer, kgo.RecordRetries(n))
		return nil
	}},
	"compression.type": {'p', func(v string, o *kafkaOpts) error {
		c, ok := map[string]kgo.CompressionCodec{"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(), "lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression()}[v]
		if !ok {
			return fmt.Errorf("'%s' is not none, gzip, snappy, lz4 or zstd", v)
		}
		o.producer = append(o.producer, kgo.ProducerBatchCompression(c))
		return nil
	}},
}

// kafkaClientOpts maps the stream's 'properties.*' (other than
// bootstrap.servers and group.id, which are the connector's own options) to
// franz-go options. A property franz-go has no counterpart for (security.*,
// sasl.*, ...) is an *OptionError naming it and listing the supported ones.
func kafkaClientOpts(opts map[string]string) (*kafkaOpts, error) {
	o := &kafkaOpts{}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name, ok := strings.CutPrefix(k, "properties.")
		if !ok || name == "bootstrap.servers" || name == "group.id" {
			continue
		}
		p, ok := kafkaProperties[name]
		if !ok {
			var known []string
			for n := range kafkaProperties {
				known = append(known, n)
			}
			sort.Strings(known)
			return nil, &connector.OptionError{Key: k, Msg: "the Kafka client property '" + name + "' is not supported by streamql's client (franz-go); remove it, or use one of: " + strings.Join(known, ", ")}
		}
		if err := p.apply(opts[k], o); err != nil {
			return nil, &connector.OptionError{Key: k, Msg: err.Error()}
		}
	}
	if err := o.check(opts); err != nil {
		return nil, err
	}
	return o, nil
}

// check is the properties' cross-field rules, checked when the stream is
// created rather than when its client opens. An idempotent producer (Kafka's
// default since 3.0, and what exactly-once's transactions need) keeps one
// produce request in flight per broker in franz-go, which refuses any other
// 'max.in.flight.requests.per.connection' (Kafka's Java client allows up to
// 5); one request carries many batches, so 1 does not cap throughput. It
// returns an *OptionError naming the property and what to write instead.
func (o *kafkaOpts) check(opts map[string]string) error {
	const inFlight = "properties.max.in.flight.requests.per.connection"
	switch {
	case o.inFlight > 1 && opts["sink.delivery-guarantee"] == "exactly-once":
		return &connector.OptionError{Key: inFlight, Msg: "an exactly-once sink writes with an idempotent producer, which sends one request per broker at a time: remove the property or set it to 1"}
	case o.inFlight > 1 && !o.notIdempotent:
		return &connector.OptionError{Key: inFlight, Msg: "the producer is idempotent (the default), which sends one request per broker at a time: remove the property, set it to 1, or also set 'properties.enable.idempotence' = 'false'"}
	case o.notIdempotent && opts["sink.delivery-guarantee"] == "exactly-once":
		return &connector.OptionError{Key: "sink.delivery-guarantee", Msg: "'exactly-once' writes in Kafka transactions, which need an idempotent producer: remove 'properties.enable.idempotence' = 'false' and any 'properties.acks' other than all"}
	}
	return nil
}

// refusedHint says what to do when err is a refused connection to the brokers.
func refusedHint(err error) string {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return "; nothing listens there: check 'properties.bootstrap.servers', or start the broker (scripts/kafka-broker start DIR prints its address)"
	}
	return ""
}

// seeds returns the client options every Kafka client of st starts with.
func seeds(st *catalog.Stream, o *kafkaOpts) []kgo.Opt {
	var brokers []string
	for _, b := range strings.Split(st.Options["properties.bootstrap.servers"], ",") {
		if b = strings.TrimSpace(b); b != "" {
			brokers = append(brokers, b)
		}
	}
	// A topic created just before the job has no leader in the first
	// metadata answer: look again soon, as the Java client does
	// (retry.backoff.ms), not after franz-go's default 5 s.
	return append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.MetadataMinAge(100 * time.Millisecond)}, o.common...)
}

// kafkaJob ties together the Kafka sources and sinks a job opened (one job
// runs at a time in a session; it lives in the session's State): a source with
// a consumer group commits offsets only after checkpoint has made every
// Kafka sink's records durable (SPEC 2.5: offsets only for rows whose outputs
// are written), and a sink that failed stops every later commit of the job.
type kafkaJob struct {
	mu      sync.Mutex
	sinks   []*kafkaSink
	sources []*kafkaSource // open sources in a consumer group
	txns    []*kafkaTxn    // the exactly-once sinks' shared producers
	failed  error
	process string // CoPartitionBalancer's key of this process: processKey
}

// processKey returns the key naming this process's sources to the consumer
// groups (CoPartitionBalancer), made on the first call.
func (j *kafkaJob) processKey() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.process == "" {
		j.process = NewProcessKey()
	}
	return j.process
}

// addGroupSource and removeGroupSource note an open source in a consumer group.
func (j *kafkaJob) addGroupSource(s *kafkaSource) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.sources = append(j.sources, s)
}

// rebalanceEnded opens the rebalance window (kafkaSource.rebalanceWindow)
// of each group source of the job that reached its end: a checkpoint of the
// job just committed, and no row was written since. It runs on the job's
// goroutine.
func (j *kafkaJob) rebalanceEnded() {
	j.mu.Lock()
	sources := append([]*kafkaSource(nil), j.sources...)
	j.mu.Unlock()
	for _, s := range sources {
		s.rebalanceWindow()
	}
}

func (j *kafkaJob) removeGroupSource(s *kafkaSource) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for k, x := range j.sources {
		if x == s {
			j.sources = append(j.sources[:k], j.sources[k+1:]...)
			break
		}
	}
}

// mixedGroup returns the error that stops a job whose source in consumer
// group found that the group balances with 'cooperative-sticky'
// (fallbackBalancer) when the job has more than one source in that group:
// the inputs of a join, whose topics must be read partition i together
// (SPEC 2.5, CoPartitionBalancer), which that protocol does not do; nil
// for a job with one (any cooperative balancer serves it). It is the
// balancer's side of the check; the executor's joinapart.go stops a join
// whose inputs hold different partitions for long, whatever the cause.
func (j *kafkaJob) mixedGroup(group string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	var topics []string
	for _, s := range j.sources {
		if s.group == group {
			topics = append(topics, "'"+s.topic+"'")
		}
	}
	if len(topics) < 2 {
		return nil
	}
	sort.Strings(topics)
	return fmt.Errorf("consumer group '%s' balances its partitions with the 'cooperative-sticky' protocol, not streamql's co-partitioning ('%s'): a member of the group does not announce it (a process of an older streamql version, or another client), and the group takes the protocol every member has, which gives the partitions of topics %s out independently, so the join of this job would wait for rows its other input never reads; stop the group's processes that do not run this version and restart this one, or give this job a group of its own with 'properties.group.id'", group, CoPartitionProtocol, strings.Join(topics, " and "))
}

// hasGroupSource reports whether a source in a consumer group is open: its
// commits then end the exactly-once sinks' transactions.
func (j *kafkaJob) hasGroupSource() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.sources) > 0
}

type kafkaJobKey struct{}

func kafkaJobOf(env *connector.Env) *kafkaJob {
	return env.State.Get(kafkaJobKey{}, func() any { return &kafkaJob{} }).(*kafkaJob)
}

func (j *kafkaJob) addSink(s *kafkaSink) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.sinks = append(j.sinks, s)
}

// start forgets the failure of an earlier job: a job opens its sources
// before its sinks, so a source opened while no sink is open starts a job.
func (j *kafkaJob) start() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.sinks) == 0 {
		j.failed = nil
	}
}

func (j *kafkaJob) removeSink(s *kafkaSink, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for k, x := range j.sinks {
		if x == s {
			j.sinks = append(j.sinks[:k], j.sinks[k+1:]...)
			break
		}
	}
	if err != nil && j.failed == nil {
		j.failed = err
	}
}

// groupOffsets are what a group source commits: per partition the offset
// and its replay mark (kafkaSource.toCommit).
type groupOffsets struct {
	src  *kafkaSource
	offs map[int32]pendingCommit
}

// checkpoint makes the records written so far to every open Kafka sink of the
// job durable, then commits the used offsets of every group source (SPEC 2.5:
// offsets only for rows whose outputs are written). At-least-once sinks are
// flushed and acknowledged first; then the exactly-once sinks' shared
// producer (kafkaTxn: one per brokers, normally one per job) commits its open
// transaction with the group sources' offsets in it, so every output and the
// offsets commit together; offsets no transaction took are committed by their
// source. It returns the first error,
// or the error of a sink that failed earlier in the job.
//
// at says whether the job goes on after it (midJob: a group source's
// periodic commit in Next, an exactly-once sink's Flush) or ends (jobEnd: a
// source's or a sink's Close). Only the job's last checkpoint may find its
// state torn (connector.Replay.Torn, whose doc proves it): it then aborts
// the open transaction and commits no offset. A torn state at a checkpoint
// the job goes on after would break SPEC 2.5's replay: aborted, the rows of
// the transaction would never be written by this process while a later
// commit moved the offsets past them. It commits nothing, aborts nothing
// and returns errTornMidJob (the job fails: the runner aborts the open
// transaction, and the job's sources commit nothing more), so that a change
// of the engine that breaks the invariant fails loudly, in every test,
// instead of losing rows.
func (j *kafkaJob) checkpoint(ctx context.Context, at checkpointAt) error {
	j.mu.Lock()
	sinks := append([]*kafkaSink(nil), j.sinks...)
	sources := append([]*kafkaSource(nil), j.sources...)
	failed := j.failed
	j.mu.Unlock()
	if failed != nil {
		return failed
	}
	var pending []groupOffsets
	torn := false
	for _, src := range sources {
		offs, t := src.toCommit()
		torn = torn || t
		if len(offs) > 0 {
			pending = append(pending, groupOffsets{src, offs})
		}
	}
	fail := func(err error) error {
		j.removeSink(nil, err)
		return err
	}
	if torn && at == midJob {
		return fail(tornMidJob(sources))
	}
	for _, s := range sinks {
		if !s.eos {
			if err := s.checkpoint(ctx); err != nil {
				return fail(err)
			}
		}
	}
	j.mu.Lock()
	txns := append([]*kafkaTxn(nil), j.txns...)
	j.mu.Unlock()
	if torn {
		// A batch was cut after it changed the job's state (Replay.Torn):
		// no frontier of the job describes written outputs any more. The
		// open transaction aborts and no offset commits; the partitions'
		// next owner reads again from the offsets committed before
		// (with at-least-once the rows flushed since are repeated).
		// An abort that failed (kafkaTxn.abortFailed) is this
		// checkpoint's error.
		var aerr error
		for _, tx := range txns {
			tx.abort(ctx)
			if err := tx.abortFailed(); err != nil && aerr == nil {
				aerr = fail(tx.sinks[0].fail(err))
			}
		}
		return aerr
	}
	// A transaction that carries no offsets (pending is empty) commits
	// without the group-generation check: TxnOffsetCommit is Kafka's only
	// fence of a zombie (KIP-447), and an EndTxn alone checks nothing.
	// franz-go's GroupTransactSession.End does the same ("with nothing
	// committed, membership is irrelevant to the transaction"), aborting
	// only when a revoke ran during the transaction, which here cannot
	// happen to a partition with rows in it (rebalances go on only right
	// after a commit: kafkaSource.commit, rebalanceWindow). Such a
	// transaction writes no row twice: a row of a group partition p it
	// holds would have moved p's commit (U_p without a Replay; with one,
	// H_p, e_p or f_p), because otherwise a crash right after this commit
	// would write it again from the same frontiers (I1, I3, I4 of the
	// connector package doc, which the executor's replay tests check at
	// random commits); a partition revoked (or lost, known) left the state
	// before any row after the revoke; a zombie that does not know it lost
	// p still owns p here, so its rows of p carry p's offsets and are
	// refused. Rows of inputs outside the group are every process's. (A
	// job that commits U_p with an event-time join and a window aggregate,
	// to be run in one process, writes fired windows without moving U_p;
	// their rows' next owner never writes them, so a zombie's commit of
	// them repeats none.)
	for _, tx := range txns {
		var with []groupOffsets
		if tx.inTxn {
			with, pending = pending, nil
		}
		if err := tx.commit(ctx, with); err != nil {
			if errors.Is(err, errRebalanced) {
				// Aborted: the rows of those offsets are read again, and
				// written in a later transaction (by whichever process owns
				// their partitions then).
				rewindAborted(sources, with)
				return err
			}
			return fail(err)
		}
		for _, g := range with {
			g.src.committedAt(g.offs)
		}
	}
	var refused error
	for _, g := range pending {
		if err := g.src.commitOffsets(ctx, g.offs); err != nil {
			if kafkaTransient(err) {
				// the brokers are away: the offsets stay uncommitted and
				// the next checkpoint commits them (kafkaSource.outage
				// bounds how long); the job has not failed
				return err
			}
			if !rebalanced(err) {
				return fail(err)
			}
			// At-least-once: the outputs are flushed, the commit was
			// refused because the group moved on. The offsets stay
			// uncommitted: the next checkpoint commits them if the
			// partitions are still this process's, else their next owner
			// reads those rows again (duplicates, never a loss).
			refused = fmt.Errorf("%w: %v", errRebalanced, err)
		}
	}
	return refused
}

// rewindAborted rewinds, after a transaction aborted because the group
// moved on (errRebalanced), every group source of the job (sources) to its
// last commit (kafkaSource.rewind), not only those whose offsets the
// transaction carried (with), and hands each one's replay the rewind at
// once (kafkaSource.applyEvents), before any source gives another row.
// The aborted outputs were made of the rows of every input, and the job's
// state is rebuilt only from every input read again: an event-time join's
// pairs need both inputs' rows of a partition (the connector package doc's
// "A join followed by an aggregate": the aggregate's groups of p are
// rebuilt from the old pairs the join makes again). A source with nothing
// to commit (no row read and no frontier moved since its last commit: a
// join's lagging input, whose Next the join did not call meanwhile) kept
// its rows in the join's state while the other input dropped its own and
// the aggregate's groups and read them again from the first: the pairs of
// rows the kept input had let go were lost, and the groups of p went on
// from an empty state (a count written again from 1, issue 23 item 6;
// TestKafkaAbortRewindsEveryGroupSource). A source that reached its end
// (a bounded one, which the job polls no more) is rewound only when the
// transaction carried its offsets, as before: read no more, its rows
// would not come again.
func rewindAborted(sources []*kafkaSource, with []groupOffsets) {
	var rewound []*kafkaSource
	for _, s := range sources {
		carried := slices.ContainsFunc(with, func(g groupOffsets) bool { return g.src == s })
		if carried || !s.ended {
			s.rewind()
			rewound = append(rewound, s)
		}
	}
	for _, s := range rewound {
		s.applyEvents()
	}
}

// checkpointAt is where kafkaJob.checkpoint runs: midJob or jobEnd.
type checkpointAt int

const (
	// midJob is a checkpoint the job goes on after: a group source's
	// periodic commit between polls (kafkaSource.commit, from Next), an
	// exactly-once sink's commit on Flush (without a group source).
	midJob checkpointAt = iota
	// jobEnd is the job's last checkpoint: a group source's or a sink's
	// Close, once the job stopped (ended, failed or cancelled).
	jobEnd
)

// errTornMidJob is the error of a checkpoint that found the job's state torn
// (connector.Replay.Torn) while the job goes on: the executor broke the
// invariant that a torn state is only ever seen by the job's last
// checkpoint (kafkaJob.checkpoint).
var errTornMidJob = errors.New("internal error: the job's state was found ahead of its outputs (torn) at a checkpoint between two batches")

// tornMidJob returns errTornMidJob naming the group sources (their streams
// and consumer groups), and what happened and what to do.
func tornMidJob(sources []*kafkaSource) error {
	var names []string
	for _, s := range sources {
		name := "a Kafka source"
		if s.st != nil {
			name = "stream " + s.st.Name
		}
		names = append(names, fmt.Sprintf("%s (group '%s')", name, s.group))
	}
	return fmt.Errorf("%s: %w; the job stops without committing an offset (an exactly-once sink's open transaction is aborted), so a restart reads those rows again from the last commit and loses none; please report this with the query", strings.Join(names, ", "), errTornMidJob)
}

// failure returns the error of a sink of the job that failed, or nil.
func (j *kafkaJob) failure() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.failed
}
