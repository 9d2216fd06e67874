package tests

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"streamql/catalog/textconv"
	"streamql/cmd/streamql/cli"
)

// The property test of issue 11 item 6: random event-time inputs (out of order,
// with late and malformed rows) through windowed aggregates, against a naive
// reference written here from SPEC 2.3 and 2.4 alone: it assigns windows by
// brute force (every candidate start near t) and fires them by scanning all
// windows after each row. Every output row, main and late, must agree exactly
// and in order (csv with the output column: one line stream in output order).

type refRow struct {
	idx  int // arrival number among the good rows
	k    string
	ts   int64
	v    int64
	null bool
	line string // the csv line as written
}

type refWin struct {
	start, end int64
	k          string
	rows       []refRow
	fired      bool
}

type refCase struct {
	fn                  string
	size, slide, offset int64 // slide: HOP slide, CUMULATE step; gap for SESSION in size
	delay               int64
	having              bool
	side                bool // a side branch declared first takes the rows with v > 40
}

func floorDivRef(a, b int64) int64 {
	return int64(mathFloor(float64(a) / float64(b)))
}

func mathFloor(f float64) float64 {
	i := float64(int64(f))
	if i > f {
		i--
	}
	return i
}

// windowsOf lists every window holding t, by brute force over the candidate
// starts around t (SPEC 2.4's table).
func (c refCase) windowsOf(t int64) [][2]int64 {
	var out [][2]int64
	switch c.fn {
	case "TUMBLE", "HOP":
		slide := c.size
		if c.fn == "HOP" {
			slide = c.slide
		}
		base := floorDivRef(t-c.offset, slide)
		for k := base - c.size/slide - 2; k <= base+2; k++ {
			s := k*slide + c.offset
			if s <= t && t < s+c.size {
				out = append(out, [2]int64{s, s + c.size})
			}
		}
	case "CUMULATE":
		base := floorDivRef(t-c.offset, c.size)
		for k := base - 2; k <= base+2; k++ {
			s := k*c.size + c.offset
			for j := int64(1); j <= c.size/c.slide; j++ {
				if s <= t && t < s+j*c.slide {
					out = append(out, [2]int64{s, s + j*c.slide})
				}
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a][0] != out[b][0] {
			return out[a][0] < out[b][0]
		}
		return out[a][1] < out[b][1]
	})
	return out
}

// reference computes the expected csv output lines (main rows and late rows,
// prefixed by their output's name, in output order).
func (c refCase) reference(rows []refRow) []string {
	var out []string
	var wins []*refWin
	wmSet, wm := false, int64(0)
	find := func(s, e int64, k string) *refWin {
		for _, w := range wins {
			if !w.fired && w.start == s && w.end == e && w.k == k {
				return w
			}
		}
		return nil
	}
	fire := func(all bool) {
		var due []*refWin
		for _, w := range wins {
			if !w.fired && (all || wmSet && w.end <= wm) {
				due = append(due, w)
			}
		}
		sort.SliceStable(due, func(a, b int) bool {
			x, y := due[a], due[b]
			if x.end != y.end {
				return x.end < y.end
			}
			if x.start != y.start {
				return x.start < y.start
			}
			return firstIdx(x) < firstIdx(y)
		})
		for _, w := range due {
			w.fired = true
			if line, ok := c.aggLine(w); ok {
				out = append(out, line)
			}
		}
	}
	for _, r := range rows {
		cw, cwSet := wm, wmSet
		if c.side && !r.null && r.v > 40 {
			out = append(out, fmt.Sprintf("hot,%s,%d", r.k, r.ts))
		} else if c.fn == "SESSION" {
			gap := c.size
			var touch []*refWin
			for _, w := range wins {
				if !w.fired && w.k == r.k && w.start <= r.ts+gap && r.ts <= w.end {
					touch = append(touch, w)
				}
			}
			switch {
			case len(touch) == 0 && cwSet && r.ts+gap <= cw:
				out = append(out, "lt,"+r.line)
			case len(touch) == 0:
				wins = append(wins, &refWin{start: r.ts, end: r.ts + gap, k: r.k, rows: []refRow{r}})
			default:
				m := touch[0]
				m.rows = append(m.rows, r)
				m.start, m.end = min(m.start, r.ts), max(m.end, r.ts+gap)
				for _, o := range touch[1:] {
					m.rows = append(m.rows, o.rows...)
					m.start, m.end = min(m.start, o.start), max(m.end, o.end)
					o.fired = true // merged away, never emitted
					o.rows = nil
				}
				sort.Slice(m.rows, func(a, b int) bool { return m.rows[a].idx < m.rows[b].idx })
			}
		} else {
			took := false
			for _, w := range c.windowsOf(r.ts) {
				if cwSet && w[1] <= cw {
					continue
				}
				took = true
				rw := find(w[0], w[1], r.k)
				if rw == nil {
					rw = &refWin{start: w[0], end: w[1], k: r.k}
					wins = append(wins, rw)
				}
				rw.rows = append(rw.rows, r)
			}
			if !took {
				out = append(out, "lt,"+r.line)
			}
		}
		if e := r.ts - c.delay; !wmSet || e > wm {
			wm, wmSet = e, true
		}
		fire(false)
	}
	fire(true)
	return out
}

func firstIdx(w *refWin) int {
	m := 1 << 30
	for _, r := range w.rows {
		m = min(m, r.idx)
	}
	return m
}

// aggLine is the main output line of a fired window, or false when HAVING drops it.
func (c refCase) aggLine(w *refWin) (string, bool) {
	if len(w.rows) == 0 {
		return "", false
	}
	n := len(w.rows)
	if c.having && n < 2 {
		return "", false
	}
	var sum, cnt int64
	var mn, mx int64
	var list []string
	for _, r := range w.rows {
		if r.null {
			continue
		}
		if cnt == 0 || r.v < mn {
			mn = r.v
		}
		if cnt == 0 || r.v > mx {
			mx = r.v
		}
		sum += r.v
		cnt++
		list = append(list, strconv.FormatInt(r.v, 10))
	}
	f := []string{"main", strconv.FormatInt(w.start, 10), strconv.FormatInt(w.end, 10), w.k, strconv.Itoa(n)}
	if cnt == 0 {
		f = append(f, "0", "", "", "", "", "")
	} else {
		avg, _ := new(big.Rat).SetFrac64(sum, cnt).Float64()
		f = append(f, strconv.FormatInt(cnt, 10), strconv.FormatInt(sum, 10), strconv.FormatInt(mn, 10), strconv.FormatInt(mx, 10),
			string(textconv.AppendDouble(nil, avg)), strings.Join(list, ";"))
	}
	return strings.Join(f, ","), true
}

func (c refCase) query(path string) string {
	tvf := ""
	group := "window_start, window_end, k"
	switch c.fn {
	case "TUMBLE":
		tvf = fmt.Sprintf("TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND)", c.size, c.offset)
	case "HOP":
		tvf = fmt.Sprintf("HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND)", c.slide, c.size, c.offset)
	case "CUMULATE":
		tvf = fmt.Sprintf("CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND, INTERVAL '%d' MILLISECOND)", c.slide, c.size, c.offset)
	case "SESSION":
		tvf = fmt.Sprintf("SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '%d' MILLISECOND)", c.size)
		group = "k, window_start, window_end"
	}
	having := ""
	if c.having {
		having = " HAVING n >= 2"
	}
	side := ""
	if c.side {
		side = "SELECT k, ts INTO SIDE 'hot' FROM s WHERE v > 40;\n"
	}
	return fmt.Sprintf(`CREATE STREAM s (k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - %d)
  WITH ('connector' = 'file', 'path' = '%s', 'format' = 'csv');
%sSELECT window_start, window_end, k, COUNT(*) AS n, COUNT(v) AS c, SUM(v) AS sm, MIN(v) AS mn, MAX(v) AS mx, AVG(v) AS av, LISTAGG(v, ';') AS l
  FROM TABLE(%s) GROUP BY %s%s LATE INTO SIDE 'lt';
`, c.delay, path, side, tvf, group, having)
}

func TestWindowProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(2024))
	dir := t.TempDir()
	iters := 120
	if testing.Short() {
		iters = 30
	}
	for it := 0; it < iters; it++ {
		var c refCase
		switch rng.Intn(4) {
		case 0:
			c = refCase{fn: "TUMBLE", size: []int64{1000, 2500, 5000}[rng.Intn(3)]}
			c.offset = []int64{0, 300, -700}[rng.Intn(3)]
		case 1:
			c = refCase{fn: "HOP", slide: []int64{1000, 2000}[rng.Intn(2)]}
			c.size = c.slide * int64(1+rng.Intn(3))
			c.offset = []int64{0, 400, -400}[rng.Intn(3)] % c.size
		case 2:
			c = refCase{fn: "CUMULATE", slide: 1000, size: []int64{2000, 3000}[rng.Intn(2)]}
			c.offset = []int64{0, 500}[rng.Intn(2)]
		default:
			c = refCase{fn: "SESSION", size: []int64{1000, 2500}[rng.Intn(2)]}
		}
		c.delay = []int64{0, 500, 2000}[rng.Intn(3)]
		c.having = rng.Intn(3) == 0
		c.side = rng.Intn(2) == 0
		var lines []string
		var good []refRow
		n := 1 + rng.Intn(60)
		base := int64(rng.Intn(20000) - 10000)
		for i := 0; i < n; i++ {
			k := string(rune('a' + rng.Intn(3)))
			if rng.Intn(15) == 0 {
				lines = append(lines, k+",notatime,1") // malformed: never reaches the aggregate
				continue
			}
			ts := (base + int64(i)*400 + int64(rng.Intn(6000)-3000)) / 100 * 100 // coarse: rows land on window bounds
			v, null := int64(rng.Intn(101)-50), rng.Intn(8) == 0
			vs := strconv.FormatInt(v, 10)
			if null {
				vs = ""
			}
			line := fmt.Sprintf("%s,%d,%s", k, ts, vs)
			lines = append(lines, line)
			good = append(good, refRow{idx: len(good), k: k, ts: ts, v: v, null: null, line: line})
		}
		path := filepath.Join(dir, fmt.Sprintf("in%d.csv", it))
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		want := c.reference(good)
		var stdout, stderr bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", "csv", "-e", c.query(path)}, strings.NewReader(""), &stdout, &stderr)
		if code != 0 {
			t.Fatalf("case %d %+v: exit %d: %s", it, c, code, stderr.String())
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
			if l == "" || strings.HasPrefix(l, "output,") {
				continue // each output's header line
			}
			got = append(got, l)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("case %d %+v\ninput:\n%s\ngot:\n%s\nwant:\n%s", it, c, strings.Join(lines, "\n"), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestGroupByEndAgainstReference (issue 26 item 4): a bounded GROUP BY of
// four keys of four types (NULLs, -0.0 and 0.0 among them) over 40,000
// rows in some 30,000 groups prints, at the stream's end, each group's key
// values and aggregates in the order of its first row, against a batch
// computation over the whole input written here. The groups keep their key
// values only as their key bytes (executor/aggregate decodes them), and the
// end's rows go out several chunks at a time, so every key type, NULL and a
// firing of many pushes are read back through them.
func TestGroupByEndAgainstReference(t *testing.T) {
	r := rand.New(rand.NewSource(26))
	doubles := []string{"1.5", "-0.0", "0.0", "2.25", "NULL"}
	bools := []string{"true", "false", "NULL"}
	type group struct {
		n      int
		s, m   int64
		hasV   bool
		k1, k2 string
		d, b   string
	}
	var order []string
	groups := map[string]*group{}
	var in strings.Builder
	for range 40000 {
		k1 := strconv.Itoa(r.Intn(3000) - 100)
		if r.Intn(50) == 0 {
			k1 = "NULL"
		}
		k2 := []string{"x", "yy", "zzz", "NULL"}[r.Intn(4)]
		d, b := doubles[r.Intn(len(doubles))], bools[r.Intn(len(bools))]
		v, vNull := r.Int63n(1000)-500, r.Intn(10) == 0
		vs := strconv.FormatInt(v, 10)
		if vNull {
			vs = "NULL"
		}
		fmt.Fprintf(&in, "%s,%s,%s,%s,%s\n", k1, k2, d, b, vs)
		key := k1 + "|" + k2 + "|" + d + "|" + b
		g := groups[key]
		if g == nil {
			g = &group{k1: k1, k2: k2, d: d, b: b}
			groups[key] = g
			order = append(order, key)
		}
		g.n++
		if !vNull {
			if !g.hasV || v > g.m {
				g.m = v
			}
			g.s += v
			g.hasV = true
		}
	}
	text := func(s string) string { // (csv: NULL is an empty field)
		if s == "NULL" {
			return ""
		}
		return s
	}
	var want strings.Builder
	want.WriteString("k1,k2,d,b,n,s,m\n")
	for _, key := range order {
		g := groups[key]
		s, m := "", ""
		if g.hasV {
			s, m = strconv.FormatInt(g.s, 10), strconv.FormatInt(g.m, 10)
		}
		fmt.Fprintf(&want, "%s,%s,%s,%s,%d,%s,%s\n", text(g.k1), text(g.k2), text(g.d), text(g.b), g.n, s, m)
	}
	if len(order) < 5*4096 {
		t.Fatalf("only %d groups: the end would not take several pushes", len(order))
	}
	out, errs, code := runSQL(t, map[string]string{"t.csv": in.String()},
		`CREATE STREAM t (k1 BIGINT, k2 VARCHAR, d DOUBLE, b BOOLEAN, v BIGINT) WITH ('connector'='file', 'path'='t.csv', 'csv.null-literal'='NULL');
SELECT k1, k2, d, b, COUNT(*) AS n, SUM(v) AS s, MAX(v) AS m FROM t GROUP BY k1, k2, d, b;`, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != want.String() {
		got, exp := strings.Split(out, "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(got), len(exp)) {
			if got[i] != exp[i] {
				t.Fatalf("line %d: got %q, want %q (%d lines, want %d)", i+1, got[i], exp[i], len(got), len(exp))
			}
		}
		t.Fatalf("%d lines, want %d", len(got), len(exp))
	}
}
