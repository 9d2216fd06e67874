package plan

import "streamql/catalog"

// maxFutureText is what the AssignWatermark line of EXPLAIN adds for a stream
// with 'watermark.max-future' (SPEC 4, "Finding out why"): the option and
// where the rows it refuses go; "" without it.
func maxFutureText(st *catalog.Stream) string {
	c := st.Shared()
	if !c.HasMaxFuture {
		return ""
	}
	return ", max-future " + c.MaxFuture
}
