package parser

// MaxNesting is how deep an expression or statement may nest: parentheses
// (subqueries included), CASE ... END, and runs of prefix NOT, -, + and ~ each
// count a level. A deeper statement is refused before the TiDB parser sees it,
// with an error at the first token past the limit; every later stage (the AST
// walks, the planner's compile) recurses once per level, so the limit keeps them
// far from the stack's end. (The TiDB parser itself survived 1,000,000 nested
// parentheses when tried; the walks over its AST did not.)
const MaxNesting = 1000

// checkNesting returns an error at the first token of toks (one statement's
// significant tokens) that nests deeper than MaxNesting, or nil. It takes one pass.
func checkNesting(toks []Token) *Error {
	type open struct {
		add   int  // levels this '(' or CASE added, the unary run before it included
		paren bool // '(' rather than CASE
	}
	var stack []open
	level, run := 0, 0
	for i, t := range toks {
		if isPrefixUnary(toks, i) {
			run++
			if level+run > MaxNesting {
				return nestingError(t)
			}
			continue
		}
		switch {
		case t.isOp("(") || t.is("CASE"):
			add := run + 1
			level += add
			stack = append(stack, open{add: add, paren: t.isOp("(")})
			if level > MaxNesting {
				return nestingError(t)
			}
		case len(stack) > 0 && ((t.isOp(")") && stack[len(stack)-1].paren) || (t.is("END") && !stack[len(stack)-1].paren)):
			level -= stack[len(stack)-1].add
			stack = stack[:len(stack)-1]
		}
		run = 0
	}
	return nil
}

func nestingError(t Token) *Error {
	return Errorf(t.Offset, "this statement nests deeper than %d levels (parentheses, subqueries, CASE, NOT and signs each count one): write it flatter, e.g. as several conditions joined by AND, or as several side branches", MaxNesting)
}

// isPrefixUnary reports whether toks[i] is a prefix NOT, -, +, ~ or ! (one that
// starts an operand rather than joining two).
func isPrefixUnary(toks []Token, i int) bool {
	t := toks[i]
	if !t.is("NOT") && !t.isOp("-") && !t.isOp("+") && !t.isOp("~") && !t.isOp("!") {
		return false
	}
	if i == 0 {
		return true
	}
	p := toks[i-1]
	switch p.Kind {
	case TokOp:
		return !p.isOp(")")
	case TokIdent:
		for _, w := range [...]string{"NOT", "AND", "OR", "XOR", "WHERE", "WHEN", "THEN", "ELSE", "SELECT", "ON", "AS", "BY", "LIMIT", "VALUES", "IS", "LIKE", "BETWEEN", "IN", "HAVING", "CASE"} {
			if p.is(w) {
				return true
			}
		}
	}
	return false
}
