package planner

import (
	"unicode/utf8"

	"streamql/catalog"
	"streamql/executor/vector"
)

// likeExpr is x LIKE p: '%' matches any run of code points, '_' exactly one code
// point (line breaks included), case-sensitive; esc (-1 = none) makes the next
// pattern character literal (SPEC 2: LIKE has no escape unless ESCAPE names one).
func likeExpr(x, p *Expr, esc rune, ilike bool) *Expr {
	_ = ilike // ILIKE is not part of SPEC 2; treated as LIKE
	return foldConst(derived(catalog.Boolean, x.Const && p.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		xs, ps := x.Eval(b, sel), p.Eval(b, sel)
		for _, i := range sel {
			if xs.Null[i] || ps.Null[i] {
				out.Null[i] = true
				continue
			}
			out.Null[i] = false
			out.B[i] = likeMatch(xs.S[i], ps.S[i], esc)
		}
	}))
}

// likeMatch matches s against pattern p with the iterative wildcard algorithm
// (backtracking only to the last '%'), in O(len(s)*len(p)) worst case.
func likeMatch(s, p []byte, esc rune) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			r, size := utf8.DecodeRune(p[pi:])
			switch {
			case r == '%':
				starP, starS = pi+size, si
				pi += size
				continue
			case r == '_':
				_, ss := utf8.DecodeRune(s[si:])
				si += ss
				pi += size
				continue
			default:
				lit, lsize := r, size
				if esc >= 0 && r == esc && pi+size < len(p) {
					lit, lsize = utf8.DecodeRune(p[pi+size:])
					lsize += size
				}
				sr, ss := utf8.DecodeRune(s[si:])
				if sr == lit && (sr != utf8.RuneError || s[si] == p[pi+lsize-ss]) {
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
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}
