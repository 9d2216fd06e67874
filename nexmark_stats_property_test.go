package streamql_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"streamql"
)

// nbid is one Nexmark bid as the statistics queries q15-q17 read it: a NULL
// price or bidder is nil (the generator gives none; the file data does).
type nbid struct {
	auction int64
	bidder  *int64
	price   *int64
	channel string
	ms      int64 // dateTime, epoch ms (TIMESTAMP(3), UTC)
}

// nexmarkStatsQuery returns the SELECT of queries/nexmark/qN.sql: the file
// without its comments and its .read of ddl.sql, so that it reads the bid
// stream the test declares.
func nexmarkStatsQuery(t *testing.T, q string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("queries", "nexmark", q+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--") || strings.HasPrefix(l, ".read") {
			continue
		}
		sb.WriteString(l + "\n")
	}
	return sb.String()
}

// generatedBids reads the bids of the nexmark connector (SPEC 1) over events
// events with seed seed, in the sequence's order.
func generatedBids(t *testing.T, events, seed, group int) []nbid {
	t.Helper()
	var bids []nbid
	s, err := streamql.Open(streamql.Options{OnRows: func(out streamql.Output, rows *streamql.Rows) error {
		if out.Name != "main" {
			return nil
		}
		for r := 0; r < rows.Len(); r++ {
			bidder, price := rows.Int64(1, r), rows.Int64(2, r)
			bids = append(bids, nbid{auction: rows.Int64(0, r), bidder: &bidder, price: &price,
				channel: rows.Value(3, r).(string), ms: rows.Int64(4, r)})
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Exec(context.Background(), nexmarkBidDDL(events, seed, group)+"SELECT auction, bidder, price, channel, `dateTime` FROM bid;")
	if err != nil {
		t.Fatal(err)
	}
	return bids
}

// nexmarkBidDDL declares the nexmark connector's bid stream over events
// events with seed seed, event times shuffled within groups of group events
// ('out-of-order.group-size'; at the default 10,000 events/s a group of more
// than 40,000 makes rows late under the 4 s watermark).
func nexmarkBidDDL(events, seed, group int) string {
	return fmt.Sprintf("CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR,"+
		" WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND) WITH ('connector' = 'nexmark', 'table' = 'bid', 'events.num' = '%d', 'seed' = '%d',"+
		" 'out-of-order.group-size' = '%d');\n", events, seed, group)
}

// spreadBids returns bids as file data that stresses what the generator's
// 20,000 events do not reach: arrival order shuffled within blocks of 1,000
// bids (late rows under the watermark), event times stretched from a start day
// of start (a leap day, a year's end, the epoch's eve) over several days and
// every hour, prices on the range bounds of q15-q17 (9999, 10000, 999999,
// 1000000), NULL prices and bidders, and prices near 2^62 whose sums leave
// BIGINT (SUM is then NULL; AVG stays the exact quotient, SPEC 2.4).
func spreadBids(rng *rand.Rand, bids []nbid, start time.Time) []nbid {
	out := make([]nbid, len(bids))
	if len(bids) == 0 {
		return out
	}
	first := bids[0].ms
	stretch := int64(1 + rng.Intn(200_000)) // 20,000 events of 0.1 ms: up to 4.6 days
	for i, b := range bids {
		b.ms = start.UnixMilli() + (b.ms-first)*stretch
		switch x := rng.Intn(40); {
		case x < 4:
			p := []int64{9999, 10000, 999999, 1000000}[x]
			b.price = &p
		case x == 4:
			b.price = nil
		case x == 5:
			b.bidder = nil
		case x == 6 && rng.Intn(8) == 0:
			p := int64(1)<<62 + rng.Int63n(1<<40)
			b.price = &p
		}
		out[i] = b
	}
	for lo := 0; lo < len(out); lo += 1000 { // arrival order shuffled within blocks of 1,000 bids
		blk := out[lo:min(lo+1000, len(out))]
		rng.Shuffle(len(blk), func(i, j int) { blk[i], blk[j] = blk[j], blk[i] })
	}
	return out
}

// lateBids counts the bids that arrive late under a watermark delay ms
// behind the largest event time before them (SPEC 2.3): an unbounded GROUP
// BY still counts them (only windows have late rows, SPEC 2.4).
func lateBids(bids []nbid, delay int64) int {
	late, maxT := 0, int64(0)
	for i, b := range bids {
		if i > 0 && b.ms < maxT-delay {
			late++
		}
		if i == 0 || b.ms > maxT {
			maxT = b.ms
		}
	}
	return late
}

func writeBidFile(t *testing.T, dir string, bids []nbid) {
	t.Helper()
	var sb strings.Builder
	opt := func(p *int64) string {
		if p == nil {
			return ""
		}
		return fmt.Sprint(*p)
	}
	for _, b := range bids {
		fmt.Fprintf(&sb, "%d,%s,%s,%s,,%s,\n", b.auction, opt(b.bidder), opt(b.price), b.channel,
			time.UnixMilli(b.ms).UTC().Format("2006-01-02 15:04:05.000"))
	}
	if err := os.WriteFile(filepath.Join(dir, "bid.csv"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The reference: Nexmark's statistics reports (q15, q16, q17) computed over
// the whole bid list in plain Go, apart from the engine. Every FILTER
// condition on a NULL price is unknown (the row is not counted); COUNT(x)
// and COUNT(DISTINCT x) skip NULL x; MIN, MAX, AVG and SUM over no non-NULL
// price are NULL; SUM of BIGINT outside int64 is NULL; AVG is the exact sum
// over the count, rounded once to the nearest DOUBLE (SPEC 2.4). The day is
// the UTC date of the TIMESTAMP, the minute its HH:mm (Java's
// SimpleDateFormat letters, as Flink's DATE_FORMAT).

type rangeStats struct {
	bids              [4]int64 // total, rank 1, 2, 3
	bidders, auctions [4]map[int64]bool
	min, max          *int64
	sum               big.Int
	nonNull           int64
	minute            string
	auction           int64
	day, channel      string
}

// priceRanks returns which of the three ranges of q15 price p is in, as
// flags for ranks 1-3 (index 1-3); index 0, the total, is always set.
func priceRanks(p *int64) [4]bool {
	r := [4]bool{true, false, false, false}
	if p != nil {
		r[1] = *p < 10000
		r[2] = *p >= 10000 && *p < 1000000
		r[3] = *p >= 1000000
	}
	return r
}

func refStats(bids []nbid, key func(b nbid, day string) string) map[string]*rangeStats {
	groups := map[string]*rangeStats{}
	for _, b := range bids {
		tm := time.UnixMilli(b.ms).UTC()
		day := fmt.Sprintf("%04d-%02d-%02d", tm.Year(), int(tm.Month()), tm.Day())
		minute := fmt.Sprintf("%02d:%02d", tm.Hour(), tm.Minute())
		k := key(b, day)
		g := groups[k]
		if g == nil {
			g = &rangeStats{day: day, channel: b.channel, auction: b.auction}
			for i := range g.bidders {
				g.bidders[i], g.auctions[i] = map[int64]bool{}, map[int64]bool{}
			}
			groups[k] = g
		}
		if minute > g.minute {
			g.minute = minute
		}
		for i, in := range priceRanks(b.price) {
			if !in {
				continue
			}
			g.bids[i]++
			if b.bidder != nil {
				g.bidders[i][*b.bidder] = true
			}
			g.auctions[i][b.auction] = true
		}
		if p := b.price; p != nil {
			if g.min == nil || *p < *g.min {
				g.min = p
			}
			if g.max == nil || *p > *g.max {
				g.max = p
			}
			g.sum.Add(&g.sum, big.NewInt(*p))
			g.nonNull++
		}
	}
	return groups
}

// row prints a reference row as the changelog helper prints the engine's
// (fmt.Sprint of each value, NULL as <nil>, joined by |).
func refRow(vals ...any) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "|")
}

func (g *rangeStats) counts() []any {
	var v []any
	for i := range 4 {
		v = append(v, g.bids[i])
	}
	for i := range 4 {
		v = append(v, int64(len(g.bidders[i])))
	}
	for i := range 4 {
		v = append(v, int64(len(g.auctions[i])))
	}
	return v
}

func refQ15(bids []nbid) []string {
	var out []string
	for _, g := range refStats(bids, func(_ nbid, day string) string { return day }) {
		out = append(out, refRow(append([]any{g.day}, g.counts()...)...))
	}
	slices.Sort(out)
	return out
}

func refQ16(bids []nbid) []string {
	var out []string
	for _, g := range refStats(bids, func(b nbid, day string) string { return b.channel + "\x00" + day }) {
		out = append(out, refRow(append([]any{g.channel, g.day, g.minute}, g.counts()...)...))
	}
	slices.Sort(out)
	return out
}

func refQ17(bids []nbid) []string {
	var out []string
	for _, g := range refStats(bids, func(b nbid, day string) string { return fmt.Sprint(b.auction) + "\x00" + day }) {
		var mn, mx, avg, sum any
		if g.nonNull > 0 {
			mn, mx = *g.min, *g.max
			avg, _ = new(big.Rat).SetFrac(&g.sum, big.NewInt(g.nonNull)).Float64()
			if g.sum.IsInt64() {
				sum = g.sum.Int64()
			}
		}
		out = append(out, refRow(g.auction, g.day, g.bids[0], g.bids[1], g.bids[2], g.bids[3], mn, mx, avg, sum))
	}
	slices.Sort(out)
	return out
}

// TestNexmarkStatsAgainstReference: Nexmark q15, q16 and q17 (the files of
// queries/nexmark, COUNT(DISTINCT) and aggregate FILTER, SPEC 2.9; DATE_FORMAT,
// SPEC 2.10; AVG and SUM, SPEC 2.4) run through the library API, and the
// final table their output leaves (the changelog applied, SPEC 2.8) equals the
// reference above over the whole bid list: over the nexmark connector at
// several event counts and seeds, in order and with event times out of
// order by up to 6 s (late rows under the 4 s watermark, which an unbounded
// GROUP BY still counts), and over file data made from its bids (arrival
// shuffled, times over several days, range bounds, NULLs, sums beyond
// BIGINT); each in
// batch mode (the final rows at the end), in 'execution.runtime-mode' =
// 'streaming' (an update per bid) and with mini-batch on (updates folded per
// batch).
func TestNexmarkStatsAgainstReference(t *testing.T) {
	queries := map[string]func([]nbid) []string{"q15": refQ15, "q16": refQ16, "q17": refQ17}
	modes := []string{"", "SET 'execution.runtime-mode' = 'streaming';\n",
		"SET 'execution.runtime-mode' = 'streaming';\nSET 'table.exec.mini-batch.enabled' = 'true';\n"}
	if testing.Short() {
		modes = modes[:2]
	}
	starts := []time.Time{
		time.Date(2016, 2, 27, 21, 0, 0, 0, time.UTC),
		time.Date(2015, 12, 30, 23, 59, 0, 0, time.UTC),
		time.Date(1969, 12, 30, 22, 30, 0, 0, time.UTC),
		time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2020, 2, 28, 23, 0, 0, 0, time.UTC),
	}
	for ci, c := range []struct{ events, seed, group int }{{20000, 0, 1}, {3000, 1, 1}, {12000, 7, 1}, {40000, 3, 1}, {60000, 5, 60000}} {
		bids := generatedBids(t, c.events, c.seed, c.group)
		if len(bids) < c.events*8/10 {
			t.Fatalf("%d events, seed %d: %d bids", c.events, c.seed, len(bids))
		}
		if late := lateBids(bids, 4000); (late > 0) != (c.group > 1) {
			t.Fatalf("%d events, seed %d, out-of-order groups of %d: %d bids late under the 4 s watermark", c.events, c.seed, c.group, late)
		}
		rng := rand.New(rand.NewSource(int64(c.seed)))
		spread := spreadBids(rng, bids, starts[ci])
		if lateBids(spread, 4000) == 0 {
			t.Fatalf("%d events, seed %d: no bid of the file data is late", c.events, c.seed)
		}
		dir := t.TempDir()
		writeBidFile(t, dir, spread)
		fileDDL := "CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR," +
			" WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND) WITH ('connector' = 'file', 'path' = 'bid.csv', 'format' = 'csv');\n"
		for _, q := range []string{"q15", "q16", "q17"} {
			query := nexmarkStatsQuery(t, q)
			for _, in := range []struct {
				name, ddl string
				bids      []nbid
				golden    bool // the events of queries/tests/nexmark-events.sql
			}{
				{fmt.Sprintf("nexmark %d events seed %d", c.events, c.seed), nexmarkBidDDL(c.events, c.seed, c.group), bids, c.events == 20000 && c.seed == 0},
				{fmt.Sprintf("file data of %d events seed %d from %s", c.events, c.seed, starts[ci].Format(time.DateTime)), fileDDL, spread, false},
			} {
				want := queries[q](in.bids)
				for mi, mode := range modes {
					got := statsTable(t, dir, mode+in.ddl+query, mode != "")
					if !slices.Equal(got, want) {
						t.Errorf("%s, %s, mode %d: %d rows, the reference %d; first differences:\n%s", q, in.name, mi, len(got), len(want), firstDiffs(got, want, 4))
					}
				}
				if in.golden {
					// queries/tests/nexmark-qN's committed output is these 20,000 events'
					if got := goldenTable(t, q); !slices.Equal(got, want) {
						t.Errorf("%s: queries/tests/nexmark-%s/expected/main.csv has %d rows, the reference %d; first differences:\n%s", q, q, len(got), len(want), firstDiffs(got, want, 4))
					}
				}
			}
			// the file data pushed from Go into a 'go' stream (unbounded until
			// closed: updating; batches follow the pushes' timing)
			want := queries[q](spread)
			if got := pushedStatsTable(t, query, spread); !slices.Equal(got, want) {
				t.Errorf("%s, %d events seed %d pushed from Go: %d rows, the reference %d; first differences:\n%s", q, c.events, c.seed, len(got), len(want), firstDiffs(got, want, 4))
			}
		}
	}
}

// statsTable runs script over the files of dir and returns the table its
// main output leaves: its changelog applied when updating (streaming mode)
// holds, else its rows, each an insert (batch mode over bounded input).
func statsTable(t *testing.T, dir, script string, updating bool) []string {
	t.Helper()
	c := &changelog{t: t, rows: map[string]int{}, out: "main"}
	s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: func(out streamql.Output, rows *streamql.Rows) error {
		if out.Name == "main" && out.Updating != updating {
			return fmt.Errorf("output main: updating %v, want %v", out.Updating, updating)
		}
		out.Updating = true // (c.on checks that a changelog is marked so)
		return c.on(out, rows)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(context.Background(), script); err != nil {
		t.Fatal(err)
	}
	return c.final()
}

// pushedStatsTable runs query over a 'go' stream bid into which it pushes
// bids (NULL as nil), and returns the table its changelog leaves.
func pushedStatsTable(t *testing.T, query string, bids []nbid) []string {
	t.Helper()
	opt := func(p *int64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	rows := make([][]any, len(bids))
	for i, b := range bids {
		rows[i] = []any{b.auction, opt(b.bidder), opt(b.price), b.channel, "", time.UnixMilli(b.ms).UTC(), ""}
	}
	return pushedChangelogTo(t, "CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'go');",
		"bid", query, rows)
}

// goldenTable reads queries/tests/nexmark-q/expected/main.csv as the
// changelog helper prints rows: an empty field as <nil>, a number with a
// fraction or exponent as fmt.Sprint prints its float64.
func goldenTable(t *testing.T, q string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("queries", "tests", "nexmark-"+q, "expected", "main.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v", f.Name(), err)
	}
	var out []string
	for _, r := range recs[1:] {
		vals := make([]any, len(r))
		for i, v := range r {
			vals[i] = v
			if v == "" {
				vals[i] = nil
			} else if x, err := strconv.ParseFloat(v, 64); err == nil && strings.ContainsAny(v, ".eE") {
				vals[i] = x
			}
		}
		out = append(out, refRow(vals...))
	}
	slices.Sort(out)
	return out
}

// firstDiffs lists up to n rows of got not in want and of want not in got
// (both sorted).
func firstDiffs(got, want []string, n int) string {
	var sb strings.Builder
	extra, missing := 0, 0
	for i, j := 0, 0; i < len(got) || j < len(want); {
		switch {
		case j == len(want) || i < len(got) && got[i] < want[j]:
			if extra < n {
				fmt.Fprintf(&sb, "  engine only:    %s\n", got[i])
			}
			extra++
			i++
		case i == len(got) || want[j] < got[i]:
			if missing < n {
				fmt.Fprintf(&sb, "  reference only: %s\n", want[j])
			}
			missing++
			j++
		default:
			i++
			j++
		}
	}
	fmt.Fprintf(&sb, "  (%d rows only in the engine's table, %d only in the reference)", extra, missing)
	return sb.String()
}
