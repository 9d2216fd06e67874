package streamql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql"
)

// TestEmptyIntervalWarns: a join whose time bounds leave no interval (a
// lower bound above the upper one, SPEC 2.7) matches no pair; it plans
// and runs as Flink's interval join with a negative window size does (no
// row joined, an outer join's rows padded) with a warning that names the
// condition and points at it, once per statement, when the query runs
// and in EXPLAIN. For every way of writing the bounds: BETWEEN either way
// round, two comparisons, strict ones that leave no millisecond, bounds
// that contradict each other, a comma join's WHERE; for INNER, LEFT,
// RIGHT and FULL. Bounds that leave an interval warn nothing.
func TestEmptyIntervalWarns(t *testing.T) {
	dir := t.TempDir()
	var data strings.Builder
	for i := range 12 { // in time order: no row is late
		fmt.Fprintf(&data, "k%d,%d\n", i%3, 1000*i)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const ddl = "CREATE STREAM s (k VARCHAR, t BIGINT, WATERMARK FOR t AS t) WITH ('connector'='file','path'='s.csv','format'='csv');\n"
	for _, c := range []struct {
		from  string // ⟦⟧ marks where the warning points
		empty bool
	}{
		{"s a JOIN s b ON a.k = b.k AND ⟦b.t BETWEEN a.t + INTERVAL '5' SECOND AND a.t⟧", true},
		{"s a LEFT JOIN s b ON a.k = b.k AND ⟦a.t BETWEEN b.t + 10 AND b.t - 10⟧", true},
		{"s a RIGHT JOIN s b ON ⟦b.t >= a.t + 5000⟧ AND b.t <= a.t AND a.k = b.k", true},
		{"s a FULL JOIN s b ON a.k = b.k AND ⟦a.t > b.t⟧ AND a.t < b.t + 1", true},
		{"s a JOIN s b ON a.k = b.k AND ⟦b.t BETWEEN a.t - 5000 AND a.t⟧ AND b.t > a.t", true},
		{"s a, s b WHERE a.k = b.k AND ⟦b.t >= a.t + INTERVAL '1' SECOND⟧ AND b.t <= a.t - INTERVAL '1' SECOND", true},
		{"s a JOIN s b ON a.k = b.k AND b.t BETWEEN a.t AND a.t + INTERVAL '5' SECOND", false},
		{"s a LEFT JOIN s b ON a.k = b.k AND a.t >= b.t AND a.t <= b.t", false},
	} {
		q := "SELECT a.k, a.t, b.t AS bt FROM " + c.from + ";"
		col := strings.Index(q, "⟦") + 1
		q = strings.NewReplacer("⟦", "", "⟧", "").Replace(q)
		var log strings.Builder
		var rows []string
		s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&rows), Log: &log})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		if err := s.Exec(ctx, ddl+q+"\nEXPLAIN "+q); err != nil {
			cancel()
			t.Fatalf("%s: %v", q, err)
		}
		cancel()
		var warned []string
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.HasPrefix(l, "warning: ") {
				warned = append(warned, l)
			}
		}
		explained := strings.Contains(strings.Join(rows, "\n"), "warning: the time bounds leave no interval")
		if !c.empty {
			if len(warned) > 0 || explained {
				t.Errorf("%s: warned %q (EXPLAIN: %v), want no warning", q, warned, explained)
			}
			continue
		}
		for i, at := range []string{fmt.Sprintf("line 2, column %d", col), fmt.Sprintf("line 3, column %d", col+len("EXPLAIN "))} {
			if len(warned) != 2 || !strings.Contains(warned[i], "the time bounds of this join leave no interval") ||
				!strings.Contains(warned[i], "the join matches no pair") || !strings.HasSuffix(warned[i], ", "+at+")") {
				t.Errorf("%s: warnings %q, want one per statement at %s", q, warned, at)
			}
		}
		if !explained {
			t.Errorf("%s: EXPLAIN shows no warning", q)
		}
		// no pair: an INNER join gives nothing, an outer one every row of its
		// outer side(s) once, padded
		outer := 0
		switch {
		case strings.Contains(q, " LEFT ") || strings.Contains(q, " RIGHT "):
			outer = 12
		case strings.Contains(q, " FULL "):
			outer = 24
		}
		var main []string
		for _, r := range rows {
			if strings.HasPrefix(r, "main main: ") {
				main = append(main, r)
				if !strings.Contains(r, "<nil>") {
					t.Errorf("%s: a joined row %q", q, r)
				}
			}
		}
		if len(main) != outer {
			t.Errorf("%s: %d rows, want %d (the outer side's, padded)", q, len(main), outer)
		}
	}
}
