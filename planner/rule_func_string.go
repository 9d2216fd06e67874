package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// The text functions of SPEC 2: CONCAT, UPPER/LOWER, TRIM, SUBSTRING and
// CHAR_LENGTH, on Unicode code points (simple case mapping), not bytes.
func init() {
	registerFunc(funcRule{compile: ruleConcat}, "concat")
	registerFunc(funcRule{compile: ruleCase}, "upper", "ucase", "lower", "lcase")
	registerFunc(funcRule{compile: ruleTrim, raw: true}, "trim", "ltrim", "rtrim", "btrim")
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

// ruleTrim is TRIM, LTRIM, RTRIM and BTRIM (SPEC 2.10, Flink's built-in
// functions): TRIM(s) and the others' one-argument forms remove spaces;
// TRIM([BOTH|LEADING|TRAILING] [chars] FROM s), LTRIM(s, chars), RTRIM(s,
// chars) and BTRIM(s, chars) remove the characters of chars, taken as a set,
// as Flink does. TiDB gives TRIM(dir FROM s) as (s, ' ', dir) and
// TRIM(chars FROM s) as (s, chars).
func ruleTrim(c *funcCall) (*Expr, error) {
	op := map[string]plan.Op{"trim": plan.OpTrim, "btrim": plan.OpTrim, "ltrim": plan.OpLTrim, "rtrim": plan.OpRTrim}[c.name]
	args := c.n.Args
	if len(args) == 3 && c.name == "trim" {
		if d, ok := args[2].(*ast.TrimDirectionExpr); ok {
			switch d.Direction {
			case ast.TrimLeading:
				op = plan.OpLTrim
			case ast.TrimTrailing:
				op = plan.OpRTrim
			}
			args = args[:2]
		}
	}
	if len(args) < 1 || len(args) > 2 {
		form := strings.ToUpper(c.name) + "(s[, characters])"
		if c.name == "trim" {
			form = "TRIM([BOTH|LEADING|TRAILING] [characters FROM] s)"
		}
		return nil, parser.Errorf(c.sc.pos(c.n), "%s takes %s, got %d arguments", strings.ToUpper(c.name), form, len(args))
	}
	c.args = make([]*Expr, len(args))
	for i, a := range args {
		e, err := c.sc.compile(a)
		if err != nil {
			return nil, err
		}
		c.args[i] = e
		if err := c.needText(i); err != nil {
			return nil, err
		}
	}
	if len(c.args) == 2 && c.args[1].Const {
		if v := plan.Constants().Fold(c.args[1]); !v.Null && string(v.S) == " " {
			c.args = c.args[:1] // spaces: the one-argument kernel
		}
	}
	return node(op, catalog.Varchar, c.args...), nil
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
