package tests

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// TestWindowCombinations plans and runs random combinations of SPEC 2.4's
// clauses (select items, window functions, GROUP BY, HAVING, LIMIT, LATE INTO
// SIDE, side branches): each ends with status 0 or 2 (a planning error with a
// position), never a crash.
func TestWindowCombinations(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "e.csv")
	if err := os.WriteFile(data, []byte("a,1000,1.5\nb,2000,\nx,oops,1\na,9000,NaN\nb,15000,-0.0\na,4000,2.5\nc,30000,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ddl := "CREATE STREAM e (k VARCHAR, ts BIGINT, v DOUBLE, WATERMARK FOR ts AS ts - 1000) WITH ('connector'='file', 'path'='" + data + "');\n" +
		"CREATE STREAM f (k VARCHAR, ts BIGINT, v DOUBLE) WITH ('connector'='file', 'path'='" + data + "');\n"
	items := []string{"window_start", "window_end", "window_time", "k", "ts", "v", "COUNT(*)", "COUNT(v) AS c", "SUM(v)", "AVG(ts) AS a",
		"LISTAGG(k, '|')", "FIRST_VALUE(v)", "w.window_start", "UPPER(k) AS u", "COUNT(*) + 1 AS n1", "window_end - window_start AS len",
		"*", "MAX(k)", "STDDEV_SAMP(v)", "COUNT(DISTINCT k) AS d", "CAST(window_start AS VARCHAR) AS s", "1 AS one", "NULL AS z"}
	froms := []string{
		"FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '10' SECOND)) AS w",
		"FROM TABLE(HOP(TABLE e, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) w",
		"FROM TABLE(CUMULATE(TABLE e, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND, INTERVAL '1' SECOND)) w",
		"FROM TABLE(SESSION(TABLE e PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) w",
		"FROM TABLE(TUMBLE(TABLE f, DESCRIPTOR(ts), INTERVAL '10' SECOND)) w",
		"FROM e w", "FROM f w",
	}
	groups := []string{"", " GROUP BY window_start, window_end", " GROUP BY window_start, window_end, k", " GROUP BY k, window_start, window_end",
		" GROUP BY k", " GROUP BY UPPER(k)", " GROUP BY window_start, window_end, window_time, k, v"}
	havings := []string{"", " HAVING COUNT(*) > 1", " HAVING n1 > 2", " HAVING k <> 'a'", " HAVING MAX(v) > 1"}
	tails := []string{"", " LIMIT 2", " LATE INTO SIDE 'lt'", " LIMIT 1 LATE INTO SIDE 'lt'"}
	sides := []string{"", "SELECT k INTO SIDE 'ks' FROM e WHERE k = 'b';\n", "SELECT COUNT(*) AS n INTO SIDE 'cnt' FROM e WHERE v > 1;\n",
		"SELECT k, ts, v INTO SIDE 'late' FROM e WHERE ts < CURRENT_WATERMARK(ts);\n"}
	rng := rand.New(rand.NewSource(7))
	n := 1500
	if testing.Short() {
		n = 300
	}
	codes := map[int]int{}
	for it := 0; it < n; it++ {
		var sel []string
		for k := 1 + rng.Intn(4); k > 0; k-- {
			sel = append(sel, items[rng.Intn(len(items))])
		}
		from := froms[rng.Intn(len(froms))]
		q := sides[rng.Intn(len(sides))] + "SELECT " + strings.Join(sel, ", ") + " " + from + groups[rng.Intn(len(groups))] + havings[rng.Intn(len(havings))] + tails[rng.Intn(len(tails))] + ";"
		var out, errb bytes.Buffer
		code := func() (code int) {
			defer func() {
				if v := recover(); v != nil {
					t.Fatalf("panic %v on:\n%s", v, q)
				}
			}()
			return cli.Run(context.Background(), []string{"--format", "csv", "-e", ddl + q}, strings.NewReader(""), &out, &errb)
		}()
		codes[code]++
		if code != 0 && code != 2 || code == 2 && !strings.Contains(errb.String(), "line ") {
			t.Fatalf("exit %d on:\n%s\nstderr: %s", code, q, errb.String())
		}
	}
	if codes[0] < n/20 || codes[2] < n/20 {
		t.Errorf("too one-sided a mix: %v", codes)
	}
}
