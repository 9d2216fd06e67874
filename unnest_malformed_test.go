package streamql_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql"
)

// unnestMalformedInput draws malformed lines among n good rows (v = 1..n),
// each before good row v with probability 1/40, and returns, per malformed
// line, the good rows before it. Row v unnests into unnestMalformedElems(v)
// rows.
func unnestMalformedInput(rng *rand.Rand, n int) []int {
	var bad []int
	for v := 1; v <= n; v++ {
		for rng.Intn(40) == 0 {
			bad = append(bad, v-1)
		}
	}
	return bad
}

// unnestMalformedText writes the n good rows and the malformed lines bad.
func unnestMalformedText(n int, bad []int) string {
	var in strings.Builder
	for v := 1; v <= n; v++ {
		for len(bad) > 0 && bad[0] == v-1 {
			fmt.Fprintf(&in, "bad%d,x\n", v)
			bad = bad[1:]
		}
		fmt.Fprintf(&in, "k%d,%d\n", v%5, v)
	}
	return in.String()
}

// unnestMalformedArray gives 3 elements for v%3 = 0, 1 for v%3 = 1 and
// none (NULL) otherwise; unnestMalformedElems is its count, written apart.
const unnestMalformedArray = "CASE WHEN MOD(v, 3) = 0 THEN ARRAY[v, v, v] WHEN MOD(v, 3) = 1 THEN ARRAY[v] END"

func unnestMalformedElems(v int) int {
	switch v % 3 {
	case 0:
		return 3
	case 1:
		return 1
	}
	return 0
}

// TestUnnestMalformedRowsInPlace: CROSS JOIN UNNEST passes its input's
// malformed rows on before the first row unnested from the input row each
// came before, though the input rows' elements fill several batches (SPEC
// 1). With 'errors'='fail' the job gives the rows of the input rows before
// the first malformed one, no more, no fewer (before, the malformed row's
// index in the input batch was taken as one in the unnested rows, so the job
// stopped early); over stdin with a LIMIT, each malformed row is in the
// errors output of exactly one of the script's two statements: the first's
// when it comes before the last input row the LIMIT's rows came from, else
// the second's, which reads on after that row. The reference counts come
// from the input as written. 6 seeds, 3000 rows each (for 'fail' the
// malformed rows from row 400*seed on).
func TestUnnestMalformedRowsInPlace(t *testing.T) {
	const n = 3000
	dir := t.TempDir()
	ctx := context.Background()
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		bad := unnestMalformedInput(rng, n)
		if len(bad) == 0 {
			continue
		}
		in := unnestMalformedText(n, bad)
		late := bad // (for 'fail': from a later row on, its rows past a batch)
		for len(late) > 1 && late[0] < int(seed)*400 {
			late = late[1:]
		}
		rowsBefore := func(v int) int { // rows unnested from good rows 1..v
			c := 0
			for u := 1; u <= v; u++ {
				c += unnestMalformedElems(u)
			}
			return c
		}
		t.Run(fmt.Sprintf("fail/seed%d", seed), func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("in%d.csv", seed))
			if err := os.WriteFile(path, []byte(unnestMalformedText(n, late)), 0o644); err != nil {
				t.Fatal(err)
			}
			var lines []string
			s := open(t, streamql.Options{OnRows: collect(&lines)})
			err := s.Exec(ctx, "CREATE STREAM f (k VARCHAR, v BIGINT) WITH ('connector'='file','path'='"+path+"','format'='csv','errors'='fail');\n"+
				"SELECT k, e FROM f CROSS JOIN UNNEST("+unnestMalformedArray+") AS t (e);")
			if err == nil || !strings.Contains(err.Error(), "malformed") {
				t.Fatalf("want the first malformed row to fail the job, got %v", err)
			}
			if want := rowsBefore(late[0]); len(lines) != want {
				t.Errorf("rows before the first malformed row (after good row %d): got %d, want %d", late[0], len(lines), want)
			}
		})
		for _, limit := range []int{1 + rng.Intn(50), 1 + rng.Intn(3000)} {
			t.Run(fmt.Sprintf("stdin/seed%d/limit%d", seed, limit), func(t *testing.T) {
				used := 0 // the input row the LIMIT's last row came from
				for c := 0; c < limit && used < n; {
					used++
					c += unnestMalformedElems(used)
				}
				first := 0 // malformed rows before good row used
				for _, b := range bad {
					if b < used {
						first++
					}
				}
				var lines []string
				var log strings.Builder
				s := open(t, streamql.Options{OnRows: collect(&lines), Log: &log, Stdin: strings.NewReader(in)})
				var errs [2]int
				for job, q := range []string{
					"CREATE STREAM s (k VARCHAR, v BIGINT) WITH ('connector'='stdin','format'='csv');\n" +
						fmt.Sprintf("SELECT k, e FROM s CROSS JOIN UNNEST(%s) AS t (e) LIMIT %d;", unnestMalformedArray, limit),
					"SELECT 'rest' AS r, COUNT(*) AS n, MIN(v) AS lo FROM s;",
				} {
					lines = lines[:0]
					if err := s.Exec(ctx, q); err != nil {
						t.Fatal(err)
					}
					for _, l := range lines {
						if strings.Contains(l, "errors: ") {
							errs[job]++
						}
					}
				}
				if want := fmt.Sprintf(": rest, %d, %d", n-used, used+1); used < n && !strings.HasSuffix(lines[len(lines)-1], want) {
					t.Errorf("the rest of stdin: got %q, want it to end %q", lines[len(lines)-1], want)
				}
				if errs[0] != first || errs[1] != len(bad)-first {
					t.Errorf("malformed rows in the errors output of each statement: got %v, want [%d %d] (the LIMIT's rows from good rows 1..%d)\n%s", errs, first, len(bad)-first, used, log.String())
				}
			})
		}
	}
}
