package planner

import (
	"math"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/executor/textconv"
	"streamql/executor/vector"
	"streamql/parser"
)

// cast compiles CAST(x AS type) (SPEC 2: BIGINT, DOUBLE, VARCHAR, BOOLEAN or
// TIMESTAMP; the parser records the target type as written in sc.casts).
func (sc *scope) cast(n *ast.FuncCastExpr) (*Expr, error) {
	x, err := sc.compile(n.Expr)
	if err != nil {
		return nil, err
	}
	name, ok := sc.casts[n]
	if !ok {
		return nil, parser.Errorf(sc.pos(n), "CAST target type not recognised; use BIGINT, DOUBLE, VARCHAR, BOOLEAN or TIMESTAMP")
	}
	t, err := catalog.ParseType(name)
	if err != nil {
		return nil, parser.Errorf(sc.pos(n), "%v", err)
	}
	return castTo(x, t), nil
}

// castTo is CAST(e AS t) with SPEC 2's rules: failures give NULL (Flink's TRY_CAST).
// The conversion loop is picked once here, from e's type and t (castKernel), not
// per row.
func castTo(e *Expr, t catalog.Type) *Expr {
	if e.Type == t {
		return e
	}
	if e.Type == catalog.Unknown {
		return coerce(e, t)
	}
	conv := castKernel(e.Type, t)
	r := derived(t, e.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		conv(e.Eval(b, sel), out, sel)
	})
	inheritText(r, e)
	return foldConst(r)
}

// castLoop converts the rows sel of in into the same rows of out: a NULL or a
// value that does not convert gives NULL (SPEC 2, CAST).
type castLoop func(in, out *vector.Vec, sel []int32)

// castKernel returns the loop that converts values of type from to type to
// (SPEC 2, CAST; text is read by textconv as the decoders read it). from and to
// differ and from is not Unknown; a pair with no conversion gives NULL for
// TIMESTAMP and leaves the value unset (but not NULL) otherwise, as before.
func castKernel(from, to catalog.Type) castLoop {
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
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					if in.Null[i] {
						out.Null[i] = true
						continue
					}
					v, ok := textconv.ParseInt(in.S[i])
					out.Null[i], out.I[i] = !ok, v
				}
			}
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
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					if in.Null[i] {
						out.Null[i] = true
						continue
					}
					v, ok := textconv.ParseDouble(in.S[i])
					out.Null[i], out.F[i] = !ok, v
				}
			}
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
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					if in.Null[i] {
						out.Null[i] = true
						continue
					}
					v, ok := textconv.ParseBool(in.S[i])
					out.Null[i], out.B[i] = !ok, v
				}
			}
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
			return func(in, out *vector.Vec, sel []int32) {
				for _, i := range sel {
					if in.Null[i] {
						out.Null[i] = true
						continue
					}
					v, ok := textconv.ParseTimestamp(in.S[i])
					out.Null[i], out.I[i] = !ok, v
				}
			}
		}
		return allNull
	}
	return keepNulls
}

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
