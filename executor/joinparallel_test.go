package executor_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"streamql/executor"
)

// The parallel join inputs' property (plan.ParallelJoinInputs,
// joinsource.go): on random files and random joins of two streams, a lookup
// join whose inputs are decoded in parallel chunks (GOMAXPROCS=2 to 4, chunks of a
// few hundred bytes, so that a file makes dozens) writes every output byte
// for byte as the sequential path (GOMAXPROCS=1): the joined rows in their
// order, each late output, each input's errors output with the malformed
// rows' positions, the summary and the exit status (SPEC 2.7's determinism,
// SPEC 1's positions). Each output has its own file (--side-dir) and each
// input its own errors output: how the lines of two inputs interleave in one
// stream follows the batches each input was read in (a batch's malformed
// rows are written before its late rows, and the join reads its inputs batch
// by batch), which the sequential decoder cuts where its read buffer ends
// and the parallel one where its chunks do; each input's own lines are in
// its order either way. A job with an input whose 'errors' is 'fail' runs
// sequentially (plan.Job.JoinInputsSplittable), and so does every join but a
// lookup join (planner.ChooseStrategy).

// randomJoinFile returns a csv (or json lines) file of rows id BIGINT, k
// VARCHAR, ts BIGINT: times mostly rising, one row in 12 going back up to 3 s
// (late for a 1-second watermark delay), one in 9 ahead by up to an hour
// (against 'watermark.max-future'), with malformed rows, NULL keys, empty
// lines, CRLF line ends, quoted keys spanning lines (csv) and a header line
// when header.
func randomJoinFile(r *rand.Rand, json, header bool) string {
	var sb strings.Builder
	if header && !json {
		sb.WriteString("id,k,ts\n")
	}
	keys := []string{"a", "b", "c", "ab", "ζeta", "a,b", "x\"y", "line\nbreak"}
	var ts int64
	rows := 150 + r.IntN(1200)
	for i := range rows {
		end := "\n"
		if r.IntN(9) == 0 {
			end = "\r\n"
		}
		ts += int64(r.IntN(400))
		t := ts
		switch r.IntN(12) {
		case 0:
			t -= int64(r.IntN(3000))
		case 1:
			if r.IntN(9) == 0 {
				t += int64(r.IntN(3_600_000))
			}
		}
		k := keys[r.IntN(len(keys))]
		tsText := fmt.Sprint(t)
		switch r.IntN(40) {
		case 0:
			tsText = "soon" // not a BIGINT: malformed
		case 1:
			sb.WriteString(end) // an empty line
		}
		if json {
			switch {
			case r.IntN(50) == 0:
				fmt.Fprintf(&sb, "{broken %d%s", i, end)
			case r.IntN(25) == 0:
				fmt.Fprintf(&sb, "{\"id\":%d,\"ts\":%s}%s", i, tsText, end) // k missing: NULL
			case tsText == "soon":
				fmt.Fprintf(&sb, "{\"id\":%d,\"k\":%q,\"ts\":\"soon\"}%s", i, k, end)
			default:
				fmt.Fprintf(&sb, "{\"id\":%d,\"k\":%q,\"ts\":%s}%s", i, k, tsText, end)
			}
			continue
		}
		if r.IntN(30) == 0 {
			fmt.Fprintf(&sb, "%d,%s%s", i, k, end) // a field missing: malformed
			continue
		}
		if strings.ContainsAny(k, ",\"\n") {
			k = "\"" + strings.ReplaceAll(k, "\"", "\"\"") + "\""
		}
		if r.IntN(25) == 0 {
			k = "" // NULL
		}
		fmt.Fprintf(&sb, "%d,%s,%s%s", i, k, tsText, end)
	}
	return sb.String()
}

// joinQueries are the joins of the random cases: interval joins of every
// type, lookup joins, a regular join and a temporal one (each kind of
// plan.BothJoin), with computed keys and residual terms.
var joinQueries = []string{
	"SELECT o.id, o.k, p.id AS pid, p.ts FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - INTERVAL '1' SECOND AND o.ts + INTERVAL '2' SECOND",
	"SELECT o.id, p.id AS pid FROM o LEFT JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + 1500",
	"SELECT o.id, p.id AS pid, p.k FROM o RIGHT JOIN p ON o.k = p.k AND o.ts BETWEEN p.ts - 800 AND p.ts + 300",
	"SELECT o.id, o.ts, p.id AS pid FROM o FULL JOIN p ON UPPER(o.k) = UPPER(p.k) AND p.ts BETWEEN o.ts - 500 AND o.ts + 500 AND p.id > o.id",
	"SELECT o.id, o.k, u.id AS uid FROM o JOIN u ON o.k = u.k",
	"SELECT o.id, u.id AS uid, u.ts FROM o LEFT JOIN u ON o.k = u.k AND u.id % 3 = o.id % 3",
	"SELECT o.id, u.id AS uid FROM o, u WHERE o.k = u.k AND o.id < u.id",
	"SELECT o.id, v.id AS vid FROM o JOIN v FOR SYSTEM_TIME AS OF o.ts ON o.k = v.k",
}

// randomJoinCase returns the random join job of seed: its files o, p
// (streams o and p, with watermarks; u, the same file as p without one,
// the lookup side; v, the same with a PRIMARY KEY, the temporal side), a
// query of joinQueries, its late outputs named or not, and the errors
// policy and 'watermark.max-future' of each input at random.
func randomJoinCase(seed uint64) morselCase {
	r := rand.New(rand.NewPCG(seed, 23))
	c := morselCase{seed: seed, format: morselFormats[r.IntN(len(morselFormats))], sideDir: true,
		chunk: int64(64 + r.IntN(1500)), files: map[string]string{}}
	var sb strings.Builder
	for _, name := range []string{"o", "p"} {
		opts := randomJoinInput(r, &c, name)
		if r.IntN(4) == 0 {
			opts += ", 'watermark.max-future'='20 s'"
		}
		wm := ", WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
		fmt.Fprintf(&sb, "CREATE STREAM %s (id BIGINT, k VARCHAR, ts BIGINT%s) WITH (%s);\n", name, wm, opts)
		if name == "p" {
			fmt.Fprintf(&sb, "CREATE STREAM u (id BIGINT, k VARCHAR, ts BIGINT) WITH (%s);\n", strings.Replace(opts, ", 'watermark.max-future'='20 s'", "", 1))
			fmt.Fprintf(&sb, "CREATE STREAM v (id BIGINT, k VARCHAR, ts BIGINT%s, PRIMARY KEY (k) NOT ENFORCED) WITH (%s);\n", wm, opts)
		}
	}
	q := joinQueries[r.IntN(len(joinQueries))]
	if r.IntN(2) == 0 {
		q += " LATE INTO SIDE 'late-o', 'late-other'"
	}
	sb.WriteString(q + ";\n")
	c.script = sb.String()
	return c
}

// randomJoinInput adds input name's random file to c's files (csv or json
// lines, a header or not: randomJoinFile) and returns its stream's WITH
// options: its errors policy at random (randomFileOpts), its errors output
// named after it.
func randomJoinInput(r *rand.Rand, c *morselCase, name string) string {
	json := r.IntN(4) == 0
	header := !json && r.IntN(3) == 0
	ext := "csv"
	if json {
		ext = "json"
	}
	file := name + "." + ext
	c.files[file] = randomJoinFile(r, json, header)
	opts := strings.Replace(randomFileOpts(r, ext, header), "in."+ext, file, 1)
	switch {
	case strings.Contains(opts, "'errors.side'"):
		opts = strings.Replace(opts, "'bad'", "'bad-"+name+"'", 1)
	case !strings.Contains(opts, "'errors'"):
		opts += ", 'errors.side'='errors-" + name + "'"
	}
	return opts
}

// isLookupCase reports whether c's query is a lookup join (its right side
// u, a bounded stream without a watermark: joinQueries).
func isLookupCase(c morselCase) bool { return strings.Contains(c.script, "u.id") }

// TestParallelJoinInputsMatchSequential is the property above, on 80 random
// jobs (the seed of a failing one is in its name: go test -run
// 'TestParallelJoinInputsMatchSequential/seed=N').
func TestParallelJoinInputsMatchSequential(t *testing.T) {
	n := 80
	if testing.Short() {
		n = 20
	}
	parallel := 0
	for seed := range uint64(n) {
		c := randomJoinCase(seed)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			before := executor.JoinParallelInputs()
			want, _ := runMorselCase(t, c, 1, 0)
			if executor.JoinParallelInputs() != before {
				t.Fatal("a join input was read in parallel with GOMAXPROCS=1")
			}
			procs := 2 + int(seed%3) // 2, 3 or 4 workers an input
			got, _ := runMorselCase(t, c, procs, c.chunk)
			if executor.JoinParallelInputs() > before {
				parallel++
			}
			switch {
			case strings.Contains(c.script, "'fail'"):
				if executor.JoinParallelInputs() != before {
					t.Fatal("a join with an input whose 'errors' is 'fail' read an input in parallel")
				}
			case !isLookupCase(c):
				if executor.JoinParallelInputs() != before {
					t.Fatal("a join other than a lookup join read an input in parallel")
				}
			case executor.JoinParallelInputs() == before:
				t.Fatal("no input of the lookup join was read in parallel")
			}
			if got != want {
				t.Fatalf("%s\nformat %s, chunks of %d bytes, GOMAXPROCS=%d: %s", c.script, c.format, c.chunk, procs, lineDiff(got, want))
			}
			if !strings.Contains(want, "exit 0") && !strings.Contains(want, "exit 1") {
				t.Fatalf("%s\nexit status neither 0 nor 1 (an error before the job started?):\n%s", c.script, want)
			}
		})
	}
	if parallel < n/8 {
		t.Fatalf("only %d of %d jobs read an input in parallel", parallel, n)
	}
}

// joinMallocs runs the lookup join of two streams of rows sensor rows
// each (sensorbench.CSV, the file read twice, on its time, which no two
// rows share) with GOMAXPROCS=2 and chunks of
// chunk bytes, and returns the heap allocations of the run; it fails unless
// both inputs were read in parallel, or, with a chunk larger than the file,
// neither was.
func joinMallocs(t *testing.T, rows int, chunk int64) uint64 {
	t.Helper()
	before := executor.JoinParallelInputs()
	m := scriptMallocsChunk(t, `CREATE STREAM a (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE STREAM b (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
SELECT a.deviceNo, a.ts, b.temperature FROM a JOIN b ON a.ts = b.ts;
`, rows, chunk)
	want := int64(2)
	if chunk > 1<<30 {
		want = 0
	}
	if got := executor.JoinParallelInputs() - before; got != want {
		t.Fatalf("%d of the join's 2 inputs were read in parallel, want %d", got, want)
	}
	return m
}

// TestParallelJoinInputsSteadyStateAllocs: decoding a join's inputs in
// parallel chunks allocates nothing per row, nor per chunk, in steady state
// (issue 23: zero allocations per row for append-only joins): from 40,000
// rows to 160,000 (and 4 times the chunks of 16 KiB), its allocations grow
// no more than the sequential path's (the join's own state and output
// queue, grown by doubling) and a small constant.
func TestParallelJoinInputsSteadyStateAllocs(t *testing.T) {
	seqSmall, seqBig := joinMallocs(t, 40_000, 1<<40), joinMallocs(t, 160_000, 1<<40)
	small, big := joinMallocs(t, 40_000, 16<<10), joinMallocs(t, 160_000, 16<<10)
	t.Logf("allocations: parallel %d for 40,000 rows, %d for 160,000; sequential %d and %d", small, big, seqSmall, seqBig)
	grew, seqGrew := int64(big)-int64(small), int64(seqBig)-int64(seqSmall) // (signed, as steadyAllocs)
	if grew > seqGrew+100 {
		t.Fatalf("parallel: %d allocations for 40,000 rows, %d for 160,000; sequential %d and %d: %.4f more per extra row",
			small, big, seqSmall, seqBig, float64(grew-seqGrew)/120_000)
	}
}

// TestParallelJoinInputsLiveProbe: a lookup join whose probe side is live
// (stdin here; a Kafka topic alike: neither declares parallel decoding, catalog.CapParallelDecode)
// and whose build side is a bounded file takes ParallelJoinInputs
// (EXPLAIN: "parallel join inputs, 2 workers per input file"), and the
// executor does read that file in chunks: one input in parallel, the file,
// while the live side is read as it arrives.
func TestParallelJoinInputsLiveProbe(t *testing.T) {
	before := executor.JoinParallelInputs()
	scriptMallocsChunk(t, `CREATE STREAM a (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='stdin', 'format'='csv');
CREATE STREAM b (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
SELECT a.deviceNo, a.ts, b.temperature FROM a JOIN b ON a.ts = b.ts;
`, 40_000, 16<<10)
	if got := executor.JoinParallelInputs() - before; got != 1 {
		t.Fatalf("%d of the join's inputs were read in parallel, want 1 (the bounded file b)", got)
	}
}
