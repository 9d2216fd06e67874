package planner

import (
	"strings"
	"testing"
	"time"
)

// TestParseStateTTL: 'table.exec.state.ttl' takes Flink's duration syntax
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
