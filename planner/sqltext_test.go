package planner

import (
	"strings"
	"testing"

	"streamql/catalog/functions"
)

// TestStandInsShowAsWritten: an expression's text (EXPLAIN, messages) shows
// the syntax the user wrote, not the stand-in calls the front end hands TiDB
// (ITEM, *_VALUE_CONSTRUCTOR, SQ_*, SIMILAR_TO, IS_JSON, DATE_ADD/SUB,
// FLOOR(ts, 'U'), JSON_VALUE(s, p, 'T')), for each stand-in alone and
// nested inside another expression; text without one is left as is.
func TestStandInsShowAsWritten(t *testing.T) {
	cases := map[string]string{
		"ARRAY[i, 2][1] + 1":                        "ARRAY[i, 2][1] + 1",
		"MAP['a', i]['a'] * 2":                      "MAP['a', i]['a'] * 2",
		"ROW(i, s).EXPR$1 || 'x'":                   "CONCAT(ROW(i, s)['EXPR$1'], 'x')",
		"CARDINALITY(ARRAY[1]) + 1":                 "CARDINALITY(ARRAY[1]) + 1",
		"SPLIT(s, ',')[1] = 'a'":                    "SPLIT(s, ',')[1] = 'a'",
		"EXTRACT(EPOCH FROM ts) + 1":                "EXTRACT(EPOCH FROM ts) + 1",
		"NOT (s SIMILAR TO 'a%')":                   "NOT ((s SIMILAR TO 'a%'))",
		"(s IS JSON OBJECT) = b":                    "((s IS JSON OBJECT)) = b", // (the rewrite's parentheses stay)
		"(ts - INTERVAL '1' SECOND) > ts":           "(ts - INTERVAL '1' SECOND) > ts",
		"(ts + INTERVAL '2' HOUR) > ts":             "(ts + INTERVAL '2' HOUR) > ts",
		"(ts + INTERVAL '1 02' DAY TO HOUR) > ts":   "(ts + INTERVAL '1 02' DAY TO HOUR) > ts",
		"FLOOR(ts TO HOUR) > ts":                    "FLOOR(ts TO HOUR) > ts",
		"CEIL(ts TO DAY) = ts":                      "CEIL(ts TO DAY) = ts",
		"FLOOR(d) + 1":                              "FLOOR(d) + 1",
		"JSON_VALUE(s, '$.a' RETURNING BIGINT) + 1": "JSON_VALUE(s, '$.a' RETURNING BIGINT) + 1",
		"UPPER(s) || LOWER(s)":                      "CONCAT(UPPER(s), LOWER(s))",
		"i + 1":                                     "i + 1",
	}
	for in, want := range cases {
		e, err := planText(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := ExprText(e); got != want {
			t.Errorf("%s: text %q, want %q", in, got, want)
		}
	}
}

// TestUnknownFunctionNamesAlternatives: a call of a function streamql lacks
// names functions it has (SPEC 2.10), always: another dialect's function
// (otherDialects) names streamql's equivalent, each named function existing;
// a misspelling its nearest names; a name near nothing still the three
// nearest.
func TestUnknownFunctionNamesAlternatives(t *testing.T) {
	for name, use := range otherDialects {
		if functions.Lookup(name) != nil {
			t.Errorf("%s is in otherDialects but streamql has it", name)
		}
		for _, w := range strings.FieldsFunc(use, func(r rune) bool { return r == ',' || r == ' ' }) {
			if f, _, ok := strings.Cut(w, "("); ok && strings.ToUpper(f) == f && f != "" && functions.Lookup(f) == nil && !map[string]bool{"CASE": true, "CAST": true, "POSITION": true}[f] {
				t.Errorf("%s suggests %s, which streamql lacks", name, f)
			}
		}
		_, err := planText(name + "(s)")
		if err == nil || !strings.Contains(err.Error(), "unknown function "+name+"; streamql has "+use) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"UPPR", "FOOBAR", "QQQQQQQQQQ"} {
		_, err := planText(name + "(s)")
		if err == nil {
			t.Errorf("%s planned", name)
			continue
		}
		msg := err.Error()
		_, list, ok := strings.Cut(msg, "did you mean ")
		if !ok {
			_, list, ok = strings.Cut(msg, "the nearest names streamql has are ")
		}
		list, _, _ = strings.Cut(strings.ReplaceAll(list, "?", ""), " (SHOW")
		near := strings.Split(list, ", ")
		if !ok || len(near) == 0 || len(near) > 3 {
			t.Errorf("%s: %v, want the nearest functions named", name, err)
		}
		for _, f := range near {
			if functions.Lookup(f) == nil {
				t.Errorf("%s: suggests %s, which streamql lacks", name, f)
			}
		}
	}
}
