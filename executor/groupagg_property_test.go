package executor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/internal/sensorbench"
)

// changeSink keeps the chunks' rows as "kind,col,col,...", in output order
// (NULL as NULL, DOUBLE in strconv's shortest form).
type changeSink struct {
	nopSink
	got     []string
	batches []int // the changes of each input batch
}

func (s *changeSink) Rows(r *Step) error {
	n := 0
	for _, c := range r.Chunks {
		for _, i := range c.Sel {
			var b strings.Builder
			b.WriteString(c.KindAt(int(i)).String())
			for _, v := range c.Cols {
				b.WriteByte(',')
				b.WriteString(cellText(v, int(i)))
			}
			s.got = append(s.got, b.String())
			n++
		}
	}
	s.batches = append(s.batches, n)
	return nil
}

// cellText is value i of v as changeSink and the reference print it.
func cellText(v *vector.Vec, i int) string {
	if v.Null[i] {
		return "NULL"
	}
	switch v.Type {
	case catalog.BigInt, catalog.Timestamp:
		return strconv.FormatInt(v.I[i], 10)
	case catalog.Double:
		return strconv.FormatFloat(v.F[i], 'g', -1, 64)
	case catalog.Varchar:
		return string(v.S[i])
	}
	return fmt.Sprint(v.B[i])
}

// refRow is one input row of the reference; ts and temp are NULL when
// their Null flag is set.
type refRow struct {
	dev    string
	ts     int64
	tsNull bool
	temp   float64
}

// refGroupBy is the batch reference of TestUpdatingGroupByAgainstReference,
// written apart from the engine: it groups all the rows at once and prints
// each group's final row as changeSink prints a change's columns.
func refGroupBy(q int, rows []refRow) []string {
	type acc struct {
		key    string
		n      int64
		minT   float64
		maxDev string
		maxTs  int64
		hasTs  bool
	}
	groups := map[string]*acc{}
	for _, r := range rows {
		ts := "NULL"
		if !r.tsNull {
			ts = strconv.FormatInt(r.ts, 10)
		}
		var key string
		switch q {
		case 0:
			key = ts
		case 1, 3, 4, 5:
			key = r.dev
		case 2:
			mod := "NULL"
			if !r.tsNull {
				mod = strconv.FormatInt(r.ts%5, 10)
			}
			key = r.dev + "," + mod
		}
		g := groups[key]
		if g == nil {
			g = &acc{key: key, minT: math.Inf(1)}
			groups[key] = g
		}
		g.n++
		g.minT = min(g.minT, r.temp)
		g.maxDev = max(g.maxDev, r.dev)
		if !r.tsNull && (!g.hasTs || r.ts > g.maxTs) {
			g.maxTs, g.hasTs = r.ts, true
		}
	}
	var out []string
	for _, g := range groups {
		var line string
		switch q {
		case 0:
			line = fmt.Sprintf("%s,%d,%s,%s", g.key, g.n, strconv.FormatFloat(g.minT, 'g', -1, 64), g.maxDev)
		case 1:
			m := "NULL"
			if g.hasTs {
				m = strconv.FormatInt(g.maxTs, 10)
			}
			line = fmt.Sprintf("%s,%d,%s", g.key, g.n, m)
		case 2:
			line = fmt.Sprintf("%s,%d", g.key, g.n)
		case 3:
			line = g.key
		case 4:
			if g.n <= 1 {
				continue
			}
			m := "NULL"
			if g.hasTs {
				m = strconv.FormatInt(g.maxTs, 10)
			}
			line = fmt.Sprintf("%s,%d,%s", g.key, g.n+1, m)
		case 5:
			if g.n%2 != 0 {
				continue
			}
			line = fmt.Sprintf("%d,%s", g.n, g.key)
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

// applyChanges applies a changelog of changeSink's lines and returns the
// final table, sorted; a retraction of a row not in the table fails t.
func applyChanges(t *testing.T, changes []string) []string {
	t.Helper()
	table := map[string]int{}
	for _, c := range changes {
		kind, row, _ := strings.Cut(c, ",")
		switch kind {
		case "+I", "+U":
			table[row]++
		case "-U", "-D":
			if table[row] == 0 {
				t.Fatalf("%s retracts a row not in the table", c)
			}
			table[row]--
		default:
			t.Fatalf("kind %q", kind)
		}
	}
	var out []string
	for row, n := range table {
		for range n {
			out = append(out, row)
		}
	}
	slices.Sort(out)
	return out
}

// TestUpdatingGroupByAgainstReference: an unbounded GROUP BY (SPEC 2.8) over
// random rows in random batch sizes, with a single BIGINT key (NULL
// included; from 0 up, and those then joined by far keys: the typed
// index's dense table and its move to the flat one), a single VARCHAR key
// of 1 to 20 bytes, two keys, no
// aggregate call, and HAVING under a computed and a picked projection, over 3 to 3,000 keys (the typed group index grows past
// its first table), prints a changelog whose application gives the
// separately written batch reference's table (refGroupBy). Without
// mini-batch the changelog is the one the same rows give one row per batch
// (one change per input row, whatever the batch sizes: Flink's default);
// with mini-batch ('table.exec.mini-batch.enabled') a batch gives at most
// two changes per key it touched.
func TestUpdatingGroupByAgainstReference(t *testing.T) {
	selects := []string{
		"SELECT ts AS k, COUNT(*) AS n, MIN(temperature) AS t, MAX(deviceNo) AS d FROM sensors GROUP BY ts",
		"SELECT deviceNo AS k, COUNT(*) AS n, MAX(ts) AS m FROM sensors GROUP BY deviceNo",
		"SELECT deviceNo, ts % 5 AS r, COUNT(*) AS n FROM sensors GROUP BY deviceNo, ts % 5",
		"SELECT deviceNo FROM sensors GROUP BY deviceNo",
		// a projection that computes (the changes' rows copied into the
		// chunks) and one that only picks and reorders the aggregate row's
		// columns (the rows handed on as they are: passChanges), each with a
		// HAVING that some changes' old or new rows fail
		"SELECT deviceNo AS k, COUNT(*) + 1 AS n1, MAX(ts) AS m FROM sensors GROUP BY deviceNo HAVING COUNT(*) > 1",
		"SELECT COUNT(*) AS n, deviceNo FROM sensors GROUP BY deviceNo HAVING COUNT(*) % 2 = 0",
	}
	seeds := 12
	if raceDetector {
		seeds = 3 // (the run without -race takes all 12: race_on_test.go)
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 24))
		keys := []int{3, 40, 3000}[seed%3]
		var rows []refRow
		var lines []string
		n := 1 + r.IntN(3000)
		for j := range n {
			x := refRow{ts: int64(r.IntN(keys)) - int64(keys/2), temp: float64(r.IntN(1000)) / 10}
			switch seed % 4 {
			case 1: // keys from 0 up: the typed index's dense table all along
				x.ts = int64(r.IntN(keys))
			case 3: // the same, then, past the middle, far keys that move the groups to its flat index
				x.ts = int64(r.IntN(keys))
				if j > n/2 && r.IntN(10) == 0 {
					x.ts += 1 << 30
				}
			}
			x.tsNull = r.IntN(20) == 0
			dev := r.IntN(keys)
			x.dev = fmt.Sprintf("%0*d", 1+dev%20, dev) // 1 to 20 bytes
			rows = append(rows, x)
			ts := ""
			if !x.tsNull {
				ts = strconv.FormatInt(x.ts, 10)
			}
			lines = append(lines, fmt.Sprintf("%s,%s,%.1f\n", x.dev, ts, x.temp))
		}
		var batches []string
		for rest := lines; len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(300))
			batches = append(batches, strings.Join(rest[:n], ""))
			rest = rest[n:]
		}
		for q, sel := range selects {
			want := refGroupBy(q, rows)
			byRow := runGroupBy(t, sel, lines, false)
			for _, mini := range []bool{false, true} {
				sink := runGroupBy(t, sel, batches, mini)
				if got := applyChanges(t, sink.got); !slices.Equal(got, want) {
					t.Fatalf("seed %d, %s (mini-batch %v): the changelog applied gives\n%s\nwant\n%s", seed, sel, mini, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if !mini && !slices.Equal(sink.got, byRow.got) {
					t.Fatalf("seed %d, %s: the changelog in batches of 1 to 300 rows differs from the one of a row a batch", seed, sel)
				}
				if mini {
					for k, n := range sink.batches {
						if k < len(batches) && n > 2*strings.Count(batches[k], "\n") {
							t.Fatalf("seed %d, %s: %d changes for a batch of %d rows with mini-batch", seed, sel, n, strings.Count(batches[k], "\n"))
						}
					}
				}
			}
		}
	}
}

// runGroupBy runs the GROUP BY sel over the sensors stream, one batch per
// csv text of batches, and returns its changes.
func runGroupBy(t *testing.T, sel string, batches []string, mini bool) *changeSink {
	t.Helper()
	job := sensorbench.Plan(t, `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv', 'follow' = 'true');
`+sel+";\n", "")
	if !job.Main.Agg.Updating {
		t.Fatal("the GROUP BY is not updating")
	}
	job.Main.Agg.MiniBatch = mini
	src := &batchesSource{texts: slices.Clone(batches), names: job.Stream.Names(), types: job.Stream.Types()}
	sink := &changeSink{}
	var stats Stats
	if err := run(t.Context(), job, src, sink, &stats, nil); err != nil {
		t.Fatal(err)
	}
	return sink
}

// TestGroupByAllocatesNothingPerRow: once its groups exist, the unbounded
// GROUP BY's per-row path (the typed group index, the change written and
// projected into the changelog chunks), with and without mini-batch,
// allocates nothing: a job of 400 batches over 10,000 keys allocates what
// a job of 100 does, within the noise of setup.
func TestGroupByAllocatesNothingPerRow(t *testing.T) {
	for _, mini := range []bool{false, true} {
		for _, sel := range []string{
			"SELECT ts % 10000 AS k, COUNT(*) AS n FROM sensors GROUP BY ts % 10000",
			"SELECT deviceNo, COUNT(*) AS n, MAX(temperature) AS m FROM sensors GROUP BY deviceNo",
		} {
			job := sensorbench.Plan(t, `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv', 'follow' = 'true');
`+sel+";\n", "")
			job.Main.Agg.MiniBatch = mini
			perBatch, few, many := allocsPerBatch(t, job, func(sink *discardCounting, batches int) {
				if sink.chunkRows < int64(batches) {
					t.Fatalf("%d changes for %d batches", sink.chunkRows, batches)
				}
			})
			if perBatch > maxSteadyAllocsPerBatch {
				t.Errorf("%s (mini-batch %v): %.3f allocations per batch of 1024 rows (100 batches: %.0f, 400: %.0f)", sel, mini, perBatch, few, many)
			}
		}
	}
}
