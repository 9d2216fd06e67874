package planner

import (
	"strings"

	"streamql/parser"
)

// standIns are the calls the front end writes for Flink syntax TiDB does not
// parse (parser/funcsyntax.go, parser/tidb.go), upper case.
var standIns = []string{"ITEM", "ARRAY_VALUE_CONSTRUCTOR", "MAP_VALUE_CONSTRUCTOR", "ROW_VALUE_CONSTRUCTOR",
	"SQ_CARDINAL", "SQ_SP", "SQ_REX", "SQ_FIRSTVAL", "SQ_LASTVAL", "SQ_EXTRACT", "SIMILAR_TO", "IS_JSON", "DATE_ADD", "DATE_SUB",
	"FLOOR", "CEIL", "JSON_VALUE"}

// renamed are the stand-ins that only rename a call (or bracket it): the
// text before and after its arguments.
var renamed = map[string][2]string{"ARRAY_VALUE_CONSTRUCTOR": {"ARRAY[", "]"}, "MAP_VALUE_CONSTRUCTOR": {"MAP[", "]"},
	"ROW_VALUE_CONSTRUCTOR": {"ROW(", ")"}, "SQ_CARDINAL": {"CARDINALITY(", ")"}, "SQ_SP": {"SPLIT(", ")"}, "SQ_REX": {"REGEXP(", ")"},
	"SQ_FIRSTVAL": {"FIRST_VALUE(", ")"}, "SQ_LASTVAL": {"LAST_VALUE(", ")"}}

// flinkSyntax returns text (an expression restored from the AST TiDB parsed)
// with the front end's stand-in calls written back in the syntax the user
// wrote (SPEC 4: EXPLAIN and messages show the SQL, not internal names):
// ITEM(a, i) as a[i], ARRAY_VALUE_CONSTRUCTOR(…) as ARRAY[…], MAP[…],
// ROW(…), SQ_CARDINAL as CARDINALITY, SQ_SP as SPLIT, SQ_FIRSTVAL /
// SQ_LASTVAL as FIRST_VALUE / LAST_VALUE, SQ_EXTRACT('u', ts) as EXTRACT(u
// FROM ts), SIMILAR_TO(a, b) as a SIMILAR TO b, IS_JSON(s[, 'K']) as s IS
// JSON [K], DATE_ADD / DATE_SUB(x, INTERVAL …) as x ± INTERVAL …, FLOOR /
// CEIL(ts, 'U') as FLOOR / CEIL(ts TO U), JSON_VALUE(s, p, 'T') as
// JSON_VALUE(s, p RETURNING T); a <=> b as a IS NOT DISTINCT FROM b and a <=>
// b IS FALSE as a IS DISTINCT FROM b (distinctFromText). Text without a
// stand-in is returned as is.
func flinkSyntax(text string) string {
	text = distinctFromText(text)
	up := strings.ToUpper(text)
	found := false
	for _, s := range standIns {
		if strings.Contains(up, s+"(") {
			found = true
			break
		}
	}
	if !found {
		return text
	}
	return rewriteStandIns(text)
}

// rewriteStandIns rewrites the stand-in calls of text, inner ones first.
func rewriteStandIns(text string) string {
	toks := parser.Tokens(text)
	var sb strings.Builder
	pos := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind != parser.TokIdent || i+1 >= len(toks) || toks[i+1].Kind != parser.TokOp || toks[i+1].Text != "(" || toks[i+1].Offset != t.End() {
			continue
		}
		name := strings.ToUpper(t.Text)
		if !isStandIn(name) {
			continue
		}
		args, closeAt := callArgs(text, toks, i+1)
		if closeAt < 0 {
			break
		}
		for k := range args {
			args[k] = rewriteStandIns(strings.TrimSpace(args[k]))
		}
		repl, ok := standInText(name, t.Text, args)
		if !ok {
			continue
		}
		sb.WriteString(text[pos:t.Offset])
		sb.WriteString(repl)
		pos = toks[closeAt].End()
		i = closeAt
	}
	sb.WriteString(text[pos:])
	return sb.String()
}

func isStandIn(name string) bool {
	for _, s := range standIns {
		if s == name {
			return true
		}
	}
	return false
}

// callArgs returns the texts of the arguments of the call whose '(' is token
// open (split at the commas outside nested parentheses and brackets) and the
// index of its ')', -1 when it is never closed.
func callArgs(text string, toks []parser.Token, open int) ([]string, int) {
	var args []string
	d, from := 0, toks[open].End()
	for j := open; j < len(toks); j++ {
		if toks[j].Kind != parser.TokOp {
			continue
		}
		switch toks[j].Text {
		case "(", "[":
			d++
		case ")", "]":
			d--
			if d == 0 {
				if last := text[from:toks[j].Offset]; len(args) > 0 || strings.TrimSpace(last) != "" {
					args = append(args, last)
				}
				return args, j
			}
		case ",":
			if d == 1 {
				args = append(args, text[from:toks[j].Offset])
				from = toks[j].End()
			}
		}
	}
	return nil, -1
}

// standInText is the text of stand-in call name (as written: written) with
// args; false when its arguments are not of the stand-in's form (a FLOOR of
// a number, a JSON_VALUE without RETURNING: left as they are).
func standInText(name, written string, args []string) (string, bool) {
	unquote := func(s string) (string, bool) {
		if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' && !strings.Contains(s[1:len(s)-1], "'") {
			return s[1 : len(s)-1], true
		}
		return "", false
	}
	operand := func(s string) string { // a[i] needs a: parenthesised unless a name or a call
		for _, t := range parser.Tokens(s) {
			if t.Kind == parser.TokOp && t.Text != "." && t.Text != "(" && t.Text != ")" && t.Text != "[" && t.Text != "]" && t.Text != "," {
				return "(" + s + ")"
			}
		}
		return s
	}
	if f, ok := renamed[name]; ok {
		return f[0] + strings.Join(args, ", ") + f[1], true
	}
	switch name {
	case "ITEM":
		if len(args) == 2 {
			return operand(args[0]) + "[" + args[1] + "]", true
		}
	case "SQ_EXTRACT":
		if u, ok := unquote(args[0]); ok && len(args) == 2 {
			return "EXTRACT(" + u + " FROM " + args[1] + ")", true
		}
	case "SIMILAR_TO":
		if len(args) == 2 {
			return args[0] + " SIMILAR TO " + args[1], true
		}
	case "IS_JSON":
		if len(args) == 1 {
			return args[0] + " IS JSON", true
		}
		if k, ok := unquote(args[1]); ok && len(args) == 2 {
			return args[0] + " IS JSON " + k, true
		}
	case "DATE_ADD", "DATE_SUB":
		if len(args) == 2 && strings.HasPrefix(strings.ToUpper(args[1]), "INTERVAL ") {
			op := " + "
			if name == "DATE_SUB" {
				op = " - "
			}
			iv := args[1]
			for _, u := range []string{"YEAR_MONTH", "DAY_HOUR", "DAY_MINUTE", "DAY_SECOND", "HOUR_MINUTE", "HOUR_SECOND", "MINUTE_SECOND"} {
				if strings.HasSuffix(strings.ToUpper(iv), " "+u) { // INTERVAL '1 02' DAY TO HOUR, as TiDB's DAY_HOUR
					iv = iv[:len(iv)-len(u)] + strings.Replace(u, "_", " TO ", 1)
				}
			}
			return args[0] + op + iv, true
		}
	case "FLOOR", "CEIL":
		if u, ok := unquote(args[len(args)-1]); ok && len(args) == 2 {
			return written + "(" + args[0] + " TO " + strings.ToUpper(u) + ")", true
		}
	case "JSON_VALUE":
		if ty, ok := unquote(args[len(args)-1]); ok && len(args) == 3 {
			return written + "(" + args[0] + ", " + args[1] + " RETURNING " + strings.ToUpper(ty) + ")", true
		}
	}
	return "", false
}

// distinctFromText returns text with the `a <=> b` the front end writes for
// `a IS NOT DISTINCT FROM b`, and the `a <=> b IS FALSE` it writes for `a IS
// DISTINCT FROM b` (parser/funcsyntax.go), written back as Flink's operators
// (Flink has no <=>, so one the user wrote shows as IS NOT DISTINCT FROM
// too). b ends where an operator of <=>'s precedence or lower (MySQL's: the
// comparisons, IS, AND, OR, …), a comma or a closing parenthesis at its depth
// comes.
func distinctFromText(text string) string {
	if !strings.Contains(text, "<=>") {
		return text
	}
	toks := parser.Tokens(text)
	var sb strings.Builder
	pos := 0
	for i, t := range toks {
		if t.Kind != parser.TokOp || t.Text != "<=>" {
			continue
		}
		end, d := len(toks), 0
	scan:
		for j := i + 1; j < len(toks); j++ {
			u := toks[j]
			if u.Kind == parser.TokOp {
				switch u.Text {
				case "(", "[":
					d++
				case ")", "]":
					if d == 0 {
						end = j
						break scan
					}
					d--
				case ",", "=", "<>", "!=", "<", "<=", ">", ">=", "<=>", "&&", "||":
					if d == 0 {
						end = j
						break scan
					}
				}
				continue
			}
			if d == 0 && u.Kind == parser.TokIdent {
				switch strings.ToUpper(u.Text) {
				case "IS", "AND", "OR", "XOR", "LIKE", "IN", "BETWEEN", "NOT", "THEN", "WHEN", "ELSE", "END", "AS", "ASC", "DESC", "REGEXP", "SIMILAR":
					end = j
					break scan
				}
			}
		}
		op := "IS NOT DISTINCT FROM"
		if end+1 < len(toks) && strings.EqualFold(toks[end].Text, "IS") && strings.EqualFold(toks[end+1].Text, "FALSE") && toks[end].Kind == parser.TokIdent {
			op = "IS DISTINCT FROM"
			sb.WriteString(text[pos:t.Offset])
			sb.WriteString(op)
			sb.WriteString(strings.TrimRight(text[t.End():toks[end].Offset], " "))
			pos = toks[end+1].End()
			continue
		}
		sb.WriteString(text[pos:t.Offset])
		sb.WriteString(op)
		pos = t.End()
	}
	sb.WriteString(text[pos:])
	return sb.String()
}
