package tests

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// TestJoinStdinLateRowsCutByLimit: a join that reads stdin and ends at its
// LIMIT hands back the rows after the last one its output used, and the
// script's next statement reads them (SPEC 1: stdin shared by the
// statements; SPEC 2.2: the rest of the input is not read, the side
// outputs hold what was routed until the cut). A late row of stdin (SPEC
// 2.7) is either the joining statement's, sent to its late output and
// counted by its notice, or after the cut, read by the next statement:
// never both (it was sent to late-o and read again), never neither, never
// counted unsent. A late row sent is the statement's, so the cut hands
// back only the rows after it.
// Every join kind over stdin is run (interval, stdin the left or the right
// input, LEFT, window join of TVFs, a join in a subquery, the lookup of
// stdin against a file), at random inputs and LIMITs; the next statement
// must read an unbroken tail of stdin.
func TestJoinStdinLateRowsCutByLimit(t *testing.T) {
	dir := t.TempDir()
	var p strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&p, "%d,k%d,%d,n%d\n", i, i%3, 1000+i*500, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.csv"), []byte(p.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const ddl = `CREATE STREAM o (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='stdin', 'format'='csv');
CREATE STREAM p (id BIGINT, k VARCHAR, ts BIGINT, note VARCHAR, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
`
	const bounds = ` AND o.ts BETWEEN p.ts - INTERVAL '1' SECOND AND p.ts + INTERVAL '1' SECOND`
	shapes := []struct{ what, query string }{
		{"interval join, stdin left", `SELECT o.id, p.note FROM o JOIN p ON o.k = p.k` + bounds},
		{"interval join, stdin right", `SELECT o.id, p.note FROM p JOIN o ON o.k = p.k` + bounds},
		{"LEFT interval join", `SELECT o.id, p.note FROM o LEFT JOIN p ON o.k = p.k` + bounds},
		{"window join of TVFs", `SELECT l.id, r.note FROM (SELECT * FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '2' SECOND))) l JOIN (SELECT * FROM TABLE(TUMBLE(TABLE p, DESCRIPTOR(ts), INTERVAL '2' SECOND))) r ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end`},
		{"an interval join in a subquery", `SELECT * FROM (SELECT o.id, p.note FROM o JOIN p ON o.k = p.k` + bounds + `) q`},
	}
	lateLine := regexp.MustCompile(`(?m)^(late[^>\s]*)> (\d+),k\d,-?\d+(,-?\d+)*$`) // (o's rows, a window TVF's with its columns; not p's, with its note)
	notice := regexp.MustCompile(`(?m)^(\d+) late row\(s\) of the query .* sent to '([^']+)'$`)
	rng := rand.New(rand.NewSource(5))
	for round := 0; round < 6; round++ {
		var in strings.Builder
		n := 20 + rng.Intn(60)
		ts := 1000
		late := map[int]bool{}
		for i := 0; i < n; i++ {
			t := ts
			if i > 0 && rng.Intn(4) == 0 { // (the first row sets the watermark)
				late[i] = true
				t -= 3000 + rng.Intn(4000) // late: below the watermark
			} else {
				ts += rng.Intn(900)
				t = ts
			}
			fmt.Fprintf(&in, "%d,k%d,%d\n", i, rng.Intn(3), t)
		}
		for _, sh := range shapes {
			for _, limit := range []int{1, 2, 5, 1 + rng.Intn(12)} {
				what := fmt.Sprintf("round %d, %s LIMIT %d", round, sh.what, limit)
				stdout, stderr, code := runStdinCSV(t, dir, fmt.Sprintf("%s%s LIMIT %d;\nSELECT id FROM o;\n", ddl, sh.query, limit), in.String())
				if code != 0 {
					t.Fatalf("%s: exit %d, stderr:\n%s", what, code, stderr)
				}
				// the next statement's rows: after its header "id"
				parts := strings.SplitN(stdout, "\nid\n", 2)
				if len(parts) != 2 {
					parts = strings.SplitN(stdout, "id\n", 2) // (the first statement printed nothing)
				}
				var next []int
				for _, l := range strings.Fields(parts[len(parts)-1]) {
					v, err := strconv.Atoi(l)
					if err != nil {
						t.Fatalf("%s: stdout:\n%s", what, stdout)
					}
					next = append(next, v)
				}
				for i, v := range next { // an unbroken tail of stdin
					if v != n-len(next)+i {
						t.Fatalf("%s: the next statement read %v, not the rows after a cut (of 0..%d)", what, next, n-1)
					}
				}
				read := map[int]bool{}
				for _, v := range next {
					read[v] = true
				}
				sent, printed := map[int]bool{}, map[string]int{}
				for _, m := range lateLine.FindAllStringSubmatch(stderr, -1) {
					v, _ := strconv.Atoi(m[2])
					sent[v] = true
					printed[m[1]]++
					if read[v] {
						t.Errorf("%s: late row %d went to %s and the next statement read it again; stderr:\n%s", what, v, m[1], stderr)
					}
				}
				for v := range late { // each late row: the joining statement's, or the next one's
					if !sent[v] && !read[v] {
						t.Errorf("%s: late row %d is neither in a late output nor read by the next statement (%v); stderr:\n%s", what, v, next, stderr)
					}
				}
				counted := map[string]int{}
				for _, m := range notice.FindAllStringSubmatch(stderr, -1) {
					c, _ := strconv.Atoi(m[1])
					counted[m[2]] += c
				}
				if fmt.Sprint(counted) != fmt.Sprint(printed) {
					t.Errorf("%s: late rows of o printed per output %v, counted %v; stderr:\n%s", what, printed, counted, stderr)
				}
			}
		}
	}
}

// runStdinCSV runs sql, written as dir/q.sql, with --format csv and stdin
// as its standard input; it returns stdout, stderr and the exit status.
func runStdinCSV(t *testing.T, dir, sql, stdin string) (string, string, int) {
	t.Helper()
	script := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"--format", "csv", "-f", script}, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}
