package planner

import (
	"strings"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// The text functions of SPEC 2: CONCAT, UPPER/LOWER, TRIM, SUBSTRING and
// CHAR_LENGTH, on Unicode code points (simple case mapping), not bytes.
func init() {
	registerFunc(funcRule{compile: ruleConcat}, "concat")
	registerFunc(funcRule{compile: ruleCase}, "upper", "ucase", "lower", "lcase")
	registerFunc(funcRule{compile: ruleTrim}, "trim", "ltrim", "rtrim")
	registerFunc(funcRule{compile: ruleSubstring}, "substring", "substr")
	registerFunc(funcRule{compile: ruleCharLength}, "char_length", "character_length")
}

// ruleConcat is CONCAT(x, ...): NULL if any argument is; values read as they
// print (SPEC 2).
func ruleConcat(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 1<<20); err != nil {
		return nil, err
	}
	return concatKernel(c.args), nil
}

// ruleCase is UPPER/UCASE and LOWER/LCASE: simple case mapping per code point;
// bytes that are not UTF-8 are kept (SPEC 2).
func ruleCase(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 1); err != nil {
		return nil, err
	}
	if err := c.needText(0); err != nil {
		return nil, err
	}
	op := plan.OpUpper
	if c.name == "lower" || c.name == "lcase" {
		op = plan.OpLower
	}
	return node(op, catalog.Varchar, c.args[0]), nil
}

// ruleTrim is TRIM, LTRIM and RTRIM of spaces (SPEC 2); trimming other
// characters is an error.
func ruleTrim(c *funcCall) (*Expr, error) {
	if len(c.args) != 1 {
		return nil, parser.Errorf(c.sc.pos(c.n), "%s(x) takes one argument (trimming other characters is not supported)", strings.ToUpper(c.name))
	}
	if err := c.needText(0); err != nil {
		return nil, err
	}
	op := map[string]plan.Op{"trim": plan.OpTrim, "ltrim": plan.OpLTrim, "rtrim": plan.OpRTrim}[c.name]
	return node(op, catalog.Varchar, c.args[0]), nil
}

// ruleSubstring is SUBSTRING/SUBSTR(s, start[, len]) on code points (SPEC 2).
func ruleSubstring(c *funcCall) (*Expr, error) {
	if err := c.arity(2, 3); err != nil {
		return nil, err
	}
	if err := c.needText(0); err != nil {
		return nil, err
	}
	for i := 1; i < len(c.args); i++ {
		if err := c.needInt(i); err != nil {
			return nil, err
		}
	}
	return substringKernel(c.args), nil
}

// ruleCharLength is CHAR_LENGTH/CHARACTER_LENGTH: the number of code points, a
// BIGINT (SPEC 2).
func ruleCharLength(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 1); err != nil {
		return nil, err
	}
	if err := c.needText(0); err != nil {
		return nil, err
	}
	return node(plan.OpCharLength, catalog.BigInt, c.args[0]), nil
}

// concatKernel is CONCAT / ||: NULL if any argument is NULL; numbers and other
// values read as they print (SPEC 2).
func concatKernel(args []*Expr) *Expr { return node(plan.OpConcat, catalog.Varchar, args...) }

// substringKernel is SUBSTRING(s, start[, len]) on code points (SPEC 2).
func substringKernel(args []*Expr) *Expr { return node(plan.OpSubstring, catalog.Varchar, args...) }
