package planner

import (
	"testing"
	"time"
)

// TestParseStateTTL: Flink's duration syntax for 'table.exec.state.ttl'.
func TestParseStateTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "1500": 1500 * time.Millisecond, "90 s": 90 * time.Second, "90s": 90 * time.Second,
		"30 min": 30 * time.Minute, "2 m": 2 * time.Minute, "12 h": 12 * time.Hour, "1 d": 24 * time.Hour,
		" 7 DAYS ": 7 * 24 * time.Hour, "250 ms": 250 * time.Millisecond,
	} {
		got, err := ParseStateTTL(in)
		if err != nil || got != want {
			t.Errorf("ParseStateTTL(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1 s", "1 week", "s", "1.5 h", "99999999999999999999"} {
		if _, err := ParseStateTTL(in); err == nil {
			t.Errorf("ParseStateTTL(%q) took it", in)
		}
	}
}

// TestFormatStateTTL: the setting prints as it parses back.
func TestFormatStateTTL(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0 ms", 1500 * time.Millisecond: "1500 ms", 90 * time.Second: "90 s", 30 * time.Minute: "30 min", 36 * time.Hour: "36 h", 48 * time.Hour: "2 d"} {
		got := FormatStateTTL(d)
		if back, err := ParseStateTTL(got); got != want || err != nil || back != d {
			t.Errorf("FormatStateTTL(%v) = %q (parses back to %v, %v); want %q", d, got, back, err, want)
		}
	}
}
