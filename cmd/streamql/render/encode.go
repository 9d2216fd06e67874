// Package render owns the output formats of SPEC 4 (table, csv, tsv, json, plain,
// markdown): session.Sink implementations that print a job's outputs to stdout,
// stderr and --side-dir files, and the printing of SHOW / DESCRIBE / EXPLAIN
// results through the same formats. It renders a session.Job's outputs from
// the session's output contract (session.Batch, session.Vec, encoded by
// executor/format) and must never import another executor or planner
// package (layering_test.go). A sink's methods run on the job's goroutine;
// the one goroutine of its own is the changelog encoder of an updating main
// output (changeenc.go), which every other write waits for.
package render

import (
	"streamql/catalog"
	"streamql/internal/session"
)

// Formats lists the output formats of SPEC 4, the default first.
var Formats = session.Formats

// ValidFormat reports whether f names an output format.
func ValidFormat(f string) bool {
	for _, x := range Formats {
		if x == f {
			return true
		}
	}
	return false
}

// Ext returns the --side-dir file extension of a format (SPEC 4; catalog's
// table of formats, FormatSpec.Ext), ".txt" for a name that is none.
func Ext(format string) string {
	if f := catalog.PrintFormat(format); f != nil {
		return f.Ext
	}
	return ".txt"
}

// isTabular reports whether format prints tables (table, markdown;
// catalog.FormatSpec.Tabular), not a line per row.
func isTabular(format string) bool {
	f := catalog.PrintFormat(format)
	return f != nil && f.Tabular
}
