package session

import (
	"strings"

	"streamql/catalog"
	"streamql/parser"
)

// checkMaxFuture refuses 'watermark.max-future' on a stream without WATERMARK
// FOR (SPEC 4, "Finding out why": the option compares a row's event time with
// the stream's watermark), positioned at the option's value.
func checkMaxFuture(st *parser.CreateStream, x *catalog.Stream) error {
	if !x.Shared().HasMaxFuture || x.Watermark != nil {
		return nil
	}
	at := st.WithPos
	for _, o := range st.Options {
		if strings.EqualFold(o.Key, catalog.MaxFutureOption) {
			at = o.ValuePos
		}
	}
	return parser.Errorf(at, "option '%s' needs an event time: add WATERMARK FOR <column> AS <column> - INTERVAL '...' to stream %s, or remove the option", catalog.MaxFutureOption, x.Name)
}
