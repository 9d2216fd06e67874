package tests

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// nestedGen makes random SQL types with a constant of each: the type as
// declared, the constant as SQL, and the JSON the json format prints for it
// (written here from SPEC 4's rules, not by the engine).
type nestedGen struct{ rng *rand.Rand }

// typ returns a random type, nested when depth allows.
func (g nestedGen) typ(depth int) string {
	scalars := []string{"BIGINT", "DOUBLE", "VARCHAR", "BOOLEAN"}
	if depth == 0 || g.rng.IntN(3) == 0 {
		return scalars[g.rng.IntN(len(scalars))]
	}
	switch g.rng.IntN(3) {
	case 0:
		return "ARRAY<" + g.typ(depth-1) + ">"
	case 1:
		return "MAP<" + []string{"VARCHAR", "BIGINT"}[g.rng.IntN(2)] + ", " + g.typ(depth-1) + ">"
	}
	return "ROW<f0 " + g.typ(depth-1) + ", f1 " + g.typ(depth-1) + ">"
}

// split returns the top-level parts of a comma-separated type list.
func splitTypes(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}

// value returns a constant of type t as SQL and as JSON; a scalar may be a
// typed NULL when null is set (not a nested one: ARRAY[CAST(NULL AS ROW<f0
// T>), ROW(x)] mixes ROW<f0 T> with ROW<EXPR$0 T>, which the constructor
// refuses).
func (g nestedGen) value(t string, null bool) (sql, js string) {
	if null && !strings.Contains(t, "<") && g.rng.IntN(5) == 0 {
		return "CAST(NULL AS " + t + ")", "null"
	}
	switch {
	case t == "BIGINT":
		n := g.rng.IntN(2000) - 1000
		return fmt.Sprint(n), fmt.Sprint(n)
	case t == "DOUBLE":
		s := fmt.Sprintf("%d.5", g.rng.IntN(100))
		return s, s
	case t == "BOOLEAN":
		b := []string{"true", "false"}[g.rng.IntN(2)]
		return b, b
	case t == "VARCHAR":
		s := []string{"a", "it's", `say "hi"`, "x y", "日本"}[g.rng.IntN(5)]
		return "'" + strings.ReplaceAll(s, "'", "''") + "'", `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	case strings.HasPrefix(t, "ARRAY<"):
		elem := t[len("ARRAY<") : len(t)-1]
		var sqls, jss []string
		for range 1 + g.rng.IntN(3) {
			s, j := g.value(elem, true)
			sqls, jss = append(sqls, s), append(jss, j)
		}
		return "ARRAY[" + strings.Join(sqls, ", ") + "]", "[" + strings.Join(jss, ",") + "]"
	case strings.HasPrefix(t, "MAP<"):
		kv := splitTypes(t[len("MAP<") : len(t)-1])
		var sqls, jss []string
		for k := range 1 + g.rng.IntN(3) {
			s, j := g.value(kv[1], true)
			key, jkey := fmt.Sprintf("'k%d'", k), fmt.Sprintf(`"k%d"`, k)
			if kv[0] == "BIGINT" {
				key, jkey = fmt.Sprint(k*7), fmt.Sprintf(`"%d"`, k*7)
			}
			sqls, jss = append(sqls, key, s), append(jss, jkey+":"+j)
		}
		return "MAP[" + strings.Join(sqls, ", ") + "]", "{" + strings.Join(jss, ",") + "}"
	default: // ROW<f0 T, f1 T>
		fields := splitTypes(t[len("ROW<") : len(t)-1])
		var sqls, jss []string
		for k, f := range fields {
			s, j := g.value(strings.TrimPrefix(f, fmt.Sprintf("f%d ", k)), true)
			sqls, jss = append(sqls, s), append(jss, fmt.Sprintf(`"f%d":%s`, k, j))
		}
		return "ROW(" + strings.Join(sqls, ", ") + ")", "{" + strings.Join(jss, ",") + "}"
	}
}

// TestInsertNestedValues: INSERT INTO a values stream takes ARRAY, MAP and
// ROW values (SPEC 2.10's types are columns of any stream; SPEC 3's INSERT
// ... VALUES), nested to any depth with NULL elements and fields, and the
// rows read back print as the constants' JSON (SPEC 4's json format), for
// random types and values; a value of another kind is an error at the value.
func TestInsertNestedValues(t *testing.T) {
	g := nestedGen{rand.New(rand.NewPCG(5, 11))}
	for round := range 8 {
		var cols, types []string
		for c := range 3 {
			ty := g.typ(3)
			if !strings.ContainsAny(ty, "<") {
				ty = "ARRAY<" + ty + ">"
			}
			types = append(types, ty)
			cols = append(cols, fmt.Sprintf("c%d %s", c, ty))
		}
		var rows, want []string
		for range 3 {
			var sqls, jss []string
			for c, ty := range types {
				s, j := g.value(ty, false)
				if g.rng.IntN(6) == 0 {
					s, j = "NULL", "null"
				}
				sqls, jss = append(sqls, s), append(jss, fmt.Sprintf(`"c%d":%s`, c, j))
			}
			rows = append(rows, "("+strings.Join(sqls, ", ")+")")
			want = append(want, "{"+strings.Join(jss, ",")+"}\n")
		}
		sql := fmt.Sprintf("CREATE STREAM v (%s) WITH ('connector' = 'values');\nINSERT INTO v VALUES %s;\nSELECT * FROM v;\n", strings.Join(cols, ", "), strings.Join(rows, ", "))
		out, errs, code := runSQL(t, nil, sql, "--format", "json")
		if code != 0 || out != strings.Join(want, "") {
			t.Fatalf("round %d: %s\nexit %d, %s\ngot:\n%s\nwant:\n%s", round, sql, code, errs, out, strings.Join(want, ""))
		}
	}
	for _, c := range []struct{ value, msg string }{
		{"ROW(1, 'a')", "column 'c' is ARRAY<BIGINT>, and this value is ROW<"},
		{"5", "column 'c' is ARRAY<BIGINT>, and this value is BIGINT: write an ARRAY[...] of that type (or NULL)"},
		{"ARRAY['a', '2']", `ARRAY<VARCHAR> ["a","2"] cannot be read as ARRAY<BIGINT> for column 'c'`},
	} {
		_, errs, code := runSQL(t, nil, "CREATE STREAM v (c ARRAY<BIGINT>) WITH ('connector' = 'values');\nINSERT INTO v VALUES ("+c.value+");\n")
		if code != 2 || !strings.Contains(errs, c.msg) || !strings.Contains(errs, "line 2, column 23") {
			t.Errorf("INSERT %s: exit %d, %s; want exit 2 and %q at the value", c.value, code, errs, c.msg)
		}
	}
}
