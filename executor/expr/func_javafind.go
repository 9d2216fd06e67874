package expr

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// javaFinder lists the matches of a pattern in a text as Java's
// Matcher.find loop finds them, which Flink's regular-expression functions
// (REGEXP_REPLACE's String.replaceAll, REGEXP_COUNT, REGEXP_EXTRACT_ALL,
// SPLIT's and STR_TO_MAP's String.split) run on: RE2's FindAll, plus the
// empty match right at the end of a non-empty match, which RE2 drops and
// Java keeps ("a*" in "baaa": Java finds "", "aaa" and the "" at the end;
// RE2 only the first two, so REGEXP_REPLACE('baaa', 'a*', 'X') is Java's
// "XbXX", not "XbX"). Whether the pattern matches empty at such a position p
// is asked of the pattern anchored after one rune of left context (at), so
// \b, \B and ^ see the text before p. It keeps a one-entry cache of at (as
// regexArg keeps one of the pattern): a kernel owns its finder, never shared
// between goroutines.
type javaFinder struct {
	re, at *regexp.Regexp
	empty  bool // whether re can match empty text (else RE2's matches are Java's)
	m      [][]int
}

// all returns the matches of re in s, each as FindAllSubmatchIndex gives
// them (pairs of byte offsets, group 0 first, -1 for a group that took no
// part) when groups is set, else as FindAllIndex does (group 0 only), in
// text order. The slice may be reused by the next call.
func (f *javaFinder) all(re *regexp.Regexp, s []byte, groups bool) [][]int {
	if f.re != re {
		f.re, f.at = re, nil
		f.empty = true
		if p, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
			f.empty = canMatchEmpty(p)
		}
	}
	find := re.FindAllIndex
	if groups {
		find = re.FindAllSubmatchIndex
	}
	if !f.empty {
		return find(s, -1)
	}
	f.m = f.m[:0]
	prevEnd := -1 // the end of the previous match when it was not empty
	for _, m := range find(s, -1) {
		if prevEnd >= 0 && m[0] > prevEnd {
			if e := f.emptyAt(re, s, prevEnd); e != nil {
				f.m = append(f.m, e)
			}
		}
		f.m = append(f.m, m)
		prevEnd = -1
		if m[1] > m[0] {
			prevEnd = m[1]
		}
	}
	if prevEnd >= 0 {
		if e := f.emptyAt(re, s, prevEnd); e != nil {
			f.m = append(f.m, e)
		}
	}
	return f.m
}

// emptyAt is the match of re at p (p > 0, the end of a non-empty match) when
// the match re prefers there is empty, else nil.
func (f *javaFinder) emptyAt(re *regexp.Regexp, s []byte, p int) []int {
	if f.at == nil {
		// (?:…) keeps the groups' numbers; a pattern that cannot be wrapped
		// (a \Q quote left open) keeps RE2's matches.
		var err error
		if f.at, err = regexp.Compile(`^(?s:.)(?:` + re.String() + `)`); err != nil {
			f.empty = false
			return nil
		}
	}
	_, w := utf8.DecodeLastRune(s[:p])
	m := f.at.FindSubmatchIndex(s[p-w:])
	if m == nil || m[1] != w {
		return nil
	}
	for k := range m {
		if m[k] >= 0 {
			m[k] += p - w
		}
	}
	m[0] = p
	return m
}

// canMatchEmpty reports whether the pattern p can match empty text
// somewhere (an empty-width assertion counts: \b, ^ and $ match empty).
func canMatchEmpty(p *syntax.Regexp) bool {
	switch p.Op {
	case syntax.OpLiteral:
		return len(p.Rune) == 0
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return canMatchEmpty(p.Sub[0])
	case syntax.OpRepeat:
		return p.Min == 0 || canMatchEmpty(p.Sub[0])
	case syntax.OpConcat:
		for _, q := range p.Sub {
			if !canMatchEmpty(q) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, q := range p.Sub {
			if canMatchEmpty(q) {
				return true
			}
		}
		return false
	}
	return true // OpEmptyMatch, OpStar, OpQuest and the assertions
}
