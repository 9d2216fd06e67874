package streamql_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql"
)

// timeReaders are the operators that read their input's rows as
// append-only rows in event-time order (SPEC 2.4, 2.9), each over the
// relation $R, with a '^' before the text the refusal of a relation whose
// rows are not that points at.
var timeReaders = []struct{ name, sql string }{
	{"TUMBLE", "SELECT window_start, COUNT(*) AS n FROM TABLE(^TUMBLE(TABLE $R, DESCRIPTOR(t), INTERVAL '10' SECOND)) GROUP BY window_start, window_end"},
	{"HOP", "SELECT window_start, COUNT(*) AS n FROM TABLE(^HOP(TABLE $R, DESCRIPTOR(t), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end"},
	{"CUMULATE", "SELECT window_end, COUNT(*) AS n FROM TABLE(^CUMULATE(TABLE $R, DESCRIPTOR(t), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) GROUP BY window_start, window_end"},
	{"SESSION", "SELECT window_start, COUNT(*) AS n FROM TABLE(^SESSION(TABLE $R PARTITION BY k, DESCRIPTOR(t), INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end"},
	{"OVER ROWS", "SELECT k, t, ^SUM(v) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS n FROM $R"},
	{"OVER RANGE", "SELECT k, t, ^COUNT(*) OVER (ORDER BY t RANGE BETWEEN INTERVAL '5' SECOND PRECEDING AND CURRENT ROW) AS n FROM $R"},
	{"DEDUP FIRST", "SELECT k, v, t FROM (SELECT *, ^ROW_NUMBER() OVER (PARTITION BY v ORDER BY t) AS rn FROM $R) WHERE rn = 1"},
	{"DEDUP FIRST, bound outside", "WITH w AS (SELECT *, ^ROW_NUMBER() OVER (PARTITION BY v ORDER BY t ASC) AS rn FROM $R) SELECT k, v, t FROM w WHERE rn = 1"},
}

// TestTimeReadersRefuseNonAppendOnly: a window TVF, an OVER aggregation or
// a deduplication keeping the first row (by event time: it emits a key's
// first row as the watermark passes it, late rows to the late output;
// issue 23 item 5) over a relation whose rows are not append-only rows in event-time order
// (SPEC 2.8; Flink's window aggregate and OverAggregate refuse update
// changes) is a planning error at the window function or the OVER call:
// a deduplication keeping the last row over a bounded file (its final rows
// come at the input's end in key order: before, the readers called rows
// late and left them out of their results), a filter or projection of one,
// an unbounded GROUP BY with a time column, and a Debezium stream (each
// change would be counted as a row: before, an OVER counted them; its
// window TVFs were refused already, now with the caret at the window
// function too; a deduplication took a -U as a row), and a ranking
// subquery in FROM (OVER and deduplication only: a window TVF reads a
// name). Over a
// deduplication keeping the first row, and over the stream through a
// filtering view, the same readers run and call no row late, their counts
// summing to a reference computed from the input.
func TestTimeReadersRefuseNonAppendOnly(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	var csv strings.Builder
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	firsts, positive := map[string]bool{}, 0
	firstVs, posVs := map[int]bool{}, map[int]bool{} // (the values of v of first_row's rows and pos's, for DEDUP FIRST)
	for i := range 200 {
		k := fmt.Sprintf("k%d", rng.Intn(12))
		v := rng.Intn(5) - 1
		fmt.Fprintf(&csv, "%s,%d,%s\n", k, v, base.Add(time.Duration(i*700)*time.Millisecond).Format("2006-01-02 15:04:05.000"))
		if !firsts[k] { // (rows come in time order: a key's first is its first in the file)
			firstVs[v] = true
		}
		firsts[k] = true
		if v > 0 {
			positive++
			posVs[v] = true
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cdc := `{"before":null,"after":{"k":"a","v":1,"t":"2024-03-01 00:00:01"},"op":"c"}` + "\n" +
		`{"before":{"k":"a","v":1,"t":"2024-03-01 00:00:01"},"after":{"k":"a","v":2,"t":"2024-03-01 00:00:02"},"op":"u"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(cdc), 0o644); err != nil {
		t.Fatal(err)
	}
	decl := `CREATE STREAM s (k VARCHAR, v INT, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND)
  WITH ('connector'='file', 'path'='s.csv', 'format'='csv');
CREATE STREAM c (k VARCHAR, v INT, t TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR t AS t)
  WITH ('connector'='file', 'path'='c.json', 'format'='debezium-json');
CREATE VIEW last_row AS SELECT k, v, t FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY t DESC) AS rn FROM s) WHERE rn = 1;
CREATE VIEW last_row_pos AS SELECT k, v, t FROM last_row WHERE v > 0;
CREATE VIEW first_row AS SELECT k, v, t FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY t) AS rn FROM s) WHERE rn = 1;
CREATE VIEW pos AS SELECT k, v, t FROM s WHERE v > 0;
`
	refused := []string{"last_row", "last_row_pos", "c",
		"(SELECT k, v, t FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY t DESC) AS rn FROM s) WHERE rn = 1)"}
	for _, rel := range refused {
		for _, r := range timeReaders {
			if strings.HasPrefix(rel, "(") && !strings.HasPrefix(r.name, "OVER") && !strings.HasPrefix(r.name, "DEDUP") {
				continue // (a window TVF reads TABLE name only, parser/window.go)
			}
			t.Run("refused/"+r.name+"/"+rel[:min(len(rel), 12)], func(t *testing.T) {
				s := open(t, streamql.Options{BaseDir: dir, OnRows: func(streamql.Output, *streamql.Rows) error { return nil }})
				ctx := context.Background()
				if err := s.Exec(ctx, decl); err != nil {
					t.Fatal(err)
				}
				q := strings.Replace(r.sql, "$R", rel, 1)
				col := strings.Index(q, "^") + 1
				q = strings.Replace(q, "^", "", 1)
				err := s.Exec(ctx, q)
				var e *streamql.Error
				if !errors.As(err, &e) || e.Kind != streamql.KindPlanning {
					t.Fatalf("%s: got %v, want a planning error", q, err)
				}
				msg := "reads append-only rows in event-time order"
				if rel == "c" && !strings.HasPrefix(r.name, "OVER") && !strings.HasPrefix(r.name, "DEDUP") {
					msg = "a window cannot consume its changes" // (an updating stream's window: rule_updating_source.go)
				}
				if !strings.Contains(e.Msg, msg) || e.Pos.Line != 1 || e.Pos.Column != col {
					t.Errorf("%s: got %q at %s, want the refusal at line 1, column %d", q, e.Msg, e.Pos, col)
				}
			})
		}
	}
	for _, c := range []struct {
		rel    string
		rows   int // rows of the relation
		values int // values of v among them
	}{{"first_row", len(firsts), len(firstVs)}, {"pos", positive, len(posVs)}} {
		for _, r := range timeReaders {
			t.Run("runs/"+r.name+"/"+c.rel, func(t *testing.T) {
				var lines []string
				s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&lines)})
				ctx := context.Background()
				if err := s.Exec(ctx, decl); err != nil {
					t.Fatal(err)
				}
				q := strings.Replace(strings.Replace(r.sql, "$R", c.rel, 1), "^", "", 1)
				if err := s.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				main := 0
				for _, l := range lines {
					if !strings.Contains(l, " main: ") {
						t.Errorf("%s: a row not of main: %s", q, l)
						continue
					}
					main++
				}
				switch r.name {
				case "OVER ROWS", "OVER RANGE": // (one row per input row)
					if main != c.rows {
						t.Errorf("%s: %d rows, want %d", q, main, c.rows)
					}
				case "DEDUP FIRST", "DEDUP FIRST, bound outside": // (one row per value of v in the relation)
					vs := map[string]bool{}
					for _, l := range lines {
						f := strings.Split(l[strings.Index(l, "main: ")+6:], ", ")
						vs[f[1]] = true
					}
					if want := c.values; main != len(vs) || main != want {
						t.Errorf("%s: %d rows (%d values of v), want %d", q, main, len(vs), want)
					}
				case "TUMBLE", "SESSION": // (every row in exactly one window: the counts sum to the rows)
					sum := 0
					for _, l := range lines {
						var n int
						fmt.Sscan(l[strings.LastIndex(l, ", ")+2:], &n)
						sum += n
					}
					if sum != c.rows {
						t.Errorf("%s: counts sum to %d, want %d", q, sum, c.rows)
					}
				}
			})
		}
	}
}
