package planner_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	_ "streamql/executor/connector"       // the connectors' specs
	_ "streamql/executor/connector/kafka" // registers kafka and upsert-kafka
	"streamql/internal/session"
	"streamql/parser"
)

// TestRules runs the planner's datadriven goldens (issue 22; pebble's and
// cockroachdb's datadriven format): one file per rule under testdata/rules,
// each case a script in and what its statements print out. Rewrite the
// expected outputs with
//
//	go test ./planner -run TestRules -rewrite
//
// and read the diff before committing it.
//
// Commands:
//   - explain [procs=N] [state-max-bytes=B]: runs the script's statements in
//     one session (CREATE STREAM, pending side branches, SET, EXPLAIN) with
//     GOMAXPROCS N (default 2, this project's CI machine) and prints what
//     each EXPLAIN printed, and the first error as the CLI shows it (message,
//     line, column, the line and a caret). A main query is not run: it is an
//     error of the test.
//   - json [details]: as explain, for a script whose one EXPLAIN is EXPLAIN
//     (FORMAT JSON): its output must parse as one JSON document; each node
//     is printed as "#id kind <- [inputs] time=.. updating=.." and, when it
//     has one, "upsertKey=[..]"; with details, also its text and each of
//     its details, indented.
//   - strategy [procs=N] [state-max-bytes=B]: as explain, but only the
//     strategies the EXPLAINs print (planner.ChooseStrategy's choice), and
//     the first error.
func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata/rules", func(t *testing.T, path string) {
		dir := t.TempDir()
		for _, f := range []string{"s.csv", "r.csv", "sensors.csv"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("a,1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			procs := 2
			var maxBytes int64
			details := false
			for _, a := range d.CmdArgs {
				switch a.Key {
				case "details":
					details = true
				case "procs":
					procs, _ = strconv.Atoi(a.Vals[0])
				case "state-max-bytes":
					maxBytes, _ = strconv.ParseInt(a.Vals[0], 10, 64)
				default:
					d.Fatalf(t, "unknown argument %s", a.Key)
				}
			}
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			front := &goldenFront{}
			s := session.New(nil, front)
			s.Env.StateMaxBytes = maxBytes
			script, err := parser.Parse("rule.sql", d.Input)
			if err == nil {
				for _, st := range script.Stmts {
					if err = s.Exec(context.Background(), script, dir, st); err != nil {
						break
					}
				}
			}
			var out strings.Builder
			switch d.Cmd {
			case "explain":
				out.WriteString(front.text.String())
			case "json":
				// EXPLAIN (FORMAT JSON): the whole output must be one JSON
				// document; each node as "#id kind <- inputs (time, mode)"
				var tree struct {
					Nodes []struct {
						ID     int
						Kind   string
						Time   string
						Inputs []struct {
							Node int
							Port string
						}
						Updating  bool
						UpsertKey []string
						Text      string
						Details   []string
					}
				}
				if front.text.Len() > 0 {
					if jerr := json.Unmarshal([]byte(front.text.String()), &tree); jerr != nil {
						d.Fatalf(t, "EXPLAIN (FORMAT JSON) is not one JSON document: %v\n%s", jerr, front.text.String())
					}
				}
				for _, n := range tree.Nodes {
					var ins []string
					for _, in := range n.Inputs {
						ins = append(ins, fmt.Sprintf("#%d%s", in.Node, map[bool]string{true: "." + in.Port, false: ""}[in.Port != ""]))
					}
					fmt.Fprintf(&out, "#%d %s <- [%s] time=%q updating=%v", n.ID, n.Kind, strings.Join(ins, " "), n.Time, n.Updating)
					if n.UpsertKey != nil {
						fmt.Fprintf(&out, " upsertKey=%v", n.UpsertKey)
					}
					out.WriteString("\n")
					if details {
						fmt.Fprintf(&out, "  text: %s\n", n.Text)
						for _, l := range n.Details {
							fmt.Fprintf(&out, "  %s\n", l)
						}
					}
				}
			case "strategy":
				for _, l := range strings.Split(front.text.String(), "\n") {
					if _, s, ok := strings.Cut(l, "strategy: "); ok {
						fmt.Fprintln(&out, s)
					}
				}
			default:
				d.Fatalf(t, "unknown command %s", d.Cmd)
			}
			var pe *parser.Error
			switch {
			case errors.As(err, &pe):
				out.WriteString(parser.FormatError("rule.sql", d.Input, pe) + "\n")
			case err != nil:
				fmt.Fprintf(&out, "error: %v\n", err)
			}
			return out.String()
		})
	})
}

// goldenFront is the session's frontend for TestRules: it keeps what the
// statements print and refuses to run a job.
type goldenFront struct {
	text strings.Builder
}

func (f *goldenFront) Set(*parser.Set) (bool, error) { return false, nil }

func (f *goldenFront) Result(cols []string, rows [][]string) error {
	for _, r := range rows {
		f.text.WriteString(strings.Join(r, "\t") + "\n")
	}
	return nil
}

func (f *goldenFront) RunJob(context.Context, *session.Job, session.RunFunc) error {
	return errors.New("the planner's goldens plan jobs, they do not run them: write EXPLAIN")
}

// TestEveryRuleHasGoldens: each planner rule file (planner/rule_*.go, one
// rule or family of rules a file, issue 22) has its datadriven goldens in
// testdata/rules under the same name, with at least one case; a rule added
// without them fails here.
func TestEveryRuleHasGoldens(t *testing.T) {
	files, err := filepath.Glob("rule_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule files found (%v)", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		name := strings.TrimSuffix(f, ".go")
		data, err := os.ReadFile(filepath.Join("testdata", "rules", name))
		if err != nil {
			t.Errorf("%s has no goldens: write testdata/rules/%s (cases of SQL in, plan out; go test ./planner -run TestRules -rewrite)", f, name)
			continue
		}
		if !strings.Contains(string(data), "\n----\n") {
			t.Errorf("testdata/rules/%s holds no case", name)
		}
	}
}
