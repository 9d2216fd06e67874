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

// Env is what a Driver gets from the session that opens it.
type Env struct {
	// Stdin is the process's standard input (nil reads as empty).
	Stdin io.Reader
	// Clock paces generated rows; nil is the wall clock.
	Clock Clock
	// NewDecoder returns the decoder of st's 'format' and format options over r.
	NewDecoder func(st *catalog.Stream, r io.Reader) (Decoder, error)
	// State keeps what a connector holds across the session's jobs (the shared
	// stdin, the rows inserted into a values stream). It must not be nil.
	State *State
}

// decoder returns env.NewDecoder bound to st.
func (env *Env) decoder(st *catalog.Stream) NewDecoder {
	return func(r io.Reader) (Decoder, error) { return env.NewDecoder(st, r) }
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
