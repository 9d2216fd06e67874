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

// TestTopNJoinProperty: a join that reads a Top-N relation (ROW_NUMBER or
// RANK <= N over an event-time stream, SPEC 2.9) calls none of the Top-N's
// rows late (SPEC 2.7: a join input's late row is below its own stream's
// watermark; a Top-N's rows are its input's, emitted when it decides them,
// in rank order, so far behind the input's watermark with nothing late
// about them). The Top-N relation has no event time for its readers, as in
// Flink, whose Top-N output loses its time attribute
// (planner/rule_derived.go: rankKeepsTime). Over random inputs, bounded
// (the Top-N's final result at the end) and unbounded (pushed from Go: the
// Top-N's changes, applied as a changelog), the relation is joined with a
// bounded table and with another event-time stream (on either side), and
// the applied result must equal a separately written reference: rank each
// key's rows over the whole input (ties in arrival order), keep ranks <= N,
// nested-loop join. The only late rows are the other stream's own, by its
// watermark (the reference computes them from its rows in arrival order).
func TestTopNJoinProperty(t *testing.T) {
	type brow struct{ k, p, ts int64 }
	type crow struct {
		k, q, ts int64
		late     bool
	}
	type urow struct {
		k    int64
		name string
	}
	for seed := int64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		fn := "ROW_NUMBER"
		if seed%2 == 0 {
			fn = "RANK"
		}
		bounded := seed%4 < 2
		n := 1 + r.Intn(3)
		var bs []brow
		for i := range 5 + r.Intn(40) {
			bs = append(bs, brow{k: int64(r.Intn(5)), p: int64(r.Intn(6)), ts: int64(i)*400 + int64(r.Intn(3000))})
		}
		var cs []crow
		wm := int64(-1 << 62)
		for i := range 3 + r.Intn(15) {
			ts := int64(i)*700 + int64(r.Intn(2500))
			cs = append(cs, crow{k: int64(r.Intn(6)), q: int64(r.Intn(100)), ts: ts, late: ts < wm})
			wm = max(wm, ts-1000)
		}
		var us []urow
		for i := range 1 + r.Intn(6) {
			us = append(us, urow{k: int64(r.Intn(6)), name: fmt.Sprintf("n%d", i)})
		}

		// the reference: the Top-N over the whole input
		type ranked struct {
			brow
			rn int64
		}
		var top []ranked
		for k := range int64(5) {
			var rows []brow
			for _, b := range bs {
				if b.k == k {
					rows = append(rows, b)
				}
			}
			slices.SortStableFunc(rows, func(a, b brow) int { return cmp.Compare(b.p, a.p) })
			for i, b := range rows {
				rn := int64(i + 1)
				if fn == "RANK" {
					rn = 1
					for _, o := range rows {
						if o.p > b.p {
							rn++
						}
					}
				}
				if rn <= int64(n) {
					top = append(top, ranked{b, rn})
				}
			}
		}
		// (an unbounded Top-N is updating: its join with c is a regular
		// join, where c's late rows by its own watermark are late; a
		// bounded one is a lookup join, c on the right read whole as a
		// table: SPEC 2.7's table)
		var wantU, wantC, wantCL, wantLate, wantCLate []string
		for _, x := range top {
			for _, u := range us {
				if u.k == x.k {
					wantU = append(wantU, fmt.Sprintf("%d,%d,%d,%d,%s", x.k, x.p, x.ts, x.rn, u.name))
				}
			}
			for _, c := range cs {
				if c.k == x.k && (bounded || !c.late) {
					wantC = append(wantC, fmt.Sprintf("%d,%d,%d,%d,%d", x.k, x.p, x.rn, c.q, c.ts))
				}
			}
		}
		for _, c := range cs {
			if c.late {
				wantLate = append(wantLate, fmt.Sprintf("%d,%d,%d", c.k, c.q, c.ts))
				if !bounded {
					wantCLate = append(wantCLate, wantLate[len(wantLate)-1])
				}
				continue
			}
			for _, x := range top {
				if c.k == x.k {
					wantCL = append(wantCL, fmt.Sprintf("%d,%d,%d,%d,%d", c.k, c.q, c.ts, x.p, x.rn))
				}
			}
		}

		// the engine
		var ddl strings.Builder
		conn := "'connector' = 'go'"
		if bounded {
			conn = "'connector' = 'values'"
		}
		fmt.Fprintf(&ddl, "CREATE STREAM b (k BIGINT, p BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (%s);\n", conn)
		ddl.WriteString("CREATE STREAM c (k BIGINT, q BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'values');\n")
		ddl.WriteString("CREATE STREAM u (k BIGINT, name VARCHAR) WITH ('connector' = 'values');\n")
		if bounded {
			for _, b := range bs {
				fmt.Fprintf(&ddl, "INSERT INTO b VALUES (%d, %d, %d);\n", b.k, b.p, b.ts)
			}
		}
		for _, c := range cs {
			fmt.Fprintf(&ddl, "INSERT INTO c VALUES (%d, %d, %d);\n", c.k, c.q, c.ts)
		}
		for _, u := range us {
			fmt.Fprintf(&ddl, "INSERT INTO u VALUES (%d, '%s');\n", u.k, u.name)
		}
		topn := fmt.Sprintf("(SELECT * FROM (SELECT k, p, ts, %s() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM b) WHERE rn <= %d)", fn, n)
		cases := []struct {
			name, query string
			want        []string
			late        []string
		}{
			{"with a table", "SELECT t.k, t.p, t.ts, t.rn, u.name FROM " + topn + " AS t JOIN u ON t.k = u.k", wantU, nil},
			{"with a stream", "SELECT t.k, t.p, t.rn, c.q, c.ts FROM " + topn + " AS t JOIN c ON t.k = c.k", wantC, wantCLate},
			{"a stream with it", "SELECT c.k, c.q, c.ts, t.p, t.rn FROM c JOIN " + topn + " AS t ON c.k = t.k", wantCL, wantLate},
			{"a view with a table", "WITH t AS " + topn + " SELECT t.k, t.p, t.ts, t.rn, u.name FROM t JOIN u ON t.k = u.k", wantU, nil},
		}
		for _, tc := range cases {
			rows := map[string]int{}
			var late []string
			s, err := streamql.Open(streamql.Options{OnRows: func(out streamql.Output, rs *streamql.Rows) error {
				for i := range rs.Len() {
					var vals []string
					for c := range out.Columns {
						vals = append(vals, fmt.Sprint(rs.Value(c, i)))
					}
					row := strings.Join(vals, ",")
					switch {
					case out.Name == "main":
						switch rs.Kind(i) {
						case "+I", "+U":
							rows[row]++
						default:
							if rows[row] == 0 {
								t.Errorf("seed %d %s: %s retracts %s, which the changelog does not hold", seed, tc.name, rs.Kind(i), row)
							}
							rows[row]--
						}
					case strings.HasPrefix(out.Name, "late"):
						late = append(late, row)
					}
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := s.ExecScript(ctx, "topnjoin.sql", ddl.String(), "."); err != nil {
				t.Fatal(err)
			}
			if bounded {
				err = s.Exec(ctx, tc.query)
			} else {
				done := make(chan error, 1)
				go func() { done <- s.Exec(ctx, tc.query) }()
				for _, b := range bs {
					if err := s.Push(ctx, "b", b.k, b.p, b.ts); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.CloseStream("b"); err != nil {
					t.Fatal(err)
				}
				err = <-done
			}
			cancel()
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, tc.name, err)
			}
			var got []string
			for row, k := range rows {
				for ; k > 0; k-- {
					got = append(got, row)
				}
			}
			want := slices.Clone(tc.want)
			slices.Sort(got)
			slices.Sort(want)
			slices.Sort(late)
			wantLate := slices.Clone(tc.late)
			slices.Sort(wantLate)
			if !slices.Equal(got, want) || !slices.Equal(late, wantLate) {
				t.Fatalf("seed %d %s (%s <= %d, bounded %v): the engine gives\n%v\nlate %v\nthe reference\n%v\nlate %v\ninput b %v", seed, tc.name, fn, n, bounded, got, late, want, wantLate, bs)
			}
		}
	}
}

// TestDedupLastJoinNoLateRows: a deduplication keeping the last row by
// event time keeps its time column for its readers (Flink keeps the time
// attribute of a rowtime deduplication; a temporal join versions by it,
// SPEC 2.7), so a lookup or regular join that reads it checks its rows
// against a watermark recomputed over its changes; but its rows come out
// when it decides them (the final rows at the end of a bounded input, in
// key order; an unbounded one's -U rows carry the replaced row's older
// time), so a kept row is sent to late-t. Key b's last row (t = 10 s)
// comes out after key a's (t = 20 s) and is called late.
func TestDedupLastJoinNoLateRows(t *testing.T) {
	t.Skip("known fault, not fixed: a join reading a deduplication keeping the last row calls its rows late (planner/rule_derived.go rankKeepsTime keeps the time for the temporal join; the join's late check needs to skip an updating input that is not a temporal join's versioned side: plan.BothJoin.NoLateRows and the executor's late check)")
	ddl := `CREATE STREAM b (k VARCHAR, p BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE STREAM u (k VARCHAR, name VARCHAR) WITH ('connector' = 'values');
INSERT INTO b VALUES ('a', 5, 1000), ('b', 7, 3000), ('b', 1, 10000), ('a', 2, 20000);
INSERT INTO u VALUES ('a', 'Alice'), ('b', 'Bob');
`
	var got, late []string
	s, err := streamql.Open(streamql.Options{OnRows: func(out streamql.Output, rs *streamql.Rows) error {
		for i := range rs.Len() {
			var vals []string
			for c := range out.Columns {
				vals = append(vals, fmt.Sprint(rs.Value(c, i)))
			}
			if out.Name == "main" {
				got = append(got, strings.Join(vals, ","))
			} else {
				late = append(late, out.Name+": "+strings.Join(vals, ","))
			}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.ExecScript(ctx, "dedup.sql", ddl, "."); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, "SELECT t.k, t.p, t.ts, u.name FROM (SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM b) WHERE rn = 1) AS t JOIN u ON t.k = u.k"); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"a,2,20000,Alice", "b,1,10000,Bob"}; !slices.Equal(got, want) || len(late) > 0 {
		t.Fatalf("got %v, late %v; want %v and no late row", got, late, want)
	}
}
