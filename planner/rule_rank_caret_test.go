package planner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/internal/session"
	"streamql/parser"
)

// TestTopNOuterSelectCaret: every shape of a Top-N's outer SELECT that the
// planner refuses (SPEC 2.9: the outer query selects the subquery's columns
// by name and bounds the rank) is a planning error whose caret is on what is
// refused, not on the subquery's "(": a column neither grouped nor aggregated beside an aggregate,
// an unknown column (also in a GROUP BY, HAVING or DISTINCT over the Top-N's rows), an ORDER BY without LIMIT over
// unbounded input (whose result never ends), a WINDOW clause, a WHERE term that does not bound the rank, and a rank column
// over a first-row deduplication. Each query is tried as it is, as a subquery
// in FROM of another query, and under INSERT INTO. Each case
// marks the refused text with ⟦…⟧: the caret must be at its first byte.
func TestTopNOuterSelectCaret(t *testing.T) {
	const topN = "(SELECT k, p, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM b)"
	const dedup = "(SELECT k, p, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM b)"
	for _, c := range []struct{ query, want string }{
		{"SELECT ⟦k⟧, COUNT(*) FROM $T WHERE rn <= 2", "neither grouped nor aggregated"},
		{"SELECT k, ⟦zz⟧ FROM $T WHERE rn <= 2", "unknown column 'zz'"},
		{"SELECT k, ⟦b.zz⟧ FROM $T WHERE rn <= 2", "unknown column 'zz'"},
		// (GROUP BY, HAVING and DISTINCT plan as over the bounded Top-N as a
		// relation, groupsOverTopN: the carets of their errors stay on the user's text)
		{"SELECT ⟦p⟧, COUNT(*) FROM $T WHERE rn <= 2 GROUP BY k", "neither grouped nor aggregated"},
		{"SELECT k, COUNT(*) FROM $T WHERE rn <= 2 GROUP BY k HAVING ⟦zz⟧ > 1", "unknown column 'zz'"},
		{"SELECT k, COUNT(*) FROM $T WHERE ⟦k = 'a'⟧ GROUP BY k", "keeps the rows whose rank is at most N"},
		{"SELECT k, SUM(⟦zz⟧) FROM $T WHERE rn <= 2 GROUP BY k", "unknown column 'zz'"},
		{"SELECT DISTINCT ⟦zz⟧ FROM $T WHERE rn <= 2", "unknown column 'zz'"},
		{"SELECT DISTINCT k FROM $T WHERE ⟦rn > 2⟧", "keeps the rows whose rank is at most N"},
		{"SELECT DISTINCT ⟦*⟧ FROM $D WHERE rn = 1", "deduplication keeping the first row"},
		{"SELECT k FROM $T WHERE rn <= 2 ORDER BY ⟦k⟧", "whose result changes as the unbounded input goes on"}, // (over bounded input it sorts the final table: tests/rank_order_limit_test.go)
		{"SELECT k FROM $T WHERE rn <= 2 ⟦WINDOW⟧ w AS (PARTITION BY k)", "WINDOW clause belongs to the subquery"},
		{"SELECT k FROM $T WHERE ⟦k = 'a'⟧", "keeps the rows whose rank is at most N"},
		{"SELECT k FROM $T WHERE ⟦rn > 2⟧", "keeps the rows whose rank is at most N"},
		{"SELECT k, ⟦rn⟧ FROM $D WHERE rn = 1", "deduplication keeping the first row"},
		{"SELECT k, ⟦rn⟧ AS r, rn FROM $D WHERE rn = 1", "deduplication keeping the first row"},
		{"SELECT k, p, ts, ⟦*⟧ FROM $D WHERE rn = 1", "deduplication keeping the first row"},
		// (a first-row deduplication with another condition, filtered after
		// it: topNThenFilter's Top-N selects the query's own *)
		{"SELECT k, p, ts, ⟦*⟧ FROM $D WHERE rn = 1 AND p > 0", "deduplication keeping the first row"},
		// (a ranked subquery or WITH name read by a join, bound by the
		// outer WHERE: topNInFrom)
		{"SELECT t.k, t.p FROM b LEFT JOIN $T t ON t.k = b.k WHERE ⟦t.rn <= 2 OR t.rn IS NULL⟧", "whose rows an outer join pads"}, // (t.rn <= 2 alone rejects the padded rows: an INNER join, simplifyOuterJoins)
		{"SELECT t.k, t.p FROM $T t JOIN b ON t.k = b.k WHERE ⟦t.rn > 2⟧", "keeps the rows whose rank is at most N"},
		{"SELECT t.k, t.p FROM $T t JOIN b ON t.k = b.k WHERE b.p > 0 AND ⟦t.rn + 1 <= 2⟧", "keeps the rows whose rank is at most N"},
		{"SELECT t.k, ⟦zz⟧ FROM $T t JOIN b ON t.k = b.k WHERE t.rn <= 2", "unknown column"},
		{"SELECT t.k, t.p, ⟦t.rn⟧ FROM $D t JOIN b ON t.k = b.k WHERE t.rn = 1", "deduplication keeping the first row"},
		{"WITH t AS $T SELECT t.k, t.p FROM b FULL JOIN t ON t.k = b.k WHERE ⟦rn IS NULL OR rn <= 2⟧", "whose rows an outer join pads"},
		// (every condition a NULL rank may pass says so, not that WHERE drops the padded rows)
		{"SELECT t.k, t.p FROM b LEFT JOIN $T t ON t.k = b.k WHERE ⟦t.rn <= 2 OR t.rn IS NULL⟧", "a NULL rank may pass this condition"},
		{"SELECT t.k, t.p FROM b LEFT JOIN $T t ON t.k = b.k WHERE ⟦t.rn IS NULL⟧", "a NULL rank may pass this condition"},
		{"SELECT t.k, t.p FROM b LEFT JOIN $T t ON t.k = b.k WHERE ⟦COALESCE(t.rn, 0) <= 2⟧", "a NULL rank may pass this condition"}, // (a padded row's NULL rank passes it: the outer join's refusal)
		{"WITH t AS $T SELECT k FROM t WHERE ⟦rn > 2⟧", "keeps the rows whose rank is at most N"},
	} {
		sub := topN
		if strings.Contains(c.query, "$D") {
			sub = dedup
		}
		for _, form := range []string{"subquery", "nested", "INSERT INTO"} {
			if form == "INSERT INTO" && strings.HasPrefix(c.query, "WITH") {
				continue // (INSERT INTO o WITH … is not SQL)
			}
			q := c.query
			pre := ""
			switch form {
			case "subquery":
				q = strings.NewReplacer("$T", sub, "$D", sub).Replace(q)
			case "nested":
				pre = "SELECT * FROM ("
				q = strings.NewReplacer("$T", sub, "$D", sub).Replace(q) + ")"
			case "INSERT INTO":
				pre = "INSERT INTO o "
				q = strings.NewReplacer("$T", sub, "$D", sub).Replace(q)
			}
			script := pre + q
			at := strings.Index(script, "⟦")
			script = strings.NewReplacer("⟦", "", "⟧", "").Replace(script)
			err := planTopNScript(t, script+";\n")
			var pe *parser.Error
			if !errors.As(err, &pe) || !strings.Contains(pe.Msg, c.want) {
				t.Errorf("%s, %s:\n%s\ngave %v, want a planning error saying %q", c.query, form, script, err, c.want)
				continue
			}
			if pe.Offset != at {
				t.Errorf("%s, %s: the caret is at byte %d, want %d (on what is refused):\n%s", c.query, form, pe.Offset, at,
					parser.FormatError("q.sql", script, pe))
			}
		}
	}
}

// planTopNScript runs the declarations of TestTopNOuterSelectCaret's
// streams (b unbounded with event time, o a sink) and then script's
// statements and returns the first error (a query that plans is refused by
// goldenFront: the test's queries must not plan). The offsets of a *parser.Error it returns are into script.
func planTopNScript(t *testing.T, script string) error {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.csv"), []byte("a,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := session.New(nil, &goldenFront{})
	ddl := "CREATE STREAM b (k VARCHAR, p BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv', 'follow'='true');\n" +
		"CREATE STREAM o (k VARCHAR, v VARCHAR) WITH ('connector'='file', 'path'='o.csv', 'format'='debezium-json');\n"
	for _, src := range []string{ddl, script} {
		sc, err := parser.Parse("q.sql", src)
		if err != nil {
			return err
		}
		for _, st := range sc.Stmts {
			if err := s.Exec(context.Background(), sc, dir, st); err != nil {
				return err
			}
		}
	}
	return errors.New("no error")
}

// TestGroupOverTopNPlans: a GROUP BY, HAVING or DISTINCT right over a Top-N's
// subquery (SPEC 2.6, any nesting; Flink SQL) plans, as the same query over
// the bounded Top-N as a relation does (groupsOverTopN), for each ranking
// function and for a deduplication, as it is, as a subquery in FROM of
// another query, and under INSERT INTO. (What the plans compute is
// tests/topn_group_test.go's.)
func TestGroupOverTopNPlans(t *testing.T) {
	for _, sub := range []string{
		"(SELECT k, p, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM b)",
		"(SELECT k, p, ts, RANK() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM b)",
		"(SELECT k, p, ts, DENSE_RANK() OVER (PARTITION BY k ORDER BY p DESC) AS rn FROM b)",
		"(SELECT k, p, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM b)",
	} {
		for _, q := range []string{
			"SELECT k, CAST(SUM(p) AS VARCHAR) FROM $T WHERE rn <= 2 GROUP BY k",
			"SELECT k, CAST(COUNT(*) AS VARCHAR) AS c FROM $T AS t WHERE rn <= 2 AND p > 0 GROUP BY k HAVING SUM(p) > 1",
			"SELECT DISTINCT k, CAST(p AS VARCHAR) FROM $T WHERE rn = 1",
			"SELECT DISTINCT k, CAST(COUNT(*) AS VARCHAR) FROM $T WHERE rn < 3 GROUP BY k",
			"SELECT k, CAST(COUNT(*) AS VARCHAR) AS c FROM $T WHERE rn = 1 GROUP BY k HAVING c > '1'",  // (c the query's own)
			"SELECT CAST(COUNT(*) AS VARCHAR) AS k, 'b' AS v FROM $T WHERE rn = 1 HAVING COUNT(*) > 0", // (no column read)
		} {
			q = strings.ReplaceAll(q, "$T", sub)
			for _, script := range []string{q, "SELECT * FROM (" + q + ")", "INSERT INTO o " + q} {
				err := planTopNScript(t, script+";\n")
				if err == nil || !strings.Contains(err.Error(), "the planner's goldens plan jobs") {
					t.Errorf("%s:\ngave %v, want it to plan", script, err)
				}
			}
		}
	}
}
