package expr

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/executor/vector"
)

// The text functions of the function table (SPEC 2.10), on Unicode code
// points (SPEC 2) where Flink counts characters.

// textFn is a row function whose result is text: it appends it to dst and
// returns false for NULL.
type textFn func(a []*vector.Vec, i int, dst []byte) ([]byte, bool)

// textRow makes a RowFunc of f, the result going to out's arena.
func textRow(f textFn) RowFunc {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		start := len(out.Arena)
		var ok bool
		out.Arena, ok = f(a, i, out.Arena)
		if !ok {
			out.Arena = out.Arena[:start]
			return false
		}
		setText(out, i, start)
		return true
	}
}

// prepText is a text function that needs nothing prepared.
func prepText(f textFn) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) { return textRow(f), nil }
}

// prepInt is a BIGINT function that needs nothing prepared.
func prepInt(f func(a []*vector.Vec, i int) int64) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			out.I[i] = f(a, i)
			return true
		}, nil
	}
}

// prepSplitIndex is SPLIT_INDEX(s, sep, i): the i-th (from 0) field of s cut
// at every sep (Flink: StringUtils.splitByWholeSeparatorPreserveAllTokens;
// an empty sep splits at whitespace); NULL for a negative or too large i.
func prepSplitIndex([]Arg, catalog.Type) (RowFunc, error) {
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		s, sep, idx := a[0].S[i], a[1].S[i], a[2].I[i]
		if idx < 0 {
			return dst, false
		}
		if len(s) == 0 {
			return dst, false // (commons-lang gives no tokens for "")
		}
		for k := int64(0); ; k++ {
			end, next := len(s), len(s)
			if len(sep) == 0 {
				if j := bytes.IndexFunc(s, unicode.IsSpace); j >= 0 {
					_, size := utf8.DecodeRune(s[j:])
					end, next = j, j+size
				}
			} else if j := bytes.Index(s, sep); j >= 0 {
				end, next = j, j+len(sep)
			}
			if k == idx {
				return append(dst, s[:end]...), true
			}
			if end == len(s) && next == len(s) {
				return dst, false
			}
			s = s[next:]
		}
	}), nil
}

// prepReplace is REPLACE(s, from, to): Java's String.replace, so an empty
// from puts to before every character and at the end.
func prepReplace([]Arg, catalog.Type) (RowFunc, error) {
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		s, from, to := a[0].S[i], a[1].S[i], a[2].S[i]
		if len(from) == 0 {
			for len(s) > 0 {
				_, size := utf8.DecodeRune(s)
				dst = append(append(dst, to...), s[:size]...)
				s = s[size:]
			}
			return append(dst, to...), true
		}
		for {
			j := bytes.Index(s, from)
			if j < 0 {
				return append(dst, s...), true
			}
			dst = append(append(dst, s[:j]...), to...)
			s = s[j+len(from):]
		}
	}), nil
}

// runeIndex returns the code point index (from 0) of byte offset off of s.
func runeIndex(s []byte, off int) int64 { return int64(utf8.RuneCount(s[:off])) }

// byteOffset returns the byte offset of code point n (from 0) of s, or
// len(s) past the end.
func byteOffset(s []byte, n int64) int {
	off := 0
	for ; n > 0 && off < len(s); n-- {
		_, size := utf8.DecodeRune(s[off:])
		off += size
	}
	return off
}

// locate is where sub first starts in s at or after code point from (1-based),
// 1-based in code points; 0 when absent.
func locate(sub, s []byte, from int64) int64 {
	if from < 1 {
		return 0
	}
	off := byteOffset(s, from-1)
	if from > 1 && off >= len(s) && len(sub) > 0 {
		return 0
	}
	j := bytes.Index(s[off:], sub)
	if j < 0 {
		return 0
	}
	return runeIndex(s, off+j) + 1
}

func prepPosition(args []Arg, t catalog.Type) (RowFunc, error) {
	return prepInt(func(a []*vector.Vec, i int) int64 { return locate(a[0].S[i], a[1].S[i], 1) })(args, t)
}

func prepLocate(args []Arg, t catalog.Type) (RowFunc, error) {
	return prepInt(func(a []*vector.Vec, i int) int64 {
		from := int64(1)
		if len(a) == 3 {
			from = a[2].I[i]
		}
		return locate(a[0].S[i], a[1].S[i], from)
	})(args, t)
}

func prepInstr(args []Arg, t catalog.Type) (RowFunc, error) {
	return prepInt(func(a []*vector.Vec, i int) int64 { return locate(a[1].S[i], a[0].S[i], 1) })(args, t)
}

var prepLeft = prepText(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
	s, n := a[0].S[i], a[1].I[i]
	if n <= 0 {
		return dst, true
	}
	return append(dst, s[:byteOffset(s, n)]...), true
})

var prepRight = prepText(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
	s, n := a[0].S[i], a[1].I[i]
	if n <= 0 {
		return dst, true
	}
	total := int64(utf8.RuneCount(s))
	if n >= total {
		return append(dst, s...), true
	}
	return append(dst, s[byteOffset(s, total-n):]...), true
})

// maxText bounds the text a function builds (REPEAT, LPAD): past it the
// result is NULL.
const maxText = 16 << 20

// pad is LPAD / RPAD: s cut or padded with pad to n code points; NULL for a
// negative n or an empty pad (Flink).
func pad(left bool) func([]Arg, catalog.Type) (RowFunc, error) {
	return prepText(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		s, n, p := a[0].S[i], a[1].I[i], a[2].S[i]
		if n < 0 || len(p) == 0 || n > maxText {
			return dst, false
		}
		have := int64(utf8.RuneCount(s))
		if have >= n {
			return append(dst, s[:byteOffset(s, n)]...), true
		}
		if !left {
			dst = append(dst, s...)
		}
		for k, q := int64(0), p; k < n-have; k++ {
			if len(q) == 0 {
				q = p
			}
			_, size := utf8.DecodeRune(q)
			dst = append(dst, q[:size]...)
			q = q[size:]
		}
		if left {
			dst = append(dst, s...)
		}
		return dst, true
	})
}

var (
	prepLPad = pad(true)
	prepRPad = pad(false)
)

var prepRepeat = prepText(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
	s, n := a[0].S[i], a[1].I[i]
	if n > 0 && int64(len(s)) > maxText/n {
		return dst, false
	}
	for k := int64(0); k < n; k++ {
		dst = append(dst, s...)
	}
	return dst, true
})

var prepReverse = prepText(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
	s := a[0].S[i]
	for len(s) > 0 {
		_, size := utf8.DecodeLastRune(s)
		dst = append(dst, s[len(s)-size:]...)
		s = s[:len(s)-size]
	}
	return dst, true
})

// prepInitCap is INITCAP: upper case at the start of each run of letters and
// digits, lower case inside one.
var prepInitCap = prepText(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
	s := a[0].S[i]
	inWord := false
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size <= 1 {
			dst = append(dst, s[0])
			s, inWord = s[1:], false
			continue
		}
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && !inWord:
			r = unicode.ToTitle(r)
		case word:
			r = unicode.ToLower(r)
		}
		dst = utf8.AppendRune(dst, r)
		s, inWord = s[size:], word
	}
	return dst, true
})

// prepASCII is ASCII(s): the first character's code (Java's charAt(0): the
// code point for the BMP), 0 for ”.
var prepASCII = prepInt(func(a []*vector.Vec, i int) int64 {
	s := a[0].S[i]
	if len(s) == 0 {
		return 0
	}
	r, _ := utf8.DecodeRune(s)
	return int64(r)
})

// prepChr is CHR(n): the character of code n & 0xFF (CHR(353) = 'a'), ” for
// a negative n, as Flink's SqlFunctionUtils.chr.
func prepChr([]Arg, catalog.Type) (RowFunc, error) {
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		n := a[0].I[i]
		if n < 0 {
			return dst, true
		}
		return utf8.AppendRune(dst, rune(n&0xFF)), true
	}), nil
}

// prepConcatWS is CONCAT_WS(sep, x, ...): NULL if sep is; NULL values are
// skipped; values read as they print (SPEC 2).
func prepConcatWS(args []Arg, _ catalog.Type) (RowFunc, error) {
	types := make([]catalog.Type, len(args))
	for k, a := range args {
		types[k] = a.Type
	}
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		if a[0].Null[i] {
			return dst, false
		}
		first := true
		for k := 1; k < len(a); k++ {
			if a[k].Null[i] || types[k] == catalog.Unknown {
				continue
			}
			if !first {
				dst = append(dst, a[0].S[i]...)
			}
			first = false
			dst = vector.AppendValue(dst, types[k], a[k], i)
		}
		return dst, true
	}), nil
}

// prepHash is MD5 / SHA1 / SHA224 / SHA256 / SHA384 / SHA512 as lower-case hex.
func prepHash(alg string) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		h := newHash(alg)
		var sum [64]byte
		return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
			h.Reset()
			h.Write(a[0].S[i])
			return hex.AppendEncode(dst, h.Sum(sum[:0])), true
		}), nil
	}
}

func newHash(alg string) hash.Hash {
	switch alg {
	case "md5":
		return md5.New()
	case "sha1":
		return sha1.New()
	case "sha224":
		return sha256.New224()
	case "sha256":
		return sha256.New()
	case "sha384":
		return sha512.New384()
	}
	return sha512.New()
}

// prepSHA2 is SHA2(s, bits) for bits 224, 256, 384 or 512 (NULL otherwise).
func prepSHA2([]Arg, catalog.Type) (RowFunc, error) {
	hs := map[int64]hash.Hash{224: sha256.New224(), 256: sha256.New(), 384: sha512.New384(), 512: sha512.New()}
	var sum [64]byte
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		h := hs[a[1].I[i]]
		if h == nil {
			return dst, false
		}
		h.Reset()
		h.Write(a[0].S[i])
		return hex.AppendEncode(dst, h.Sum(sum[:0])), true
	}), nil
}

var prepToBase64 = prepText(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
	return base64.StdEncoding.AppendEncode(dst, a[0].S[i]), true
})

var prepFromBase64 = prepText(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
	out, err := base64.StdEncoding.AppendDecode(dst, a[0].S[i])
	return out, err == nil
})

// prepParseURL is PARSE_URL(url, part[, key]) with Java's java.net.URL parts.
// It parses with net/url, which allocates per row.
func prepParseURL(args []Arg, _ catalog.Type) (RowFunc, error) {
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		u, err := url.Parse(string(a[0].S[i]))
		if err != nil || u.Scheme == "" {
			return dst, false
		}
		part := string(a[1].S[i]) // (upper case only, as Flink)
		if len(a) == 3 && part != "QUERY" {
			return dst, false
		}
		var v string
		ok := true
		switch part {
		case "HOST":
			v = u.Hostname()
		case "PATH":
			v = u.EscapedPath()
		case "QUERY":
			v, ok = u.RawQuery, u.RawQuery != "" || u.ForceQuery
			if ok && len(a) == 3 {
				v, ok = queryValue(u.RawQuery, string(a[2].S[i]))
			}
		case "REF":
			v, ok = u.EscapedFragment(), u.Fragment != ""
		case "PROTOCOL":
			v = u.Scheme
		case "AUTHORITY":
			v = u.Host
			if u.User != nil {
				v = u.User.String() + "@" + v
			}
		case "FILE":
			v = u.EscapedPath()
			if u.RawQuery != "" {
				v += "?" + u.RawQuery
			}
		case "USERINFO":
			ok = u.User != nil
			if ok {
				v = u.User.String()
			}
		default:
			ok = false
		}
		if !ok {
			return dst, false
		}
		return append(dst, v...), true
	}), nil
}

// queryValue is the value of key in a raw query (Flink: the text after
// "key=" up to the next &), and false when it is absent.
func queryValue(q, key string) (string, bool) {
	for _, kv := range strings.Split(q, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// prepTranslate is TRANSLATE(s, from, to) (Flink 2.0's TranslateFunction):
// each code point of s found in from is replaced by the code point at the
// same place in to, or dropped when to is shorter; a code point given twice
// in from keeps its first place. A constant from and to are read once.
func prepTranslate(args []Arg, _ catalog.Type) (RowFunc, error) {
	var from, to []rune
	read := func(a []*vector.Vec, i int) {
		from, to = appendRunes(from[:0], a[1].S[i]), appendRunes(to[:0], a[2].S[i])
	}
	constant := args[1].Const && args[2].Const && !args[1].Value.Null && !args[2].Value.Null
	if constant {
		from, to = appendRunes(nil, args[1].Value.S), appendRunes(nil, args[2].Value.S)
	}
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		if !constant {
			read(a, i)
		}
		for s := a[0].S[i]; len(s) > 0; {
			r, n := utf8.DecodeRune(s)
			s = s[n:]
			k := slices.Index(from, r)
			switch {
			case k < 0:
				dst = utf8.AppendRune(dst, r)
			case k < len(to):
				dst = utf8.AppendRune(dst, to[k])
			}
		}
		return dst, true
	}), nil
}

// appendRunes appends the code points of s to dst.
func appendRunes(dst []rune, s []byte) []rune {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		dst, s = append(dst, r), s[n:]
	}
	return dst
}

// prepElt is ELT(i, s1, s2, ...) (Flink's EltFunction): the i-th text (from
// 1); NULL when i is NULL or out of range, or the text it picks is NULL (the
// others may be NULL: the function takes NULLs).
func prepElt(args []Arg, _ catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		if a[0].Null[i] {
			return false
		}
		k := a[0].I[i]
		if k < 1 || k >= int64(len(a)) || a[k].Null[i] {
			return false
		}
		out.SetString(i, a[k].S[i])
		return true
	}, nil
}

// prepURLEncode is URL_ENCODE(s): Java's URLEncoder.encode(s, UTF-8), as
// Flink calls it: ASCII letters, digits and . - * _ kept, a space as +,
// every other byte of the UTF-8 text as %XX (upper-case hex).
func prepURLEncode([]Arg, catalog.Type) (RowFunc, error) {
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		for _, c := range a[0].S[i] {
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '*', c == '_':
				dst = append(dst, c)
			case c == ' ':
				dst = append(dst, '+')
			default:
				dst = append(dst, '%', hexUpper[c>>4], hexUpper[c&15])
			}
		}
		return dst, true
	}), nil
}

// prepURLDecode is URL_DECODE(s): Java's URLDecoder.decode(s, UTF-8): + is a
// space, %XX a byte; NULL for a % not followed by two hex digits (Java
// throws; Flink gives NULL).
func prepURLDecode([]Arg, catalog.Type) (RowFunc, error) {
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		s := a[0].S[i]
		for k := 0; k < len(s); k++ {
			switch c := s[k]; c {
			case '+':
				dst = append(dst, ' ')
			case '%':
				if k+2 >= len(s) || !isHex(s[k+1]) || !isHex(s[k+2]) {
					return dst, false
				}
				dst = append(dst, unhex(s[k+1])<<4|unhex(s[k+2]))
				k += 2
			default:
				dst = append(dst, c)
			}
		}
		return dst, true
	}), nil
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// prepSplit is SPLIT(s, delim) (Flink's SplitFunction): s cut at each delim
// as Commons' splitByWholeSeparatorPreserveAllTokens cuts (empty parts kept,
// [] for empty text), or into its code points when delim is empty; an ARRAY<VARCHAR>
// whose elements go to out's child vector.
func prepSplit([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		kid := out.Kids[0]
		out.Off[i] = int32(kid.Used)
		s, d := a[0].S[i], a[1].S[i]
		switch {
		case len(s) == 0:
		case len(d) == 0:
			for k := 0; k < len(s); {
				_, n := utf8.DecodeRune(s[k:])
				kid.SetString(kid.AddElem(), s[k:k+n])
				k += n
			}
		default:
			for {
				k := bytes.Index(s, d)
				if k < 0 {
					kid.SetString(kid.AddElem(), s)
					break
				}
				kid.SetString(kid.AddElem(), s[:k])
				s = s[k+len(d):]
			}
		}
		out.Len[i] = int32(kid.Used) - out.Off[i]
		return true
	}, nil
}

// prepOverlay is OVERLAY(s PLACING r FROM pos [FOR n]) (Calcite's
// SqlFunctions.overlay, which Flink runs, on code points: SPEC 2):
// s.substring(0, pos-1) + r + s.substring(pos-1+n), n being r's length by
// default. Where Java's substring throws (pos < 1, pos-1 or pos-1+n outside
// 0..len(s)) the result is NULL (SPEC 2.10: a runtime failure gives NULL).
func prepOverlay(args []Arg, _ catalog.Type) (RowFunc, error) {
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		s, r, pos := a[0].S[i], a[1].S[i], a[2].I[i]
		n := int64(utf8.RuneCount(r))
		if len(a) == 4 {
			n = a[3].I[i]
		}
		size := int64(utf8.RuneCount(s))
		cut := pos - 1
		rest := cut + n
		if pos < 1 || cut > size || rest < 0 || rest > size {
			return dst, false
		}
		dst = append(dst, s[:byteOffset(s, cut)]...)
		dst = append(dst, r...)
		return append(dst, s[byteOffset(s, rest):]...), true
	}), nil
}

// prepIsAlpha, prepIsDigit and prepIsDecimal are IS_ALPHA, IS_DIGIT and
// IS_DECIMAL (Flink's SqlFunctionUtils): FALSE for NULL and for empty text.
// IS_ALPHA and IS_DIGIT test every code point (Java's Character.isLetter,
// isDigit); IS_DECIMAL whether s reads as a number (isDecimalText).
func prepIsAlpha([]Arg, catalog.Type) (RowFunc, error) { return prepIsText(allRunes(unicode.IsLetter)) }
func prepIsDigit([]Arg, catalog.Type) (RowFunc, error) { return prepIsText(allRunes(unicode.IsDigit)) }
func prepIsDecimal([]Arg, catalog.Type) (RowFunc, error) {
	return prepIsText(isDecimalText)
}

func prepIsText(f func([]byte) bool) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		out.B[i] = !a[0].Null[i] && len(a[0].S[i]) > 0 && f(a[0].S[i])
		return true
	}, nil
}

func allRunes(is func(rune) bool) func([]byte) bool {
	return func(s []byte) bool {
		for len(s) > 0 {
			r, n := utf8.DecodeRune(s)
			if !is(r) {
				return false
			}
			s = s[n:]
		}
		return true
	}
}

// isDecimalText reports whether s is a decimal number: an optional sign,
// digits with at most one point (a digit on some side of it), and an
// optional exponent (e or E, an optional sign, digits).
func isDecimalText(s []byte) bool {
	k := 0
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	digits, point := 0, false
	for ; k < len(s); k++ {
		switch c := s[k]; {
		case c >= '0' && c <= '9':
			digits++
			continue
		case c == '.' && !point:
			point = true
			continue
		}
		break
	}
	if digits == 0 {
		return false
	}
	if k < len(s) && (s[k] == 'e' || s[k] == 'E') {
		k++
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		exp := 0
		for ; k < len(s) && s[k] >= '0' && s[k] <= '9'; k++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return k == len(s)
}

// prepAffix is STARTSWITH(s, prefix) and ENDSWITH(s, suffix) (Flink's
// StartsWithFunction, EndsWithFunction): has is bytes.HasPrefix or
// HasSuffix (UTF-8 text: a prefix of code points is a prefix of bytes).
func prepAffix(has func(s, affix []byte) bool) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			out.B[i] = has(a[0].S[i], a[1].S[i])
			return true
		}, nil
	}
}
