package streamql_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"streamql"
)

// TestJoinSwapProperty: a lookup join whose rows go only to a bounded Top-N
// partitioned by the left join key is run the other way round (the left
// side kept, the right one streamed: planner/rule_join_swap.go, op.joinSwap),
// and its result must be the lookup join's, row for row and in order (SPEC
// 2.7, 2.9). The reference is a batch computation over the whole input, as
// SPEC defines it: the left rows not late by their CURRENT_WATERMARK, in
// event-time order (ties in arrival order), each joined with the right rows
// of its key in arrival order; the WHERE; then per partition (in the order
// of its first joined row) the rows by ORDER BY, ties in that order, the
// first N. Cases have left keys that repeat (the join then holds the right
// rows: joinSwap.hold) or not, keys close together (its dense index) or far
// apart, a left input with event time (late rows) or without (its rows in
// arrival order), NULL keys, and ties on the ORDER BY (which row wins
// depends on the order the Top-N sees). The Top-N's left columns (A.name,
// A.t, A.note, some NULL) are stored NULL when the left keys are unique
// and filled from the join's kept left rows at the end (plan.Rank.Thin),
// and stored whole when keys repeat: both must give the reference's rows.
func TestJoinSwapProperty(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		unique := seed%2 == 0
		// spread: keys of a dense span (op.joinSwap.dense) or far apart (its
		// hash index)
		spread := int64(1)
		if seed%3 == 0 {
			spread = 1 << 40
		}
		// timed: the left input has event time (its rows joined in event-time
		// order as its watermark passes them, late ones not at all); else in
		// arrival order
		timed := seed%4 != 1
		n := 1 + r.Intn(2)
		type left struct {
			id      *int64
			t, e    int64
			name    string
			note    *string // (a NULL one: the Top-N's left columns filled NULL)
			arrival int
			late    bool
		}
		type right struct {
			aid       *int64
			price, bt int64
			extra     string
		}
		nl := 5 + r.Intn(40)
		var ls []left
		ids := r.Perm(nl)
		wm := int64(-1 << 62)
		for i := range nl {
			var id *int64
			v := int64(ids[i])
			if !unique {
				v = int64(r.Intn(nl/2 + 1))
			}
			v *= spread
			if r.Intn(12) > 0 {
				id = &v
			}
			ts := int64(i)*300 + int64(r.Intn(3000)) - 1500
			l := left{id: id, t: ts, e: ts + int64(r.Intn(4000)), name: fmt.Sprintf("a%d", i), arrival: i}
			if r.Intn(3) > 0 {
				note := strings.Repeat("n", r.Intn(30)) + fmt.Sprint(i)
				l.note = &note
			}
			l.late = timed && ts < wm // (its CURRENT_WATERMARK: the watermark before it)
			wm = max(wm, ts-1000)
			ls = append(ls, l)
		}
		var rs []right
		for i := range 20 + r.Intn(200) {
			var aid *int64
			v := int64(r.Intn(nl+2)) * spread
			if r.Intn(40) == 0 {
				v = -1 << 63 // (below every key: no entry)
			}
			if r.Intn(15) > 0 {
				aid = &v
			}
			rs = append(rs, right{aid: aid, price: int64(r.Intn(4)), bt: int64(r.Intn(nl*300+3000)) - 1500, extra: fmt.Sprintf("b%d", i)})
		}
		// the reference
		kept := slices.DeleteFunc(slices.Clone(ls), func(l left) bool { return l.late })
		if timed {
			slices.SortStableFunc(kept, func(a, b left) int { return cmp.Compare(a.t, b.t) })
		}
		type joined struct {
			part  int64
			row   string
			price int64
			bt    int64
		}
		var parts []int64
		byPart := map[int64][]joined{}
		for _, l := range kept {
			if l.id == nil {
				continue
			}
			for _, b := range rs {
				if b.aid == nil || *b.aid != *l.id || b.bt < l.t || b.bt > l.e {
					continue
				}
				if _, ok := byPart[*l.id]; !ok {
					parts = append(parts, *l.id)
				}
				note := "<nil>"
				if l.note != nil {
					note = *l.note
				}
				row := fmt.Sprintf("%d,%s,%d,%d,%s,%d,%s,%s!", *l.id, l.name, b.price, b.bt, b.extra, l.t, note, l.name)
				byPart[*l.id] = append(byPart[*l.id], joined{part: *l.id, row: row, price: b.price, bt: b.bt})
			}
		}
		var want []string
		for _, p := range parts {
			rows := byPart[p]
			slices.SortStableFunc(rows, func(a, b joined) int {
				if c := cmp.Compare(b.price, a.price); c != 0 {
					return c
				}
				return cmp.Compare(a.bt, b.bt)
			})
			for _, j := range rows[:min(n, len(rows))] {
				want = append(want, j.row)
			}
		}
		// the engine
		var sb strings.Builder
		if timed {
			sb.WriteString("CREATE STREAM a (id BIGINT, t BIGINT, e BIGINT, name VARCHAR, note VARCHAR, WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');\n")
		} else {
			sb.WriteString("CREATE STREAM a (id BIGINT, t BIGINT, e BIGINT, name VARCHAR, note VARCHAR) WITH ('connector' = 'values');\n")
		}
		sb.WriteString("CREATE STREAM b (aid BIGINT, price BIGINT, bt BIGINT, extra VARCHAR) WITH ('connector' = 'values');\n")
		num := func(p *int64) string {
			if p == nil {
				return "NULL"
			}
			return fmt.Sprint(*p)
		}
		for _, l := range ls {
			note := "NULL"
			if l.note != nil {
				note = "'" + *l.note + "'"
			}
			fmt.Fprintf(&sb, "INSERT INTO a VALUES (%s, %d, %d, '%s', %s);\n", num(l.id), l.t, l.e, l.name, note)
		}
		for _, b := range rs {
			fmt.Fprintf(&sb, "INSERT INTO b VALUES (%s, %d, %d, '%s');\n", num(b.aid), b.price, b.bt, b.extra)
		}
		query := fmt.Sprintf("SELECT id, name, price, bt, extra, t, note, shout FROM (SELECT A.id, A.name, B.price, B.bt, B.extra, A.t, A.note, A.name || '!' AS shout, ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.bt) AS rn FROM a A, b B WHERE A.id = B.aid AND B.bt BETWEEN A.t AND A.e) WHERE rn <= %d", n)
		var got, plan []string
		s, err := streamql.Open(streamql.Options{OnRows: func(out streamql.Output, rows *streamql.Rows) error {
			for i := range rows.Len() {
				var vals []string
				for c := range out.Columns {
					vals = append(vals, fmt.Sprint(rows.Value(c, i)))
				}
				switch out.Name {
				case "main":
					got = append(got, strings.Join(vals, ","))
				case "late-A":
				default:
					plan = append(plan, strings.Join(vals, ","))
				}
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := s.ExecScript(ctx, "swap.sql", sb.String(), "."); err != nil {
			t.Fatal(err)
		}
		if err := s.Exec(ctx, "EXPLAIN "+query); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(plan, "\n"), "the left side is read whole first") {
			t.Fatalf("seed %d: the join is not swapped:\n%s", seed, strings.Join(plan, "\n"))
		}
		plan = nil
		if err := s.Exec(ctx, "EXPLAIN (FORMAT JSON) "+query); err != nil {
			t.Fatal(err)
		}
		// (the Top-N stores A.t, A.note and A.name NULL when the left keys
		// are unique, filling them from the join's left rows at the end:
		// plan.Rank.Thin; A.id is its key, shout is computed)
		if p := strings.Join(plan, "\n"); !strings.Contains(p, "when the join's left keys are unique, without the left columns A.name, A.t, A.note:") {
			t.Fatalf("seed %d: the Top-N does not store its left columns thin:\n%s", seed, p)
		}
		if err := s.Exec(ctx, query); err != nil {
			t.Fatal(err)
		}
		// EXPLAIN ANALYZE says whether the Top-N filled its left columns
		// from the join's kept rows (unique left keys) or stored them (two
		// held left rows of one key): the Top-N is linked to the swapped
		// join (rank.Operator.Thin) and thins exactly when it may
		plan = nil
		if err := s.Exec(ctx, "EXPLAIN ANALYZE "+query); err != nil {
			t.Fatal(err)
		}
		seen, dup := map[int64]bool{}, false
		for _, l := range kept {
			if l.id != nil {
				dup = dup || seen[*l.id]
				seen[*l.id] = true
			}
		}
		analyzed := strings.Join(plan, "\n")
		if filled := strings.Contains(analyzed, "left columns filled from the join's kept left rows"); len(got) > 0 && filled == dup {
			t.Fatalf("seed %d: left keys repeat %v, but EXPLAIN ANALYZE says:\n%s", seed, dup, analyzed)
		}
		if stored := strings.Contains(analyzed, "left columns stored with each row"); len(got) > 0 && stored != dup {
			t.Fatalf("seed %d: left keys repeat %v, but EXPLAIN ANALYZE says:\n%s", seed, dup, analyzed)
		}
		cancel()

		if !slices.Equal(got, want) {
			t.Fatalf("seed %d (unique keys %v, N %d): got\n%s\nwant\n%s", seed, unique, n, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
