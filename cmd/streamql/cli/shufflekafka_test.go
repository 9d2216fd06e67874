package cli

import (
	"strings"
	"testing"

	"streamql/parser"
)

// TestKillDiff: the check of a killed and restarted process's outputs
// against the first run (killRestart): every line of the first run in one of
// the two (at-least-once: a line the killed process wrote may come again),
// no line the first run lacks, no process with more copies of a line than
// the first run; the killed process's cut last line does not count.
func TestKillDiff(t *testing.T) {
	ref := "h\na\nb\nb\nc\n"
	for _, c := range []struct {
		name, killed, restarted, want string
	}{
		{"resumed", "h\na\nb\n", "h\nb\nc\n", ""},
		{"again from the start", "h\na\n", ref, ""},
		{"cut last line", "h\na\nb\nb\nc", "h\nc\n", ""},
		{"lost", "h\na\n", "h\nb\nc\n", "lost: b"},
		{"cut line lost", "h\na\nb\nb\nc", "h\n", "lost: c"},
		{"invented", "h\na\n", "h\nb\nb\nc\nz\n", "extra: z"},
		{"twice in one process", "h\n", "h\na\na\nb\nb\nc\n", "extra: a"},
	} {
		got := killDiff(ref, c.killed, c.restarted)
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestRenameGroups: every consumer group of a run gets the run's suffix,
// once; streams without one are left alone.
func TestRenameGroups(t *testing.T) {
	var out, errb strings.Builder
	s := NewSession(&out, &errb, strings.NewReader(""))
	sql := "CREATE STREAM a (x BIGINT) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:9', 'properties.group.id'='g', 'format'='csv');\n" +
		"CREATE STREAM b (x BIGINT) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:9', 'format'='csv');\n"
	script, err := parser.Parse("q.sql", sql)
	if err != nil {
		t.Fatal(err)
	}
	if code := s.ExecScript(t.Context(), script, "."); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	renameGroups(s.Cat, "-x")
	renameGroups(s.Cat, "-x")
	if g := s.Cat.Lookup("a").Options[groupOption]; g != "g-x" {
		t.Errorf("a's group %q, want g-x", g)
	}
	if g, ok := s.Cat.Lookup("b").Options[groupOption]; ok {
		t.Errorf("b got a group %q", g)
	}
}
