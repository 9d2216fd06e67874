package plan

import (
	"fmt"
	"strings"
	"sync/atomic"

	"streamql/catalog"
)

// Expr is a type-checked expression tree (SPEC 2: operators and functions):
// Op with its operands Args, each of a resolved Type, columns bound to batch
// column indexes. The executor compiles it into typed kernels over column
// batches (executor/expr, from build.go); tests interpret it row at a time.
// Constant subtrees are folded by the planner into OpLit nodes (Evaluator).
type Expr struct {
	Op   Op
	Type catalog.Type
	Args []*Expr
	// Text is the expression as written, for EXPLAIN and output column names.
	Text string
	// Col is the batch column index when the expression is a bare column
	// (OpCol), else -1.
	Col int
	// Const is set for literals and expressions of literals.
	Const bool
	// Lit is the value of an OpLit (NULL of Type when Lit.Null).
	Lit Value
	// Param is the operator's integer parameter: OpCurrentWatermark's batch
	// column, OpAddInterval's milliseconds, OpRound's digits, OpRoundTens'
	// power of ten (ROUND(x, -Param) of a BIGINT), OpCmp's Cmp, OpLike's escape rune (-1: none).
	Param int64
	// Fn is an OpFunc's function: its name in the function table
	// (catalog/functions.Functions, SPEC 2.10), upper case.
	Fn string
	// Flag is the operator's boolean parameter: NOT for OpIsNull and
	// OpIsTruth, ILIKE for OpLike, not deterministic for OpFunc; Want is the truth OpIsTruth tests.
	Flag, Want bool
	// JSON marks a VARCHAR value that is JSON made by a JSON construction
	// call (an OpFunc of a catalog/functions.Function with MakesJSON, or the
	// literal such a call was folded into): a JSON construction call that
	// takes it directly as a value inserts it as JSON, not as a string
	// (Flink's rule, SPEC 2.10: JSON_OBJECT('a' VALUE JSON_OBJECT('b' VALUE 1))
	// is {"a":{"b":1}}).
	JSON bool
	// Node is the planner's syntax node of the expression while Text is still
	// empty: an inner node's text is rendered only when a message needs it, so
	// that planning stays linear in the size of the expression. The plan holds
	// it without looking inside.
	Node any
	// NullCount, when set (EXPLAIN ANALYZE: Job.CountNulls), counts the rows
	// for which this division, DIV, % or CAST gave NULL from operands that
	// were not NULL (SPEC 2: a zero divisor or a failed conversion gives NULL;
	// SPEC 3: EXPLAIN ANALYZE says how often). The executor's kernel adds to it
	// once per batch.
	NullCount *atomic.Int64
}

// Op is what an Expr node computes. Unless said otherwise, a NULL operand
// gives NULL; integer overflow and division by zero give NULL (SPEC 2).
type Op uint8

// The operators of SPEC 2's expressions.
const (
	OpLit              Op = iota // the constant Lit
	OpCol                        // batch column Col
	OpCurrentWatermark           // CURRENT_WATERMARK: batch column Param (SPEC 2.3)
	OpInArg                      // inside OpIn: the value of the OpIn's first operand
	OpCast                       // CAST(Args[0] AS Type): a failure gives NULL
	OpIsNull                     // Args[0] IS [NOT when Flag] NULL
	OpIsTruth                    // Args[0] IS [NOT when Flag] TRUE (Want) / FALSE
	OpNot                        // NOT, three-valued
	OpAnd                        // AND, three-valued
	OpOr                         // OR, three-valued
	OpXor                        // XOR
	OpCmp                        // Args[0] Cmp(Param) Args[1], operands of one type
	OpAdd                        // + on BIGINT (overflow: NULL) or DOUBLE
	OpSub                        // -
	OpMul                        // *
	OpDiv                        // / on DOUBLE (/ 0: NULL)
	OpIntDiv                     // DIV on BIGINT, or trunc(a / b) on DOUBLE
	OpMod                        // % on BIGINT (x % -1 = 0) or DOUBLE (math.Mod)
	OpNeg                        // unary - (BIGINT overflow: NULL)
	OpAbs                        // ABS (BIGINT overflow: NULL)
	OpFloor                      // FLOOR of a DOUBLE
	OpCeil                       // CEIL of a DOUBLE
	OpRound                      // ROUND(DOUBLE, Param digits), half-up on the shortest decimal
	OpRoundTens                  // a BIGINT rounded half-up to a multiple of 10^Param, exactly (NULL past int64)
	OpAddInterval                // BIGINT or TIMESTAMP + Param ms (overflow: NULL)
	OpCase                       // CASE: Args = cond1, result1, ..., else; the first true cond's result
	OpIn                         // Args[0] IN (...): Args[1:] are equalities over OpInArg, ORed
	OpLike                       // Args[0] LIKE Args[1] (ILIKE when Flag), escape Param
	OpCoalesce                   // the first non-NULL operand
	OpConcat                     // CONCAT: values as they print; NULL if any is NULL
	OpUpper                      // UPPER, per code point
	OpLower                      // LOWER
	OpTrim                       // TRIM of spaces
	OpLTrim                      // LTRIM
	OpRTrim                      // RTRIM
	OpSubstring                  // SUBSTRING(s, start[, len]) on code points
	OpCharLength                 // CHAR_LENGTH in code points
	OpFunc                       // the function table's function Fn (catalog/functions.Functions) of Args; Flag: it reads the clock or draws random numbers
	numOps
)

// Cmp is OpCmp's comparison (Expr.Param).
type Cmp int64

// The comparisons of OpCmp.
const (
	EQ     Cmp = iota // =
	NE                // <>
	LT                // <
	LE                // <=
	GT                // >
	GE                // >=
	NullEQ            // <=>: NULL-safe, never NULL
)

var opNames = [numOps]string{"lit", "col", "current_watermark", "in_arg", "cast", "is_null", "is_truth", "not", "and", "or", "xor", "cmp",
	"add", "sub", "mul", "div", "intdiv", "mod", "neg", "abs", "floor", "ceil", "round", "round_tens", "add_interval",
	"case", "in", "like", "coalesce", "concat", "upper", "lower", "trim", "ltrim", "rtrim", "substring", "char_length", "func"}

// String returns the operator's name as Expr.Tree prints it.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op%d", uint8(o))
}

// Any reports whether pred holds for e or any expression under it (its
// arguments, depth first); false for a nil e. pred is called on non-nil
// expressions only.
func (e *Expr) Any(pred func(*Expr) bool) bool {
	if e == nil {
		return false
	}
	if pred(e) {
		return true
	}
	for _, a := range e.Args {
		if a.Any(pred) {
			return true
		}
	}
	return false
}

// Steady reports whether e gives the same value each time it is computed
// over a row: no function that reads the clock or draws random numbers
// (OpFunc's Flag) in its tree.
func (e *Expr) Steady() bool {
	if e.Op == OpFunc && e.Flag {
		return false
	}
	for _, a := range e.Args {
		if !a.Steady() {
			return false
		}
	}
	return true
}

// Tree renders e as an S-expression of its operators, types and parameters
// (one line; for tests and debugging; EXPLAIN prints Text).
func (e *Expr) Tree() string {
	var sb strings.Builder
	e.tree(&sb)
	return sb.String()
}

func (e *Expr) tree(sb *strings.Builder) {
	sb.WriteString("(" + e.Op.String() + " " + e.Type.String())
	switch e.Op {
	case OpCol:
		fmt.Fprintf(sb, " #%d", e.Col)
	case OpLit:
		if e.Lit.Null {
			sb.WriteString(" NULL")
		} else {
			fmt.Fprintf(sb, " %v", e.Lit.Any(e.Type))
		}
	case OpCurrentWatermark, OpAddInterval, OpRound, OpRoundTens, OpCmp, OpLike:
		fmt.Fprintf(sb, " %d", e.Param)
	case OpFunc:
		sb.WriteString(" " + e.Fn)
	}
	if e.Flag {
		sb.WriteString(" flag")
	}
	if e.Op == OpIsTruth && e.Want {
		sb.WriteString(" want")
	}
	for _, a := range e.Args {
		sb.WriteByte(' ')
		a.tree(sb)
	}
	sb.WriteByte(')')
}

// Any returns v as a Go value of type t (int64, float64, bool, string; nil for
// NULL), for printing.
func (v Value) Any(t catalog.Type) any {
	if v.Null {
		return nil
	}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return v.I
	case catalog.Double:
		return v.F
	case catalog.Boolean:
		return v.B
	}
	return string(v.S)
}

// AndText is the text of terms ANDed, for EXPLAIN: each term's Text joined by
// " AND ", an OR or XOR term in parentheses when there are several (a WHERE
// or ON split into its conjuncts lost the parentheses written around them,
// and "a OR b AND c" would read as another condition).
func AndText(terms []*Expr) string {
	var sb strings.Builder
	for k, e := range terms {
		if k > 0 {
			sb.WriteString(" AND ")
		}
		if len(terms) > 1 && (e.Op == OpOr || e.Op == OpXor) {
			sb.WriteString("(" + e.Text + ")")
		} else {
			sb.WriteString(e.Text)
		}
	}
	return sb.String()
}
