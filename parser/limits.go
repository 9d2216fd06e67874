package parser

// MaxNesting is how deep an expression or statement may nest: parentheses
// (subqueries included), CASE ... END, and runs of prefix NOT, -, + and ~ each
// count a level. A deeper statement is refused before the TiDB parser sees it,
// with an error at the first token past the limit; every later stage (the AST
// walks, the planner's compile) recurses once per level, so the limit keeps them
// far from the stack's end. (The TiDB parser itself survived 1,000,000 nested
// parentheses when tried; the walks over its AST did not.)
const MaxNesting = 1000

// MaxOperators is how many operators one run of an expression may chain without
// parentheses or commas (a + b + ... or a AND b AND ...): TiDB builds such a
// chain as a tree as deep as it is long, which every walk over the AST recurses
// through (a million terms overflowed the stack). 10,000 terms plan in well under
// a second.
const MaxOperators = 50000

// checkNesting returns an error at the first token of toks (one statement's
// significant tokens) that nests deeper than MaxNesting or chains more than
// MaxOperators operators, or nil. It takes one pass.
func checkNesting(toks []Token) *Error {
	type open struct {
		add   int  // levels this '(' or CASE added, the unary run before it included
		paren bool // '(' rather than CASE
	}
	var stack []open
	level, run := 0, 0
	ops := []int{0} // operators chained at each open level, since its last ','
	for i, t := range toks {
		if isOperator(t) {
			if ops[len(ops)-1]++; ops[len(ops)-1] > MaxOperators {
				return Errorf(t.Offset, "this expression chains more than %d operators: write it as several expressions (several conditions, columns or side branches), or use IN (list) for many alternatives", MaxOperators)
			}
		}
		if t.isOp(",") {
			ops[len(ops)-1] = 0
		}
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
			ops = append(ops, 0)
			if level > MaxNesting {
				return nestingError(t)
			}
		case len(stack) > 0 && ((t.isOp(")") && stack[len(stack)-1].paren) || (t.is("END") && !stack[len(stack)-1].paren)):
			level -= stack[len(stack)-1].add
			stack = stack[:len(stack)-1]
			ops = ops[:len(ops)-1]
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

// isOperator reports whether t joins or modifies operands (an operator or an
// operator word), for MaxOperators.
func isOperator(t Token) bool {
	switch t.Kind {
	case TokOp:
		return !t.isOp("(") && !t.isOp(")") && !t.isOp(",") && !t.isOp(".")
	case TokIdent:
		for _, w := range [...]string{"AND", "OR", "XOR", "NOT", "DIV", "MOD", "LIKE", "ILIKE", "BETWEEN", "IS", "IN", "REGEXP", "RLIKE"} {
			if t.is(w) {
				return true
			}
		}
	}
	return false
}
