package expr

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"

	"streamql/catalog"
	"streamql/executor/vector"
)

// The regular-expression functions of the function table (SPEC 2.10): Go's
// RE2 syntax (linear time: no pattern can hang a job). A constant pattern is
// compiled once, when the kernel is built; one that uses a Java construct RE2
// lacks, or does not compile, is an *ArgError at its offset (a planning error).

// javaOnly are the Java regex constructs RE2 lacks, by how they start.
var javaOnly = []struct{ prefix, name string }{
	{"(?<=", "lookbehind (?<=...)"}, {"(?<!", "negative lookbehind (?<!...)"},
	{"(?=", "lookahead (?=...)"}, {"(?!", "negative lookahead (?!...)"},
	{"(?>", "atomic group (?>...)"}, {`\k<`, `named backreference \k<name>`},
}

// checkJavaRegex returns the offset and name of the first Java construct RE2
// lacks in p (lookaround, atomic groups, backreferences, possessive
// quantifiers), or -1.
func checkJavaRegex(p string) (int, string) {
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			if n := p[i+1]; !inClass && n >= '1' && n <= '9' {
				return i, `backreference \` + string(n)
			}
			if strings.HasPrefix(p[i:], `\k<`) {
				return i, `named backreference \k<name>`
			}
			i++
			continue
		}
		if inClass {
			if c == ']' {
				inClass = false
			}
			continue
		}
		switch c {
		case '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			} else if i+2 < len(p) && p[i+1] == '^' && p[i+2] == ']' {
				i += 2
			}
		case '(':
			for _, j := range javaOnly {
				if strings.HasPrefix(p[i:], j.prefix) {
					return i, j.name
				}
			}
		case '*', '+', '?', '}':
			if i+1 < len(p) && p[i+1] == '+' {
				return i + 1, "possessive quantifier " + p[i:i+2]
			}
		}
	}
	return -1, ""
}

// mustLiteral returns a literal that every match of p contains (the longest
// case-sensitive literal among the top-level parts of its sequence, inside
// captures), or nil: a text without it cannot match, which a kernel checks
// with bytes.Contains before running the regular expression.
func mustLiteral(p string) []byte {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	var best []rune
	for _, sub := range parts {
		for sub.Op == syntax.OpCapture {
			sub = sub.Sub[0]
		}
		if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 && len(sub.Rune) > len(best) {
			best = sub.Rune
		}
	}
	if len(best) == 0 {
		return nil
	}
	return []byte(string(best))
}

// mustLiteralArg is mustLiteral of argument k when it is a constant, else nil.
func mustLiteralArg(args []Arg, k int) []byte {
	if !args[k].Const || args[k].Value.Null {
		return nil
	}
	return mustLiteral(string(args[k].Value.S))
}

// compileRegex compiles a pattern for RE2, refusing Java-only constructs.
func compileRegex(p string) (*regexp.Regexp, *ArgError) {
	if off, name := checkJavaRegex(p); off >= 0 {
		return nil, &ArgError{Offset: off, Msg: "the " + name + " of Java regular expressions is not supported: streamql uses RE2 syntax (linear time)"}
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, &ArgError{Offset: -1, Msg: "invalid regular expression (RE2 syntax): " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")}
	}
	return re, nil
}

// regexArg returns argument k's compiled pattern: compiled once when
// constant, else per row through a one-entry cache (an invalid pattern gives
// nil: NULL).
func regexArg(args []Arg, k int) (func(a []*vector.Vec, i int) *regexp.Regexp, error) {
	if args[k].Const {
		if args[k].Value.Null {
			return func([]*vector.Vec, int) *regexp.Regexp { return nil }, nil
		}
		re, err := compileRegex(string(args[k].Value.S))
		if err != nil {
			err.Arg = k
			return nil, err
		}
		return func([]*vector.Vec, int) *regexp.Regexp { return re }, nil
	}
	var last []byte
	var lastRe *regexp.Regexp
	return func(a []*vector.Vec, i int) *regexp.Regexp {
		s := a[k].S[i]
		if lastRe != nil && string(s) == string(last) {
			return lastRe
		}
		re, err := compileRegex(string(s))
		if err != nil {
			return nil
		}
		last, lastRe = append(last[:0], s...), re
		return re
	}, nil
}

// prepRegexp is REGEXP(s, regex) / s REGEXP regex: whether regex matches a
// part of s (Java's Matcher.find, as Flink); FALSE for an empty pattern.
func prepRegexp(args []Arg, _ catalog.Type) (RowFunc, error) {
	reOf, err := regexArg(args, 1)
	if err != nil {
		return nil, err
	}
	must := mustLiteralArg(args, 1)
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		re := reOf(a, i)
		if re == nil {
			return false
		}
		if must != nil && !bytes.Contains(a[0].S[i], must) {
			out.B[i] = false
			return true
		}
		// (Flink: an empty pattern matches nothing)
		out.B[i] = len(a[1].S[i]) > 0 && re.Match(a[0].S[i])
		return true
	}, nil
}

// prepRegexpExtract is REGEXP_EXTRACT(s, regex[, group]): the group (0, the
// default, is the whole match) of the first match; NULL when nothing matches,
// the group does not exist or did not take part.
func prepRegexpExtract(args []Arg, _ catalog.Type) (RowFunc, error) {
	reOf, err := regexArg(args, 1)
	if err != nil {
		return nil, err
	}
	must := mustLiteralArg(args, 1)
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		if must != nil && !bytes.Contains(a[0].S[i], must) {
			return dst, false // (no match without the literal)
		}
		re := reOf(a, i)
		g := int64(0)
		if len(a) == 3 {
			g = a[2].I[i]
		}
		if re == nil || g < 0 || g > int64(re.NumSubexp()) {
			return dst, false
		}
		s := a[0].S[i]
		m := re.FindSubmatchIndex(s)
		if m == nil || m[2*g] < 0 {
			return dst, false
		}
		return append(dst, s[m[2*g]:m[2*g+1]]...), true
	}), nil
}

// prepRegexpReplace is REGEXP_REPLACE(s, regex, replacement): every match
// (Java's find loop, javaFinder) replaced by the replacement taken literally,
// as Flink's SqlFunctionUtils.regexpReplace (Matcher.quoteReplacement: $1 is
// the text "$1", not a group).
func prepRegexpReplace(args []Arg, _ catalog.Type) (RowFunc, error) {
	reOf, err := regexArg(args, 1)
	if err != nil {
		return nil, err
	}
	var find javaFinder
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		re := reOf(a, i)
		if re == nil {
			return dst, false
		}
		s, repl := a[0].S[i], a[2].S[i]
		prev := 0
		for _, m := range find.all(re, s, false) {
			dst = append(append(dst, s[prev:m[0]]...), repl...)
			prev = m[1]
		}
		return append(dst, s[prev:]...), true
	}), nil
}

// similarToRegex translates a SQL regular expression (SIMILAR TO, SQL:1999 as
// Calcite reads it) into an RE2 one matching the whole text: % is .*, _ is
// ., the regular-expression operators | * + ? {m,n} ( ) [ ] stay, and every
// other character is literal.
func similarToRegex(p string) string {
	var sb strings.Builder
	sb.WriteString(`^(?s:`)
	inClass := false
	for _, r := range p {
		switch {
		case inClass:
			if r == ']' {
				inClass = false
			}
			if r == '\\' {
				sb.WriteString(`\\`)
				continue
			}
			sb.WriteRune(r)
		case r == '%':
			sb.WriteString(".*")
		case r == '_':
			sb.WriteString(".")
		case r == '[':
			inClass = true
			sb.WriteRune(r)
		case strings.ContainsRune("|*+?{}(),", r) || r >= '0' && r <= '9':
			sb.WriteRune(r)
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteString(`)$`)
	return sb.String()
}

// prepSimilarTo is s SIMILAR TO p (the parser writes SIMILAR_TO(s, p)).
func prepSimilarTo(args []Arg, _ catalog.Type) (RowFunc, error) {
	compile := func(p []byte) (*regexp.Regexp, error) { return regexp.Compile(similarToRegex(string(p))) }
	if args[1].Const {
		if args[1].Value.Null {
			return func([]*vector.Vec, int, *vector.Vec) bool { return false }, nil
		}
		re, err := compile(args[1].Value.S)
		if err != nil {
			return nil, &ArgError{Arg: 1, Offset: -1, Msg: "invalid SIMILAR TO pattern: " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")}
		}
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			out.B[i] = re.Match(a[0].S[i])
			return true
		}, nil
	}
	var last []byte
	var lastRe *regexp.Regexp
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		p := a[1].S[i]
		if lastRe == nil || string(p) != string(last) {
			re, err := compile(p)
			if err != nil {
				return false
			}
			last, lastRe = append(last[:0], p...), re
		}
		out.B[i] = lastRe.Match(a[0].S[i])
		return true
	}, nil
}

// prepRegexCall prepares a call whose pattern is argument 1 (compiled once
// when constant: regexArg): f computes row i with it; NULL for a pattern
// (not constant) that is invalid.
func prepRegexCall(args []Arg, f func(re *regexp.Regexp, a []*vector.Vec, i int, out *vector.Vec) bool) (RowFunc, error) {
	reOf, err := regexArg(args, 1)
	if err != nil {
		return nil, err
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		re := reOf(a, i)
		return re != nil && f(re, a, i, out)
	}, nil
}

// prepRegexpCount is REGEXP_COUNT(s, regex) (Flink's RegexpCountFunction):
// the number of matches Matcher.find finds one after the other (javaFinder:
// an empty match right after a match counts, as in Java).
func prepRegexpCount(args []Arg, _ catalog.Type) (RowFunc, error) {
	var find javaFinder
	return prepRegexCall(args, func(re *regexp.Regexp, a []*vector.Vec, i int, out *vector.Vec) bool {
		out.I[i] = int64(len(find.all(re, a[0].S[i], false)))
		return true
	})
}

// prepRegexpExtractAll is REGEXP_EXTRACT_ALL(s, regex[, group]) (Flink's
// RegexpExtractAllFunction): group (1 by default; 0 is the whole match) of
// every match, an ARRAY<VARCHAR> (a group that took no part in a match is a
// NULL element); NULL for a group the pattern does not have.
func prepRegexpExtractAll(args []Arg, _ catalog.Type) (RowFunc, error) {
	var find javaFinder
	return prepRegexCall(args, func(re *regexp.Regexp, a []*vector.Vec, i int, out *vector.Vec) bool {
		g := int64(1)
		if len(a) == 3 {
			g = a[2].I[i]
		}
		if g < 0 || g > int64(re.NumSubexp()) {
			return false
		}
		kid := out.Kids[0]
		out.Off[i] = int32(kid.Used)
		s := a[0].S[i]
		for _, m := range find.all(re, s, true) {
			e := kid.AddElem()
			if m[2*g] < 0 {
				kid.Null[e] = true
				continue
			}
			kid.SetString(e, s[m[2*g]:m[2*g+1]])
		}
		out.Len[i] = int32(kid.Used) - out.Off[i]
		return true
	})
}

// prepRegexpInstr is REGEXP_INSTR(s, regex) (Flink's RegexpInstrFunction):
// where the first match starts, from 1 in code points (SPEC 2); 0 when none.
func prepRegexpInstr(args []Arg, _ catalog.Type) (RowFunc, error) {
	return prepRegexCall(args, func(re *regexp.Regexp, a []*vector.Vec, i int, out *vector.Vec) bool {
		s := a[0].S[i]
		out.I[i] = 0
		if m := re.FindIndex(s); m != nil {
			out.I[i] = runeIndex(s, m[0]) + 1
		}
		return true
	})
}

// prepRegexpSubstr is REGEXP_SUBSTR(s, regex) (Flink's RegexpSubstrFunction):
// the first match; NULL when nothing matches.
func prepRegexpSubstr(args []Arg, _ catalog.Type) (RowFunc, error) {
	return prepRegexCall(args, func(re *regexp.Regexp, a []*vector.Vec, i int, out *vector.Vec) bool {
		s := a[0].S[i]
		m := re.FindIndex(s)
		if m == nil {
			return false
		}
		out.SetString(i, s[m[0]:m[1]])
		return true
	})
}
