package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestTopNChangelogAgainstReference: an updating Top-N (SPEC 2.9, over an
// input read as a stream: 'execution.runtime-mode' = 'streaming') prints a
// changelog (SPEC 2.8, csv's op column) whose application gives, for random
// inputs and N, with and without the rank column, each key's N largest
// values ranked as a separately written batch reference ranks them (sort
// each key's rows by value descending, ties by arrival order).
func TestTopNChangelogAgainstReference(t *testing.T) {
	for seed := range 8 {
		r := rand.New(rand.NewPCG(uint64(seed), 17))
		type row struct {
			k string
			x int
		}
		var rows []row
		var in strings.Builder
		for range 1 + r.IntN(80) {
			x := row{fmt.Sprintf("k%d", r.IntN(4)), r.IntN(30)}
			rows = append(rows, x)
			fmt.Fprintf(&in, "%s,%d\n", x.k, x.x)
		}
		n := 1 + r.IntN(3)
		withRank := seed%2 == 0
		// the reference: rank each key's rows over the whole input
		byKey := map[string][]row{}
		for _, x := range rows {
			byKey[x.k] = append(byKey[x.k], x)
		}
		var want []string
		for _, rs := range byKey {
			sort.SliceStable(rs, func(i, j int) bool { return rs[i].x > rs[j].x })
			for i := 0; i < len(rs) && i < n; i++ {
				line := fmt.Sprintf("%s,%d", rs[i].k, rs[i].x)
				if withRank {
					line += fmt.Sprintf(",%d", i+1)
				}
				want = append(want, line)
			}
		}
		slices.Sort(want)
		cols := "k, x"
		if withRank {
			cols += ", rn"
		}
		sql := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
			"SET 'execution.runtime-mode' = 'streaming';\n" +
			fmt.Sprintf("SELECT %s FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM s) WHERE rn <= %d;\n", cols, n)
		out, errs, code := runSQL(t, map[string]string{"s.csv": in.String()}, sql, "--format", "csv")
		if code != 0 {
			t.Fatalf("seed %d: exit %d: %s", seed, code, errs)
		}
		got := applyChangelog(t, out)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d (N %d, rank column %v): the changelog applied gives\n%s\nwant\n%s\nchangelog:\n%s", seed, n, withRank, strings.Join(got, "\n"), strings.Join(want, "\n"), out)
		}
	}
}

// TestDedupLastChangelogAsFlink: deduplication keeping the last row
// (ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC), rn = 1, ts the
// event time; SPEC 2.9) prints Flink's deduplication changelog (SPEC 2.8;
// Flink's DeduplicateFunctionHelper.updateDeduplicateResult): +I for a key's
// first row, then -U of the row it held and +U of the new one, never -D;
// applying it gives, for random inputs, each key's row of the largest ts
// (equal ts: the later row), as a separately written batch reference picks
// it.
func TestDedupLastChangelogAsFlink(t *testing.T) {
	for seed := range 6 {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		last, lastTs := map[string]string{}, map[string]int{}
		var in strings.Builder
		for id := range 1 + r.IntN(80) {
			k, ts := fmt.Sprintf("k%d", r.IntN(4)), r.IntN(40)
			line := fmt.Sprintf("%s,%d,%d", k, ts, id)
			fmt.Fprintln(&in, line)
			if prev, ok := lastTs[k]; !ok || ts >= prev {
				last[k], lastTs[k] = line, ts
			}
		}
		var want []string
		for _, line := range last {
			want = append(want, line)
		}
		slices.Sort(want)
		sql := "CREATE STREAM s (k VARCHAR, ts BIGINT, id BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
			"SET 'execution.runtime-mode' = 'streaming';\n" +
			"SELECT k, ts, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM s) WHERE rn = 1;\n"
		out, errs, code := runSQL(t, map[string]string{"s.csv": in.String()}, sql, "--format", "csv")
		if code != 0 {
			t.Fatalf("seed %d: exit %d: %s", seed, code, errs)
		}
		if got := applyChangelog(t, out); !slices.Equal(got, want) {
			t.Fatalf("seed %d: the changelog applied gives\n%s\nwant\n%s\nchangelog:\n%s", seed, strings.Join(got, "\n"), strings.Join(want, "\n"), out)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")[1:]
		held := map[string]bool{}
		for j := 0; j < len(lines); j++ {
			f := strings.SplitN(lines[j], ",", 3)
			switch {
			case f[0] == "+I" && !held[f[1]]:
				held[f[1]] = true
			case f[0] == "-U" && held[f[1]] && j+1 < len(lines) && strings.HasPrefix(lines[j+1], "+U,"+f[1]+","):
				j++
			default:
				t.Fatalf("seed %d: change %q (line %d): want +I for a key's first row, else -U then +U of its key\n%s", seed, lines[j], j, out)
			}
		}
	}
}
