package catalog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxFutureOption is the stream option 'watermark.max-future' (SPEC 4,
// "Finding out why"): a duration; a row whose event time is more than it above
// the stream's watermark goes to the errors output with the reason
// MaxFutureReason and does not move the watermark.
const MaxFutureOption = "watermark.max-future"

// MaxFutureReason is the errors output's reason for a row that
// 'watermark.max-future' refused.
const MaxFutureReason = "event time too far ahead"

// ParseDuration reads a duration as Flink options write it: a non-negative
// number and a unit, "10 s", "500ms", "1 min", "2 h", "1 d" (ms, s, min, h, d
// and their long names); a bare number is milliseconds. It returns the
// duration, or an error saying which forms are accepted.
func ParseDuration(v string) (time.Duration, error) {
	s := strings.TrimSpace(v)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	unit := strings.ToLower(strings.TrimSpace(s[i:]))
	mult := map[string]time.Duration{
		"": time.Millisecond, "ms": time.Millisecond, "milli": time.Millisecond, "millis": time.Millisecond, "millisecond": time.Millisecond, "milliseconds": time.Millisecond,
		"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
		"min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute, "m": time.Minute,
		"h": time.Hour, "hour": time.Hour, "hours": time.Hour, "d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	}[unit]
	if err != nil || mult == 0 || n < 0 || n*float64(mult) > float64(1<<62) {
		return 0, fmt.Errorf("'%s' is not a duration; write a number and a unit, e.g. '10 s', '500 ms' or '1 min'", v)
	}
	return time.Duration(n * float64(mult)), nil
}

// MaxFuture returns the stream's 'watermark.max-future' in milliseconds, and
// whether it is set (a value ValidateOptions accepted; an invalid one reads as
// unset).
func (s *Stream) MaxFuture() (int64, bool) {
	c := s.Shared()
	return c.MaxFutureMillis, c.HasMaxFuture
}
