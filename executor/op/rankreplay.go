package op

import "math"

// This file is the event-time operators' side of a Kafka replay (SPEC 2.5;
// the executor's rankreplay.go): Dedup, Over and TimeSort drop the state of
// a partition (revoked, or read again from its committed offset), and Over
// and TimeSort name the rows they hold, whose oldest a replay reads again
// from. Every method walks the whole state: a checkpoint's or a rebalance's
// cost, not the hot path's.

// DropWhere forgets the keys whose first row's source position (Pos) drop
// is true for, with their held rows, as if they had never come; their bytes
// go back to the Account. The watermark starts again from none: the rows
// read again may lie below it (SPEC 2.5: a process's watermark may go down
// when a partition moves to it), while a row late by its own partition's
// watermark is routed before the Dedup.
func (d *Dedup) DropWhere(drop func(pos int64) bool) {
	moved := make([]int32, len(d.state))
	kept := d.state[:0]
	for i, s := range d.state {
		if !drop(s.pos) {
			moved[i] = int32(len(kept))
			d.keys[s.key] = moved[i]
			kept = append(kept, s)
			continue
		}
		moved[i] = -1
		delete(d.keys, s.key)
		if s.row >= 0 {
			d.release(s.row)
		}
		_ = d.acct.Grow(-int64(len(s.key)) - 48)
	}
	clear(d.state[len(kept):])
	d.state = kept
	held := d.held
	d.held = nil
	for _, h := range held {
		if h.part >= 0 {
			if h.part = moved[h.part]; h.part < 0 {
				_ = d.acct.Grow(-24)
				continue
			}
		}
		d.held.push(h)
	}
	d.wm = math.MinInt64
}

// DropWhere forgets the rows, held or in a partition's history, whose
// source position drop is true for; their bytes go back to the Account. The
// watermark starts again from none, as Dedup.DropWhere's.
func (o *Over) DropWhere(drop func(pos int64) bool) {
	gone := func(k int32) bool {
		if !drop(o.rows.Pos(int(k))) {
			return false
		}
		_ = o.acct.Grow(-o.rows.release(k) - 36)
		return true
	}
	for pi := range o.state {
		p := &o.state[pi]
		n := 0
		for x, k := range p.hist {
			if !gone(k) {
				p.hist[n], p.times[n] = k, p.times[x]
				n++
			}
		}
		p.hist, p.times = p.hist[:n], p.times[:n]
	}
	held := o.held
	o.held = nil
	for _, h := range held {
		if !gone(h.row) {
			o.held.push(h)
		}
	}
	o.wm = math.MinInt64
}

// HeldRows calls f with the source position of each row Over holds (to be
// handled, or in a partition's history that a later frame may hold) and its
// value in column c (null: NULL).
func (o *Over) HeldRows(c int, f func(pos, v int64, null bool)) {
	for k, alive := range o.rows.alive {
		if alive {
			f(o.rows.Pos(k), o.rows.Int(k, c), o.rows.Null(k, c))
		}
	}
}

// DropWhere forgets the held rows whose source position drop is true for;
// their bytes go back to the Account. The watermark starts again from none,
// as Dedup.DropWhere's.
func (s *TimeSort) DropWhere(drop func(pos int64) bool) {
	held := s.held
	s.held = nil
	for _, h := range held {
		if drop(s.rows.Pos(int(h.row))) {
			_ = s.acct.Grow(-s.rows.rowBytes(int(h.row)) - 24)
			s.freed++
			continue
		}
		s.held.push(h)
	}
	s.wm = math.MinInt64
}

// HeldRows calls f with the source position of each row TimeSort holds and
// its value in column c (null: NULL).
func (s *TimeSort) HeldRows(c int, f func(pos, v int64, null bool)) {
	for _, h := range s.held {
		k := int(h.row)
		f(s.rows.Pos(k), s.rows.Int(k, c), s.rows.Null(k, c))
	}
}

// DropWhere forgets, for a replay, the rows of the windows for which drop
// (given the row's source position) is true: each window's partitions
// (PARTITION BY keys) lose them from their ranked lists, and a partition
// left with none is forgotten (the topic is partitioned by the key, SPEC
// 2.5, so a key's rows are of one Kafka partition). The rows stay in the
// window's store until it fires (no output reads them: only the lists do).
// The watermark goes back to none, as Dedup's: the rows read again may lie
// below it.
func (w *WindowTopN) DropWhere(drop func(pos int64) bool) {
	for _, win := range w.wins {
		order := win.order[:0]
		for _, p := range win.order {
			kept := p.list[:0]
			for _, k := range p.list {
				if !drop(win.rows.Pos(int(k))) {
					kept = append(kept, k)
				}
			}
			p.list = kept
			if len(kept) > 0 {
				order = append(order, p)
			}
		}
		clear(win.order[len(order):])
		win.order = order
		for key, p := range win.parts {
			if len(p.list) == 0 {
				delete(win.parts, key)
			}
		}
	}
	w.wm = math.MinInt64
}

// HeldRows calls f with the source position of each row a window ranks (in
// a partition's list: the rows a replay must read again, those cut having no
// output) and its value in column c (the CURRENT_WATERMARK stamp).
func (w *WindowTopN) HeldRows(c int, f func(pos, v int64, null bool)) {
	for _, win := range w.wins {
		for _, p := range win.order {
			for _, k := range p.list {
				f(win.rows.Pos(int(k)), win.rows.Int(int(k), c), win.rows.Null(int(k), c))
			}
		}
	}
}
