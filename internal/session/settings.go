package session

import (
	"os"
	"strings"

	"streamql/catalog"
	"streamql/internal/editdist"
	"streamql/parser"
)

// Settings are the typed values of the SET keys that belong to a client (SPEC
// 3: 'format', 'side-dir', 'timer'); the command line keeps one and renders by
// it. The engine's own key, 'state.max-bytes' (SPEC 1), goes to
// Env.StateMaxBytes (ParseStateMaxBytes). Each key has one parse function,
// which returns a *parser.Error at the value for a bad one.
type Settings struct {
	Format  string // output format name, one of the client's formats (SPEC 4)
	SideDir string // directory of the side output files; "" writes them to stdout
	Timer   bool   // print rows, elapsed time and rows/s per job on stderr
	// ResultMode is 'sql-client.execution.result-mode' (Flink's key, SPEC
	// 2.8): "table" keeps an updating output's materialized result,
	// "changelog" prints its changes with an op column; "" (unset, or SET to
	// 'auto') is table for bounded jobs and on a terminal, changelog in pipes
	// and files for unbounded ones.
	ResultMode string
}

// Formats lists the output formats of SPEC 4, the default first (catalog's
// table of formats: catalog.PrintFormats). The command line renders them
// (cmd/streamql/render); the library only keeps the setting, but checks it by
// the same list.
var Formats = catalog.PrintFormats()

// SettingKeys lists the keys of SET, for the unknown-setting error (SPEC 3).
const SettingKeys = "format, side-dir, timer, sql-client.execution.result-mode, state.max-bytes, table.exec.state.ttl, table.exec.mini-batch.enabled, execution.runtime-mode, planner.prune-columns, planner.push-filters"

// TimerValues are the words 'timer' (and the REPL's .timer) take, lower case,
// with their values.
var TimerValues = map[string]bool{"on": true, "true": true, "off": false, "false": false}

// Apply parses SET st of a client key into s by the key's parse function;
// formats lists the client's output formats (the default first). It returns
// known false for another key; a bad value changes nothing.
func (s *Settings) Apply(st *parser.Set, formats []string) (known bool, err error) {
	switch st.Key {
	case "format":
		v, err := ParseFormat(st, formats)
		if err == nil {
			s.Format = v
		}
		return true, err
	case "side-dir":
		v, err := ParseSideDir(st)
		if err == nil {
			s.SideDir = v
		}
		return true, err
	case "timer":
		v, err := ParseTimer(st)
		if err == nil {
			s.Timer = v
		}
		return true, err
	case ResultModeKey:
		v := strings.ToLower(st.Value)
		if v != "table" && v != "changelog" && v != "auto" {
			hint := ""
			if v == "tableau" { // (Flink SQL client's third mode: its changes printed as they come, an op column first)
				hint = "; Flink's 'tableau' (each change printed as it comes, with its op) is 'changelog' here"
			}
			return true, parser.Errorf(st.ValuePos, "'%s' takes 'table' (the materialized result), 'changelog' (each change with its op) or 'auto' (table for bounded jobs and on a terminal, else changelog)%s", ResultModeKey, hint)
		}
		if v == "auto" {
			v = ""
		}
		s.ResultMode = v
		return true, nil
	}
	return false, nil
}

// ResultModeKey is Flink SQL client's key for how an updating result shows
// (SPEC 2.8).
const ResultModeKey = "sql-client.execution.result-mode"

// RuntimeModeKey is Flink's key that makes GROUP BY over bounded streams
// updating too ('streaming'; planner.Planner.Streaming, SPEC 2.8).
const RuntimeModeKey = "execution.runtime-mode"

// MiniBatchKey is Flink's key that folds each batch's changes of an updating
// aggregate per group (SPEC 2.8; plan.Aggregate.MiniBatch).
const MiniBatchKey = "table.exec.mini-batch.enabled"

// ParseFormat returns the value of SET 'format' (SPEC 3, SPEC 4): one of
// formats, as written, or an error listing them.
func ParseFormat(st *parser.Set, formats []string) (string, error) {
	for _, f := range formats {
		if f == st.Value {
			return f, nil
		}
	}
	return "", parser.Errorf(st.ValuePos, "unknown format '%s'; %suse one of %s", st.Value, editdist.DidYouMean(st.Value, formats), strings.Join(formats, ", "))
}

// ParseSideDir returns the value of SET 'side-dir' (SPEC 3, SPEC 4), after
// creating the directory (mode 0755) when it is not ""; an error says why it
// could not be created.
func ParseSideDir(st *parser.Set) (string, error) {
	if st.Value != "" {
		if err := os.MkdirAll(st.Value, 0o755); err != nil {
			return "", parser.Errorf(st.ValuePos, "cannot create the side output directory '%s': %v", st.Value, err)
		}
	}
	return st.Value, nil
}

// ParseTimer returns the value of SET 'timer' (SPEC 3): on/true or off/false in
// any case.
func ParseTimer(st *parser.Set) (bool, error) {
	v, ok := TimerValues[strings.ToLower(st.Value)]
	if !ok {
		return false, parser.Errorf(st.ValuePos, "'timer' takes on or off")
	}
	return v, nil
}

// ParseStateMaxBytes returns the value of SET 'state.max-bytes' in bytes (SPEC
// 1: a byte size, catalog.ParseSize), or an error at the value naming the key.
func ParseStateMaxBytes(st *parser.Set) (int64, error) {
	n, err := catalog.ParseSize(st.Value)
	if err != nil {
		return 0, parser.Errorf(st.ValuePos, "'state.max-bytes': %v", err)
	}
	return n, nil
}
