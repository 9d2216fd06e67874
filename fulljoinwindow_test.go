package streamql_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"streamql"
)

// TestWindowOverFullJoinView: what the README's Joins section says of a
// window over the view of a FULL join. Over bounded inputs (files) a window
// over a FULL interval join's view runs as over any bounded relation
// without WATERMARK FOR (SPEC 2.4: every window fires at the end): its
// counts equal a nested-loop reference's, and the rows padded on the side
// whose time the DESCRIPTOR names (NULL time) go to the late output. Over
// an unbounded input it is refused, saying to write a LEFT or RIGHT
// interval join or a window join; over a regular FULL join (updating, SPEC
// 2.8) it is refused whether the inputs are bounded or not.
func TestWindowOverFullJoinView(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(23))
	type row struct {
		k string
		t int64
	}
	gen := func(name string) []row {
		var rows []row
		var text strings.Builder
		ts := int64(0)
		for range 40 {
			ts += rng.Int63n(700)
			r := row{fmt.Sprintf("k%d", rng.Intn(5)), ts}
			rows = append(rows, r)
			fmt.Fprintf(&text, "%s,%d\n", r.k, r.t)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	l, r := gen("l.csv"), gen("r.csv")
	// the reference: the FULL join's rows by nested loops, counted per window
	// of 5 s of l.t; rows without l.t (r's rows without a partner) are late
	want := map[string]int{}
	late := 0
	matched := make([]bool, len(r))
	for _, a := range l {
		n := 0
		for j, b := range r {
			if a.k == b.k && b.t >= a.t-1000 && b.t <= a.t+1000 {
				n++
				matched[j] = true
			}
		}
		want[fmt.Sprint(a.t/5000*5000)] += max(n, 1)
	}
	for j := range r {
		if !matched[j] {
			late++
		}
	}
	ddl := func(with string) string {
		return "CREATE STREAM l (k VARCHAR, t BIGINT, WATERMARK FOR t AS t) WITH ('connector'='file','path'='l.csv','format'='csv'" + with + ");\n" +
			"CREATE STREAM r (k VARCHAR, t BIGINT, WATERMARK FOR t AS t) WITH ('connector'='file','path'='r.csv','format'='csv'" + with + ");\n"
	}
	const interval = "CREATE VIEW j AS SELECT l.k AS lk, r.k AS rk, l.t AS lt FROM l FULL JOIN r ON l.k = r.k AND r.t BETWEEN l.t - 1000 AND l.t + 1000;\n"
	const regular = "CREATE VIEW j AS SELECT l.k AS lk, r.k AS rk, l.t AS lt FROM l FULL JOIN r ON l.k = r.k;\n"
	const window = "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(lt), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;"
	run := func(sql string) ([]string, error) {
		var rows []string
		s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&rows)})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		return rows, s.Exec(ctx, sql)
	}
	rows, err := run(ddl("") + interval + window)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	gotLate := 0
	for _, x := range rows {
		switch {
		case strings.HasPrefix(x, "main main: "):
			var ws, n int
			if _, err := fmt.Sscanf(strings.TrimPrefix(x, "main main: "), "%d, %d", &ws, &n); err != nil {
				t.Fatalf("row %q: %v", x, err)
			}
			got[fmt.Sprint(ws)] += n
		case strings.Contains(x, " late: ") && strings.HasSuffix(x, ", <nil>"):
			gotLate++
		default:
			t.Errorf("unexpected row %q", x)
		}
	}
	keys := func(m map[string]int) string {
		var out []string
		for k, v := range m {
			out = append(out, fmt.Sprintf("%s:%d", k, v))
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	if keys(got) != keys(want) || gotLate != late || late == 0 {
		t.Errorf("windows %s, %d late; want %s, %d late (r's rows without a partner)", keys(got), gotLate, keys(want), late)
	}
	for _, c := range []struct{ sql, want string }{
		{ddl(", 'follow'='true'") + interval + "EXPLAIN " + window, "write a LEFT or RIGHT interval join"},
		{ddl("") + regular + window, "j is updating (its regular FULL JOIN"},
		{ddl(", 'follow'='true'") + regular + "EXPLAIN " + window, "j is updating (its regular FULL JOIN"},
	} {
		_, err := run(c.sql)
		var e *streamql.Error
		if !errors.As(err, &e) || e.Kind != streamql.KindPlanning || !strings.Contains(e.Error(), c.want) {
			t.Errorf("%s\ngave %v, want a planning error saying %q", c.sql, err, c.want)
		}
	}
}
