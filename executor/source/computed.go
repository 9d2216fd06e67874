package source

import (
	"fmt"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/expr"
	"streamql/executor/format"
	"streamql/executor/records"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// computedSource is the source of a stream with computed columns (SPEC 1,
// Flink's name AS expr) or Kafka METADATA columns: its connector reads the
// other columns (the stream's Physical form) into their places in the batch,
// it fills each METADATA column from its row's record (the connector's
// connector.MetaSource, which the stream declares: catalog.CapRecordMetadata),
// and computes each computed column over the physical ones. A row whose computed event time is
// NULL is malformed (SPEC 2.3), with its input columns as raw text. The
// planner runs such a job sequentially (ChooseStrategy), so every row passes
// here.
type computedSource struct {
	connector.Source
	st      *catalog.Stream
	phys    []int            // the batch column of each physical column
	comp    []int            // the batch column of each computed column
	kernels []*expr.Kernel   // per computed column
	inner   vector.Batch     // the connector's view of the batch
	prefix  bool             // the physical columns come first (Line stays valid)
	sel     []int32          // 0..N-1
	physCol []catalog.Column // the physical columns (raw text of a malformed row)
	raw     []byte
	keep    []int32
	meta    []int                // the batch column of each METADATA column
	metaSrc connector.MetaSource // the connector's source, when meta is not empty
	hdr     []byte               // a row's headers as JSON
}

// NewComputed returns the source of stream st, which has computed columns
// (SPEC 1) or METADATA columns, over src, its connector's source opened on
// st.Physical() (see computedSource). It fails when st's connector
// declares record metadata its source lacks (connector.BindSource). The
// computed columns' expressions are compiled in the job's expression
// context exprs, which records their failed calls (nil: dropped).
func NewComputed(st *catalog.Stream, src connector.Source, exprs *expr.Context) (connector.Source, error) {
	return newComputedSource(st, src, exprs)
}

func newComputedSource(st *catalog.Stream, src connector.Source, exprs *expr.Context) (*computedSource, error) {
	c := &computedSource{Source: src, st: st, prefix: true, sel: make([]int32, vector.Cap), keep: make([]int32, 0, vector.Cap)}
	for i, col := range st.Columns {
		if col.Metadata != "" {
			c.meta = append(c.meta, i)
			continue
		}
		if col.Computed == nil {
			if i != len(c.phys) {
				c.prefix = false
			}
			c.phys = append(c.phys, i)
			c.physCol = append(c.physCol, col)
			continue
		}
		c.comp = append(c.comp, i)
		c.kernels = append(c.kernels, exprs.Compile(col.Computed.Def.(*plan.Expr)))
	}
	for i := range c.sel {
		c.sel[i] = int32(i)
	}
	if len(c.meta) > 0 {
		// the stream's connector declares record metadata (the session
		// refuses METADATA columns otherwise); a source without it leaves
		// them NULL
		h, err := connector.BindSource(st, src)
		if err != nil {
			return nil, err
		}
		if c.metaSrc = h.Meta; c.metaSrc != nil {
			c.metaSrc.WantMeta()
		}
	}
	return c, nil
}

// fillMeta fills the METADATA columns of rows 0..n-1 (SPEC 1): timestamp
// (TIMESTAMP or BIGINT epoch ms), partition, offset, key (its bytes as text,
// NULL when the record has none) and headers (a JSON object of each header's
// value as text, the last of a repeated name winning).
func (c *computedSource) fillMeta(b *vector.Batch) {
	for _, i := range c.meta {
		v := b.Cols[i]
		v.ResetArena()
		if v.Text != nil {
			clear(v.Text[:b.N])
		}
		key := c.st.Columns[i].Metadata
		for r := 0; r < b.N; r++ {
			if c.metaSrc == nil {
				v.Null[r] = true
				continue
			}
			m := c.metaSrc.Meta(r)
			v.Null[r] = false
			switch key {
			case "timestamp":
				v.I[r] = m.Timestamp
			case "partition":
				v.I[r] = int64(m.Partition)
			case "offset":
				v.I[r] = m.Offset
			case "key":
				if m.Key == nil {
					v.Null[r] = true
					continue
				}
				v.SetString(r, m.Key)
			case "headers":
				c.hdr = append(c.hdr[:0], '{')
				seen := map[string]bool{}
				for h := len(m.Headers) - 1; h >= 0; h-- { // the last of a name wins
					if seen[m.Headers[h].Key] {
						continue
					}
					seen[m.Headers[h].Key] = true
					if len(c.hdr) > 1 {
						c.hdr = append(c.hdr, ',')
					}
					c.hdr = format.AppendJSONString(c.hdr, []byte(m.Headers[h].Key))
					c.hdr = append(c.hdr, ':')
					c.hdr = format.AppendJSONString(c.hdr, m.Headers[h].Value)
				}
				c.hdr = append(c.hdr, '}')
				v.SetString(r, c.hdr)
			}
		}
	}
}

// Unread passes on to the connector's source when it takes rows back
// (connector.Unreader: stdin).
func (c *computedSource) Unread(rows int) {
	if u, ok := c.Source.(connector.Unreader); ok {
		u.Unread(rows)
	}
}

// UnreadAfter passes on like Unread.
func (c *computedSource) UnreadAfter(rows, bad int) {
	if u, ok := c.Source.(connector.Unreader); ok {
		u.UnreadAfter(rows, bad)
	}
}

// Next reads the physical columns into b, then computes the others.
func (c *computedSource) Next(b *vector.Batch, bad *[]records.BadRow) error {
	cols := b.Cols
	c.inner = *b
	c.inner.Cols = c.inner.Cols[:0:0]
	if cap(c.inner.Cols) < len(c.phys) {
		c.inner.Cols = make([]*vector.Vec, 0, len(c.phys))
	}
	for _, i := range c.phys {
		c.inner.Cols = append(c.inner.Cols, cols[i])
	}
	before := len(*bad)
	err := c.Source.Next(&c.inner, bad)
	inner := c.inner.Cols
	*b = c.inner
	b.Cols = cols
	c.inner.Cols = inner
	if !c.prefix {
		b.Line, b.LineCols = nil, 0 // (a row's text is no longer a prefix of its columns)
	}
	if b.N == 0 {
		return err
	}
	if len(c.meta) > 0 {
		c.fillMeta(b)
	}
	sel := c.sel[:b.N]
	for k, i := range c.comp {
		v := c.kernels[k].Eval(&c.inner, sel) // (compiled over the physical columns)
		copyVec(cols[i], v, b.N)
	}
	if et := c.st.EventTime; et >= 0 && (c.st.Columns[et].Computed != nil || c.metaSrc == nil && c.st.Columns[et].Metadata != "") {
		c.dropNullTime(b, bad, before)
	}
	return err
}

// dropNullTime makes each row whose computed event time is NULL malformed
// (SPEC 2.3), keeping the order of good and bad rows (BadRow.Index).
func (c *computedSource) dropNullTime(b *vector.Batch, bad *[]records.BadRow, before int) {
	tv := b.Cols[c.st.EventTime]
	nulls := 0
	for i := 0; i < b.N; i++ {
		if tv.Null[i] {
			nulls++
		}
	}
	if nulls == 0 {
		return
	}
	keep := c.keep[:0]
	var drops []records.BadRow
	var dropAt []int
	for i := 0; i < b.N; i++ {
		if !tv.Null[i] {
			keep = append(keep, int32(i))
			continue
		}
		c.raw = format.AppendCSVRow(c.raw[:0], c.physCol, c.inner.Cols, i, ',')
		col := c.st.Columns[c.st.EventTime]
		what := "METADATA FROM '" + col.Metadata + "'"
		if col.Computed != nil {
			what = col.Computed.Text
		}
		dropAt = append(dropAt, i)
		drops = append(drops, records.BadRow{Index: len(keep), Line: b.Pos[i], Raw: append([]byte(nil), c.raw...),
			Reason: fmt.Sprintf("column %s: the event time (%s) is NULL", col.Name, what)})
	}
	DropRows(b, bad, before, keep, drops, dropAt, nil)
	c.keep = keep
}

// copyVec copies rows 0..n-1 of src into dst (same type); text values keep
// pointing where src's do (valid until the next batch, like a decoder's).
func copyVec(dst, src *vector.Vec, n int) {
	copy(dst.Null[:n], src.Null[:n])
	switch {
	case dst.I != nil && src.I != nil:
		copy(dst.I[:n], src.I[:n])
	case dst.F != nil && src.F != nil:
		copy(dst.F[:n], src.F[:n])
	case dst.B != nil && src.B != nil:
		copy(dst.B[:n], src.B[:n])
	case dst.S != nil && src.S != nil:
		copy(dst.S[:n], src.S[:n])
	}
	if dst.Text != nil {
		clear(dst.Text[:n])
	}
}
