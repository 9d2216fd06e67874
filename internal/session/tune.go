package session

import (
	"context"
	"errors"
	"io"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/internal/tune"
)

// ReadEventTimes reads the event times of st for `streamql tune` (SPEC 4) (its WATERMARK FOR column, or the
// time column of its window queries), all of a bounded stream, the first
// limit rows of an unbounded one; nil when the stream has no usable column.
// The source stays open (its Position renders the positions) until closeSrc.
func (s *Session) ReadEventTimes(ctx context.Context, st *catalog.Stream, limit int) (in *tune.Input, closeSrc func(), err error) {
	col := st.EventTime
	if col < 0 {
		for j, c := range st.Columns {
			if c.Type == catalog.BigInt || c.Type == catalog.Timestamp {
				col = j
				break
			}
		}
	}
	if col < 0 {
		return nil, nil, nil
	}
	types := st.Types()
	if st.Watermark != nil {
		types = append(types, st.Columns[col].Type) // (the watermark column of a job's batch)
	}
	src, h, err := s.Env.Open(ctx, st) // h: its partitions, when st declares them
	if err != nil {
		return nil, nil, err
	}
	bounded := st.Connector.Bounded(st.Options)
	ps := h.Partitions
	in = &tune.Input{Stream: st.Name, Column: st.Columns[col].Name}
	b := vector.NewBatch(types)
	var bad []connector.BadRow
	for bounded || len(in.Rows) < limit {
		bad = bad[:0]
		err := src.Next(b, &bad)
		if err == io.EOF {
			break
		}
		if errors.Is(err, connector.ErrWaiting) {
			continue
		}
		if err != nil {
			src.Close()
			return nil, nil, err
		}
		c := b.Cols[col]
		for i := 0; i < b.N && (bounded || len(in.Rows) < limit); i++ {
			if c.Null[i] {
				continue
			}
			r := tune.Row{T: c.I[i], Pos: b.Pos[i]}
			if ps != nil {
				r.Part = ps.Partition(b.Pos[i])
			}
			in.Rows = append(in.Rows, r)
		}
	}
	in.Truncated = !bounded
	in.Position = src.Position
	return in, func() { src.Close() }, nil
}
