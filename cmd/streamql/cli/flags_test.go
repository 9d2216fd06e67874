package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestBadFlags runs Run on bad flag lines: each exits 2 before anything runs,
// with one error line on stderr that names the flag, says what is wrong, and
// points at --help (SPEC 4).
func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // substrings of the message
	}{
		{[]string{"--bogus"}, []string{"unknown flag --bogus"}},
		{[]string{"--fromat", "csv"}, []string{"unknown flag --fromat", "did you mean --format?"}},
		{[]string{"-x", "a.sql"}, []string{"unknown flag -x"}},
		{[]string{"-tx"}, []string{"unknown flag -t (in -tx)"}},
		{[]string{"-e"}, []string{"flag -e (--execute) needs a value", "-e 'SQL; SQL'"}},
		{[]string{"--execute"}, []string{"flag -e (--execute) needs a value"}},
		{[]string{"--format"}, []string{"flag --format needs a value", "table, csv, tsv, json, plain, markdown"}},
		{[]string{"-f"}, []string{"flag -f (--file) needs a value", "-f FILE"}},
		{[]string{"--side-dir"}, []string{"flag --side-dir needs a value", "--side-dir DIR"}},
		{[]string{"--format", "--timer", "-e", "SELECT 1"}, []string{"flag --format needs a value, but --timer follows it"}},
		{[]string{"-e", "-f", "x.sql"}, []string{"flag -e (--execute) needs a value, but -f follows it"}},
		{[]string{"-e", "SELECT 1", "-e", "--format=csv"}, []string{"flag -e (--execute) needs a value, but --format=csv follows it"}},
		{[]string{"--timer=maybe"}, []string{"flag --timer", "not 'maybe'"}},
		{[]string{"---x"}, []string{"bad flag syntax ---x"}},
		{[]string{"--format", "xml"}, []string{"unknown --format 'xml'"}},
		{[]string{"--format", "jsno"}, []string{"unknown --format 'jsno'; did you mean 'json'? use one of table, csv, tsv, json, plain, markdown"}},
	} {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), tc.args, strings.NewReader(""), &out, &errOut)
		msg := errOut.String()
		if code != exitPlanning {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", tc.args, code, msg)
		}
		if out.Len() != 0 {
			t.Errorf("%q: stdout %q, want nothing", tc.args, out.String())
		}
		if !strings.HasPrefix(msg, "error: ") || strings.Count(msg, "\n") != 1 {
			t.Errorf("%q: stderr %q, want one line starting with 'error: '", tc.args, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: stderr %q does not contain %q", tc.args, msg, w)
			}
		}
		if !strings.Contains(msg, "--help") && !strings.Contains(msg, "use one of") {
			t.Errorf("%q: stderr %q does not suggest --help", tc.args, msg)
		}
	}
}

// TestGoodFlagValues: a value that only looks like a flag is still a value.
func TestGoodFlagValues(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"--format", "csv", "-e", "-- a comment\nSELECT 1"}, strings.NewReader(""), &out, &errOut)
	if strings.Contains(errOut.String(), "needs a value") {
		t.Errorf("exit %d, stderr %q: a comment is not a flag", code, errOut.String())
	}
}
