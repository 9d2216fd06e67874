package executor

import (
	"slices"

	"streamql/executor/vector"
)

// JoinInputAnalysis is what one input of the job's join of two streams
// (plan.BothJoin, SPEC 2.7) did, for EXPLAIN ANALYZE (SPEC 4, "Finding out
// why"): the rows pushed into the join (In, malformed and refused rows
// excluded), those that found a partner and those that did not (In - late -
// partnered: an outer side's are the padded rows, an inner side's are
// dropped), the rows 'watermark.max-future' refused, the input's late rows
// with how late they were (Late: by this input's own watermark, which is
// the one that makes a row late for the join), its final watermark, and
// the rows its pushed-down filter took out before the join (Filtered:
// plan.JoinInput.Filter; not in In).
type JoinInputAnalysis struct {
	// Stream is the input's stream; Name the name the query reads it by (its
	// alias, as EXPLAIN names the input: "late rows of s1"), which tells the
	// two inputs of a self-join apart
	Stream, Name               string
	In, Partnered, Unpartnered int64
	// Held is the rows still held when the job ended (a LIMIT ended it
	// before the other input's watermark passed them): never joined, so not
	// counted as rows without a partner (op.JoinCounts.Held)
	Held     int64
	Refused  int64
	Filtered int64
	// Malformed is the malformed rows (and those 'watermark.max-future'
	// refused) this input read: a self-join's two reads each count their own
	Malformed    int64
	Late         LateAnalysis
	Watermark    LiveWatermark
	HasWatermark bool
	lateness     []int64
}

// BothJoinAnalysis is what the job's join of two streams did: its inputs,
// left then right.
type BothJoinAnalysis struct {
	Inputs [2]JoinInputAnalysis
}

// setBoth records js as the job's join of two streams and makes it measure
// its late rows' lateness (only under EXPLAIN ANALYZE: the measures grow
// with the late rows); nil-safe.
func (a *Analysis) setBoth(js *joinSource) {
	if a == nil || js == nil {
		return
	}
	a.both = js
	js.an = &BothJoinAnalysis{}
	for s, in := range js.both.Inputs {
		js.an.Inputs[s].Stream, js.an.Inputs[s].Name = in.Stream.Name, in.Name
		if in.Name == "" {
			js.an.Inputs[s].Name = in.Stream.Name
		}
		js.an.Inputs[s].Late = LateAnalysis{Output: js.both.LateOutput[s], Stream: in.Stream.Name}
	}
}

// measureLate records the lateness of the late rows b of input s: the
// watermark each was stamped with (CURRENT_WATERMARK) minus its event time;
// a row with a NULL time or no watermark yet is counted without one.
func (x *BothJoinAnalysis) measureLate(js *joinSource, s int, b *vector.Batch) {
	in := &js.both.Inputs[s]
	ia := &x.Inputs[s]
	ia.Late.Rows += int64(b.N)
	tc, wc := in.TimeCol(), in.WatermarkCol
	if tc < 0 || wc < 0 {
		return
	}
	t, w := b.Cols[tc], b.Cols[wc]
	for i := range b.N {
		if !t.Null[i] && !w.Null[i] {
			ia.lateness = append(ia.lateness, w.I[i]-t.I[i])
		}
	}
}

// bothResults fills a.Both from the join source once the job has ended, and
// adds the late rows it sent to the sink itself to their outputs' counts.
func (a *Analysis) bothResults() {
	js := a.both
	if js == nil || js.an == nil {
		return
	}
	var c struct{ In, Late, Partnered, Held [2]int64 }
	if js.j != nil {
		k := js.j.Counts()
		c.In, c.Late, c.Partnered, c.Held = k.In, k.Late, k.Partnered, k.Held
	}
	x := js.an
	for s := range 2 {
		ia := &x.Inputs[s]
		ia.In, ia.Partnered = c.In[s], c.Partnered[s]
		if ji := js.in[s]; ji != nil {
			ia.Filtered, ia.Malformed = ji.dropped, ji.malformed
		}
		ia.Held = c.Held[s]
		ia.Unpartnered = c.In[s] - c.Late[s] - c.Partnered[s] - c.Held[s]
		if n := len(ia.lateness); n > 0 {
			slices.Sort(ia.lateness)
			ia.Late.MaxMs, ia.Late.MedianMs = ia.lateness[n-1], ia.lateness[(n-1)/2]
		}
		ia.lateness = nil
		if ji := js.in[s]; ji != nil && ji.wmk != nil {
			in := &js.both.Inputs[s]
			ia.HasWatermark = true
			ia.Watermark = finalWatermark(in.Stream.Name, in.Types[in.TimeCol()], ji.wmk.wm, ji.wmk.set)
			if m := ji.wmk.max; m != nil {
				ia.Refused = m.refused
			}
		}
		if k := ia.Late.Output; k >= 0 && k < len(a.Outputs) {
			a.Outputs[k] += ia.Late.Rows
		}
	}
	a.Both = x
}
