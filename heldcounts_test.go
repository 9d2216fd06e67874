package streamql_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"streamql"
)

// TestHeldPathCountsAsProcess: the same probe input with malformed rows,
// run once on the event-time semi join's held path (its build stream
// unbounded: a followed file, heldScheduler.push, probeHold.release) and
// once on the plain path (the build a bounded file read whole first:
// process.batch), gives the same rows, the same errors rows, the same
// end-of-job malformed counts and the same rows read (EXPLAIN ANALYZE),
// under each 'errors' policy, with and without a LIMIT that cuts the
// input (SPEC 1: a malformed row after the LIMIT's last row is not read;
// 'fail' reads up to the failing row). Over random inputs of a few
// batches.
func TestHeldPathCountsAsProcess(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.csv"), []byte("k0,0\nk1,0\nk2,0\nsentinel,9000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`Scan l \(.*read ([0-9]+) rows?`)
	for seed := int64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var in strings.Builder
		good := 0
		for i := range 1500 + rng.Intn(3000) {
			switch rng.Intn(40) {
			case 0:
				in.WriteString("broken\n")
			case 1:
				fmt.Fprintf(&in, "k%d,x%d\n", rng.Intn(4), i)
			default:
				fmt.Fprintf(&in, "k%d,%d\n", rng.Intn(4), 1000+i) // (k3 has no partner)
				good++
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "l.csv"), []byte(in.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		policy := []string{"side", "skip", "fail"}[rng.Intn(3)]
		limit := ""
		if rng.Intn(2) == 0 {
			limit = fmt.Sprintf(" LIMIT %d", 1+rng.Intn(good/2))
		}
		run := func(build string) (rows []string, notices, analyze string) {
			var log strings.Builder
			s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&rows), Log: &log})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			ddl := "CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file','path'='l.csv','format'='csv','errors'='" + policy + "');\n" +
				"CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file','path'='r.csv','format'='csv'" + build + ");\n"
			q := "SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k" + limit + ";"
			err := s.Exec(ctx, ddl+q)
			if err != nil && policy != "fail" {
				t.Fatalf("seed %d: %v", seed, err)
			}
			notices = log.String()
			if err != nil {
				notices += "\n" + err.Error()
			}
			var an []string
			_ = s.Exec(ctx, "EXPLAIN ANALYZE "+q) // ('fail': the table comes before the error)
			for _, r := range rows {
				if m := read.FindStringSubmatch(r); m != nil {
					an = append(an, m[1])
				}
			}
			var out []string
			for _, r := range rows {
				if !strings.HasPrefix(r, "result") {
					out = append(out, r)
				}
			}
			return out, notices, strings.Join(an, " ")
		}
		heldRows, heldNotices, heldRead := run(", 'follow'='true'")
		rows, notices, readN := run("")
		if strings.Join(heldRows, "\n") != strings.Join(rows, "\n") {
			t.Errorf("seed %d (%s%s): rows differ: held path %d, plain path %d", seed, policy, limit, len(heldRows), len(rows))
		}
		if heldNotices != notices {
			t.Errorf("seed %d (%s%s): notices differ:\nheld path:\n%s\nplain path:\n%s", seed, policy, limit, heldNotices, notices)
		}
		if heldRead != readN || readN == "" {
			t.Errorf("seed %d (%s%s): rows read: held path %q, plain path %q", seed, policy, limit, heldRead, readN)
		}
	}
}
