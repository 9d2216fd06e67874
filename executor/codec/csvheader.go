package codec

import (
	"os"
	"path/filepath"

	"streamql/catalog"
	"streamql/executor/csvdec"
)

// CSVHeader reads the header line of a csv stream over a file (a connector
// of KnownSize with a 'path') with 'csv.header' = 'true' (SPEC 1) and returns its field names and the mapping of fields to
// the stream's columns (csvdec.HeaderMap: nil reads by position). It returns
// nil, nil for any other stream and for a file it cannot read (opening the
// source then says why).
func CSVHeader(st *catalog.Stream) (header []string, fieldMap []int) {
	st = st.Physical() // (computed columns are not in the file)
	fc := st.File()
	if fc == nil || !fc.CSV.Header || st.Connector == nil || !st.Connector.KnownSize || fc.Path == "" ||
		!isCSV(fc.Format) {
		return nil, nil
	}
	full := fc.Path
	if !filepath.IsAbs(full) && st.BaseDir != "" {
		full = filepath.Join(st.BaseDir, full)
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	header, err = csvdec.ReadHeader(f, fc.CSV.Delimiter, fc.CSV.Quote)
	if err != nil {
		return nil, nil
	}
	return header, csvdec.HeaderMap(st.Names(), header)
}

// CSVMapping says how a stream's csv fields map to its columns (SPEC 1:
// "EXPLAIN says which mapping a stream uses"), for EXPLAIN: "" for a stream
// without 'csv.header', else "by header names" or "by position" with why.
func CSVMapping(st *catalog.Stream) string {
	if c := st.Shared(); !c.CSV.Header || !isCSV(c.Format) {
		return ""
	}
	st = st.Physical()
	header, m := CSVHeader(st)
	switch {
	case m != nil:
		return "csv fields by header names"
	case header == nil:
		return "csv fields by position (header not read before the job)"
	case len(csvdec.HeaderMap(st.Names(), header)) == 0 && sameNames(st.Names(), header):
		return "csv fields by position (the header is the columns in order)"
	}
	return "csv fields by position (not every column is in the header)"
}

func sameNames(names, header []string) bool {
	if len(names) != len(header) {
		return false
	}
	for i := range names {
		if catalog.FoldName(names[i]) != catalog.FoldName(header[i]) {
			return false
		}
	}
	return true
}

// isCSV says format is csv (the default 'format'): a stream whose fields may
// map by its file's header line ('csv.header', SPEC 1).
func isCSV(format string) bool { return format == "csv" || format == "" }
