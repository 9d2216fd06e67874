package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// boxTables parses the box tables of out (--format table) by their title
// (the output's name, SPEC 4): each table's header cells, then its rows'.
func boxTables(out string) map[string][][]string {
	tables := map[string][][]string{}
	title := ""
	head := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == "" || strings.HasPrefix(l, "┌") || strings.HasPrefix(l, "├") || strings.HasPrefix(l, "└"):
			head = strings.HasPrefix(l, "┌")
		case strings.HasPrefix(l, "│"):
			var cells []string
			for _, c := range strings.Split(strings.Trim(l, "│"), "│") {
				cells = append(cells, strings.TrimSpace(c))
			}
			if head && len(tables[title]) > 0 { // (a later chunk's header: the same)
				head = false
				continue
			}
			head = false
			tables[title] = append(tables[title], cells)
		default:
			title = l
		}
	}
	return tables
}

// TestResultModeInPipes: 'sql-client.execution.result-mode' (SPEC 2.8) for
// an updating query over an unbounded input (a followed file) with stdout a
// pipe, --format table: unset or 'auto' prints the changelog with op as the
// job runs, 'changelog' too, 'table' the materialized result once, when the
// job ends (here by SIGINT: exit 130); Flink's 'tableau' is refused with an
// error that names what to write. An append-only side output (rows of k
// 'end') shows when the job has read the rows.
func TestResultModeInPipes(t *testing.T) {
	changes := [][]string{{"op", "k", "n"}, {"+I", "a", "1"}, {"+I", "b", "1"}, {"-U", "a", "1"}, {"+U", "a", "2"}}
	final := [][]string{{"k", "n"}, {"a", "2"}, {"b", "1"}}
	for _, tc := range []struct {
		mode string
		want [][]string // main's table
	}{{"", changes}, {"auto", changes}, {"changelog", changes}, {"table", final}} {
		t.Run("mode="+tc.mode, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "ev.csv"), []byte("a,1\nb,2\na,3\nend,0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sql := "CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='ev.csv', 'format'='csv', 'follow'='true');\n" +
				"SELECT k INTO SIDE 'seen' FROM ev WHERE k = 'end';\n" +
				"SELECT k, COUNT(*) AS n FROM ev GROUP BY k;\n"
			if tc.mode != "" {
				sql = "SET 'sql-client.execution.result-mode' = '" + tc.mode + "';\n" + sql
			}
			if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte(sql), 0o644); err != nil {
				t.Fatal(err)
			}
			s := start(t, dir, nil, "--format", "table", "q.sql")
			s.waitFor(t, "the side output's row (all rows read)", func() bool { return strings.Contains(s.stdout.String(), "│ end │") })
			s.stop(t, syscall.SIGINT)
			if s.code != 130 {
				t.Fatalf("exit %d after SIGINT, want 130; stderr %s", s.code, s.stderr.String())
			}
			out := s.stdout.String()
			if got := boxTables(out)["main"]; !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("main's table %v, want %v; stdout:\n%s", got, tc.want, out)
			}
			if tc.mode == "table" && strings.Count(out, "main\n") != 1 {
				t.Errorf("the materialized result should print once, at the end:\n%s", out)
			}
		})
	}
	out, errs, code := runSQL(t, nil, "SET 'sql-client.execution.result-mode' = 'tableau';\n", "--format", "table")
	if code != 2 || !strings.Contains(errs, "Flink's 'tableau'") || !strings.Contains(errs, "is 'changelog' here") {
		t.Errorf("'tableau': exit %d, stdout %q, stderr:\n%s\nwant a planning error that says to write 'changelog'", code, out, errs)
	}
}

// typeLine types line into the pane and Enter (a ';' at the end of an
// argument is tmux's command separator: it is sent as its key code).
func (p *tmuxPane) typeLine(line string) {
	p.t.Helper()
	text, semi := strings.CutSuffix(line, ";")
	p.run("send-keys", "-t", p.name, "-l", text)
	if semi {
		p.run("send-keys", "-t", p.name, "-H", "3b")
	}
	p.run("send-keys", "-t", p.name, "Enter")
}

// TestResultModeInREPL: 'sql-client.execution.result-mode' in the REPL on a
// terminal (a tmux pane, SPEC 2.8): unset, an updating query over a
// followed file shows the live materialized result, updated in place as
// rows arrive, and Ctrl-C prints the final table once and gives the prompt
// back; after SET 'changelog' the same query prints each change with its
// op; SET 'tableau' says to write 'changelog'.
func TestResultModeInREPL(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "ev.csv")
	if err := os.WriteFile(data, []byte("a,1\nb,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startTmux(t, dir, 100, 30)
	p.waitFor("the shell's prompt", func(s []string) bool { return strings.HasPrefix(s[0], "$") })
	p.typeLine(binary)
	match := func(re string) func([]string) bool {
		r := regexp.MustCompile(re)
		return func(s []string) bool {
			for _, l := range s {
				if r.MatchString(l) {
					return true
				}
			}
			return false
		}
	}
	count := func(re string) int {
		r := regexp.MustCompile(re)
		n := 0
		for _, l := range p.all() {
			if r.MatchString(l) {
				n++
			}
		}
		return n
	}
	p.waitFor("the REPL's prompt", match(`^streamql>`))
	p.typeLine("CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='ev.csv', 'format'='csv', 'follow'='true');")
	p.typeLine("SELECT k, COUNT(*) AS n FROM ev GROUP BY k;")
	p.waitFor("the live table", match(`^│ b +│ +1 │`))
	f, err := os.OpenFile(data, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("a,3\n")
	f.Close()
	p.waitFor("a's row updated in place", match(`^│ a +│ +2 │`))
	if n := count(`^│ k +│ n +│`); n != 1 {
		t.Fatalf("the pane and its scrollback hold %d drawings, want 1:\n%s", n, strings.Join(p.all(), "\n"))
	}
	p.run("send-keys", "-t", p.name, "C-c")
	p.waitFor("the prompt after Ctrl-C", match(`^streamql> *$`))
	all := strings.Join(p.all(), "\n")
	if n := count(`^│ k +│ n +│`); n != 1 || !regexp.MustCompile(`│ a +│ +2 │\n│ b +│ +1 │\n└`).MatchString(all) || strings.Contains(all, "│ op │") {
		t.Fatalf("after Ctrl-C: want the final table once, no op column:\n%s", all)
	}

	p.typeLine("SET 'sql-client.execution.result-mode' = 'changelog';")
	p.typeLine("SELECT k, COUNT(*) AS n FROM ev GROUP BY k;")
	p.waitFor("the changes with op", match(`^│ \+U │ a +│ +2 │`))
	p.run("send-keys", "-t", p.name, "C-c")
	p.waitFor("the prompt after Ctrl-C", func(s []string) bool { return strings.Count(strings.Join(p.all(), "\n"), "\nstreamql>") >= 5 })
	if !regexp.MustCompile(`│ op │ k +│ n │`).MatchString(strings.Join(p.all(), "\n")) {
		t.Fatalf("'changelog': want the op column:\n%s", strings.Join(p.all(), "\n"))
	}

	p.typeLine("SET 'sql-client.execution.result-mode' = 'tableau';")
	p.waitFor("the error for 'tableau'", match(`is 'changelog' here`))
}
