package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEventTimeJoinMalformedRowsOfEveryInput: the malformed rows of every
// input of an event-time semi or anti join (SPEC 2.2: the probe stream's,
// held among its rows by the join's hold, and the build side's, read by
// its own reader and emitted by the hold after its next release) reach
// the errors output they share once each, in their input's order, and
// each stream's count on stderr is its own. Random probe and build files
// of good and malformed lines spanning several batches, under 'side' or
// 'skip' on each input; the build side follows its file (unbounded, so
// the event-time strategy runs) and its last row's watermark passes every
// probe row. The reference reads the lines: the probe rows whose key a
// build row has (SEMI) or has not (ANTI), in order.
func TestEventTimeJoinMalformedRowsOfEveryInput(t *testing.T) {
	for seed := range 6 {
		r := rand.New(rand.NewSource(int64(seed)))
		policy := [2]string{[]string{"side", "skip"}[r.Intn(2)], []string{"side", "skip"}[r.Intn(2)]}
		anti := seed%2 == 1
		var probe, build strings.Builder
		var wantBad [2][]string // each input's malformed lines, as the errors output's raw column
		// gen writes n lines to w: about one in every badEvery malformed
		// (its errors output row's stream, position and raw columns into
		// *bad), the others good(i)
		gen := func(w *strings.Builder, bad *[]string, stream string, n, badEvery int, good func(i int) string) {
			for i := range n {
				if r.Intn(badEvery) == 0 {
					fmt.Fprintf(w, "bad%s%d\n", stream, i)
					*bad = append(*bad, fmt.Sprintf("%s,%s.csv:%d,bad%s%d,", stream, stream, i+1, stream, i))
					continue
				}
				w.WriteString(good(i) + "\n")
			}
		}
		keys := map[string]bool{}
		nb := 1 + r.Intn(2500)
		gen(&build, &wantBad[1], "r", nb, 20, func(i int) string {
			k := fmt.Sprintf("k%d", r.Intn(40))
			keys[k] = true
			return fmt.Sprintf("%s,%d", k, i+1) // (before every probe row's time: no build row is late)
		})
		fmt.Fprintf(&build, "zz,%d\n", 1_000_000_000) // its watermark passes every probe row
		var want []string
		np := 1 + r.Intn(3000)
		gen(&probe, &wantBad[0], "l", np, 25, func(i int) string {
			row := fmt.Sprintf("k%d,%d", r.Intn(60), 10_000+i)
			if keys[row[:strings.IndexByte(row, ',')]] != anti {
				want = append(want, row)
			}
			return row
		})
		join := "SEMI"
		if anti {
			join = "ANTI"
		}
		sql := fmt.Sprintf(`CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'follow'='true', 'errors'='%s');
CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv', 'errors'='%s');
SELECT l.* FROM l %s JOIN r ON l.k = r.k;
`, policy[1], policy[0], join)
		side := t.TempDir()
		out, errs, code := runSQL(t, map[string]string{"l.csv": probe.String(), "r.csv": build.String()}, sql, "--format", "csv", "--side-dir", side)
		name := fmt.Sprintf("seed %d (%s, probe %s, build %s, %d probe and %d build lines)", seed, join, policy[0], policy[1], np, nb+1)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", name, code, errs)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")[1:]
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d rows, want %d\ngot  %.300q\nwant %.300q", name, len(got), len(want), got, want)
		}
		var gotBad [2][]string
		if text, err := os.ReadFile(filepath.Join(side, "errors.csv")); err == nil {
			for _, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")[1:] {
				s := 0
				if strings.HasPrefix(line, "r,") {
					s = 1
				}
				if i := strings.Index(line, ",\""); i >= 0 { // (the reason, quoted: its text is the decoder's)
					line = line[:i+1]
				} else if i := strings.LastIndex(line, ","); i >= 0 {
					line = line[:i+1]
				}
				gotBad[s] = append(gotBad[s], line)
			}
		}
		for s, stream := range []string{"l", "r"} {
			w := wantBad[s]
			if policy[s] == "skip" {
				w = nil
			}
			if !slices.Equal(gotBad[s], w) {
				t.Errorf("%s: stream %s's rows in the errors output\n%q\nwant (once each, in its order)\n%q", name, stream, gotBad[s], w)
			}
			count := fmt.Sprintf("stream %s: %d malformed row(s)", stream, len(wantBad[s]))
			if len(wantBad[s]) > 0 && !strings.Contains(errs, count) {
				t.Errorf("%s: stderr %q does not say %q", name, errs, count)
			}
		}
	}
}
