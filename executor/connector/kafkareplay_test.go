package connector

import (
	"strings"
	"testing"
)

// TestReplayMarkRoundTrip: the commit metadata a group source writes (the
// package doc's "sq1 e=U_p w=w_p f=f_p", w and f only when set) parses back
// to the same mark; metadata of another writer is no mark, and a malformed
// "sq1" one is an error naming the field.
func TestReplayMarkRoundTrip(t *testing.T) {
	for _, m := range []ReplayMark{
		{Emitted: 42},
		{Emitted: 7, WM: -5, WMSet: true},
		{Emitted: 1 << 40, WM: 1_700_000_000_000, WMSet: true, Fired: 1_700_000_010_000, FiredSet: true},
		{Emitted: 3, Fired: 0, FiredSet: true},
	} {
		s := m.String()
		got, ok, err := ParseReplayMark(s)
		if err != nil || !ok || got != m {
			t.Errorf("%q parses to %+v %v %v, want %+v", s, got, ok, err, m)
		}
	}
	if s := (ReplayMark{Emitted: 9, WM: 4, WMSet: true, Fired: 2, FiredSet: true}).String(); s != "sq1 e=9 w=4 f=2" {
		t.Errorf("mark renders as %q, want \"sq1 e=9 w=4 f=2\"", s)
	}
	for _, s := range []string{"", "some tool's note", "sq10 e=1"} {
		if _, ok, err := ParseReplayMark(s); ok || err != nil {
			t.Errorf("%q: ok %v, error %v; want no mark and no error", s, ok, err)
		}
	}
	for s, field := range map[string]string{"sq1 e=x": "e=x", "sq1 e=1 q=2": "q", "sq1 w=3": "no e=", "sq1 e=1 w": "w"} {
		if _, ok, err := ParseReplayMark(s); ok || err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%q: ok %v, error %v; want an error naming %s", s, ok, err, field)
		}
	}
}
