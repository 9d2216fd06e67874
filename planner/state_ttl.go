package planner

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// StateTTLKey is Flink's key for how long an updating operator keeps a key's
// state after its last change (SPEC 2.8: every updating operator honours
// 'table.exec.state.ttl'); 0, the default, keeps state for ever. The session
// parses its value with ParseStateTTL and gives it to the planner
// (Planner.StateTTL), which puts it on the plan nodes that honour it
// (plan.BothJoin.StateTTL for a regular join, plan.Aggregate.StateTTL,
// plan.Rank.StateTTL). This is the one place that reads the setting's syntax.
const StateTTLKey = "table.exec.state.ttl"

// ParseStateTTL parses a value of 'table.exec.state.ttl' as Flink's duration
// syntax (TimeUtils.parseDuration): a non-negative integer, then optionally a
// unit, with or without a space: ms (milli, millis, millisecond,
// milliseconds), s (sec, secs, second, seconds), min (m, minute, minutes),
// h (hour, hours), d (day, days); no unit is milliseconds. It returns the
// duration, or an error that names the syntax.
func ParseStateTTL(v string) (time.Duration, error) {
	s := strings.TrimSpace(strings.ToLower(v))
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	bad := fmt.Errorf("'%s' takes a duration such as '0' (keep state for ever, the default), '90 s', '30 min', '12 h' or '1 d' (a number, then ms, s, min, h or d; no unit is ms); got '%s'", StateTTLKey, v)
	if i == 0 {
		return 0, bad
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, bad
	}
	unit := time.Millisecond
	switch strings.TrimSpace(s[i:]) {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
	case "s", "sec", "secs", "second", "seconds":
		unit = time.Second
	case "m", "min", "minute", "minutes":
		unit = time.Minute
	case "h", "hour", "hours":
		unit = time.Hour
	case "d", "day", "days":
		unit = 24 * time.Hour
	default:
		return 0, bad
	}
	if n > int64(1<<62)/int64(unit) {
		return 0, fmt.Errorf("'%s' = '%s' is too long a duration; use 0 to keep state for ever", StateTTLKey, v)
	}
	return time.Duration(n) * unit, nil
}
