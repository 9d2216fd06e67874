package catalog

import (
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Watermark is a stream's WATERMARK FOR clause (SPEC 2.3) as the catalog
// keeps it: the expression's source text (SHOW, EXPLAIN), and Def, the
// planner's own form of it (the parsed expression with the script that
// declared it, planner.Watermark), which the catalog holds without looking
// inside, so that catalog links no SQL parser.
type Watermark struct {
	Text string
	Def  any
}

// Column is one typed column of a stream or of a query's output.
type Column struct {
	Name string // as declared; matched case-insensitively (SPEC: names)
	Type Type
	// Computed is the expression of a computed column (SPEC 1, Flink's
	// name AS expr), nil for a column read from the input.
	Computed *Computed
	// Metadata is the Kafka metadata key a METADATA column reads (SPEC 1:
	// timestamp, partition, offset, headers, key, as Flink's Kafka connector
	// names them), "" for other columns. Like a computed column it is not in
	// the record's value: its source fills it (Physical leaves it out).
	Metadata string
}

// Computed is a computed column's expression (SPEC 1: computed on read, over
// the stream's columns read from the input; usable as the WATERMARK FOR
// column): its source text (DESCRIBE, SHOW CREATE TABLE), and Def, the
// planner's compiled form over the stream's Physical columns (a *plan.Expr),
// which the catalog holds without looking inside.
type Computed struct {
	Text string
	Def  any
}

// Stream is a declared stream (SPEC 1): its schema, event time and source.
type Stream struct {
	Name      string   // as declared
	Columns   []Column // in declaration order
	EventTime int      // index of the WATERMARK FOR column, -1 when none
	// Watermark is the WATERMARK FOR clause, nil when none; the planner
	// compiles its expression (SPEC 2.3).
	Watermark *Watermark
	Connector *ConnectorSpec
	// Options holds every option of the connector's spec, with defaults filled in,
	// keyed by the option name as the spec spells it (pattern options by their
	// concrete name, e.g. "fields.qty.kind").
	Options map[string]string
	// Config is Options parsed into typed fields (Configure, when the stream
	// is declared): what the engine reads instead of option strings (issue 22
	// item 5). Nil for a stream made without Configure; Shared, File and
	// Kafka then parse Options at each call.
	Config Config
	// PrimaryKey names the columns of PRIMARY KEY (k, ...) NOT ENFORCED (SPEC
	// 1, Flink's form; SPEC 2.7 and 2.8 use it), as declared; nil when none.
	// streamql does not enforce it, as Flink does not.
	PrimaryKey []string
	// Conversions lists the columns declared with a type streamql reads as
	// another (SPEC 1: DECIMAL(p,s) and NUMERIC read as DOUBLE), one line
	// each ("column price DECIMAL(10,2) is read as DOUBLE (...)"), for the notice at
	// CREATE and EXPLAIN; nil when none.
	Conversions []string
	// Written holds the WITH options as the user wrote them, in order (SHOW
	// CREATE TABLE prints them; Options has the defaults filled in).
	Written []Option
	// BaseDir is the directory a relative 'path' is resolved against: the
	// declaring script's directory, or the working directory (SPEC 1).
	BaseDir string
	// Derived, for a relation that is not a declared stream (a subquery, a
	// WITH name, a view or a UNION ALL, SPEC 2.6), is the planner's
	// definition of it (a *plan.Derived, whose rows come from other planned
	// jobs), held without looking inside; nil for a declared stream.
	Derived any
	// physical is the stream as its connector reads it, without its computed
	// columns (Physical); nil when it has none. Made by Catalog.Add.
	physical *Stream
	// byName indexes Columns by FoldName, built by Catalog.Add for wide streams
	// (Column is then O(1), so planning a query over many columns stays linear).
	byName map[string]int
}

// wideStream is the column count from which Catalog.Add indexes a stream's names.
const wideStream = 16

// FoldName returns the key under which SPEC's case-insensitive names compare:
// two names are equal under strings.EqualFold exactly when their FoldName keys
// are equal (each character is replaced by the smallest of its simple case
// folding orbit, so k, K and the Kelvin sign all give K).
func FoldName(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// Column returns the index of the column named name (case-insensitive), or -1.
func (s *Stream) Column(name string) int {
	if s.byName != nil && len(s.byName) <= len(s.Columns) {
		if i, ok := s.byName[FoldName(name)]; ok && i < len(s.Columns) && strings.EqualFold(s.Columns[i].Name, name) {
			return i
		}
		return -1
	}
	for i, c := range s.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// HasComputed reports whether s has a computed or a METADATA column (SPEC
// 1): a column its connector does not decode.
func (s *Stream) HasComputed() bool {
	for _, c := range s.Columns {
		if c.Computed != nil || c.Metadata != "" {
			return true
		}
	}
	return false
}

// Physical returns s as its connector decodes it (SPEC 1): its columns
// without the computed and METADATA ones, in order, with EventTime on the same column (-1 when the
// event time is computed: the decoder does not see it). The same stream is
// returned at each call (connectors key their state by it); s itself when s
// has no computed column.
func (s *Stream) Physical() *Stream {
	if s.physical != nil {
		return s.physical
	}
	if !s.HasComputed() {
		return s
	}
	return s.makePhysical()
}

func (s *Stream) makePhysical() *Stream {
	p := *s
	p.Columns, p.EventTime, p.byName, p.physical = nil, -1, nil, nil
	for i, c := range s.Columns {
		if c.Computed != nil || c.Metadata != "" {
			continue
		}
		if i == s.EventTime {
			p.EventTime = len(p.Columns)
		}
		p.Columns = append(p.Columns, c)
	}
	if p.EventTime < 0 {
		p.Watermark = nil
	}
	return &p
}

// Types returns the column types in order.
func (s *Stream) Types() []Type {
	t := make([]Type, len(s.Columns))
	for i, c := range s.Columns {
		t[i] = c.Type
	}
	return t
}

// Names returns the column names in order.
func (s *Stream) Names() []string {
	n := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		n[i] = c.Name
	}
	return n
}

// Bounded reports whether the stream's source ends by itself (SPEC 1, connector table).
func (s *Stream) Bounded() bool { return s.Connector.Bounded(s.Options) }

// SizedBounded reports whether s is a bounded input of a known size (a file:
// ConnectorSpec.KnownSize), which can be read again in another order, or as
// partitions of its own: what `streamql test --shuffle` reorders (its source
// hook) and what the planner then plans as possibly partitioned (SPEC 2.5).
func (s *Stream) SizedBounded() bool {
	return s.Connector != nil && s.Connector.KnownSize && s.Connector.Bounded(s.Options)
}

// Catalog holds the streams of a session, by case-insensitive name. It is safe
// for concurrent use (streamql.Session.Push looks streams up while a statement
// runs).
type Catalog struct {
	mu      sync.RWMutex
	streams map[string]*Stream
	views   map[string]*View
}

// View is a named query (SPEC 2.6: CREATE VIEW v AS SELECT ...): its name,
// its query as written, and Stream, the relation it gives as the planner made
// it when the view was created, or when a later SET that changes planning
// planned it again (Stream.Derived holds its jobs); every reader
// runs the view's jobs anew, so no state is shared between readers, and
// plans over its own copy of them (planner's plan.CopyRelation), so
// planning never writes into a view that other sessions read.
// Query, when not nil, is the planner's form of a view whose query its
// readers plan where they read it (a ranking without its bound, which a
// reader's WHERE gives, as Flink inlines views: planner.Planner.ViewQuery),
// held without looking inside; Stream then gives its columns and the
// streams it reads, and a reader that does not bound it is refused.
type View struct {
	Name   string
	Text   string
	Stream *Stream
	Query  any
}

// New returns an empty catalog.
func New() *Catalog { return &Catalog{streams: map[string]*Stream{}, views: map[string]*View{}} }

// LookupView returns the view named name (case-insensitive), or nil.
func (c *Catalog) LookupView(name string) *View {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.views[strings.ToLower(name)]
}

// AddView registers v. It reports false, changing nothing, when a view or a
// stream of that name exists already (one namespace: SPEC 2.6).
func (c *Catalog) AddView(v *View) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := strings.ToLower(v.Name)
	if _, ok := c.views[k]; ok {
		return false
	}
	if _, ok := c.streams[k]; ok {
		return false
	}
	c.views[k] = v
	return true
}

// SetViewStream gives view v (as LookupView returned it) the relation st,
// planned again under new settings (a SET replans the views, SPEC 2.6). The
// catalog's entry is swapped, under its lock, for a copy of v with st: a
// session reading v (sessions can share a catalog) keeps the *View it
// looked up, whose Stream is never written, and the next LookupView gives
// the copy. It reports false, changing nothing, when v is no longer the
// catalog's view of its name (dropped or declared again).
func (c *Catalog) SetViewStream(v *View, st *Stream) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := strings.ToLower(v.Name)
	if c.views[k] != v {
		return false
	}
	nv := *v
	nv.Stream = st
	c.views[k] = &nv
	return true
}

// DropView removes the view named name and reports whether it existed.
func (c *Catalog) DropView(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := strings.ToLower(name)
	_, ok := c.views[k]
	delete(c.views, k)
	return ok
}

// Views returns all views sorted by name (case-insensitive), for SHOW VIEWS.
func (c *Catalog) Views() []*View {
	c.mu.RLock()
	out := make([]*View, 0, len(c.views))
	for _, v := range c.views {
		out = append(out, v)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

// Lookup returns the stream named name (case-insensitive), or nil.
func (c *Catalog) Lookup(name string) *Stream {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.streams[strings.ToLower(name)]
}

// Add registers s. It reports false, changing nothing, when a stream of that name
// exists already.
func (c *Catalog) Add(s *Stream) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := strings.ToLower(s.Name)
	if _, ok := c.streams[k]; ok {
		return false
	}
	if len(s.Columns) >= wideStream {
		s.byName = make(map[string]int, len(s.Columns))
		for i := len(s.Columns) - 1; i >= 0; i-- {
			s.byName[FoldName(s.Columns[i].Name)] = i // the first of equal names wins, as in the scan
		}
	}
	if s.Config == nil {
		_ = s.Configure() // (a stream declared by hand; its options' errors read as unset)
	}
	if s.HasComputed() {
		s.physical = s.makePhysical()
	}
	c.streams[k] = s
	return true
}

// Drop removes the stream named name and reports whether it existed.
func (c *Catalog) Drop(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := strings.ToLower(name)
	_, ok := c.streams[k]
	delete(c.streams, k)
	return ok
}

// Streams returns all streams sorted by name (case-insensitive), for SHOW STREAMS.
func (c *Catalog) Streams() []*Stream {
	c.mu.RLock()
	out := make([]*Stream, 0, len(c.streams))
	for _, s := range c.streams {
		out = append(out, s)
	}
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}
