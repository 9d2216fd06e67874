package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// tmuxPane is a tmux session of the test's own (its own server, on a socket
// named with the test's PID and the time, so other tmux users are never
// touched) with one pane of a fixed size.
type tmuxPane struct {
	t            *testing.T
	socket, name string
}

// startTmux starts a detached tmux session of cols x rows running an
// interactive shell in dir, or skips the test when tmux is not installed.
func startTmux(t *testing.T, dir string, cols, rows int) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the live table's terminal test needs it (apt-get install tmux)")
	}
	id := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	p := &tmuxPane{t: t, socket: "streamql-test-" + id, name: "live-" + id}
	// (no rc files: the prompt is the shell's plain one; tmux's default
	// scrollback, 2000 lines, holds the whole run)
	p.run("-f", "/dev/null", "new-session", "-d", "-s", p.name, "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-c", dir, "env -u CI -u TMUX PS1='$ ' TERM=xterm bash --norc --noprofile")
	socketPath := strings.TrimSpace(p.run("display-message", "-p", "-t", p.name, "#{socket_path}"))
	t.Cleanup(func() {
		exec.Command("tmux", "-L", p.socket, "kill-session", "-t", p.name).Run()
		exec.Command("tmux", "-L", p.socket, "kill-server").Run() // (the server of this test's own socket)
		if strings.Contains(socketPath, p.socket) {
			os.Remove(socketPath) // (a killed server may leave it)
		}
	})
	return p
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen returns the pane's visible lines; all returns the scrollback and
// the visible lines, wrapped lines joined.
func (p *tmuxPane) screen() []string {
	return strings.Split(strings.TrimRight(p.run("capture-pane", "-p", "-t", p.name), "\n"), "\n")
}

func (p *tmuxPane) all() []string {
	return strings.Split(strings.TrimRight(p.run("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", p.name), "\n"), "\n")
}

// waitFor polls the pane until ok holds for its lines (a generous deadline
// for a loaded machine: the condition, not the time, is what is tested).
func (p *tmuxPane) waitFor(what string, ok func(screen []string) bool) []string {
	p.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		scr := p.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waiting for %s; the pane shows:\n%s", what, strings.Join(scr, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestLiveTableInTmux runs the binary in a 100x24 tmux pane on an unbounded
// GROUP BY over a followed file (SPEC 2.8's live table, issue 24 item 3)
// whose result, 60 groups and then 70, is taller than the pane, one of its
// rows wider: appended rows change the page on the screen; the pane holds
// one drawing, which fits (the live status's lines under it included),
// the wide row cut to 99 columns with "…"; the scrollback holds no earlier
// drawing; after Ctrl-C the final table is printed once, whole.
func TestLiveTableInTmux(t *testing.T) {
	for _, tc := range []struct{ status, resize bool }{{true, false}, {false, false}, {true, true}} {
		t.Run(fmt.Sprintf("status=%v,resize=%v", tc.status, tc.resize), func(t *testing.T) { liveTableInTmux(t, tc.status, tc.resize) })
	}
}

// liveTableInTmux is TestLiveTableInTmux with the live status shown (3
// lines under the table) or not (CI set: the table takes every line but
// the cursor's, from the top line of the pane); with resize, the pane then
// shrinks to 80x20 and the next drawing fits it (the lines the shrink
// pushes off the pane, the terminal's own doing, are not checked: the
// scrollback may then hold one more drawing).
func liveTableInTmux(t *testing.T, status, resize bool) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		note := "n"
		if i == 5 {
			note = strings.Repeat("w", 120) // the widest row: its line is cut
		}
		fmt.Fprintf(&b, "k%d,%d,%s\n", i, i, note)
	}
	data := filepath.Join(dir, "bids.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sql := "CREATE STREAM bids (k VARCHAR, price BIGINT, note VARCHAR) WITH ('connector'='file', 'path'='bids.csv', 'format'='csv', 'follow'='true');\n" +
		"SELECT k, COUNT(*) AS n, MAX(price) AS maxp, MAX(note) AS note FROM bids GROUP BY k;\n"
	if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	appendRows := func(rows string) {
		f, err := os.OpenFile(data, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(rows); err != nil {
			t.Fatal(err)
		}
	}
	p := startTmux(t, dir, 100, 24)
	p.waitFor("the shell's prompt", func(s []string) bool { return strings.HasPrefix(s[0], "$") })
	env := "" // (startTmux's shell runs without CI: the status shows)
	if !status {
		env = "CI=1 "
	}
	p.run("send-keys", "-t", p.name, env+binary+" --format table q.sql; echo EXIT=$?", "Enter")

	header := regexp.MustCompile(`^│ k +│ n +│ maxp +│ note`)
	row := func(k string, n, maxp int) *regexp.Regexp {
		return regexp.MustCompile(fmt.Sprintf(`^│ %s +│ +%d │ +%d │`, k, n, maxp))
	}
	has := func(scr []string, re *regexp.Regexp) bool {
		for _, l := range scr {
			if re.MatchString(l) {
				return true
			}
		}
		return false
	}
	// check: the pane holds one drawing of the current page, the status
	// under it, nothing wider than 99 columns, and the scrollback no other
	// drawing
	check := func(scr []string, total, cols, rows int, history bool) {
		t.Helper()
		// the page: the pane's lines less the cursor's, the status's (3),
		// the table's borders and header (4) and the line counting the rest
		page := rows - 1 - 4 - 1
		if status {
			page -= 3
		}
		heads, at := 0, -1
		for i, l := range scr {
			if header.MatchString(l) {
				heads++
				at = i
			}
			if w := utf8.RuneCountInString(l); w > cols-1 {
				t.Errorf("line %d is %d columns wide (wraps at %d):\n%s", i, w, cols, l)
			}
		}
		if heads != 1 || at < 1 || !strings.HasPrefix(scr[at-1], "┌") {
			t.Fatalf("the pane should hold one drawing; it shows:\n%s", strings.Join(scr, "\n"))
		}
		// k1... in their places
		for i := 1; i <= page; i++ {
			if l := scr[at+1+i]; !strings.HasPrefix(l, fmt.Sprintf("│ k%d ", i)) {
				t.Fatalf("line %d of the table is %q, want group k%d's (the first page in the groups' order):\n%s", i, l, i, strings.Join(scr, "\n"))
			}
		}
		if l := scr[at+1+5]; !strings.HasSuffix(l, "w…") {
			t.Errorf("k5's wide row should be cut, ending in …: %q", l)
		}
		foot := fmt.Sprintf("… %d of %d rows not shown", total-page, total)
		if l := scr[at+2+page+1]; !strings.HasPrefix(l, foot) {
			t.Fatalf("the line under the table is %q, want %q…:\n%s", l, foot, strings.Join(scr, "\n"))
		}
		heads = 0
		for _, l := range p.all() {
			if header.MatchString(l) {
				heads++
			}
		}
		if history && heads != 1 {
			t.Fatalf("the scrollback and the pane hold %d drawings of the table, want the one on the screen:\n%s", heads, strings.Join(p.all(), "\n"))
		}
	}

	scr := p.waitFor("the live table of 60 groups", func(s []string) bool {
		return has(s, regexp.MustCompile(`^… \d+ of 60 rows not shown`)) && (!status || has(s, regexp.MustCompile(`rows read`)))
	})
	check(scr, 60, 100, 24, true)
	// changes: one on the page (k3), one below it (k55), then new groups
	for i := 1; i <= 3; i++ {
		appendRows(fmt.Sprintf("k3,%d,n\nk55,%d,n\n", 1000+i, 2000+i))
		scr = p.waitFor(fmt.Sprintf("k3's update %d on the page", i), func(s []string) bool { return has(s, row("k3", 1+i, 1000+i)) })
		check(scr, 60, 100, 24, true)
	}
	var more strings.Builder
	for i := 61; i <= 70; i++ {
		fmt.Fprintf(&more, "k%d,%d,n\n", i, i)
	}
	appendRows(more.String() + "k1,5000,n\n")
	scr = p.waitFor("70 groups, k1's update", func(s []string) bool {
		return has(s, regexp.MustCompile(`^… \d+ of 70 rows not shown`)) && has(s, row("k1", 2, 5000))
	})
	check(scr, 70, 100, 24, true)

	if resize {
		p.run("resize-window", "-t", p.name, "-x", "80", "-y", "20")
		appendRows("k2,7000,n\n")
		scr = p.waitFor("k2's update on the 80x20 pane", func(s []string) bool { return has(s, row("k2", 2, 7000)) })
		check(scr, 70, 80, 20, false)
	}

	// Ctrl-C: the job stops (exit 130), the drawing and the status are
	// erased, the final table printed whole
	p.run("send-keys", "-t", p.name, "C-c")
	p.waitFor("the job's end", func(s []string) bool { return has(s, regexp.MustCompile(`^EXIT=130`)) })
	all := p.all()
	heads, at := 0, -1
	for i, l := range all {
		if header.MatchString(l) {
			heads++
			at = i
		}
	}
	if heads != 1 && !(resize && heads == 2) {
		t.Fatalf("after the job the scrollback holds %d tables, want the final one:\n%s", heads, strings.Join(all, "\n"))
	}
	want := map[int][2]int{1: {2, 5000}, 3: {4, 1003}, 55: {4, 2003}}
	if resize {
		want[2] = [2]int{2, 7000}
	}
	for i := 1; i <= 70; i++ {
		n, maxp := 1, i
		if w, ok := want[i]; ok {
			n, maxp = w[0], w[1]
		}
		if l := all[at+1+i]; !row(fmt.Sprintf("k%d", i), n, maxp).MatchString(l) {
			t.Fatalf("final table line %d is %q, want k%d with %d, %d:\n%s", i, l, i, n, maxp, strings.Join(all, "\n"))
		}
	}
	if l := all[at+1+5]; !strings.Contains(l, strings.Repeat("w", 120)) {
		t.Errorf("the final table cut k5's row: %q", l)
	}
	if !strings.HasPrefix(all[at+72], "└") || !has(all[at+73:], regexp.MustCompile(`^EXIT=130`)) {
		t.Errorf("after the final table:\n%s", strings.Join(all[at+70:], "\n"))
	}
}
