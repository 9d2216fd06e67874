package planner

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLateLineNamesItsSink checks, over every EXPLAIN tree of the rule
// goldens, that an operator's "late rows -> 'x'" line names the output its
// late port feeds (the [late] Sink below it, or the shared Sink it points
// to): a derived relation's late output renamed late-<alias> by
// ruleDerivedJob must be named so on its aggregate's line too, as the run's
// end-of-job notice names it.
func TestLateLineNamesItsSink(t *testing.T) {
	files, err := filepath.Glob("testdata/rules/*")
	if err != nil {
		t.Fatal(err)
	}
	lateLine := regexp.MustCompile(`late rows -> '([^']*)'`)
	sinkLine := regexp.MustCompile(`Sink (\S+) .*\(#(\d+),`)
	lateSink := regexp.MustCompile(`\[late\] (?:Sink (\S+)|-> #(\d+) Sink)`)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range strings.Split(string(data), "\n\n") { // (one case, its tree after ----)
			lines := strings.Split(c, "\n")
			sinks := map[string]string{}
			for _, l := range lines {
				if m := sinkLine.FindStringSubmatch(l); m != nil {
					sinks[m[2]] = m[1]
				}
			}
			for i, l := range lines {
				m := lateLine.FindStringSubmatch(l)
				if m == nil || strings.HasPrefix(l, "#") {
					continue
				}
				got := ""
				for _, l2 := range lines[i+1 : min(i+12, len(lines))] {
					if s := lateSink.FindStringSubmatch(l2); s != nil {
						got = s[1]
						if got == "" {
							got = sinks[s[2]]
						}
						break
					}
				}
				checked++
				if got != m[1] {
					t.Errorf("%s: %q says late rows go to %q, but its late port feeds Sink %q", f, strings.TrimSpace(l), m[1], got)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no late-rows line found in the goldens: the test reads nothing")
	}
}
