package plan

import "streamql/catalog"

// maxFutureText is what the AssignWatermark line of EXPLAIN adds for a stream
// with 'watermark.max-future' (SPEC 4, "Finding out why"): the option and
// where the rows it refuses go; "" without it.
func maxFutureText(st *catalog.Stream) string {
	v, ok := st.Options[catalog.MaxFutureOption]
	if !ok {
		return ""
	}
	return ", max-future " + v
}
