package executor

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/vector"
	"streamql/internal/sensorbench"
)

// TestLimitCountsAcrossBatchSizes: when the main query's LIMIT ends a job,
// what the job reports (SPEC 3's rows read, SPEC 1's malformed rows, SPEC
// 2.4's late rows per windowed query) and what reaches the outputs are those
// of the input up to the row where the LIMIT ended it, whatever the batch
// sizes: for a plain main query the row that gave it its n-th row, for a
// windowed one the row whose firing did (SPEC 2.4). The reference walks the
// whole input row by row (watermark, first-match routing, TUMBLE windows and
// their firings), apart from the engine; the job runs over batches of 1, 2,
// 3, 7, 64 and vector.Cap rows, with the 'side' and 'skip' errors policies.
func TestLimitCountsAcrossBatchSizes(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 22))
		in := limitInput(r, 40+r.IntN(400))
		windowed := seed%2 == 1
		limit := 1 + r.IntN(30)
		policy := []string{"side", "skip"}[seed/2%2]
		script := limitScript(windowed, limit, policy)
		want := limitReference(in, windowed, limit)
		for _, size := range []int{1, 2, 3, 7, 64, vector.Cap} {
			t.Run(fmt.Sprintf("seed=%d/batch=%d", seed, size), func(t *testing.T) {
				job := sensorbench.Plan(t, script, "")
				src := newRebatched(t, job.Stream, in.text, size)
				sink := &outputCounts{}
				var stats Stats
				if err := run(t.Context(), job, src, sink, &stats, nil); err != nil {
					t.Fatal(err)
				}
				got := limitReport{rows: stats.Rows, malformed: stats.Streams[0].Malformed, late: stats.Late[0].Rows, outputs: map[string]int64{}}
				for k, n := range sink.rows {
					if n > 0 {
						got.outputs[job.Outputs[k].Name] = n
					}
				}
				if sink.bad > 0 {
					got.outputs["errors"] = sink.bad
				}
				w := want
				if policy == "skip" {
					w.outputs = maps(w.outputs, "errors")
				}
				if !w.equal(got) {
					t.Fatalf("%s\n%s\ngot  %+v\nwant %+v", script, in.text, got, w)
				}
			})
		}
	}
}

// limitRow is one input line of TestLimitCountsAcrossBatchSizes: a good row,
// or a malformed one (bad).
type limitRow struct {
	dev  string
	ts   int64
	temp float64
	bad  bool
}

type limitIn struct {
	rows []limitRow
	text []byte
}

// limitInput returns n rows with rising, sometimes out-of-order (late)
// event times, and about one malformed row in twelve.
func limitInput(r *rand.Rand, n int) limitIn {
	var in limitIn
	var buf bytes.Buffer
	ts := int64(0)
	for range n {
		if r.IntN(12) == 0 {
			in.rows = append(in.rows, limitRow{bad: true})
			buf.WriteString("x,abc,1\n")
			continue
		}
		ts += int64(r.IntN(700))
		at := ts
		if r.IntN(6) == 0 {
			at -= int64(r.IntN(6000))
		}
		row := limitRow{dev: string(rune('a' + r.IntN(3))), ts: at, temp: float64(r.IntN(100))}
		in.rows = append(in.rows, row)
		fmt.Fprintf(&buf, "%s,%d,%g\n", row.dev, row.ts, row.temp)
	}
	in.text = buf.Bytes()
	return in
}

// limitScript is the job: a side branch 'hot', and either a windowed side
// branch with its late output and a plain main query with the LIMIT, or a
// windowed main query with the LIMIT (its late rows to the default 'late').
func limitScript(windowed bool, limit int, policy string) string {
	s := "CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='in.csv', 'errors'='" + policy + "');\n" +
		"SELECT deviceNo, ts INTO SIDE 'hot' FROM sensors WHERE temperature > 70;\n"
	win := "SELECT window_end, deviceNo, COUNT(*) AS n %s FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '2' SECOND)) %s GROUP BY window_start, window_end, deviceNo %s;\n"
	if windowed {
		return s + fmt.Sprintf(win, "", "", fmt.Sprintf("LIMIT %d", limit))
	}
	return s + fmt.Sprintf(win, "INTO SIDE 'w'", "WHERE temperature < 50", "LATE INTO SIDE 'wlate'") +
		fmt.Sprintf("SELECT deviceNo, ts FROM sensors LIMIT %d;\n", limit)
}

// limitReport is what a job reported and wrote.
type limitReport struct {
	rows, malformed, late int64
	outputs               map[string]int64 // rows per output (errors too), those with rows
}

func (a limitReport) equal(b limitReport) bool {
	if a.rows != b.rows || a.malformed != b.malformed || a.late != b.late || len(a.outputs) != len(b.outputs) {
		return false
	}
	for k, v := range a.outputs {
		if b.outputs[k] != v {
			return false
		}
	}
	return true
}

// maps returns m without key.
func maps(m map[string]int64, key string) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// limitReference computes, row by row over the whole input, what the job of
// limitScript reports and writes (see TestLimitCountsAcrossBatchSizes).
func limitReference(in limitIn, windowed bool, limit int) limitReport {
	rep := limitReport{outputs: map[string]int64{}}
	wm, wmSet := int64(0), false
	// the windows' groups: window end -> device -> rows; a window fires
	// when the watermark reaches its end
	open := map[int64]map[string]bool{}
	winOut, lateOut := "w", "wlate"
	if windowed {
		winOut, lateOut = "main", "late"
	}
	fire := func(upTo int64) {
		var ends []int64
		for end := range open {
			if end <= upTo {
				ends = append(ends, end)
			}
		}
		slices.Sort(ends)
		for _, end := range ends {
			rep.outputs[winOut] += int64(len(open[end]))
			delete(open, end)
		}
	}
	full := func() bool { return rep.outputs["main"] >= int64(limit) }
rows:
	for _, row := range in.rows {
		rep.rows++
		if row.bad {
			rep.malformed++
			rep.outputs["errors"]++
			continue
		}
		switch {
		case row.temp > 70:
			rep.outputs["hot"]++
		case windowed || row.temp < 50:
			end := row.ts - row.ts%2000 + 2000
			if row.ts < 0 && row.ts%2000 != 0 {
				end -= 2000
			}
			if wmSet && end <= wm {
				rep.late++
				rep.outputs[lateOut]++
				break
			}
			if open[end] == nil {
				open[end] = map[string]bool{}
			}
			open[end][row.dev] = true
		default:
			if rep.outputs["main"]++; full() {
				break rows // (the windows this row fires come after the LIMIT's end)
			}
		}
		if !wmSet || row.ts-1000 > wm {
			wm, wmSet = row.ts-1000, true
			fire(wm)
		}
		if full() {
			break
		}
	}
	if !full() {
		fire(1 << 62) // the stream's end
	}
	rep.outputs["main"] = min(rep.outputs["main"], int64(limit))
	for k, v := range rep.outputs {
		if v == 0 {
			delete(rep.outputs, k)
		}
	}
	return rep
}

// outputCounts is a sink that counts each output's rows (parts and chunks)
// and the malformed rows.
type outputCounts struct {
	nopSink
	rows []int64 // by plan.Job.Outputs index
	bad  int64
}

func (s *outputCounts) add(out int, n int) {
	for len(s.rows) <= out {
		s.rows = append(s.rows, 0)
	}
	s.rows[out] += int64(n)
}

func (s *outputCounts) Rows(r *Step) error {
	dest := destsOf(r)
	for i := 0; i < r.N; i++ {
		if k := dest[i]; k >= 0 {
			s.add(r.Parts[k].Output, 1)
		}
	}
	for _, c := range r.Chunks {
		s.add(c.Output, len(c.Sel))
	}
	s.bad += int64(len(r.Errors.Rows))
	return nil
}

// rebatched is a source of csv text that gives batches of size rows each
// (malformed rows not counted in it), so the same input can be run over any
// batch size.
type rebatched struct {
	rows  *vector.Batch
	items []int // per input line: its row in rows, or -1 for a malformed one
	bad   []BadRow
	next  int
	size  int
}

func newRebatched(t *testing.T, st *catalog.Stream, text []byte, size int) *rebatched {
	dec := csvdec.NewDecoder(bytes.NewReader(text), st.Names(), st.Types(), csvdec.Options{})
	s := &rebatched{rows: vector.NewBatch(st.Types()), size: size}
	b := vector.NewBatch(st.Types())
	for {
		var bad []BadRow
		err := dec.Decode(b, &bad)
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		k := 0
		for i := 0; i <= b.N; i++ {
			for ; k < len(bad) && bad[k].Index == i; k++ {
				x := bad[k]
				x.Raw = slices.Clone(x.Raw)
				s.bad = append(s.bad, x)
				s.items = append(s.items, -1-len(s.bad)+1)
			}
			if i < b.N {
				s.items = append(s.items, s.rows.N)
				s.rows.AppendRows(b, i, i+1)
			}
		}
		if err == io.EOF {
			return s
		}
	}
}

// Next implements Source: the next size rows, with the malformed rows among
// them.
func (s *rebatched) Next(b *vector.Batch, bad *[]BadRow) error {
	b.Reset()
	if s.next == len(s.items) {
		return io.EOF
	}
	for s.next < len(s.items) && b.N < s.size {
		it := s.items[s.next]
		s.next++
		if it < 0 {
			x := s.bad[-it-1]
			x.Index = b.N
			*bad = append(*bad, x)
			continue
		}
		b.AppendRows(s.rows, it, it+1)
	}
	return nil
}

func (s *rebatched) Position(line int64) string { return fmt.Sprint("in.csv:", line) }
func (s *rebatched) Progress() (int64, int64)   { return 0, 0 }
func (s *rebatched) Close() error               { return nil }
