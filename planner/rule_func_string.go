package planner

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/parser"
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
	f := unicode.ToUpper
	if c.name == "lower" || c.name == "lcase" {
		f = unicode.ToLower
	}
	return strMap(c.args[0], func(dst, s []byte) []byte {
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
	}), nil
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
	name := c.name
	return strMap(c.args[0], func(dst, s []byte) []byte {
		i, j := 0, len(s)
		if name != "rtrim" {
			for i < j && s[i] == ' ' {
				i++
			}
		}
		if name != "ltrim" {
			for j > i && s[j-1] == ' ' {
				j--
			}
		}
		return append(dst, s[i:j]...)
	}), nil
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
	x := c.args[0]
	return foldConst(derived(catalog.BigInt, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		in := x.Eval(b, sel)
		for _, i := range sel {
			out.Null[i] = in.Null[i]
			out.I[i] = int64(utf8.RuneCount(in.S[i]))
		}
	})), nil
}

// concatKernel is CONCAT / ||: NULL if any argument is NULL; numbers and other
// values read as they print (SPEC 2).
func concatKernel(args []*Expr) *Expr {
	konst := allConst(args)
	vs := make([]*vector.Vec, len(args))
	return foldConst(derived(catalog.Varchar, konst, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range args {
			vs[k] = a.Eval(b, sel)
		}
		for _, i := range sel {
			null := false
			start := len(out.Arena)
			for k, v := range vs {
				if v.Null[i] || args[k].Type == catalog.Unknown {
					null = true
					break
				}
				out.Arena = vector.AppendValue(out.Arena, args[k].Type, v, int(i))
			}
			out.Null[i] = null
			if null {
				out.Arena = out.Arena[:start]
				continue
			}
			out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
		}
	}))
}

// strMap applies f (which appends the result for s to dst) to each text value.
func strMap(x *Expr, f func(dst, s []byte) []byte) *Expr {
	return foldConst(derived(catalog.Varchar, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		in := x.Eval(b, sel)
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
	}))
}

// substringKernel is SUBSTRING(s, start[, len]) on code points: start 1 is the
// first character, a negative start counts from the end, start 0 or a negative
// length gives ” (SPEC 2).
func substringKernel(args []*Expr) *Expr {
	konst := allConst(args)
	vs := make([]*vector.Vec, len(args))
	return foldConst(derived(catalog.Varchar, konst, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range args {
			vs[k] = a.Eval(b, sel)
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
	}))
}

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
