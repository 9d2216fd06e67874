package catalog

import (
	"sort"
	"strings"

	"streamql/parser"
)

// Column is one typed column of a stream or of a query's output.
type Column struct {
	Name string // as declared; matched case-insensitively (SPEC: names)
	Type Type
}

// Stream is a declared stream (SPEC 1): its schema, event time and source.
type Stream struct {
	Name      string   // as declared
	Columns   []Column // in declaration order
	EventTime int      // index of the WATERMARK FOR column, -1 when none
	// Watermark is the WATERMARK FOR clause as parsed, nil when none; the planner
	// compiles its expression (SPEC 2.3).
	Watermark *parser.Watermark
	Connector *ConnectorSpec
	// Options holds every option of the connector's spec, with defaults filled in,
	// keyed by the option name as the spec spells it (pattern options by their
	// concrete name, e.g. "fields.qty.kind").
	Options map[string]string
	// BaseDir is the directory a relative 'path' is resolved against: the
	// declaring script's directory, or the working directory (SPEC 1).
	BaseDir string
}

// Column returns the index of the column named name (case-insensitive), or -1.
func (s *Stream) Column(name string) int {
	for i, c := range s.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
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

// Catalog holds the streams of a session, by case-insensitive name.
type Catalog struct {
	streams map[string]*Stream
}

// New returns an empty catalog.
func New() *Catalog { return &Catalog{streams: map[string]*Stream{}} }

// Lookup returns the stream named name (case-insensitive), or nil.
func (c *Catalog) Lookup(name string) *Stream { return c.streams[strings.ToLower(name)] }

// Add registers s. It reports false, changing nothing, when a stream of that name
// exists already.
func (c *Catalog) Add(s *Stream) bool {
	k := strings.ToLower(s.Name)
	if _, ok := c.streams[k]; ok {
		return false
	}
	c.streams[k] = s
	return true
}

// Drop removes the stream named name and reports whether it existed.
func (c *Catalog) Drop(name string) bool {
	k := strings.ToLower(name)
	_, ok := c.streams[k]
	delete(c.streams, k)
	return ok
}

// Streams returns all streams sorted by name (case-insensitive), for SHOW STREAMS.
func (c *Catalog) Streams() []*Stream {
	out := make([]*Stream, 0, len(c.streams))
	for _, s := range c.streams {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}
