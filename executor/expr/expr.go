// Package expr compiles the plan's expression trees (planner/plan.Expr) into
// typed kernels over column batches (DESIGN: planner, Vitess' evalengine
// idea): Compile picks each node's loop once, from its operator and types,
// and the kernel evaluates a whole selection of a batch at a time with
// nothing allocated per row. The executor compiles a job's expressions when
// it builds the job (executor/build.go), in the job's Context, which keeps
// the record of the job's failed calls (failures.go). Linked, the package installs its
// kernels as the planner's evaluator of constant expressions
// (planner/plan.SetEvaluator, Constants): the planner imports no executor
// package.
//
// The function table of SPEC 2.10 is declared in catalog/functions (names,
// signatures, NULL rule, determinism, failure behaviour, docs); this package
// keeps each function's row kernel (func_*.go) and binds it to its
// declaration by name (kernels, kernels.go), and a user function's through
// its declaration's Impl (UserFunc: GoFunction, WasmFunction). It imports
// catalog, planner/plan and the executor's vector and decoder packages, never
// the planner or the parser.
package expr

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/jsondec"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Kernel is a compiled expression. Eval computes the value of every row
// listed in sel (ascending row indexes of b) and returns a vector holding them
// at those same indexes; other slots are unspecified. The returned vector is
// owned by the kernel (or is a column of b) and is valid until the next Eval.
// A kernel of a constant expression ignores b (it may be nil).
type Kernel struct {
	Type catalog.Type
	Eval func(b *vector.Batch, sel []int32) *vector.Vec
}

// Compile returns the kernel of e outside any job: fresh output vectors of
// its own, so two kernels of one tree (a plan built twice) do not share
// state; its failed calls are dropped (they give NULL). A job's kernels are
// compiled in the job's Context instead, which records them. nil gives nil.
func Compile(e *plan.Expr) *Kernel {
	return (*Context)(nil).Compile(e)
}

// Fold evaluates a constant expression (e.Const) once and returns its value.
func Fold(e *plan.Expr) plan.Value {
	v := Compile(e).Eval(nil, []int32{0})
	return ValueAt(e.Type, v, 0)
}

// ValueAt returns row i of v, of type t, as a plan.Value (text copied).
func ValueAt(t catalog.Type, v *vector.Vec, i int) plan.Value {
	if v.Null[i] {
		return plan.Value{Null: true}
	}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return plan.Value{I: v.I[i]}
	case catalog.Double:
		return plan.Value{F: v.F[i]}
	case catalog.Boolean:
		return plan.Value{B: v.B[i]}
	case catalog.Varchar:
		return plan.Value{S: bytes.Clone(v.S[i])}
	}
	return plan.Value{Null: true}
}

type evalFunc = func(b *vector.Batch, sel []int32) *vector.Vec

// compiler keeps what a tree's nodes share: the current value of the
// innermost OpIn's operand, read by its OpInArg nodes.
type compiler struct {
	inArg **vector.Vec
	// capture: operands of a counted expression (plan.Expr.NullCount) whose
	// results are kept, by the slot that keeps them
	capture map[*plan.Expr]**vector.Vec
	// fails is the job's record of failed calls (nil: dropped, Compile)
	fails *Context
}

// compile compiles e; an expression with a NullCount also counts the rows
// whose operands are not NULL and whose result is (countNulls).
func (c *compiler) compile(e *plan.Expr) evalFunc {
	if slot, ok := c.capture[e]; ok {
		delete(c.capture, e)
		f := c.compile(e)
		return func(b *vector.Batch, sel []int32) *vector.Vec {
			v := f(b, sel)
			*slot = v
			return v
		}
	}
	if e.NullCount == nil {
		return c.compile1(e)
	}
	return c.countNulls(e)
}

// countNulls compiles e, whose NullCount is set (EXPLAIN ANALYZE, SPEC 3):
// after each batch it adds the rows of sel whose result is NULL though no
// operand was (a zero divisor, a CAST that failed, an overflow), once per batch.
func (c *compiler) countNulls(e *plan.Expr) evalFunc {
	ins := make([]*vector.Vec, len(e.Args))
	if c.capture == nil {
		c.capture = map[*plan.Expr]**vector.Vec{}
	}
	for k, a := range e.Args {
		c.capture[a] = &ins[k]
	}
	f := c.compile1(e)
	for _, a := range e.Args {
		delete(c.capture, a)
	}
	n := e.NullCount
	return func(b *vector.Batch, sel []int32) *vector.Vec {
		out := f(b, sel)
		count := int64(0)
		for _, i := range sel {
			if !out.Null[i] {
				continue
			}
			fromValues := true
			for _, v := range ins {
				if v == nil || v.Null[i] {
					fromValues = false
					break
				}
			}
			if fromValues {
				count++
			}
		}
		if count > 0 {
			n.Add(count)
		}
		return out
	}
}

// derived returns an eval whose result is a fresh vector of type t, filled by fill.
func derived(t catalog.Type, fill func(b *vector.Batch, sel []int32, out *vector.Vec)) evalFunc {
	out := vector.NewVec(t)
	return func(b *vector.Batch, sel []int32) *vector.Vec {
		out.ResetArena()
		fill(b, sel, out)
		return out
	}
}

// constVec returns a vector of type t with every slot holding v.
func constVec(t catalog.Type, v plan.Value) *vector.Vec {
	out := vector.NewVec(t)
	for i := 0; i < vector.Cap; i++ {
		SetValue(out, i, t, &v)
	}
	return out
}

// constIn compiles the constants of an IN list (the equalities OpInArg =
// literal of the operand's own type) into one kernel that looks the operand up
// in a sorted set: each constant costs its size, not a vector of its own, and
// a row costs O(log n), not n comparisons (issue 30: a 1M-literal list). It
// returns that kernel (nil when no equality is of that form) and the other
// equalities, which the caller ORs to it (OR is commutative; the result's NULL
// is SQL's: no match and a NULL in the list, or a NULL operand).
func constIn(eqs []*plan.Expr, cur **vector.Vec) (evalFunc, []*plan.Expr) {
	var set inSet
	rest := eqs[:0:0]
	for _, eq := range eqs {
		if !set.add(eq) {
			rest = append(rest, eq)
		}
	}
	if set.n == 0 {
		return nil, rest
	}
	set.sort()
	return derived(catalog.Boolean, func(_ *vector.Batch, sel []int32, out *vector.Vec) {
		set.eval(*cur, sel, out)
	}), rest
}

// inSet is the sorted set of an IN list's constants of one type.
type inSet struct {
	t      catalog.Type
	n      int // constants taken, NULL included
	null   bool
	ints   []int64
	floats []float64
	strs   [][]byte
}

// add takes eq when it is OpInArg = literal of the operand's type, and says
// whether it did.
func (s *inSet) add(eq *plan.Expr) bool {
	if eq.Op != plan.OpCmp || plan.Cmp(eq.Param) != plan.EQ || len(eq.Args) != 2 {
		return false
	}
	x, lit := eq.Args[0], eq.Args[1]
	if x.Op != plan.OpInArg || lit.Op != plan.OpLit || lit.Type != x.Type || (s.n > 0 && x.Type != s.t) {
		return false
	}
	v := lit.Lit
	switch x.Type {
	case catalog.BigInt, catalog.Timestamp:
		if !v.Null {
			s.ints = append(s.ints, v.I)
		}
	case catalog.Double:
		if !v.Null && !math.IsNaN(v.F) { // (NaN = anything is false)
			s.floats = append(s.floats, v.F)
		}
	case catalog.Varchar:
		if !v.Null {
			s.strs = append(s.strs, v.S)
		}
	default:
		return false
	}
	s.t, s.null = x.Type, s.null || v.Null
	s.n++
	return true
}

func (s *inSet) sort() {
	slices.Sort(s.ints)
	slices.Sort(s.floats) // (-0 and 0 are equal, as = has them)
	slices.SortFunc(s.strs, bytes.Compare)
}

// eval sets out's rows of sel to x IN set: true on a match, NULL for a NULL x
// or for no match with a NULL in the set, else false.
func (s *inSet) eval(x *vector.Vec, sel []int32, out *vector.Vec) {
	for _, i := range sel {
		if x.Null[i] {
			out.Null[i], out.B[i] = true, false
			continue
		}
		var found bool
		switch s.t {
		case catalog.BigInt, catalog.Timestamp:
			_, found = slices.BinarySearch(s.ints, x.I[i])
		case catalog.Double:
			_, found = slices.BinarySearch(s.floats, x.F[i])
		case catalog.Varchar:
			_, found = slices.BinarySearchFunc(s.strs, x.S[i], bytes.Compare)
		}
		out.B[i], out.Null[i] = found, !found && s.null
	}
}

// SetValue writes x, a value of type t, into row i of out (NULL when x.Null;
// a VARCHAR's bytes are shared, not copied): the one place a plan.Value
// becomes a vector entry, for constants and an aggregate's grouping keys.
func SetValue(out *vector.Vec, i int, t catalog.Type, x *plan.Value) {
	out.Null[i] = x.Null
	if x.Null {
		return
	}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		out.I[i] = x.I
	case catalog.Double:
		out.F[i] = x.F
	case catalog.Boolean:
		out.B[i] = x.B
	case catalog.Varchar:
		out.S[i] = x.S
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c *compiler) args(e *plan.Expr) []evalFunc {
	fs := make([]evalFunc, len(e.Args))
	for i, a := range e.Args {
		fs[i] = c.compile(a)
	}
	return fs
}

func (c *compiler) compile1(e *plan.Expr) evalFunc {
	switch e.Op {
	case plan.OpLit:
		v := constVec(e.Type, e.Lit)
		return func(*vector.Batch, []int32) *vector.Vec { return v }
	case plan.OpCol:
		idx := e.Col
		return func(b *vector.Batch, _ []int32) *vector.Vec { return b.Cols[idx] }
	case plan.OpCurrentWatermark:
		idx := int(e.Param)
		return func(b *vector.Batch, _ []int32) *vector.Vec { return b.Cols[idx] }
	case plan.OpInArg:
		cur := c.inArg
		return func(*vector.Batch, []int32) *vector.Vec { return *cur }
	case plan.OpIn:
		x := c.compile(e.Args[0])
		outer := c.inArg
		var cur *vector.Vec
		c.inArg = &cur
		acc, rest := constIn(e.Args[1:], &cur)
		for _, eq := range rest {
			f := c.compile(eq)
			if acc == nil {
				acc = f
			} else {
				acc = logic(plan.OpOr, acc, f)
			}
		}
		c.inArg = outer
		return func(b *vector.Batch, sel []int32) *vector.Vec {
			cur = x(b, sel)
			return acc(b, sel)
		}
	case plan.OpCast:
		return castTo(c.compile(e.Args[0]), e.Args[0].Type, e.Type)
	case plan.OpIsNull:
		x, not := c.compile(e.Args[0]), e.Flag
		return derived(catalog.Boolean, func(b *vector.Batch, sel []int32, out *vector.Vec) {
			in := x(b, sel)
			for _, i := range sel {
				out.Null[i] = false
				out.B[i] = in.Null[i] != not
			}
		})
	case plan.OpIsTruth:
		x, want, not := c.compile(e.Args[0]), e.Want, e.Flag
		return derived(catalog.Boolean, func(b *vector.Batch, sel []int32, out *vector.Vec) {
			in := x(b, sel)
			for _, i := range sel {
				out.Null[i] = false
				out.B[i] = (!in.Null[i] && in.B[i] == want) != not
			}
		})
	case plan.OpNot:
		x := c.compile(e.Args[0])
		return derived(catalog.Boolean, func(b *vector.Batch, sel []int32, out *vector.Vec) {
			in := x(b, sel)
			for _, i := range sel {
				out.Null[i] = in.Null[i]
				out.B[i] = !in.B[i]
			}
		})
	case plan.OpAnd, plan.OpOr, plan.OpXor:
		return logic(e.Op, c.compile(e.Args[0]), c.compile(e.Args[1]))
	case plan.OpCmp:
		return compare(plan.Cmp(e.Param), e.Args[0].Type, c.compile(e.Args[0]), c.compile(e.Args[1]))
	case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpIntDiv, plan.OpMod:
		l, r := c.compile(e.Args[0]), c.compile(e.Args[1])
		if e.Type == catalog.BigInt {
			if k := e.Args[1]; (e.Op == plan.OpMod || e.Op == plan.OpIntDiv) && k.Op == plan.OpLit && k.Type == catalog.BigInt && !k.Lit.Null && k.Lit.I != 0 && k.Lit.I != -1 {
				return byConst(l, e.Op, k.Lit.I)
			}
			return binInt(l, r, intOps[e.Op])
		}
		return binFloat(l, r, floatOps[e.Op])
	case plan.OpNeg:
		x := c.compile(e.Args[0])
		if e.Type == catalog.BigInt {
			return mapInt(x, catalog.BigInt, func(a int64) (int64, bool) { return -a, a != math.MinInt64 })
		}
		return mapFloat(x, func(a float64) float64 { return -a })
	case plan.OpAbs:
		x := c.compile(e.Args[0])
		if e.Type == catalog.BigInt {
			return mapInt(x, catalog.BigInt, func(a int64) (int64, bool) {
				if a < 0 {
					return -a, a != math.MinInt64
				}
				return a, true
			})
		}
		return mapFloat(x, math.Abs)
	case plan.OpFloor:
		return mapFloat(c.compile(e.Args[0]), math.Floor)
	case plan.OpCeil:
		return mapFloat(c.compile(e.Args[0]), math.Ceil)
	case plan.OpRound:
		d := int(e.Param)
		return mapFloat(c.compile(e.Args[0]), func(a float64) float64 { return roundHalfUp(a, d) })
	case plan.OpRoundTens:
		k := int(e.Param)
		return mapInt(c.compile(e.Args[0]), catalog.BigInt, func(a int64) (int64, bool) { return roundTens(a, k) })
	case plan.OpAddInterval:
		// (a loop of its own, not mapInt's call per row; the watermark
		// assigner computes its own ts - INTERVAL, watermarker.advance)
		delta := e.Param
		x := c.compile(e.Args[0])
		return derived(e.Type, func(b *vector.Batch, sel []int32, out *vector.Vec) {
			a := x(b, sel)
			for _, i := range sel {
				s, ok := AddInterval(a.I[i], delta)
				out.I[i], out.Null[i] = s, a.Null[i] || !ok
			}
		})
	case plan.OpCase:
		return caseKernel(e.Type, c.args(e))
	case plan.OpLike:
		x, p := c.compile(e.Args[0]), c.compile(e.Args[1])
		esc, ilike := rune(e.Param), e.Flag
		return derived(catalog.Boolean, func(b *vector.Batch, sel []int32, out *vector.Vec) {
			xs, ps := x(b, sel), p(b, sel)
			for _, i := range sel {
				if xs.Null[i] || ps.Null[i] {
					out.Null[i] = true
					continue
				}
				out.Null[i] = false
				out.B[i] = likeMatch(xs.S[i], ps.S[i], esc, ilike)
			}
		})
	case plan.OpCoalesce:
		return coalesce(e.Type, c.args(e))
	case plan.OpConcat:
		types := make([]catalog.Type, len(e.Args))
		for i, a := range e.Args {
			types[i] = a.Type
		}
		return concat(types, c.args(e))
	case plan.OpUpper, plan.OpLower:
		f := unicode.ToUpper
		if e.Op == plan.OpLower {
			f = unicode.ToLower
		}
		return strMap(c.compile(e.Args[0]), func(dst, s []byte) []byte {
			for len(s) > 0 {
				r, size := utf8.DecodeRune(s)
				if r == utf8.RuneError && size <= 1 {
					dst = append(dst, s[0])
					s = s[1:]
					continue
				}
				dst = utf8.AppendRune(dst, f(r))
				s = s[size:]
			}
			return dst
		})
	case plan.OpTrim, plan.OpLTrim, plan.OpRTrim:
		left, right := e.Op != plan.OpRTrim, e.Op != plan.OpLTrim
		if len(e.Args) == 2 {
			return trimSetKernel(c.compile(e.Args[0]), c.compile(e.Args[1]), left, right)
		}
		return strMap(c.compile(e.Args[0]), func(dst, s []byte) []byte {
			i, j := 0, len(s)
			if left {
				for i < j && s[i] == ' ' {
					i++
				}
			}
			if right {
				for j > i && s[j-1] == ' ' {
					j--
				}
			}
			return append(dst, s[i:j]...)
		})
	case plan.OpSubstring:
		return substringKernel(c.args(e))
	case plan.OpCharLength:
		x := c.compile(e.Args[0])
		return derived(catalog.BigInt, func(b *vector.Batch, sel []int32, out *vector.Vec) {
			in := x(b, sel)
			for _, i := range sel {
				out.Null[i] = in.Null[i]
				out.I[i] = int64(utf8.RuneCount(in.S[i]))
			}
		})
	case plan.OpFunc:
		return c.funcKernel(e)
	}
	panic("expr: cannot compile operator " + e.Op.String())
}

// intOps are the BIGINT arithmetic of SPEC 2: false gives NULL (overflow, / 0).
var intOps = map[plan.Op]func(a, b int64) (int64, bool){
	plan.OpAdd: func(a, b int64) (int64, bool) {
		s := a + b
		return s, (a >= 0) != (b >= 0) || (s >= 0) == (a >= 0)
	},
	plan.OpSub: func(a, b int64) (int64, bool) {
		s := a - b
		return s, (a >= 0) == (b >= 0) || (s >= 0) == (a >= 0)
	},
	plan.OpMul: func(a, b int64) (int64, bool) {
		if a == 0 || b == 0 {
			return 0, true
		}
		s := a * b
		if s/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
			return 0, false
		}
		return s, true
	},
	plan.OpIntDiv: func(a, b int64) (int64, bool) {
		if b == 0 || (a == math.MinInt64 && b == -1) {
			return 0, false
		}
		return a / b, true
	},
	plan.OpMod: func(a, b int64) (int64, bool) {
		if b == 0 {
			return 0, false
		}
		if b == -1 {
			return 0, true
		}
		return a % b, true
	},
}

// floatOps are the DOUBLE arithmetic of SPEC 2: false gives NULL (/ 0).
var floatOps = map[plan.Op]func(a, b float64) (float64, bool){
	plan.OpAdd: func(a, b float64) (float64, bool) { return a + b, true },
	plan.OpSub: func(a, b float64) (float64, bool) { return a - b, true },
	plan.OpMul: func(a, b float64) (float64, bool) { return a * b, true },
	plan.OpDiv: func(a, b float64) (float64, bool) {
		if b == 0 {
			return 0, false
		}
		return a / b, true
	},
	plan.OpIntDiv: func(a, b float64) (float64, bool) {
		if b == 0 {
			return 0, false
		}
		return math.Trunc(a / b), true
	},
	plan.OpMod: func(a, b float64) (float64, bool) {
		if b == 0 {
			return 0, false
		}
		return math.Mod(a, b), true
	},
}

// logic is AND / OR / XOR with SQL's three-valued logic.
func logic(op plan.Op, l, r evalFunc) evalFunc {
	return derived(catalog.Boolean, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a, c := l(b, sel), r(b, sel)
		for _, i := range sel {
			an, cn := a.Null[i], c.Null[i]
			av, cv := a.B[i] && !an, c.B[i] && !cn
			switch op {
			case plan.OpAnd:
				if (!an && !av) || (!cn && !cv) {
					out.Null[i], out.B[i] = false, false
				} else {
					out.Null[i], out.B[i] = an || cn, true
				}
			case plan.OpOr:
				if av || cv {
					out.Null[i], out.B[i] = false, true
				} else {
					out.Null[i], out.B[i] = an || cn, false
				}
			default:
				out.Null[i], out.B[i] = an || cn, av != cv
			}
		}
	})
}

type ordered interface{ ~int64 | ~float64 }

func cmpLoop[T ordered](op plan.Cmp, sel []int32, a, c []T, out []bool) {
	switch op {
	case plan.EQ, plan.NullEQ:
		for _, i := range sel {
			out[i] = a[i] == c[i]
		}
	case plan.NE:
		for _, i := range sel {
			out[i] = a[i] != c[i]
		}
	case plan.LT:
		for _, i := range sel {
			out[i] = a[i] < c[i]
		}
	case plan.LE:
		for _, i := range sel {
			out[i] = a[i] <= c[i]
		}
	case plan.GT:
		for _, i := range sel {
			out[i] = a[i] > c[i]
		}
	case plan.GE:
		for _, i := range sel {
			out[i] = a[i] >= c[i]
		}
	}
}

func cmpResult(op plan.Cmp, c int) bool {
	switch op {
	case plan.EQ, plan.NullEQ:
		return c == 0
	case plan.NE:
		return c != 0
	case plan.LT:
		return c < 0
	case plan.LE:
		return c <= 0
	case plan.GT:
		return c > 0
	}
	return c >= 0
}

// compare compares two operands of type t.
func compare(op plan.Cmp, t catalog.Type, l, r evalFunc) evalFunc {
	return derived(catalog.Boolean, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a, c := l(b, sel), r(b, sel)
		switch t {
		case catalog.BigInt, catalog.Timestamp:
			cmpLoop(op, sel, a.I, c.I, out.B)
		case catalog.Double:
			cmpLoop(op, sel, a.F, c.F, out.B)
		case catalog.Boolean:
			for _, i := range sel {
				out.B[i] = cmpResult(op, int(b2i(a.B[i])-b2i(c.B[i])))
			}
		case catalog.Varchar:
			for _, i := range sel {
				out.B[i] = cmpResult(op, bytes.Compare(a.S[i], c.S[i]))
			}
		default:
			if t.IsNested() { // = and <> only (the planner's rule)
				compareNested(op, sel, a, c, out.B)
			}
		}
		if op == plan.NullEQ {
			for _, i := range sel {
				switch {
				case a.Null[i] && c.Null[i]:
					out.B[i] = true
				case a.Null[i] || c.Null[i]:
					out.B[i] = false
				}
				out.Null[i] = false
			}
			return
		}
		for _, i := range sel {
			out.Null[i] = a.Null[i] || c.Null[i]
		}
	})
}

// binary applies f to the pairs of col's values (a vector's I or F), giving
// type t; f's false result gives NULL (overflow, / 0), as does a NULL operand.
func binary[T int64 | float64](l, r evalFunc, t catalog.Type, col func(*vector.Vec) []T, f func(a, b T) (T, bool)) evalFunc {
	return derived(t, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a, c := l(b, sel), r(b, sel)
		av, cv, ov := col(a), col(c), col(out)
		for _, i := range sel {
			if a.Null[i] || c.Null[i] {
				out.Null[i] = true
				continue
			}
			v, ok := f(av[i], cv[i])
			ov[i], out.Null[i] = v, !ok
		}
	})
}

// binInt applies f to BIGINT pairs; f's false result gives NULL (overflow, / 0).
func binInt(l, r evalFunc, f func(a, b int64) (int64, bool)) evalFunc {
	return binary(l, r, catalog.BigInt, ints, f)
}

// byConst is x % k or x DIV k (op) for a BIGINT constant k other than 0
// and -1 (a key's bucket, as issue 24's ts % 10000): intOps' results
// without a call per row, since neither can overflow or divide by zero
// then; NULL where x is.
func byConst(x evalFunc, op plan.Op, k int64) evalFunc {
	return derived(catalog.BigInt, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a := x(b, sel)
		ai, oi, an, on := a.I, out.I, a.Null, out.Null
		if op == plan.OpMod {
			for _, i := range sel {
				oi[i], on[i] = ai[i]%k, an[i]
			}
			return
		}
		for _, i := range sel {
			oi[i], on[i] = ai[i]/k, an[i]
		}
	})
}

// binFloat applies f to DOUBLE pairs; f's false result gives NULL (/ 0).
func binFloat(l, r evalFunc, f func(a, b float64) (float64, bool)) evalFunc {
	return binary(l, r, catalog.Double, floats, f)
}

// AddInterval returns t + delta (ms) for t + INTERVAL (SPEC 2: TIMESTAMP and
// BIGINT event times, epoch ms), and false when the sum overflows int64
// (the expression is NULL then).
func AddInterval(t, delta int64) (int64, bool) {
	s := t + delta
	return s, (t >= 0) != (delta >= 0) || (s >= 0) == (t >= 0)
}

// mapInt applies f to each BIGINT (or TIMESTAMP) value, giving type t.
func mapInt(x evalFunc, t catalog.Type, f func(a int64) (int64, bool)) evalFunc {
	return derived(t, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a := x(b, sel)
		for _, i := range sel {
			if a.Null[i] {
				out.Null[i] = true
				continue
			}
			v, ok := f(a.I[i])
			out.I[i], out.Null[i] = v, !ok
		}
	})
}

func mapFloat(x evalFunc, f func(a float64) float64) evalFunc {
	return derived(catalog.Double, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a := x(b, sel)
		for _, i := range sel {
			out.Null[i] = a.Null[i]
			out.F[i] = f(a.F[i])
		}
	})
}

// caseKernel picks, per row, the result of the first true condition, else the
// last result (ELSE, or NULL): args are cond1, result1, ..., else, all results
// of type t.
func caseKernel(t catalog.Type, args []evalFunc) evalFunc {
	n := len(args) / 2
	cv := make([]*vector.Vec, n)
	rv := make([]*vector.Vec, n+1)
	return derived(t, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k := 0; k < n; k++ {
			cv[k] = args[2*k](b, sel)
		}
		for k := 0; k < n; k++ {
			rv[k] = args[2*k+1](b, sel)
		}
		rv[n] = args[2*n](b, sel)
		for _, i := range sel {
			k := 0
			for k < n && !(cv[k].B[i] && !cv[k].Null[i]) {
				k++
			}
			copyValue(t, rv[k], out, int(i))
		}
	})
}

// copyValue copies row i of in to row i of out (same type); strings are shared.
func copyValue(t catalog.Type, in, out *vector.Vec, i int) {
	out.Null[i] = in.Null[i]
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		out.I[i] = in.I[i]
	case catalog.Double:
		out.F[i] = in.F[i]
	case catalog.Boolean:
		out.B[i] = in.B[i]
	case catalog.Varchar:
		out.S[i] = in.S[i]
	default:
		if t.IsNested() && !in.Null[i] {
			out.CopyValue(i, in, i) // its elements appended to out's child vectors
		}
	}
}

func coalesce(t catalog.Type, args []evalFunc) evalFunc {
	vs := make([]*vector.Vec, len(args))
	return derived(t, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range args {
			vs[k] = a(b, sel)
		}
		for _, i := range sel {
			k := 0
			for k < len(vs)-1 && vs[k].Null[i] {
				k++
			}
			copyValue(t, vs[k], out, int(i))
		}
	})
}

// concat is CONCAT / ||: NULL if any argument is NULL (or of type Unknown);
// numbers and other values read as they print (SPEC 2).
func concat(types []catalog.Type, args []evalFunc) evalFunc {
	vs := make([]*vector.Vec, len(args))
	return derived(catalog.Varchar, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range args {
			vs[k] = a(b, sel)
		}
		for _, i := range sel {
			null := false
			start := len(out.Arena)
			for k, v := range vs {
				if v.Null[i] || types[k] == catalog.Unknown {
					null = true
					break
				}
				out.Arena = vector.AppendValue(out.Arena, types[k], v, int(i))
			}
			out.Null[i] = null
			if null {
				out.Arena = out.Arena[:start]
				continue
			}
			out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
		}
	})
}

// strMap applies f (which appends the result for s to dst) to each text value.
func strMap(x evalFunc, f func(dst, s []byte) []byte) evalFunc {
	return derived(catalog.Varchar, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		in := x(b, sel)
		for _, i := range sel {
			if in.Null[i] {
				out.Null[i] = true
				continue
			}
			start := len(out.Arena)
			out.Arena = f(out.Arena, in.S[i])
			out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
			out.Null[i] = false
		}
	})
}

// trimSetKernel is TRIM([BOTH|LEADING|TRAILING] chars FROM s), LTRIM(s,
// chars), RTRIM(s, chars) and BTRIM(s, chars): s without the leading (left)
// and/or trailing (right) code points that occur in chars, as Flink's
// BinaryStringDataUtil.trim treats its trim string as a set of characters
// (SPEC 2.10). A NULL s or chars gives NULL; an empty chars trims nothing.
func trimSetKernel(x, chars evalFunc, left, right bool) evalFunc {
	return derived(catalog.Varchar, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		in, set := x(b, sel), chars(b, sel)
		for _, i := range sel {
			if in.Null[i] || set.Null[i] {
				out.Null[i] = true
				continue
			}
			s, cs := in.S[i], set.S[i]
			if left {
				for len(s) > 0 {
					_, n := utf8.DecodeRune(s)
					if !inCodePoints(cs, s[:n]) {
						break
					}
					s = s[n:]
				}
			}
			if right {
				for len(s) > 0 {
					_, n := utf8.DecodeLastRune(s)
					if !inCodePoints(cs, s[len(s)-n:]) {
						break
					}
					s = s[:len(s)-n]
				}
			}
			start := len(out.Arena)
			out.Arena = append(out.Arena, s...)
			out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
			out.Null[i] = false
		}
	})
}

// inCodePoints reports whether c, the bytes of one code point (or one byte
// that is not UTF-8), is one of the code points of set, compared byte for
// byte: a byte that is not UTF-8 matches that byte alone, never a part of a
// character.
func inCodePoints(set, c []byte) bool {
	for len(set) > 0 {
		_, n := utf8.DecodeRune(set)
		if string(set[:n]) == string(c) {
			return true
		}
		set = set[n:]
	}
	return false
}

// substringKernel is SUBSTRING(s, start[, len]) on code points: start 1 is the
// first character, a negative start counts from the end, start 0 or a negative
// length gives ” (SPEC 2).
func substringKernel(args []evalFunc) evalFunc {
	vs := make([]*vector.Vec, len(args))
	return derived(catalog.Varchar, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range args {
			vs[k] = a(b, sel)
		}
		for _, i := range sel {
			null := false
			for _, v := range vs {
				null = null || v.Null[i]
			}
			out.Null[i] = null
			if null {
				continue
			}
			s := vs[0].S[i]
			start := vs[1].I[i]
			length := int64(math.MaxInt64)
			if len(vs) == 3 {
				length = vs[2].I[i]
			}
			out.S[i] = substring(s, start, length)
		}
	})
}

// castTo is CAST from type from to type to with SPEC 2's rules: failures give
// NULL (Flink's TRY_CAST). The loop is picked once, here (castKernel).
func castTo(x evalFunc, from, to catalog.Type) evalFunc {
	if from == to {
		return x
	}
	conv := castKernel(from, to)
	return derived(to, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		conv(x(b, sel), out, sel)
	})
}

// castLoop converts the rows sel of in into the same rows of out: a NULL or a
// value that does not convert gives NULL (SPEC 2, CAST).
type castLoop func(in, out *vector.Vec, sel []int32)

// castKernel returns the loop that converts values of type from to type to
// (SPEC 2, CAST; text is read by textconv as the decoders read it). from and to
// differ and from is not Unknown; a pair with no conversion gives NULL for
// TIMESTAMP and leaves the value unset (but not NULL) otherwise, as before.
func castKernel(from, to catalog.Type) castLoop {
	if from.IsNested() && to.IsNested() {
		return castNested(from, to) // element by element (cast_nested.go)
	}
	if to.IsNested() && from == catalog.Varchar {
		// text read as the JSON input reads a nested value (SPEC 2.10);
		// text that does not fit gives NULL
		return func(in, out *vector.Vec, sel []int32) {
			for _, i := range sel {
				if in.Null[i] || !utf8.Valid(in.S[i]) || jsondec.SetNested(out, int(i), in.S[i]) != "" {
					out.Null[i] = true
				}
			}
		}
	}
	switch to {
	case catalog.Varchar:
		return func(in, out *vector.Vec, sel []int32) {
			for _, i := range sel {
				if out.Null[i] = in.Null[i]; in.Null[i] {
					continue
				}
				start := len(out.Arena)
				out.Arena = vector.AppendValue(out.Arena, from, in, int(i))
				out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
			}
		}
	case catalog.BigInt:
		switch from {
		case catalog.Double:
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					f := in.F[i]
					if in.Null[i] || math.IsNaN(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
						out.Null[i] = true
						continue
					}
					out.Null[i], out.I[i] = false, int64(f)
				}
			}
		case catalog.Boolean:
			return boolToInt
		case catalog.Timestamp:
			return copyInt
		case catalog.Varchar:
			return parseText(textconv.ParseInt, ints)
		}
	case catalog.Double:
		switch from {
		case catalog.BigInt, catalog.Timestamp:
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					out.Null[i], out.F[i] = in.Null[i], float64(in.I[i])
				}
			}
		case catalog.Boolean:
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					out.Null[i], out.F[i] = in.Null[i], float64(b2i(in.B[i]))
				}
			}
		case catalog.Varchar:
			return parseText(textconv.ParseDouble, floats)
		}
	case catalog.Boolean:
		switch from {
		case catalog.BigInt, catalog.Timestamp:
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					out.Null[i], out.B[i] = in.Null[i], in.I[i] != 0
				}
			}
		case catalog.Double:
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					out.Null[i], out.B[i] = in.Null[i], in.F[i] != 0
				}
			}
		case catalog.Varchar:
			return parseText(textconv.ParseBool, bools)
		}
	case catalog.Timestamp:
		switch from {
		case catalog.BigInt:
			return copyInt
		case catalog.Double:
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					f := in.F[i]
					if in.Null[i] || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 9.2e18 {
						out.Null[i] = true
						continue
					}
					out.Null[i], out.I[i] = false, int64(f)
				}
			}
		case catalog.Varchar:
			return parseText(textconv.ParseTimestamp, ints)
		}
		return allNull
	}
	return keepNulls
}

// parseText is a CAST from VARCHAR: each text read by parse (textconv's rules,
// as the decoders read them) into the slice of out that field gives; text
// parse refuses is NULL.
func parseText[T any](parse func([]byte) (T, bool), field func(*vector.Vec) []T) castLoop {
	return func(in, out *vector.Vec, sel []int32) {
		dst := field(out)
		for _, i := range sel {
			if in.Null[i] {
				out.Null[i] = true
				continue
			}
			v, ok := parse(in.S[i])
			out.Null[i], dst[i] = !ok, v
		}
	}
}

// ints, floats and bools are a vector's columns by type (BIGINT or
// TIMESTAMP, DOUBLE, BOOLEAN), for the generic kernels (binary, parseText).
func ints(v *vector.Vec) []int64     { return v.I }
func floats(v *vector.Vec) []float64 { return v.F }
func bools(v *vector.Vec) []bool     { return v.B }

// copyInt is the cast between BIGINT and TIMESTAMP (epoch ms both).
func copyInt(in, out *vector.Vec, sel []int32) {
	for _, i := range sel {
		out.Null[i], out.I[i] = in.Null[i], in.I[i]
	}
}

// boolToInt is CAST(BOOLEAN AS BIGINT): 1 or 0.
func boolToInt(in, out *vector.Vec, sel []int32) {
	for _, i := range sel {
		out.Null[i], out.I[i] = in.Null[i], b2i(in.B[i])
	}
}

// allNull is a cast with no conversion to TIMESTAMP: every row is NULL.
func allNull(_, out *vector.Vec, sel []int32) {
	for _, i := range sel {
		out.Null[i] = true
	}
}

// keepNulls is a cast with no conversion to another type: NULL stays NULL and
// other rows are not written.
func keepNulls(in, out *vector.Vec, sel []int32) {
	for _, i := range sel {
		out.Null[i] = in.Null[i]
	}
}

// likeMatch matches s against pattern p with the iterative wildcard algorithm
// (backtracking only to the last '%'), in O(len(s)*len(p)) worst case. esc (-1 =
// none) escapes the pattern character after it (an escape at the pattern's end is
// itself a literal); fold compares code points under Unicode simple case folding
// (ILIKE). It allocates nothing.
func likeMatch(s, p []byte, esc rune, fold bool) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			r, size := utf8.DecodeRune(p[pi:])
			escaped := esc >= 0 && r == esc
			switch {
			case !escaped && r == '%':
				starP, starS = pi+size, si
				pi += size
				continue
			case !escaped && r == '_':
				_, ss := utf8.DecodeRune(s[si:])
				si += ss
				pi += size
				continue
			default:
				lit, lsize := r, size
				if escaped && pi+size < len(p) {
					lit, lsize = utf8.DecodeRune(p[pi+size:])
					lsize += size
				}
				sr, ss := utf8.DecodeRune(s[si:])
				if runeEq(sr, lit, fold) && (sr != utf8.RuneError || s[si] == p[pi+lsize-ss]) {
					si += ss
					pi += lsize
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		_, ss := utf8.DecodeRune(s[starS:])
		starS += ss
		si, pi = starS, starP
	}
	// only unescaped '%' may remain
	for pi < len(p) && p[pi] == '%' && rune('%') != esc {
		pi++
	}
	return pi == len(p)
}

// runeEq reports whether a and b are equal, or with fold equal under Unicode
// simple case folding (they are in one unicode.SimpleFold orbit).
func runeEq(a, b rune, fold bool) bool {
	if a == b {
		return true
	}
	if !fold {
		return false
	}
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return a == b
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

// roundHalfUp rounds x to d decimal places (d < 0: to tens, hundreds, ...),
// half away from zero, on the shortest decimal form of x, as Flink's
// BigDecimal.valueOf(x).setScale(d, HALF_UP).doubleValue(): ROUND(2.675, 2) =
// 2.68. A decimal has no negative zero, so a result of zero is 0.0, never
// -0.0 (ROUND(-0.4) = ROUND(-0.0) = 0.0; SPEC 2.4 groups 0.0 and -0.0 apart,
// so the sign would split groups).
func roundHalfUp(x float64, d int) float64 {
	if r := roundHalfUpSigned(x, d); r != 0 {
		return r
	}
	return 0
}

// roundHalfUpSigned is roundHalfUp with the sign of x kept on a zero result.
func roundHalfUpSigned(x float64, d int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	s := strconv.FormatFloat(math.Abs(x), 'f', -1, 64)
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		dot = len(s)
		s += "."
	}
	frac := len(s) - dot - 1
	if d >= frac {
		return x
	}
	// digits without the point, keeping d fraction digits, and the next digit
	digits := []byte(s[:dot] + s[dot+1:])
	keep := dot + d // number of digits kept
	if keep < 0 {
		return math.Copysign(0, x)
	}
	up := digits[keep] >= '5'
	kept := digits[:keep]
	if up {
		i := len(kept) - 1
		for i >= 0 && kept[i] == '9' {
			kept[i] = '0'
			i--
		}
		if i < 0 {
			kept = append([]byte{'1'}, kept...)
			dot++
		} else {
			kept[i]++
		}
	}
	intPart := string(kept[:min(len(kept), dot)])
	for len(intPart) < dot {
		intPart += "0"
	}
	if intPart == "" {
		intPart = "0"
	}
	str := intPart
	if d > 0 {
		str += "." + string(kept[dot:])
	}
	v, _ := strconv.ParseFloat(str, 64)
	return math.Copysign(v, x)
}

// roundTens is ROUND(x, -k) of a BIGINT x, k >= 1: x rounded half away from
// zero to a multiple of 10^k, exactly (Flink's BigDecimal.setScale(-k,
// HALF_UP)); ok is false when that multiple is outside int64 (BIGINT
// overflow gives NULL, SPEC 2).
func roundTens(x int64, k int) (int64, bool) {
	if k >= 20 { // 10^k > 2*|x|: every BIGINT rounds to 0
		return 0, true
	}
	p := uint64(1)
	for range k {
		p *= 10 // (10^19 < 2^64)
	}
	a := uint64(x) // |x|, MinInt64's too
	if x < 0 {
		a = -a
	}
	q, r := a/p, a%p
	if r >= p-r { // r >= p/2 without overflow: half away from zero
		q++
	}
	hi, lo := bits.Mul64(q, p)
	limit := uint64(math.MaxInt64)
	if x < 0 {
		limit++ // -2^63 is a BIGINT
	}
	if hi != 0 || lo > limit {
		return 0, false
	}
	if x < 0 {
		return int64(-lo), true
	}
	return int64(lo), true
}

// substring is SUBSTRING(s, start, length) of SPEC 2 on code points.
func substring(s []byte, start, length int64) []byte {
	if start == 0 || length <= 0 {
		return s[:0]
	}
	n := int64(utf8.RuneCount(s))
	if start < 0 {
		start = n + start + 1
		if start < 1 {
			return s[:0]
		}
	}
	if start > n {
		return s[:0]
	}
	// byte offset of code point start-1
	off := 0
	for k := int64(1); k < start; k++ {
		_, size := utf8.DecodeRune(s[off:])
		off += size
	}
	end := off
	for k := int64(0); k < length && end < len(s); k++ {
		_, size := utf8.DecodeRune(s[end:])
		end += size
	}
	return s[off:end]
}

// AppendValue appends v, of type t, as it prints (SPEC 4: vector.AppendValue).
func AppendValue(dst []byte, t catalog.Type, v plan.Value) []byte {
	return vector.AppendValue(dst, t, constVec(t, v), 0)
}
