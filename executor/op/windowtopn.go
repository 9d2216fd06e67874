package op

import (
	"context"
	"fmt"
	"math"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// WindowTopNSpec describes a window Top-N or window deduplication (SPEC 2.9:
// ROW_NUMBER() OVER (PARTITION BY window_start, window_end, … ORDER BY …)
// over a window TVF or a window aggregate, rn <= N).
type WindowTopNSpec struct {
	Types      []catalog.Type
	Start, End int   // the window_start and window_end columns
	Keys       []int // the other PARTITION BY columns
	Order      []SortKey
	N          int64
	Func       RankFunc
	RankNumber bool // add the rank as a last BIGINT column
	// Stamp is the column of each row's CURRENT_WATERMARK: a row whose
	// window_end is at or below it is late (its window has fired, SPEC
	// 2.4). -1: the operator's own watermark decides (the input is a window
	// aggregate's rows, which come as their window fires, before the
	// watermark that fired it: never late).
	Stamp int
}

// WindowTopN is the window Top-N (SPEC 2.9), append-only: it keeps each
// window's partitions' top rows and emits them, ranked, when the watermark
// reaches the window's end (SPEC 2.4's firing), windows in (window_end,
// window_start) order, partitions in the order of their first rows, each
// partition's rows by rank. A window's state is dropped when it fires.
type WindowTopN struct {
	spec  WindowTopNSpec
	out   Emitter
	acct  Account
	rk    ranking
	wins  map[[2]int64]*topWindow
	key   []byte
	ob    *outBatch
	late  *vector.Batch
	ranks []int64
	wm    int64
}

// topWindow is one open window: its rows and its partitions.
type topWindow struct {
	start, end int64
	rows       *Rows
	parts      map[string]*winPart
	order      []*winPart
	bytes      int64
}

// winPart is one partition of a window: its rows by rank.
type winPart struct{ list []int32 }

// NewWindowTopN returns a window Top-N that emits to out and charges acct.
func NewWindowTopN(spec WindowTopNSpec, out Emitter, acct Account) (*WindowTopN, error) {
	if len(spec.Order) == 0 || spec.N < 1 {
		return nil, fmt.Errorf("window top-n: needs ORDER BY and N >= 1")
	}
	if err := checkCols(spec.Types, append([]int{spec.Start, spec.End}, spec.Keys...), spec.Order); err != nil {
		return nil, err
	}
	if acct == nil {
		acct = noAccount{}
	}
	w := &WindowTopN{spec: spec, out: out, acct: acct, wins: map[[2]int64]*topWindow{}, wm: math.MinInt64,
		rk: ranking{ord: order{types: spec.Types, keys: spec.Order}, n: spec.N, fn: spec.Func}, late: vector.NewBatch(spec.Types)}
	types := spec.Types
	if spec.RankNumber {
		types = append(slices.Clip(types), catalog.BigInt)
	}
	w.ob = newOutBatch(types, TimedOut, false)
	return w, nil
}

// Push implements Operator.
func (w *WindowTopN) Push(ctx context.Context, _ int, b *vector.Batch) error {
	sv, ev := b.Cols[w.spec.Start], b.Cols[w.spec.End]
	for i := 0; i < b.N; i++ {
		late := ev.Null[i] || sv.Null[i]
		switch {
		case late:
		case w.spec.Stamp >= 0:
			late = !b.Cols[w.spec.Stamp].Null[i] && ev.I[i] <= b.Cols[w.spec.Stamp].I[i]
		default:
			late = ev.I[i] <= w.wm // (a window aggregate's rows come as their window fires: before the watermark that fired it)
		}
		if late {
			if err := sendLate(ctx, w.out, w.late, b, i); err != nil {
				return err
			}
			continue
		}
		id := [2]int64{sv.I[i], ev.I[i]}
		win := w.wins[id]
		if win == nil {
			win = &topWindow{start: id[0], end: id[1], rows: NewRows(w.spec.Types), parts: map[string]*winPart{}}
			w.wins[id] = win
		}
		w.key = partKey(w.key[:0], w.spec.Types, w.spec.Keys, b, i)
		p := win.parts[string(w.key)]
		if p == nil {
			p = &winPart{}
			win.parts[string(w.key)] = p
			win.order = append(win.order, p)
			if err := w.grow(win, int64(len(w.key))+64); err != nil {
				return err
			}
		}
		pos, ok := w.rk.place(p.list, win.rows, b, i)
		if !ok {
			continue
		}
		k, n := win.rows.Add(b, i)
		if err := w.grow(win, n+4); err != nil {
			return err
		}
		p.list = slices.Insert(p.list, pos, int32(k))
		w.ranks = w.rk.ranks(p.list, win.rows, w.ranks)
		p.list = p.list[:w.rk.cut(w.ranks)] // (the rows cut stay until the window fires)
	}
	return flushLate(ctx, w.out, w.late)
}

func (w *WindowTopN) grow(win *topWindow, n int64) error {
	win.bytes += n
	return w.acct.Grow(n)
}

// Watermark implements Operator: the windows whose end the watermark reached
// fire.
func (w *WindowTopN) Watermark(ctx context.Context, _ int, wm int64) error {
	if wm > w.wm {
		w.wm = wm
	}
	var fire []*topWindow
	for _, win := range w.wins {
		if win.end <= w.wm {
			fire = append(fire, win)
		}
	}
	slices.SortFunc(fire, func(a, b *topWindow) int {
		if a.end != b.end {
			return cmpInt(a.end, b.end)
		}
		return cmpInt(a.start, b.start)
	})
	for _, win := range fire {
		for _, p := range win.order {
			w.ranks = w.rk.ranks(p.list, win.rows, w.ranks)
			rankCol := -1
			if w.spec.RankNumber {
				rankCol = len(w.spec.Types)
			}
			for j, k := range p.list {
				w.ob.addRanked(win.rows, int(k), vector.Insert, rankCol, w.ranks[j])
				if err := w.ob.full(ctx, w.out); err != nil {
					return err
				}
			}
		}
		delete(w.wins, [2]int64{win.start, win.end})
		_ = w.acct.Grow(-win.bytes)
	}
	if err := w.ob.flush(ctx, w.out); err != nil {
		return err
	}
	return w.out.EmitWatermark(ctx, wm)
}

// Finish implements Operator: every open window fires (SPEC 2.3: the
// watermark becomes +∞).
func (w *WindowTopN) Finish(ctx context.Context, _ int) error {
	return w.Watermark(ctx, 0, math.MaxInt64)
}
