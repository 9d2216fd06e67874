package planner

import (
	"strings"
	"testing"
	"time"

	"streamql/planner/plan"
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

// TestFormatStateTTL: the setting prints (plan.FormatTTL: EXPLAIN, SET;) as
// it parses back.
func TestFormatStateTTL(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0 ms", 1500 * time.Millisecond: "1500 ms", 90 * time.Second: "90 s", 30 * time.Minute: "30 min", 36 * time.Hour: "36 h", 48 * time.Hour: "2 d"} {
		got := plan.FormatTTL(d)
		if back, err := ParseStateTTL(got); got != want || err != nil || back != d {
			t.Errorf("plan.FormatTTL(%v) = %q (parses back to %v, %v); want %q", d, got, back, err, want)
		}
	}
}

// TestParseStateTTLFlinkSyntax: 'table.exec.state.ttl' takes Flink's duration syntax
// (TimeUtils.parseDuration: a number, an optional unit with or without a
// space, singular or plural; no unit is ms) and refuses anything else with
// a message that names the key and shows an example.
func TestParseStateTTLFlinkSyntax(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"1 h": time.Hour, "1h": time.Hour, "2 hours": 2 * time.Hour, "30 min": 30 * time.Minute, "30min": 30 * time.Minute,
		"5 m": 5 * time.Minute, "90 s": 90 * time.Second, "90 SEC": 90 * time.Second, "1 d": 24 * time.Hour, "3 days": 72 * time.Hour,
		"500 ms": 500 * time.Millisecond, "1500": 1500 * time.Millisecond, "0": 0, "0 s": 0, " 7 seconds ": 7 * time.Second,
	} {
		got, err := ParseStateTTL(v)
		if err != nil || got != want {
			t.Errorf("ParseStateTTL(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"", "h", "1.5 h", "-1 s", "10 parsecs", "1 h 30 min", "99999999999999999999 d", "9999999999 d"} {
		if d, err := ParseStateTTL(v); err == nil || !strings.Contains(err.Error(), StateTTLKey) {
			t.Errorf("ParseStateTTL(%q) = %v, %v; want an error naming %s", v, d, err, StateTTLKey)
		}
	}
}
