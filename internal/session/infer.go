package session

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"streamql/catalog"
	"streamql/executor/codec"
	"streamql/parser"
)

// inferColumns fills st.Columns of a CREATE STREAM written without a column
// list from its file (SPEC 1: codec.InferSchema): a connector that reads a
// file of known size ('file') with a 'path', format csv or json; a csv file's first line is its
// header, unless it reads as a row of the file's types (codec.CSVHasHeader),
// and 'csv.header' is set to say which, unless written. Errors are
// *parser.Error at the stream's name or its WITH.
func inferColumns(dir string, st *parser.CreateStream) error {
	opt := func(k string) (string, bool) {
		for _, o := range st.Options {
			if strings.EqualFold(o.Key, k) {
				return o.Value, true
			}
		}
		return "", false
	}
	conn, _ := opt("connector")
	path, hasPath := opt("path")
	if spec := catalog.LookupConnector(conn); spec == nil || !spec.KnownSize || !hasPath {
		return parser.Errorf(st.NamePos, "stream '%s' has no column list: only a 'file' stream's columns can be inferred from its file; declare them: CREATE STREAM %s (col TYPE, ...) WITH (...)", st.Name, st.Name)
	}
	format, _ := opt("format")
	hv, hasHeader := opt("csv.header")
	d, _ := opt("csv.delimiter")
	q, _ := opt("csv.quote")
	if (format == "csv" || format == "") && !hasHeader {
		// (its first line, unless it reads as a row of the file's types:
		// codec.CSVHasHeader)
		has, err := codec.CSVHasHeader(inFile(dir, path), oneByte(d), oneByte(q))
		if err != nil {
			return parser.Errorf(st.WithPos, "stream '%s': %v", st.Name, err)
		}
		hv = strconv.FormatBool(has)
		st.Options = append(st.Options, parser.Option{Key: "csv.header", Value: hv, KeyPos: st.WithPos, ValuePos: st.WithPos})
	}
	cols, err := inferFile(dir, path, format, d, q, hv == "true")
	if err != nil {
		return parser.Errorf(st.WithPos, "stream '%s': %v", st.Name, err)
	}
	for _, c := range cols {
		st.Columns = append(st.Columns, parser.ColumnDef{Name: c.Name, Type: c.Type.String(), Pos: st.NamePos, TypePos: st.NamePos})
	}
	return nil
}

// inferFile is codec.InferSchema of path (relative to dir), format
// (csv, json; "" is csv) and the csv options as written.
func inferFile(dir, path, format, delim, quote string, header bool) ([]catalog.Column, error) {
	return codec.InferSchema(inFile(dir, path), format, oneByte(delim), oneByte(quote), header)
}

// inFile is path, relative to dir unless absolute (SPEC 1: a relative
// 'path' is resolved against the directory of the script).
func inFile(dir, path string) string {
	if !filepath.IsAbs(path) && dir != "" {
		return filepath.Join(dir, path)
	}
	return path
}

// oneByte is a one-byte csv option's byte, 0 (the default) otherwise.
func oneByte(s string) byte {
	if len(s) == 1 {
		return s[0]
	}
	return 0
}

// formatOf returns the format of a file read by its name (FROM 'x.json'):
// json for .json, .jsonl and .ndjson, else csv (catalog.FileFormat).
func formatOf(path string) string { return catalog.FileFormat(path) }

// fileStream declares the stream a quoted file name in FROM reads (SPEC 1),
// named by the path, with its inferred columns, unless a stream of that name
// exists. It returns a function that drops it again (nothing when it
// existed).
func (s *Session) fileStream(dir, path string, pos int) (func(), error) {
	if s.Cat.Lookup(path) != nil {
		return func() {}, nil
	}
	format := formatOf(path)
	opts := []parser.Option{{Key: "connector", Value: "file"}, {Key: "path", Value: path}, {Key: "format", Value: format}}
	for i := range opts {
		opts[i].KeyPos, opts[i].ValuePos = pos, pos
	}
	cs := &parser.CreateStream{Name: path, NamePos: pos, WithPos: pos, Options: opts, Infer: true}
	if err := s.createStream(dir, cs); err != nil {
		return nil, err
	}
	if s.KeepFiles != nil {
		s.KeepFiles(cs)
		return func() {}, nil
	}
	return func() { s.Cat.Drop(path) }, nil
}

// fileStreams declares the streams of the files sel reads by a quoted name
// (fileStream), in its own FROM or in any relation it reads (selectFiles),
// and returns a function that drops them again.
func (s *Session) fileStreams(dir string, sel *parser.Select) (func(), error) {
	var files []fileRef
	selectFiles(sel, &files)
	return s.declareFiles(dir, files)
}

// viewFileStreams is fileStreams for the query of a view (SPEC 2.6: it reads
// a quoted file name as a query does), while the view is planned.
func (s *Session) viewFileStreams(dir string, rel *parser.Relation) (func(), error) {
	var files []fileRef
	relationFiles(rel, &files)
	return s.declareFiles(dir, files)
}

// fileRef is a file read by a quoted name in FROM and its offset.
type fileRef struct {
	path string
	pos  int
}

// selectFiles appends to files the files sel reads by a quoted name
// (Select.Files) and those of the relations it reads: its subqueries in
// FROM (in the order of their placeholder names), its WITH definitions and,
// through them, UNION ALL parts (SPEC 2.6).
func selectFiles(sel *parser.Select, files *[]fileRef) {
	for i, f := range sel.Files {
		*files = append(*files, fileRef{f, sel.FilePos[i]})
	}
	names := make([]string, 0, len(sel.Derived))
	for n := range sel.Derived {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		relationFiles(sel.Derived[n], files)
	}
	for _, c := range sel.With {
		relationFiles(c.Rel, files)
	}
}

// relationFiles is selectFiles of each query of rel.
func relationFiles(rel *parser.Relation, files *[]fileRef) {
	if rel == nil {
		return
	}
	for _, sel := range rel.Selects {
		selectFiles(sel, files)
	}
}

// declareFiles declares the stream of each file (fileStream) and returns a
// function that drops them again; on an error it drops those it declared.
func (s *Session) declareFiles(dir string, files []fileRef) (func(), error) {
	var drops []func()
	dropAll := func() {
		for _, d := range drops {
			d()
		}
	}
	for _, f := range files {
		d, err := s.fileStream(dir, f.path, f.pos)
		if err != nil {
			dropAll()
			return nil, err
		}
		drops = append(drops, d)
	}
	return dropAll, nil
}

// describeFile answers DESCRIBE 'file' (SPEC 1): the columns inferred from
// the file, as DESCRIBE shows a stream's and FROM 'file' reads them (a csv
// file's first line its header unless codec.CSVHasHeader says it is data).
func (s *Session) describeFile(dir string, st *parser.Describe) error {
	format, header := formatOf(st.File), true
	if format == "csv" { // (as FROM 'file' reads it: inferColumns)
		has, err := codec.CSVHasHeader(inFile(dir, st.File), 0, 0)
		if err != nil {
			return parser.Errorf(st.NamePos, "%v", err)
		}
		header = has
	}
	cols, err := inferFile(dir, st.File, format, "", "", header)
	if err != nil {
		return parser.Errorf(st.NamePos, "%v", err)
	}
	return s.describe(&catalog.Stream{Name: st.File, Columns: cols, EventTime: -1})
}
