package expr_test

// The reference interpreter's side of Flink 2.x's newer functions (SPEC
// 2.10: the inverse and hyperbolic trigonometry, TO_DATE, TRANSLATE, ELT,
// the REGEXP_* family, URL_ENCODE/DECODE, SPLIT, OVERLAY, IS_ALPHA/DIGIT/
// DECIMAL and the ARRAY_* / MAP_* functions), row at a time over boxed Go
// values, written from Flink's documented behaviour with the standard
// library's plain tools ([]rune, strings, net/url, sort), not from the
// kernels.

import (
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"streamql/catalog"
)

func init() {
	for _, fn := range []string{"ELT", "IS_ALPHA", "IS_DIGIT", "IS_DECIMAL", "ARRAY_CONTAINS", "ARRAY_REMOVE", "ARRAY_APPEND", "ARRAY_PREPEND"} {
		takesNulls[fn] = true
	}
}

// refDecimal is IS_DECIMAL's syntax: a sign, digits with at most one point,
// an exponent.
var refDecimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

func arr(elems []val) val { return val{elems: append([]val{}, elems...)} }

// refHas reports whether xs hold an element equal to x (refNestedEqual: a
// NULL equals a NULL).
func refHas(t catalog.Type, xs []val, x val) bool {
	for _, e := range xs {
		if refNestedEqual(t, e, x) {
			return true
		}
	}
	return false
}

// refMoreFunc evaluates the functions of this file; ok is false for others.
func refMoreFunc(fn string, vs []val, ts []catalog.Type, t catalog.Type) (val, bool) {
	f1 := func(f func(float64) float64) (val, bool) { return val{f: f(vs[0].f)}, true }
	switch fn {
	case "ASIN":
		return f1(math.Asin)
	case "ACOS":
		return f1(math.Acos)
	case "ATAN":
		return f1(math.Atan)
	case "ATAN2":
		return val{f: math.Atan2(vs[0].f, vs[1].f)}, true
	case "COT":
		return val{f: 1 / math.Tan(vs[0].f)}, true
	case "SINH":
		return f1(math.Sinh)
	case "COSH":
		return f1(math.Cosh)
	case "TANH":
		return f1(math.Tanh)
	case "TO_DATE":
		if len(vs) == 1 {
			ms, ok := refISODate(str(vs[0]))
			return okVal(ok, val{i: ms}), true
		}
		ms, ok := refParsePrefix(str(vs[1]), str(vs[0]))
		if !ok {
			return null, true
		}
		return val{i: tm(ms).Truncate(24 * time.Hour).UnixMilli()}, true
	case "CONVERT_TZ":
		ms, ok := refParsePrefix("yyyy-MM-dd HH:mm:ss", str(vs[0]))
		if !ok {
			return null, true
		}
		w := tm(ms)
		from, to := refZone(str(vs[1])), refZone(str(vs[2]))
		at := refWallInstant(from, w)
		return sval(at.In(to).Format("2006-01-02 15:04:05")), true
	case "STARTSWITH":
		return val{b: strings.HasPrefix(str(vs[0]), str(vs[1]))}, true
	case "ENDSWITH":
		return val{b: strings.HasSuffix(str(vs[0]), str(vs[1]))}, true
	case "TRANSLATE":
		from, to := []rune(str(vs[1])), []rune(str(vs[2]))
		var sb strings.Builder
		for _, r := range str(vs[0]) {
			k := strings.IndexRune(string(from), r)
			if k < 0 {
				sb.WriteRune(r)
				continue
			}
			k = utf8.RuneCountInString(string(from)[:k])
			if k < len(to) {
				sb.WriteRune(to[k])
			}
		}
		return sval(sb.String()), true
	case "ELT":
		if vs[0].null || vs[0].i < 1 || vs[0].i > int64(len(vs)-1) {
			return null, true
		}
		return vs[vs[0].i], true
	case "REGEXP_COUNT", "REGEXP_INSTR", "REGEXP_SUBSTR", "REGEXP_EXTRACT_ALL":
		re, err := refRegex(str(vs[1]))
		if err != nil {
			return null, true
		}
		s := str(vs[0])
		switch fn {
		case "REGEXP_COUNT":
			return val{i: int64(len(refJavaFind(re, s)))}, true
		case "REGEXP_INSTR":
			m := re.FindStringIndex(s)
			if m == nil {
				return val{i: 0}, true
			}
			return val{i: int64(len([]rune(s[:m[0]]))) + 1}, true
		case "REGEXP_SUBSTR":
			m := re.FindStringIndex(s)
			if m == nil {
				return null, true
			}
			return sval(s[m[0]:m[1]]), true
		}
		g := 1
		if len(vs) == 3 {
			if vs[2].i < 0 || vs[2].i > int64(re.NumSubexp()) {
				return null, true
			}
			g = int(vs[2].i)
		}
		if g > re.NumSubexp() {
			return null, true
		}
		out := val{elems: []val{}}
		for _, m := range refJavaFind(re, s) {
			if m[2*g] < 0 { // a group that took no part
				out.elems = append(out.elems, null)
				continue
			}
			out.elems = append(out.elems, sval(s[m[2*g]:m[2*g+1]]))
		}
		return out, true
	case "URL_ENCODE":
		return sval(strings.NewReplacer("~", "%7E", "%2A", "*").Replace(url.QueryEscape(str(vs[0])))), true
	case "URL_DECODE":
		s, err := url.QueryUnescape(str(vs[0]))
		if err != nil {
			return null, true
		}
		return sval(s), true
	case "SPLIT":
		s, d := str(vs[0]), str(vs[1])
		out := val{elems: []val{}}
		switch {
		case s == "":
		case d == "":
			for _, c := range refChars(s) {
				out.elems = append(out.elems, sval(c))
			}
		default:
			for _, p := range strings.Split(s, d) {
				out.elems = append(out.elems, sval(p))
			}
		}
		return out, true
	case "OVERLAY":
		s, r := refChars(str(vs[0])), str(vs[1])
		start := vs[2].i - 1
		n := int64(utf8.RuneCountInString(r))
		if len(vs) == 4 {
			n = vs[3].i
		}
		// Java's s.substring(0, start) + r + s.substring(start + n)
		if start < 0 || start > int64(len(s)) || start+n < 0 || start+n > int64(len(s)) {
			return null, true
		}
		return sval(strings.Join(s[:start], "") + r + strings.Join(s[start+n:], "")), true
	case "IS_ALPHA", "IS_DIGIT", "IS_DECIMAL":
		s := str(vs[0])
		if vs[0].null || s == "" {
			return val{b: false}, true
		}
		if fn == "IS_DECIMAL" {
			return val{b: refDecimal.MatchString(s)}, true
		}
		for _, r := range s {
			if fn == "IS_ALPHA" && !unicode.IsLetter(r) || fn == "IS_DIGIT" && !unicode.IsDigit(r) {
				return val{b: false}, true
			}
		}
		return val{b: true}, true
	}
	return refCollection(fn, vs, ts, t)
}

// refCollection evaluates the ARRAY and MAP functions.
func refCollection(fn string, vs []val, ts []catalog.Type, t catalog.Type) (val, bool) {
	var et catalog.Type
	if len(ts) > 0 && ts[0].Kind() == catalog.KindArray {
		et = ts[0].Elem()
	}
	if (fn == "ARRAY_CONTAINS" || fn == "ARRAY_REMOVE" || fn == "ARRAY_APPEND" || fn == "ARRAY_PREPEND") && vs[0].null {
		return null, true
	}
	switch fn {
	case "ARRAY_CONTAINS":
		return val{b: refHas(et, vs[0].elems, vs[1])}, true
	case "ARRAY_POSITION":
		for k, e := range vs[0].elems {
			if refNestedEqual(et, e, vs[1]) {
				return val{i: int64(k + 1)}, true
			}
		}
		return val{i: 0}, true
	case "ARRAY_DISTINCT":
		var out []val
		for _, e := range vs[0].elems {
			if !refHas(et, out, e) {
				out = append(out, e)
			}
		}
		return arr(out), true
	case "ARRAY_REMOVE":
		var out []val
		for _, e := range vs[0].elems {
			if !refNestedEqual(et, e, vs[1]) {
				out = append(out, e)
			}
		}
		return arr(out), true
	case "ARRAY_REVERSE":
		out := arr(vs[0].elems)
		for a, b := 0, len(out.elems)-1; a < b; a, b = a+1, b-1 {
			out.elems[a], out.elems[b] = out.elems[b], out.elems[a]
		}
		return out, true
	case "ARRAY_SLICE":
		xs := vs[0].elems
		n := int64(len(xs))
		if n == 0 {
			return arr(nil), true
		}
		// Flink's docs: 1-based, inclusive; negative from the end; 0 is the start
		pos := func(o int64) int64 {
			if o < 0 {
				return n + 1 + o
			}
			return o
		}
		from, to := pos(vs[1].i), n
		if len(vs) == 3 {
			to = pos(vs[2].i)
			if vs[2].i == 0 {
				to = 1 // (Flink's ArraySliceFunction reads an end of 0 as 1)
			}
		}
		if from < 1 {
			from = 1
		}
		if to > n {
			to = n
		}
		if to < from {
			return arr(nil), true
		}
		return arr(xs[from-1 : to]), true
	case "ARRAY_APPEND":
		return arr(append(append([]val{}, vs[0].elems...), vs[1])), true
	case "ARRAY_PREPEND":
		return arr(append([]val{vs[1]}, vs[0].elems...)), true
	case "ARRAY_CONCAT":
		var out []val
		for _, v := range vs {
			out = append(out, v.elems...)
		}
		return arr(out), true
	case "ARRAY_UNION", "ARRAY_INTERSECT", "ARRAY_EXCEPT":
		var out []val
		for _, e := range vs[0].elems {
			in := refHas(et, vs[1].elems, e)
			if !refHas(et, out, e) && (fn == "ARRAY_UNION" || (fn == "ARRAY_INTERSECT") == in) {
				out = append(out, e)
			}
		}
		if fn == "ARRAY_UNION" {
			for _, e := range vs[1].elems {
				if !refHas(et, out, e) {
					out = append(out, e)
				}
			}
		}
		return arr(out), true
	case "ARRAY_MAX", "ARRAY_MIN":
		best := null
		for _, e := range vs[0].elems {
			if e.null {
				continue
			}
			c := 0
			if !best.null {
				c = refCompare(et, e, best)
			}
			if best.null || (fn == "ARRAY_MAX" && c > 0) || (fn == "ARRAY_MIN" && c < 0) {
				best = e
			}
		}
		return best, true
	case "ARRAY_SORT":
		asc := len(vs) < 2 || vs[1].b
		nullsFirst := asc
		if len(vs) == 3 {
			nullsFirst = vs[2].b
		}
		var nulls, rest []val
		for _, e := range vs[0].elems {
			if e.null {
				nulls = append(nulls, e)
			} else {
				rest = append(rest, e)
			}
		}
		sort.SliceStable(rest, func(a, b int) bool {
			c := refCompare(et, rest[a], rest[b])
			if !asc {
				c = -c
			}
			return c < 0
		})
		if nullsFirst {
			return arr(append(nulls, rest...)), true
		}
		return arr(append(rest, nulls...)), true
	case "ARRAY_JOIN":
		var parts []string
		for _, e := range vs[0].elems {
			switch {
			case !e.null:
				parts = append(parts, string(printed(et, e)))
			case len(vs) == 3:
				parts = append(parts, str(vs[2]))
			}
		}
		return sval(strings.Join(parts, str(vs[1]))), true
	case "MAP_KEYS":
		return arr(vs[0].elems), true
	case "MAP_VALUES":
		return arr(vs[0].vals), true
	case "MAP_ENTRIES":
		var out []val
		for k := range vs[0].elems {
			out = append(out, val{elems: []val{vs[0].elems[k], vs[0].vals[k]}})
		}
		return arr(out), true
	case "MAP_FROM_ARRAYS":
		if len(vs[0].elems) != len(vs[1].elems) {
			return null, true
		}
		m := val{elems: []val{}}
		for k := range vs[0].elems {
			refPut(t.Key(), &m, vs[0].elems[k], vs[1].elems[k])
		}
		return m, true
	case "MAP_UNION":
		m := val{elems: []val{}}
		for _, v := range vs {
			for k := range v.elems {
				refPut(t.Key(), &m, v.elems[k], v.vals[k])
			}
		}
		return m, true
	}
	return val{}, false
}

// refCustomGMT is Java's custom zone ID: GMT, a sign, hours and minutes.
var refCustomGMT = regexp.MustCompile(`^GMT([+-])([0-9]{1,2})(?::?([0-9]{2}))?$`)

// refZone is Java's TimeZone.getTimeZone(id) for the IDs the tests use.
func refZone(id string) *time.Location {
	if m := refCustomGMT.FindStringSubmatch(id); m != nil {
		h, _ := strconv.Atoi(m[2])
		mm, _ := strconv.Atoi(m[3] + "0")
		mm /= 10 // ("" reads as 0)
		if h > 23 || mm > 59 {
			return time.UTC
		}
		off := h*3600 + mm*60
		if m[1] == "-" {
			off = -off
		}
		return time.FixedZone(id, off)
	}
	short := map[string]string{"PST": "America/Los_Angeles", "CTT": "Asia/Shanghai", "JST": "Asia/Tokyo", "IST": "Asia/Kolkata", "ECT": "Europe/Paris"}
	if z, ok := short[id]; ok {
		id = z
	}
	if id == "" || id == "Local" {
		return time.UTC
	}
	loc, err := time.LoadLocation(id)
	if err != nil {
		return time.UTC
	}
	return loc
}

// refWallInstant finds the instant loc's clocks read w by trying every
// offset, minute by minute, from -16 to +16 hours: the latest that fits;
// in a gap, w read at the smaller of the offsets around it.
func refWallInstant(loc *time.Location, w time.Time) time.Time {
	var best time.Time
	for m := -16 * 60; m <= 16*60; m++ {
		at := w.Add(-time.Duration(m) * time.Minute)
		if _, off := at.In(loc).Zone(); off == m*60 && at.After(best) {
			best = at
		}
	}
	if !best.IsZero() {
		return best
	}
	_, o1 := w.Add(-24 * time.Hour).In(loc).Zone()
	_, o2 := w.Add(24 * time.Hour).In(loc).Zone()
	return w.Add(-time.Duration(min(o1, o2)) * time.Second)
}
