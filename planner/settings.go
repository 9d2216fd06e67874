package planner

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// StateTTLKey is Flink's key of the state time-to-live (SPEC 2.7, 2.8, 3):
// SET 'table.exec.state.ttl' = '1 h'. The session parses its value with
// ParseStateTTL and gives it to the planner (Planner.StateTTL), which puts
// it on the plan nodes that honour it (plan.BothJoin.StateTTL for a regular
// join). This is the one place that reads the setting's syntax.
const StateTTLKey = "table.exec.state.ttl"

// ttlUnits are the unit words of Flink's duration syntax (TimeUtils
// .parseDuration), lower case, with their lengths.
var ttlUnits = map[string]time.Duration{
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"h": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"min": time.Minute, "m": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"ms": time.Millisecond, "milli": time.Millisecond, "millis": time.Millisecond, "millisecond": time.Millisecond, "milliseconds": time.Millisecond,
}

// ParseStateTTL parses a value of 'table.exec.state.ttl' in Flink's duration
// syntax: a whole number and an optional unit, with or without a space
// ('1 h', '30min', '90 s', '500 ms', '2 d'; no unit is milliseconds, as
// Flink's); '0' (any unit) means no TTL, the default. It returns the
// duration, or an error that says what the value may be (the caller places
// it at the value). State is kept at millisecond precision, so a TTL below
// 1 ms is refused.
func ParseStateTTL(v string) (time.Duration, error) {
	s := strings.TrimSpace(v)
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	}
	bad := fmt.Errorf("'%s' takes a duration as Flink writes it: a whole number and a unit (d, h, min, s, ms; none is ms), such as '1 h' or '30 min'; '0' keeps state for ever; got '%s'", StateTTLKey, v)
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || num == "" {
		return 0, bad
	}
	u := time.Millisecond
	if unit != "" {
		var ok bool
		if u, ok = ttlUnits[unit]; !ok {
			return 0, bad
		}
	}
	if n > int64(1<<62)/int64(u) {
		return 0, fmt.Errorf("'%s' = '%s' is too long: at most %d days", StateTTLKey, v, int64(1<<62)/int64(24*time.Hour))
	}
	return time.Duration(n) * u, nil
}
