package planner

import (
	"unicode"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/executor/vector"
)

// likeExpr is x LIKE p (or x ILIKE p when ilike): '%' matches any run of code
// points, '_' exactly one code point (line breaks included); LIKE is
// case-sensitive, ILIKE compares after Unicode simple case folding of both sides.
// esc (-1 = none) makes the next pattern character literal, '%' and '_' included,
// whatever esc is (SPEC preamble: LIKE has no escape unless ESCAPE names one).
func likeExpr(x, p *Expr, esc rune, ilike bool) *Expr {
	return foldConst(derived(catalog.Boolean, x.Const && p.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		xs, ps := x.Eval(b, sel), p.Eval(b, sel)
		for _, i := range sel {
			if xs.Null[i] || ps.Null[i] {
				out.Null[i] = true
				continue
			}
			out.Null[i] = false
			out.B[i] = likeMatch(xs.S[i], ps.S[i], esc, ilike)
		}
	}))
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
