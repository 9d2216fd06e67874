package session

import (
	"errors"
	"strings"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner"
)

// createStream declares a stream (SPEC 1): typed columns, the event-time column of
// WATERMARK FOR (BIGINT epoch ms or TIMESTAMP) and its expression, type-checked
// here (SPEC 2.3), and the connector's options.
func (s *Session) createStream(dir string, st *parser.CreateStream) error {
	if s.Cat.Lookup(st.Name) != nil {
		if st.IfNotExists {
			return nil
		}
		return parser.Errorf(st.NamePos, "stream '%s' already exists; DROP STREAM %s first, or write CREATE STREAM IF NOT EXISTS", st.Name, st.Name)
	}
	if st.Infer {
		cp := *st // (the statement stays as parsed)
		cp.Columns, cp.Options = nil, append([]parser.Option(nil), st.Options...)
		if err := inferColumns(dir, &cp); err != nil {
			return err
		}
		st = &cp
	}
	x := &catalog.Stream{Name: st.Name, EventTime: -1, BaseDir: dir}
	seen := make(map[string]bool, len(st.Columns)) // by catalog.FoldName: linear in the columns
	computed := false
	for _, c := range st.Columns {
		k := catalog.FoldName(c.Name)
		if seen[k] {
			return parser.Errorf(c.Pos, "column '%s' is declared twice", c.Name)
		}
		seen[k] = true
		if c.Computed != nil {
			computed = true
			continue // typed by its expression (computedColumns)
		}
		t, err := catalog.ParseType(c.Type)
		if err != nil {
			return parser.Errorf(c.TypePos, "%v", err)
		}
		x.Columns = append(x.Columns, catalog.Column{Name: c.Name, Type: t, Metadata: c.Metadata})
	}
	decoded := 0
	for _, c := range x.Columns {
		if c.Metadata == "" {
			decoded++
		}
	}
	if decoded == 0 {
		return parser.Errorf(st.NamePos, "stream '%s' needs at least one column read from its input (not computed, not METADATA)", st.Name)
	}
	if computed {
		if err := computedColumns(st, x); err != nil {
			return err
		}
	}
	if err := primaryKey(st, x); err != nil {
		return err
	}
	if w := st.Watermark; w != nil {
		i := x.Column(w.Column)
		if i < 0 {
			return parser.Errorf(w.ColumnPos, "WATERMARK FOR '%s': no such column; columns: %s", w.Column, strings.Join(x.Names(), ", "))
		}
		if t := x.Columns[i].Type; t != catalog.BigInt && t != catalog.Timestamp {
			return parser.Errorf(w.ColumnPos, "WATERMARK FOR '%s': the event-time column must be BIGINT (epoch ms) or TIMESTAMP, not %s", w.Column, t)
		}
		x.EventTime, x.Watermark = i, planner.Watermark(w)
		// type-check the expression now, so that its error points into this
		// statement, not at the first query that reads the stream (issue 9, item 13)
		if _, err := planner.CompileWatermark(x); err != nil {
			return err
		}
	}
	spec, opts, err := planner.ValidateOptions(st.Options, x.Columns, st.WithPos)
	if err != nil {
		return err
	}
	x.Connector, x.Options = spec, opts
	for _, o := range st.Options {
		x.Written = append(x.Written, catalog.Option{Key: o.Key, Value: o.Value})
	}
	if err := x.Configure(); err != nil { // (issue 22 item 5: the typed options)
		return optionError(st, err)
	}
	if err := checkMaxFuture(st, x); err != nil {
		return err
	}
	if err := checkConnector(st, x); err != nil {
		return err
	}
	if err := checkMetadata(st, x); err != nil {
		return err
	}
	if spec.ReadsStdin && s.SQLFromStdin {
		return parser.Errorf(st.NamePos, "stream '%s' reads stdin, but the SQL itself comes from stdin or the REPL; pass the script as a file (streamql script.sql < data) instead", st.Name)
	}
	if spec.PushedFromGo && !s.GoFed {
		return parser.Errorf(st.WithPos, "stream '%s' uses connector '%s', whose rows are pushed by a Go program through the streamql package; the command line cannot feed it: use 'values', 'stdin', 'file' or 'socket'", st.Name, spec.Name)
	}
	s.Cat.Add(x)
	s.conversions(st, x)
	return nil
}

// checkConnector runs the connector's own checks (ConnectorSpec.Validate, SPEC
// 1: a socket's port range; datagen's bounds, 'values' lists and pace against
// the column types), positioned at the bad option's value, or at WITH.
func checkConnector(st *parser.CreateStream, x *catalog.Stream) error {
	if x.Connector.Validate == nil {
		return nil
	}
	if err := x.Connector.Validate(x); err != nil {
		return optionError(st, err)
	}
	return nil
}

// optionError positions err, a connector's complaint about st's options, at
// the bad option's value (a *catalog.OptionError), or at WITH.
func optionError(st *parser.CreateStream, err error) error {
	var oe *catalog.OptionError
	if errors.As(err, &oe) {
		at := st.WithPos
		for _, o := range st.Options {
			if strings.EqualFold(o.Key, oe.Key) {
				at = o.ValuePos
				break
			}
		}
		return parser.Errorf(at, "%v", err)
	}
	return parser.Errorf(st.WithPos, "%v", err)
}
