package planner_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"streamql/internal/session"
	"streamql/parser"
)

// TestEventTimeSemiJoinOverAJoin: an IN or EXISTS subquery (NOT EXISTS
// too) whose build side is unbounded decides by event time and needs a
// WATERMARK on both sides (SPEC 2.2); in the WHERE of a query whose FROM is
// a join of two streams the probe rows are the joined ones, which have no
// event time of their own (plan.JoinedStream). For every kind of join
// (interval INNER, LEFT, RIGHT and FULL, regular, lookup, a comma join, a
// FROM of three relations) it is a planning error with the caret on the
// subquery's conjunct, never a plan (the executor's hold took the joined
// stream's missing event time as a column and panicked). The error names the
// join's output time when it has one (SPEC 2.7, as EXPLAIN's derived
// relations name it) and says to read the join through a subquery that
// selects it, which then plans; and the same query over a bounded build
// side plans.
func TestEventTimeSemiJoinOverAJoin(t *testing.T) {
	const ddl = "CREATE STREAM a (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - 1000) WITH ('connector'='file', 'path'='a.csv', 'format'='csv', 'follow'='true');\n" +
		"CREATE STREAM b (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - 1000) WITH ('connector'='file', 'path'='b.csv', 'format'='csv', 'follow'='true');\n" +
		"CREATE STREAM f (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='f.csv', 'format'='csv');\n" +
		"CREATE STREAM c (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='c.csv', 'format'='csv', 'follow'='true');\n" +
		"CREATE STREAM d (k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='d.csv', 'format'='csv');\n"
	const between = "a.ts BETWEEN b.ts - 1000 AND b.ts + 1000"
	joins := []struct {
		name, from, where string
		outTime           string // the join's output time, "" when none
	}{
		{"interval join", "a JOIN b ON a.k = b.k AND " + between, "", "a.ts"},
		{"LEFT interval join", "a LEFT JOIN b ON a.k = b.k AND " + between, "", "a.ts"},
		{"RIGHT interval join", "a RIGHT JOIN b ON a.k = b.k AND " + between, "", "b.ts"},
		{"FULL interval join", "a FULL JOIN b ON a.k = b.k AND " + between, "", ""},
		{"regular join", "a JOIN b ON a.k = b.k", "", ""},
		{"lookup join", "a JOIN f ON a.k = f.k", "", "a.ts"},
		{"comma join", "a, b", "a.k = b.k AND " + between + " AND ", "a.ts"},
		{"three relations", "a JOIN b ON a.k = b.k AND " + between + " JOIN f ON a.k = f.k", "", ""},
	}
	for _, j := range joins {
		for _, sub := range []string{"a.k IN (SELECT k FROM %s)", "EXISTS (SELECT 1 FROM %s WHERE %[1]s.k = a.k)", "NOT EXISTS (SELECT 1 FROM %s WHERE %[1]s.k = a.k)"} {
			q := "EXPLAIN SELECT a.k FROM " + j.from + " WHERE " + j.where
			at := len(ddl) + len(q)
			err := planScript(t, ddl+q+fmt.Sprintf(sub, "c")+";\n")
			var pe *parser.Error
			what := j.name + ": " + fmt.Sprintf(sub, "c")
			if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "have no event time of their own") || !strings.Contains(pe.Msg, "c is unbounded") {
				t.Errorf("%s: gave %v, want the planning error that the joined rows have no event time", what, err)
				continue
			}
			if pe.Offset != at {
				t.Errorf("%s: the caret is at byte %d, want %d (the subquery's conjunct)", what, pe.Offset, at)
			}
			advice := "selects its output time as it is, SELECT … FROM (SELECT " + j.outTime + ", "
			if got := strings.Contains(pe.Msg, advice); got != (j.outTime != "") {
				t.Errorf("%s: %q; want the advice to select the output time %q: %v", what, pe.Msg, j.outTime, !got)
			}
			// a bounded build side: the join decides when its rows come
			if err := planScript(t, ddl+q+fmt.Sprintf(sub, "d")+";\n"); err != nil {
				t.Errorf("%s over the bounded d: %v", what, err)
			}
			if j.outTime == "" {
				continue
			}
			// the advice: a subquery selecting the join's output time as it is
			inner := "SELECT a.k AS k, " + j.outTime + " AS t FROM " + j.from
			if j.where != "" {
				inner += " WHERE " + strings.TrimSuffix(j.where, " AND ")
			}
			adv := "EXPLAIN SELECT s.k FROM (" + inner + ") AS s WHERE " + strings.ReplaceAll(fmt.Sprintf(sub, "c"), "a.k", "s.k") + ";\n"
			if err := planScript(t, ddl+adv); err != nil {
				t.Errorf("%s, as the error advises (%s): %v", what, adv, err)
			}
		}
	}
}

// planScript executes script's statements in a session (the test's
// EXPLAINs plan without running) and returns the first error, nil when
// none.
func planScript(t *testing.T, script string) error {
	t.Helper()
	s := session.New(nil, &goldenFront{})
	sc, err := parser.Parse("q.sql", script)
	if err != nil {
		return err
	}
	for _, st := range sc.Stmts {
		if err := s.Exec(context.Background(), sc, t.TempDir(), st); err != nil {
			return err
		}
	}
	return nil
}

// TestSemiJoinOverAJoinNames: in the WHERE of a query over a join of two
// streams, an IN or EXISTS subquery's names resolve in the join's scope
// (SPEC 2.7), as the query's other terms do: a qualified column of either
// input plans, an unqualified name that both inputs have is ambiguous
// (the error lists both), and one that the subquery's own stream has wins
// over both inputs (SQL: the innermost scope).
func TestSemiJoinOverAJoinNames(t *testing.T) {
	const ddl = "CREATE STREAM a (k VARCHAR, p BIGINT) WITH ('connector'='values');\n" +
		"CREATE STREAM b (k VARCHAR, q BIGINT) WITH ('connector'='values');\n" +
		"CREATE STREAM d (k VARCHAR, x BIGINT) WITH ('connector'='values');\n"
	for _, c := range []struct{ where, want string }{
		{"b.q IN (SELECT x FROM d)", ""},
		{"a.p IN (SELECT x FROM d)", ""},
		{"EXISTS (SELECT 1 FROM d WHERE d.x = b.q AND b.k <> 'z')", ""},
		{"EXISTS (SELECT 1 FROM d WHERE k = b.k)", ""},
		{"NOT EXISTS (SELECT 1 FROM d WHERE x = q)", ""},
		{"k IN (SELECT k FROM d)", "column 'k' is ambiguous: it is a.k and b.k"},
	} {
		err := planScript(t, ddl+"EXPLAIN SELECT a.p FROM a JOIN b ON a.k = b.k WHERE "+c.where+";\n")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.where, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: gave %v, want an error saying %q", c.where, err, c.want)
		}
	}
}
