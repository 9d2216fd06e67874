// Package tune measures how late the rows of a stream arrive, for `streamql
// tune` (SPEC 4, "Finding out why"): the distribution of (running max event
// time − event time), the share of rows late for several watermark delays
// (SPEC 2.3) and for each window query (SPEC 2.4), the smallest delay that
// keeps late rows under a target, rows whose time jumps far ahead, and
// partitions that stop early. It works on event times already read; the CLI
// reads them.
package tune

import (
	"fmt"
	"sort"
	"strconv"
)

// Row is one row of a stream: its event time T (epoch ms), its position in the
// source (connector Pos, rendered by Input.Position) and its partition (0 for
// a source without partitions).
type Row struct {
	T    int64
	Pos  int64
	Part int32
}

// Window is a window query over the stream (SPEC 2.4), sizes in ms: Func is
// TUMBLE, HOP, CUMULATE or SESSION; TUMBLE has Slide = Size, CUMULATE's step
// is Slide. Name says which query it is (its text, or its line).
type Window struct {
	Name                     string
	Func                     string
	Size, Slide, Offset, Gap int64
}

// Input is what Analyze reads: the stream and its event-time column, the
// rows in arrival order, the window queries that read the stream, and how a
// position prints (path:line, topic:partition:offset).
type Input struct {
	Stream, Column string
	Rows           []Row
	Windows        []Window
	Position       func(pos int64) string
	// Truncated says the rows are the first ones of an unbounded source.
	Truncated bool
	// RowLate says a query reads the rows' own lateness (SPEC 2.3): one that
	// reads CURRENT_WATERMARK, or an event-time join (SPEC 2.2, 2.7), whose
	// late rows go to its late outputs. The suggestion then counts rows late
	// for SPEC 2.3; otherwise, when the stream has window queries, the rows
	// late for them (a row below the watermark whose window has not fired
	// yet still counts in it, SPEC 2.4).
	RowLate bool
	// ScriptMs is the delay of the script's own WATERMARK clause (ms, for
	// the form ts - INTERVAL), -1 when it has none or another form.
	ScriptMs int64
}

// Options are the command's settings: Target is the late share to stay under
// (0.001 for 0.1 %), FarAhead the jump (ms) above the rows before that marks
// a row as far ahead (and keeps it out of the running max, as
// 'watermark.max-future' would).
type Options struct {
	Target   float64
	FarAhead int64
}

// Delays are the watermark delays reported (ms): 0, 1 s, 5 s, 30 s, 1 min, 5 min.
var Delays = []int64{0, 1000, 5000, 30000, 60000, 300000}

// Bucket is one bar of the lateness histogram: rows whose lateness (ms) is at
// most UpTo and more than the bucket before; UpTo -1 is the last, unbounded one.
type Bucket struct {
	Label string `json:"label"`
	UpTo  int64  `json:"up_to_ms"`
	Rows  int    `json:"rows"`
}

// WindowLate is the rows late for one window query under a delay.
type WindowLate struct {
	Window string  `json:"window"`
	Late   int     `json:"late_rows"`
	Share  float64 `json:"late_share"`
}

// DelayRow is what one watermark delay gives: rows late for SPEC 2.3 (a row
// below the watermark before it), and for each window query; AddsMs is how
// much later, in event time, each window's result comes than with delay 0.
type DelayRow struct {
	DelayMs int64        `json:"delay_ms"`
	Late    int          `json:"late_rows"`
	Share   float64      `json:"late_share"`
	Windows []WindowLate `json:"windows,omitempty"`
	AddsMs  int64        `json:"adds_latency_ms"`
}

// Jump is a row whose event time is far ahead of the rows before it.
type Jump struct {
	Position string `json:"position"`
	AheadMs  int64  `json:"ahead_ms"`
}

// Idle is a partition whose rows stop while the others go on: from its last
// row, it holds the stream's watermark BehindMs below the others' latest time.
type Idle struct {
	Partition int32  `json:"partition"`
	Last      string `json:"last_position"`
	BehindMs  int64  `json:"behind_ms"`
}

// Report is Analyze's result for one stream.
type Report struct {
	Stream    string     `json:"stream"`
	Column    string     `json:"column"`
	Rows      int        `json:"rows"`
	Truncated bool       `json:"first_rows_only"`
	Histogram []Bucket   `json:"lateness"`
	Delays    []DelayRow `json:"delays"`
	// SuggestedMs is the smallest delay (a round value) with at most Target
	// of the rows late (For says late for what: "SPEC 2.3", or "windows"
	// when only window queries read the stream's lateness: the most rows
	// late for any one of them); Watermark the clause that writes it;
	// SuggestedLate the rows late with it (as For counts them).
	SuggestedMs   int64   `json:"suggested_delay_ms"`
	For           string  `json:"suggested_for"`
	Watermark     string  `json:"watermark"`
	SuggestedLate int     `json:"suggested_late_rows"`
	Target        float64 `json:"target_share"`
	FarAhead      []Jump  `json:"far_ahead"`
	// Script is what the script's own delay gives (Input.ScriptMs), nil
	// when unknown: how its rows compare with the suggestion's.
	Script *DelayRow `json:"script_delay,omitempty"`
	// ScriptMeetsTarget says whether the script's own delay (Script) leaves
	// at most Target of the rows late, counted as For counts them: a script
	// that keeps rows late on purpose (to show its late output) does not,
	// and the suggestion, which answers the target (SPEC 4), is then larger
	// than the script's delay. False when Script is nil.
	ScriptMeetsTarget bool `json:"script_meets_target"`
	// MaxFuture is the 'watermark.max-future' option suggested when rows jump
	// far ahead ("" when none does).
	MaxFuture string `json:"max_future,omitempty"`
	Idle      []Idle `json:"idle_partitions"`
}

// round are the delays a suggestion rounds up to (ms).
var round = []int64{0, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000, 1800000, 3600000, 7200000, 21600000, 43200000, 86400000}

// Analyze measures in (see the package doc) with opts.
func Analyze(in Input, opts Options) *Report {
	r := &Report{Stream: in.Stream, Column: in.Column, Rows: len(in.Rows), Truncated: in.Truncated, Target: opts.Target, FarAhead: []Jump{}, Idle: []Idle{}}
	// lag[i]: running max of the rows before i minus t_i (-1 for the first
	// row and the far-ahead ones, which are neither late nor counted)
	lag := make([]int64, len(in.Rows))
	maxPrev, have := int64(0), false
	for i, x := range in.Rows {
		switch {
		case !have:
			lag[i], maxPrev, have = -1, x.T, true
			continue
		case opts.FarAhead > 0 && x.T-maxPrev > opts.FarAhead:
			r.FarAhead = append(r.FarAhead, Jump{Position: in.Position(x.Pos), AheadMs: x.T - maxPrev})
			lag[i] = -1
			continue
		}
		lag[i] = maxPrev - x.T
		maxPrev = max(maxPrev, x.T)
	}
	if len(r.FarAhead) > 0 {
		r.MaxFuture = "'watermark.max-future' = '" + durationText(opts.FarAhead) + "'"
	}
	// the histogram (lateness 0 for a row at or above the running max, the
	// first row and the far-ahead ones)
	prev := int64(0)
	for k, up := range append(append([]int64{}, Delays...), -1) {
		b := Bucket{UpTo: up, Label: "0"}
		switch {
		case up > 0:
			b.Label = "≤ " + durationText(up)
		case up < 0:
			b.Label = "> " + durationText(prev)
		}
		for _, l := range lag {
			v := max(l, 0)
			if k == 0 && v == 0 || k > 0 && v > prev && (up < 0 || v <= up) {
				b.Rows++
			}
		}
		r.Histogram = append(r.Histogram, b)
		prev = up
	}
	counted := 0
	for _, l := range lag {
		if l >= 0 {
			counted++
		}
	}
	share := func(n int) float64 {
		if len(in.Rows) == 0 {
			return 0
		}
		return float64(n) / float64(len(in.Rows))
	}
	for _, d := range Delays {
		row := DelayRow{DelayMs: d, Late: lateRows(lag, d), AddsMs: d}
		row.Share = share(row.Late)
		for _, w := range in.Windows {
			n := windowLate(in.Rows, lag, w, d)
			row.Windows = append(row.Windows, WindowLate{Window: w.Name, Late: n, Share: share(n)})
		}
		r.Delays = append(r.Delays, row)
	}
	if d := in.ScriptMs; d >= 0 {
		row := DelayRow{DelayMs: d, Late: lateRows(lag, d), AddsMs: d}
		row.Share = share(row.Late)
		for _, w := range in.Windows {
			n := windowLate(in.Rows, lag, w, d)
			row.Windows = append(row.Windows, WindowLate{Window: w.Name, Late: n, Share: share(n)})
		}
		r.Script = &row
	}
	// the smallest delay with at most Target of the rows late: the (k+1)-th
	// largest lag, rounded up
	allowed := int(opts.Target * float64(len(in.Rows)))
	if in.RowLate || len(in.Windows) == 0 {
		lags := make([]int64, 0, counted)
		for _, l := range lag {
			if l > 0 {
				lags = append(lags, l)
			}
		}
		sort.Slice(lags, func(i, j int) bool { return lags[i] > lags[j] })
		need := int64(0)
		if allowed < len(lags) {
			need = lags[allowed]
		}
		r.SuggestedMs = round[len(round)-1]
		for _, v := range round {
			if v >= need {
				r.SuggestedMs = v
				break
			}
		}
		r.For, r.SuggestedLate = "SPEC 2.3", lateRows(lag, r.SuggestedMs)
	} else {
		// only window queries care: the smallest round delay with at most
		// Target of the rows late for each (rows late for a window fall as
		// the delay grows)
		worst := func(d int64) int {
			n := 0
			for _, w := range in.Windows {
				n = max(n, windowLate(in.Rows, lag, w, d))
			}
			return n
		}
		r.For, r.SuggestedMs = "windows", round[len(round)-1]
		for _, v := range round {
			if worst(v) <= allowed {
				r.SuggestedMs = v
				break
			}
		}
		r.SuggestedLate = worst(r.SuggestedMs)
	}
	if d := r.Script; d != nil {
		late := d.Late
		if r.For == "windows" {
			late = 0
			for _, w := range d.Windows {
				late = max(late, w.Late)
			}
		}
		r.ScriptMeetsTarget = late <= allowed
	}
	r.Watermark = fmt.Sprintf("WATERMARK FOR %s AS %s - INTERVAL %s", in.Column, in.Column, intervalText(r.SuggestedMs))
	r.Idle = idle(in, r.SuggestedMs)
	return r
}

// lateRows counts the rows late for SPEC 2.3 with delay d: below the
// watermark before them, max(t before) − d.
func lateRows(lag []int64, d int64) int {
	n := 0
	for _, l := range lag {
		if l > d {
			n++
		}
	}
	return n
}

// windowLate counts the rows late for window w with delay d (SPEC 2.4: every
// window the row belongs to ends at or below the watermark before it; for
// SESSION, t + gap at or below it).
func windowLate(rows []Row, lag []int64, w Window, d int64) int {
	n := 0
	for i, x := range rows {
		if lag[i] < 0 {
			continue
		}
		wm := x.T + lag[i] - d // the watermark before the row
		var end int64
		switch w.Func {
		case "SESSION":
			end = x.T + w.Gap
		case "HOP":
			end = floorTo(x.T-w.Offset, w.Slide) + w.Offset + w.Size
		default: // TUMBLE, CUMULATE: the last window holding t ends at its start + size
			end = floorTo(x.T-w.Offset, w.Size) + w.Offset + w.Size
		}
		if end <= wm {
			n++
		}
	}
	return n
}

func floorTo(v, size int64) int64 {
	if size <= 0 {
		return v
	}
	q := v / size
	if v%size != 0 && v < 0 {
		q--
	}
	return q * size
}

// idle finds the partitions whose last row is more than max(delay, 1 min)
// below the latest event time of the others: from there on they hold the
// stream's watermark back (SPEC 2.5) until 'scan.watermark.idle-timeout'.
func idle(in Input, delay int64) []Idle {
	type part struct {
		last   int64
		lastAt int64
		seen   bool
	}
	parts := map[int32]*part{}
	top := int64(0)
	for i, x := range in.Rows {
		p := parts[x.Part]
		if p == nil {
			p = &part{}
			parts[x.Part] = p
		}
		if !p.seen || x.T > p.last {
			p.last = x.T
		}
		p.lastAt, p.seen = x.Pos, true
		if i == 0 || x.T > top {
			top = x.T
		}
	}
	out := []Idle{}
	if len(parts) < 2 {
		return out
	}
	limit := max(delay, 60000)
	for id, p := range parts {
		if top-p.last > limit {
			out = append(out, Idle{Partition: id, Last: in.Position(p.lastAt), BehindMs: top - p.last})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out
}

// durationText writes ms as the options write durations: '0', '500 ms',
// '5 s', '1 min', '2 h', '3 d'; a value that is not a whole number of its
// largest unit prints in it with one decimal ('1.9 s', '365.0 d').
func durationText(ms int64) string {
	units := []struct {
		ms   int64
		name string
	}{{86400000, " d"}, {3600000, " h"}, {60000, " min"}, {1000, " s"}}
	if ms == 0 {
		return "0"
	}
	for _, u := range units {
		if ms >= u.ms {
			if ms%u.ms == 0 {
				return strconv.FormatInt(ms/u.ms, 10) + u.name
			}
			return strconv.FormatFloat(float64(ms)/float64(u.ms), 'f', 1, 64) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + " ms"
}

// DurationText is durationText for the CLI's tables.
func DurationText(ms int64) string { return durationText(ms) }

// intervalText writes ms as a SQL INTERVAL: '5' SECOND, '1' MINUTE, '0.5' SECOND.
func intervalText(ms int64) string {
	switch {
	case ms >= 3600000 && ms%3600000 == 0:
		return fmt.Sprintf("'%d' HOUR", ms/3600000)
	case ms >= 60000 && ms%60000 == 0:
		return fmt.Sprintf("'%d' MINUTE", ms/60000)
	case ms%1000 == 0:
		return fmt.Sprintf("'%d' SECOND", ms/1000)
	}
	return "'" + strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "' SECOND"
}
