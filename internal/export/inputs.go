package export

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Read is one `.read FILE` line of a script (SPEC 4's dot commands): Offset is
// the byte offset of the line in the script, Path the file as written
// (relative to the script's directory unless absolute).
type Read struct {
	Offset int
	Path   string
}

// Loader reads one script file for ReadInputs: it returns the script's text
// with its dot lines blanked out by spaces (offsets, lines and columns of the
// SQL stay the file's) and its .read lines in order, or an error (a file that
// cannot be read, a malformed dot line).
type Loader func(path string) (sql string, reads []Read, err error)

// ReadInputs appends the script file name and the scripts its .read lines
// name, recursively, to inputs in the order the command line runs them: the
// statements before a .read, then what it reads, then the rest. Each part is
// the whole file with the other parts blanked out (blankOutside), so an
// error's line and column are the file's. It is the one reading of a script's
// inputs that `streamql export --flink`, `streamql tune` and this package's
// tests share; nesting deeper than 16 scripts is an error.
func ReadInputs(name string, load Loader, inputs []Input) ([]Input, error) {
	return readInputs(name, load, inputs, 0)
}

func readInputs(name string, load Loader, inputs []Input, depth int) ([]Input, error) {
	if depth > 16 {
		return nil, fmt.Errorf("%s: .read nests more than 16 scripts deep", name)
	}
	sql, reads, err := load(name)
	if err != nil {
		return nil, err
	}
	from := 0
	for _, r := range reads {
		path := r.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(name), path)
		}
		if part := blankOutside(sql, from, r.Offset); strings.TrimSpace(part) != "" {
			inputs = append(inputs, Input{Name: name, Source: part})
		}
		from = r.Offset
		if inputs, err = readInputs(path, load, inputs, depth+1); err != nil {
			return nil, err
		}
	}
	return append(inputs, Input{Name: name, Source: blankOutside(sql, from, len(sql))}), nil
}

// blankOutside returns src with every byte outside [from, to) but line
// breaks made a space, so that a part of a script keeps its statements'
// lines and columns (errors point into the whole file).
func blankOutside(src string, from, to int) string {
	if from == 0 && to == len(src) {
		return src
	}
	b := []byte(src)
	for i := range b {
		if (i < from || i >= to) && b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}
