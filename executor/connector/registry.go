package connector

import (
	"context"
	"io"
	"sync"

	"streamql/catalog"
	"streamql/executor/textenc"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Driver is the executor's side of a connector, held by its
// catalog.ConnectorSpec.Source: the source opener, for connectors that take
// INSERT INTO ... VALUES rows the inserter, and for connectors that write
// (SPEC 2.5: file, later kafka) the sink opener.
type Driver struct {
	// Open opens the source of stream st, whose options catalog.ValidateOptions
	// and the spec's Validate have checked. Errors name the stream, the option
	// and what to do.
	Open func(ctx context.Context, st *catalog.Stream, env *Env) (Source, error)
	// Insert appends rows (one plan.Value per column, of the column's type)
	// to st, for a spec with TakesInsert (SPEC 3); nil for the others.
	Insert func(st *catalog.Stream, env *Env, rows [][]plan.Value)
	// OpenSink opens st as a sink (SPEC 2.5) when a job starts; nil for a
	// connector that only reads. Errors name the stream, the option and what
	// to do.
	OpenSink func(ctx context.Context, st *catalog.Stream, env *Env) (SinkWriter, error)
}

// SinkWriter writes a job's rows to a sink stream (SPEC 2.5). Calls come from
// one goroutine.
type SinkWriter interface {
	// Write writes row i of cols, one vector per column of the sink stream, of
	// the column's type. It must not allocate per row.
	Write(cols []*vector.Vec, i int) error
	// Flush hands the rows written so far, whole rows only, to the destination.
	Flush() error
	// Close flushes, makes the rows durable (a file is synced) and releases
	// the sink; it is called once per job, also after a failure.
	Close() error
}

// ValueDecoder decodes one record given on its own (a Kafka record value) as
// one row: csvdec.Decoder and jsondec.Decoder are two.
type ValueDecoder interface {
	// DecodeValue decodes rec as row b.N of b without changing b.N; it
	// returns "" for a good row, else the reason the row is malformed.
	DecodeValue(b *vector.Batch, rec []byte) string
}

// KindWriter is a SinkWriter that takes changes (SPEC 2.8): a changelog
// file sink ('format'='debezium-json') or an upsert-kafka sink. The job calls
// WriteKind for the rows of an updating relation (vector.Batch.Kinds) and
// Write, meaning +I, for the others.
type KindWriter interface {
	// WriteKind writes row i of cols with its kind; it must not allocate
	// per row.
	WriteKind(cols []*vector.Vec, i int, kind vector.RowKind) error
}

// ChangeDecoder is the record decoder of a changelog format (SPEC 2.8,
// executor/cdc; Env.NewChangeDecoder): one record is any number of rows with
// kinds. A source whose stream's format is a changelog
// (catalog.FormatSpec.Changelog) calls Append instead of a ValueDecoder's
// DecodeValue.
type ChangeDecoder interface {
	// Append decodes rec as rows b.N, b.N+1, ... with their kinds (b.Kinds)
	// and position pos, and advances b.N; it returns the reason rec is
	// malformed (b unchanged), or full = true (nothing added) when the rows do
	// not fit in b: call again with an empty batch.
	Append(b *vector.Batch, rec []byte, pos int64) (reason string, full bool)
}

// DeadLetterWriter is a SinkWriter that writes a dead letter ('errors.stream',
// SPEC 2.5) its own way instead of as a row of four VARCHARs: a Kafka
// dead-letter stream writes the raw bytes as the value and the rest as
// headers. raw is only valid during the call.
type DeadLetterWriter interface {
	WriteDeadLetter(stream, position string, raw []byte, reason string) error
}

// Aborter is a SinkWriter that can take back what it wrote since its last
// commit (an exactly-once Kafka sink's open transaction, SPEC 2.5). The job
// calls Abort when it fails, before Close; Close then commits nothing more.
type Aborter interface {
	Abort()
}

// Env is what a Driver gets from the session that opens it.
type Env struct {
	// Stdin is the process's standard input (nil reads as empty).
	Stdin io.Reader
	// Clock paces generated rows; nil is the wall clock.
	Clock Clock
	// NewDecoder returns the decoder of st's 'format' and format options over
	// r; continues says r goes on from where an earlier job stopped (a
	// stream whose connector hands back, catalog.CapHandBack: stdin).
	NewDecoder func(st *catalog.Stream, r io.Reader, continues bool) (Decoder, error)
	// NewValueDecoder returns the decoder of st's 'format' and format options
	// for a source whose every record is one row on its own (kafka, SPEC 2.5).
	NewValueDecoder func(st *catalog.Stream) (ValueDecoder, error)
	// NewChangeDecoder returns the decoder of st's changelog 'format'
	// (catalog.FormatSpec.Changelog, SPEC 2.8) for a source whose every
	// record is rows with kinds on its own (kafka).
	NewChangeDecoder func(st *catalog.Stream) (ChangeDecoder, error)
	// State keeps what a connector holds across the session's jobs (the shared
	// stdin, the rows inserted into a values stream). It must not be nil.
	State *State
	// BuildSide is set when the source opened is a join's build side (SPEC
	// 2.2), which it reads whole: a Kafka source then reads every partition,
	// outside its consumer group (SPEC 2.5).
	BuildSide bool
	// Account, when set, opens an account of the job's state budget
	// ('state.max-bytes') for the state a source keeps (upsert-kafka's last
	// row per key); operator and what name it in the error. Nil: no limit.
	Account func(operator, what string) StateAccount
}

// decoder returns env.NewDecoder bound to st, over an input read from its
// start.
func (env *Env) decoder(st *catalog.Stream) NewDecoder {
	return func(r io.Reader) (Decoder, error) { return env.NewDecoder(st, r, false) }
}

// handBackDecoder returns env.NewDecoder bound to st, for a connector that
// hands back (catalog.CapHandBack).
func (env *Env) handBackDecoder(st *catalog.Stream) NewHandBackDecoder {
	return func(r io.Reader, continues bool) (Decoder, error) { return env.NewDecoder(st, r, continues) }
}

// State is a session's connector state: values keyed by what each connector
// chooses (a key type of its own, so keys of two connectors never collide). The
// zero value is ready to use; it is safe for concurrent use.
type State struct {
	mu sync.Mutex
	m  map[any]any
}

// Get returns the value under key, first storing make() there when there is none.
func (s *State) Get(key any, make func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[any]any{}
	}
	v, ok := s.m[key]
	if !ok {
		v = make()
		s.m[key] = v
	}
	return v
}

// DriverOf returns the Driver a connector's file registered with spec, or nil
// when spec has none (a spec declared outside this package, such as plan.NoFrom).
func DriverOf(spec *catalog.ConnectorSpec) *Driver {
	if spec == nil {
		return nil
	}
	d, _ := spec.Source.(*Driver)
	return d
}

func init() {
	catalog.RegisterEncodings(func(name string) bool {
		_, err := textenc.Lookup(name)
		return err == nil
	}, textenc.Names)
}

// Register sets d as spec's Source and registers spec with the catalog
// (catalog.RegisterConnector, which panics on a taken name): the one call each
// connector's file makes, from its init. A test may register a connector of its
// own the same way.
func Register(spec *catalog.ConnectorSpec, d *Driver) {
	if d == nil || d.Open == nil || spec.TakesInsert != (d.Insert != nil) {
		panic("connector: Register needs a Driver with Open, and with Insert exactly when the spec TakesInsert")
	}
	spec.Source = d
	spec.Writes = d.OpenSink != nil
	catalog.RegisterConnector(spec)
}

// always is the Bounded rule of connectors that always end.
func always(map[string]string) bool { return true }

// never is the Bounded rule of connectors that never end by themselves.
func never(map[string]string) bool { return false }
