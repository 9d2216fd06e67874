package render

// printer is how one output format of SPEC 4 prints (the command line's
// side of the format registry, issue 22 item 5): the record formats'
// decoders and encoders are executor/codec's, the output formats' printers
// are these, registered once by the name of catalog's FormatSpec (Prints).
// Adding an output format means its row in catalog's table and its printer
// here; TestEveryPrintFormatHasPrinter fails otherwise. Nothing else in the
// command line switches on a format's name.
type printer struct {
	// line is the line format a row is encoded in (appendLine); lineNone
	// for a format that prints tables (catalog's FormatSpec.Tabular).
	line lineFormat
	// pipes draws a table as a Markdown pipe table (writeMarkdown), not a
	// box (writeBox).
	pipes bool
	// inlineSides says the errors and late outputs print on stdout among
	// the rows, each object naming its output (json, SPEC 1 and 2.4), not
	// as lines on stderr.
	inlineSides bool
}

// printers are the output formats' printers, by catalog.FormatSpec.Name.
var printers = map[string]printer{
	"table":    {},
	"csv":      {line: lineCSV},
	"tsv":      {line: lineTSV},
	"json":     {line: lineJSON, inlineSides: true},
	"plain":    {line: linePlain},
	"markdown": {pipes: true},
}

// printerOf returns the printer of format; the zero printer (a box table)
// for a name that is none.
func printerOf(format string) printer { return printers[format] }

// delimited says l is a delimited line format (csv, tsv): a header line,
// then each row's fields separated by delim.
func (l lineFormat) delimited() bool { return l == lineCSV || l == lineTSV }

// delim returns the field delimiter of l: a tab for tsv, else a comma.
func (l lineFormat) delim() byte {
	if l == lineTSV {
		return '\t'
	}
	return ','
}
