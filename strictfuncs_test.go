package streamql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"streamql"
	"streamql/catalog/functions"
	"streamql/planner"
)

// strictCalls are calls of the strict functions whose table Example the
// test cannot take apart by commas (a time unit, FROM, PLACING) or that
// has none: each argument that is a value is marked ⟦…⟧.
var strictCalls = map[string]string{
	"extract":          "EXTRACT(HOUR FROM ⟦TIMESTAMP '2021-01-18 13:08:29'⟧)",
	"timestampadd":     "TIMESTAMPADD(WEEK, ⟦1⟧, ⟦TIMESTAMP '2003-01-02 10:00:00'⟧)",
	"timestampdiff":    "TIMESTAMPDIFF(DAY, ⟦TIMESTAMP '2003-01-02 10:00:00'⟧, ⟦TIMESTAMP '2003-01-03 10:00:00'⟧)",
	"trim":             "TRIM(LEADING ⟦'x'⟧ FROM ⟦'xxhix'⟧)",
	"cast":             "CAST(⟦'42'⟧ AS BIGINT)",
	"try_cast":         "TRY_CAST(⟦'42'⟧ AS BIGINT)",
	"position":         "POSITION(⟦'or'⟧ IN ⟦'hello world'⟧)",
	"overlay":          "OVERLAY(⟦'xxxxxtest'⟧ PLACING ⟦'xxxx'⟧ FROM ⟦6⟧ FOR ⟦2⟧)",
	"item":             "(⟦ARRAY[10, 20]⟧)[⟦2⟧]",
	"regexp":           "⟦'foothebar'⟧ REGEXP ⟦'the'⟧",
	"similar to":       "(⟦'abc'⟧) SIMILAR TO (⟦'a%'⟧)",
	"similar_to":       "(⟦'abc'⟧) SIMILAR TO (⟦'a%'⟧)",
	"to_timestamp_ltz": "TO_TIMESTAMP_LTZ(⟦1610975309⟧, 0)", // (the precision is a literal: no NULL reaches it)
	"sin":              "SIN(⟦1.0⟧)",
	"cos":              "COS(⟦1.0⟧)",
	"tan":              "TAN(⟦1.0⟧)",
	"degrees":          "DEGREES(⟦1.0⟧)",
	"radians":          "RADIANS(⟦90.0⟧)",
	"sha2":             "SHA2(⟦'abc'⟧, ⟦256⟧)",
	"sha224":           "SHA224(⟦'abc'⟧)",
	"sha256":           "SHA256(⟦'abc'⟧)",
	"sha384":           "SHA384(⟦'abc'⟧)",
	"sha512":           "SHA512(⟦'abc'⟧)",
}

// splitArgs returns the top-level arguments of the call text call
// ("NAME(a, b)"): commas inside quotes, parentheses and brackets do not
// split.
func splitArgs(t *testing.T, call string) (name string, args []string) {
	open := strings.IndexByte(call, '(')
	if open < 0 || !strings.HasSuffix(call, ")") {
		t.Fatalf("%q is not a call", call)
	}
	depth, quoted, from := 0, false, open+1
	for i := open + 1; i < len(call)-1; i++ {
		switch c := call[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ',' && depth == 0:
			args = append(args, strings.TrimSpace(call[from:i]))
			from = i + 1
		}
	}
	if s := strings.TrimSpace(call[from : len(call)-1]); s != "" {
		args = append(args, s)
	}
	return call[:open], args
}

// exampleCall returns the call of a function table Example ("F(a, b) =
// result", "F(a) IS NULL"): the text up to the parenthesis that closes the
// first one.
func exampleCall(ex string) string {
	open := strings.IndexByte(ex, '(')
	if open < 0 {
		return ""
	}
	depth, quoted := 0, false
	for i := open; i < len(ex); i++ {
		switch c := ex[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return ex[:i+1]
			}
		}
	}
	return ""
}

// TestStrictFunctionsGiveNullForNull: every function the outer-join
// simplification takes as strict (planner.StrictFunctions: a WHERE or ON
// over its call rejects the rows a join pads) is declared so in the
// function table (no TakesNulls; "NULL if any argument is NULL"), and,
// evaluated by the engine over a row with a NULL in each argument in turn
// (a column, so the kernel and not the planner's folding sees it), gives
// NULL; the same call without the NULL gives a value, so the NULL comes
// from the argument. (An argument the planner takes only as a literal,
// ROUND's digits, is skipped: no NULL reaches it.)
func TestStrictFunctionsGiveNullForNull(t *testing.T) {
	const ddl = "CREATE STREAM n (o BOOLEAN) WITH ('connector'='values');\nINSERT INTO n VALUES (CAST(NULL AS BOOLEAN));\n"
	for _, name := range planner.StrictFunctions() {
		f := functions.Lookup(name)
		if f == nil || f.TakesNulls || f.Volatile || f.Nulls != "NULL if any argument is NULL" {
			t.Errorf("%s: strict for the outer-join rule, but the function table does not declare it NULL for any NULL argument", name)
			continue
		}
		call, marked := strictCalls[name], true
		if call == "" {
			call, marked = exampleCall(f.Example), false
			if call == "" {
				t.Errorf("%s: the function table's Example %q holds no call to evaluate: add one to strictCalls", name, f.Example)
				continue
			}
			if fn, _ := splitArgs(t, call); !strings.EqualFold(fn, name) {
				call = name + call[len(fn):] // (the example spells an alias)
			}
		}
		var variants []string
		if marked {
			parts := strings.Split(call, "⟦")
			for i := 1; i < len(parts); i++ {
				var sb strings.Builder
				sb.WriteString(parts[0])
				for j := 1; j < len(parts); j++ {
					arg, rest, _ := strings.Cut(parts[j], "⟧")
					if j == i {
						arg = "CASE WHEN n.o THEN " + arg + " END"
					}
					sb.WriteString(arg + rest)
				}
				variants = append(variants, sb.String())
			}
			call = strings.NewReplacer("⟦", "", "⟧", "").Replace(call)
		} else {
			fn, args := splitArgs(t, call)
			for i := range args {
				a := append([]string(nil), args...)
				a[i] = "CASE WHEN n.o THEN " + a[i] + " END"
				variants = append(variants, fn+"("+strings.Join(a, ", ")+")")
			}
		}
		if len(variants) == 0 {
			t.Errorf("%s: %s has no argument to make NULL", name, call)
		}
		eval := func(expr string) (string, error) {
			var lines []string
			s := open(t, streamql.Options{OnRows: collect(&lines)})
			if err := s.Exec(context.Background(), ddl+"SELECT "+expr+" AS v FROM n;"); err != nil {
				return "", err
			}
			if len(lines) != 1 {
				return "", fmt.Errorf("%d rows: %q", len(lines), lines)
			}
			return strings.TrimPrefix(lines[0], "main main: "), nil
		}
		if got, err := eval(call); err != nil || got == "<nil>" {
			t.Errorf("%s: %s gives %s, %v: want a value, to tell the NULL apart", name, call, got, err)
		}
		for _, v := range variants {
			got, err := eval(v)
			if err != nil && strings.Contains(err.Error(), "must be an integer literal") {
				continue // (no row's value reaches this argument: no NULL either)
			}
			if err != nil || got != "<nil>" {
				t.Errorf("%s: %s gives %s, %v: want NULL (strictFuncs takes it as NULL for a NULL argument)", name, v, got, err)
			}
		}
	}
}

// TestStrictFunctionsLeaveOutFailingAndVolatile: no built-in that may fail
// the job (ELEMENT of more than one element: the simplification may move
// its term below the join, to rows the outer join never passed to it), that
// reads the clock or draws numbers, or that takes NULL arguments is among
// planner.StrictFunctions, and each built-in the table declares "NULL if
// any argument is NULL" otherwise is, under its name and every alias.
func TestStrictFunctionsLeaveOutFailingAndVolatile(t *testing.T) {
	strict := map[string]bool{}
	for _, n := range planner.StrictFunctions() {
		strict[n] = true
	}
	if strict["element"] {
		t.Errorf("ELEMENT (it fails the job on more than one element) is strict for the outer-join rule")
	}
	for _, f := range functions.Functions {
		want := !f.FailsJob && !f.Volatile && !f.TakesNulls && f.Nulls == "NULL if any argument is NULL"
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if got := strict[strings.ToLower(n)]; got != want {
				t.Errorf("%s: strict for the outer-join rule %v, want %v (FailsJob %v, Volatile %v, TakesNulls %v, Nulls %q)",
					n, got, want, f.FailsJob, f.Volatile, f.TakesNulls, f.Nulls)
			}
		}
	}
}
