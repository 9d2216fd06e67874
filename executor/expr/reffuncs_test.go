package expr_test

// The reference interpreter's side of the function table (SPEC 2.10): each
// function row at a time over Go values, written from Flink's documented
// behaviour with the standard library's plain tools ([]rune, strings,
// time.Format, regexp's string API, encoding/json), not from the kernels.

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
)

func str(v val) string      { return string(v.s) }
func sval(s string) val     { return val{s: []byte(s)} }
func tm(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// takesNulls are the functions whose NULL rule is not "NULL in, NULL out".
var takesNulls = map[string]bool{"NULLIF": true, "CONCAT_WS": true, "IS_JSON": true, "JSON_ARRAY": true, "JSON_OBJECT": true,
	"ARRAY_VALUE_CONSTRUCTOR": true, "MAP_VALUE_CONSTRUCTOR": true, "ROW_VALUE_CONSTRUCTOR": true}

// refFunc evaluates table function fn on vs (of types ts), giving type t.
func refFunc(fn string, vs []val, ts []catalog.Type, t catalog.Type) val {
	if !takesNulls[fn] {
		for _, v := range vs {
			if v.null {
				return null
			}
		}
	}
	arg := func(k int) val { return vs[k] }
	if v, ok := refNestedFunc(fn, vs, ts, t); ok {
		return v
	}
	if v, ok := refMoreFunc(fn, vs, ts, t); ok {
		return v
	}
	switch fn {
	case "NULLIF":
		if vs[0].null || (!vs[1].null && refEquals(t, vs[0], vs[1])) {
			return null
		}
		return vs[0]
	case "GREATEST", "LEAST":
		best := vs[0]
		for _, v := range vs[1:] {
			c := refCompare(t, v, best)
			if (fn == "GREATEST" && c > 0) || (fn == "LEAST" && c < 0) {
				best = v
			}
		}
		return best
	case "CONCAT_WS":
		if vs[0].null {
			return null
		}
		var parts []string
		for k := 1; k < len(vs); k++ {
			if !vs[k].null && ts[k] != catalog.Unknown {
				parts = append(parts, string(printed(ts[k], vs[k])))
			}
		}
		return sval(strings.Join(parts, str(vs[0])))
	case "REGEXP_EXTRACT":
		re, err := refRegex(str(arg(1)))
		if err != nil {
			return null
		}
		g := 0
		if len(vs) == 3 {
			if arg(2).i < 0 || arg(2).i > int64(re.NumSubexp()) {
				return null
			}
			g = int(arg(2).i)
		}
		m := re.FindStringSubmatchIndex(str(arg(0)))
		if m == nil || m[2*g] < 0 {
			return null
		}
		return sval(str(arg(0))[m[2*g]:m[2*g+1]])
	case "REGEXP_REPLACE":
		re, err := refRegex(str(arg(1)))
		if err != nil {
			return null
		}
		in, out, prev := str(arg(0)), "", 0
		for _, m := range refJavaFind(re, in) {
			out += in[prev:m[0]] + str(arg(2))
			prev = m[1]
		}
		return sval(out + in[prev:])
	case "REGEXP":
		re, err := refRegex(str(arg(1)))
		if err != nil {
			return null
		}
		return val{b: str(arg(1)) != "" && re.MatchString(str(arg(0)))}
	case "SIMILAR TO":
		// SQL:1999 SIMILAR TO: % and _ are wildcards, | * + ? {} () [] operators,
		// all else literal, the whole text must match
		var sb strings.Builder
		class := false
		for _, r := range str(arg(1)) {
			switch {
			case class && r == ']':
				class = false
				sb.WriteRune(r)
			case class && r == '\\':
				sb.WriteString(`\\`)
			case class:
				sb.WriteRune(r)
			case r == '[':
				class = true
				sb.WriteRune(r)
			case r == '%':
				sb.WriteString("(?s:.*)")
			case r == '_':
				sb.WriteString("(?s:.)")
			case strings.ContainsRune("|*+?{}(),0123456789", r):
				sb.WriteRune(r)
			default:
				sb.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		re, err := regexp.Compile("^(?:" + sb.String() + ")$")
		if err != nil {
			return null
		}
		return val{b: re.Match(arg(0).s)}
	case "SPLIT_INDEX":
		s, sep, i := str(arg(0)), str(arg(1)), arg(2).i
		if s == "" || i < 0 {
			return null
		}
		var parts []string
		if sep == "" {
			parts = splitSpaces(s)
		} else {
			parts = strings.Split(s, sep)
		}
		if i >= int64(len(parts)) {
			return null
		}
		return sval(parts[i])
	case "REPLACE":
		return sval(strings.ReplaceAll(str(arg(0)), str(arg(1)), str(arg(2))))
	case "POSITION":
		return val{i: refLocate(str(arg(0)), str(arg(1)), 1)}
	case "LOCATE":
		from := int64(1)
		if len(vs) == 3 {
			from = arg(2).i
		}
		return val{i: refLocate(str(arg(0)), str(arg(1)), from)}
	case "INSTR":
		return val{i: refLocate(str(arg(1)), str(arg(0)), 1)}
	case "LEFT", "RIGHT":
		r, n := []rune(str(arg(0))), arg(1).i
		n = max(0, min(n, int64(len(r))))
		if fn == "LEFT" {
			return sval(string(r[:n]))
		}
		return sval(string(r[int64(len(r))-n:]))
	case "LPAD", "RPAD":
		r, n, p := []rune(str(arg(0))), arg(1).i, []rune(str(arg(2)))
		if n < 0 || len(p) == 0 || n > 16<<20 {
			return null
		}
		if int64(len(r)) >= n {
			return sval(string(r[:n]))
		}
		var padding []rune
		for int64(len(padding)) < n-int64(len(r)) {
			padding = append(padding, p[len(padding)%len(p)])
		}
		if fn == "LPAD" {
			return sval(string(padding) + string(r))
		}
		return sval(string(r) + string(padding))
	case "REPEAT":
		n := arg(1).i
		if n <= 0 {
			return sval("")
		}
		if int64(len(arg(0).s))*n > 16<<20 {
			return null
		}
		return sval(strings.Repeat(str(arg(0)), int(n)))
	case "REVERSE":
		r := refChars(str(arg(0)))
		for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
			r[a], r[b] = r[b], r[a]
		}
		return sval(strings.Join(r, ""))
	case "INITCAP":
		var sb strings.Builder
		in := false
		for _, r := range str(arg(0)) {
			w := unicode.IsLetter(r) || unicode.IsDigit(r)
			if w && !in {
				sb.WriteRune(unicode.ToTitle(r))
			} else if w {
				sb.WriteRune(unicode.ToLower(r))
			} else {
				sb.WriteRune(r)
			}
			in = w
		}
		return sval(sb.String())
	case "ASCII":
		r := []rune(str(arg(0)))
		if len(r) == 0 {
			return val{i: 0}
		}
		return val{i: int64(r[0])}
	case "CHR":
		if n := arg(0).i; n >= 0 {
			return sval(string(rune(n % 256)))
		}
		return sval("")
	case "MD5":
		return sval(fmt.Sprintf("%x", md5.Sum(arg(0).s)))
	case "SHA1":
		return sval(fmt.Sprintf("%x", sha1.Sum(arg(0).s)))
	case "SHA224":
		return sval(fmt.Sprintf("%x", sha256.Sum224(arg(0).s)))
	case "SHA256":
		return sval(fmt.Sprintf("%x", sha256.Sum256(arg(0).s)))
	case "SHA384":
		return sval(fmt.Sprintf("%x", sha512.Sum384(arg(0).s)))
	case "SHA512":
		return sval(fmt.Sprintf("%x", sha512.Sum512(arg(0).s)))
	case "SHA2":
		m := map[int64]string{224: "SHA224", 256: "SHA256", 384: "SHA384", 512: "SHA512"}[arg(1).i]
		if m == "" {
			return null
		}
		return refFunc(m, vs[:1], ts[:1], t)
	case "TO_BASE64":
		return sval(base64.StdEncoding.EncodeToString(arg(0).s))
	case "FROM_BASE64":
		b, err := base64.StdEncoding.DecodeString(str(arg(0)))
		if err != nil {
			return null
		}
		return val{s: b}
	case "PARSE_URL":
		u, err := url.Parse(str(arg(0)))
		if err != nil || u.Scheme == "" {
			return null
		}
		if len(vs) == 3 && str(arg(1)) != "QUERY" {
			return null
		}
		switch str(arg(1)) {
		case "HOST":
			return sval(u.Hostname())
		case "PATH":
			return sval(u.EscapedPath())
		case "QUERY":
			if u.RawQuery == "" && !u.ForceQuery {
				return null
			}
			if len(vs) == 3 {
				for _, kv := range strings.Split(u.RawQuery, "&") {
					if k, v, ok := strings.Cut(kv, "="); ok && k == str(arg(2)) {
						return sval(v)
					}
				}
				return null
			}
			return sval(u.RawQuery)
		case "REF":
			if u.Fragment == "" {
				return null
			}
			return sval(u.EscapedFragment())
		case "PROTOCOL":
			return sval(u.Scheme)
		case "AUTHORITY":
			if u.User != nil {
				return sval(u.User.String() + "@" + u.Host)
			}
			return sval(u.Host)
		case "FILE":
			if u.RawQuery != "" {
				return sval(u.EscapedPath() + "?" + u.RawQuery)
			}
			return sval(u.EscapedPath())
		case "USERINFO":
			if u.User == nil {
				return null
			}
			return sval(u.User.String())
		}
		return null
	case "POWER":
		x, y := arg(0).f, arg(1).f
		if math.IsNaN(y) || (math.IsInf(y, 0) && (x == 1 || x == -1)) {
			return val{f: math.NaN()}
		}
		return val{f: math.Pow(x, y)}
	case "SQRT":
		return val{f: math.Sqrt(arg(0).f)}
	case "EXP":
		return val{f: math.Exp(arg(0).f)}
	case "LN":
		return val{f: math.Log(arg(0).f)}
	case "LOG":
		if len(vs) == 1 {
			return val{f: math.Log(arg(0).f)}
		}
		b, x := arg(0).f, arg(1).f
		if b <= 0 || x <= 0 || b == 1 || math.IsNaN(b) || math.IsNaN(x) {
			return null
		}
		return val{f: math.Log(x) / math.Log(b)}
	case "LOG10":
		return val{f: math.Log10(arg(0).f)}
	case "LOG2":
		return val{f: math.Log2(arg(0).f)}
	case "SIN":
		return val{f: math.Sin(arg(0).f)}
	case "COS":
		return val{f: math.Cos(arg(0).f)}
	case "TAN":
		return val{f: math.Tan(arg(0).f)}
	case "DEGREES":
		return val{f: arg(0).f * 180 / math.Pi}
	case "RADIANS":
		return val{f: arg(0).f / 180 * math.Pi}
	case "SIGN":
		if t == catalog.BigInt {
			switch x := arg(0).i; {
			case x > 0:
				return val{i: 1}
			case x < 0:
				return val{i: -1}
			}
			return val{i: 0}
		}
		x := arg(0).f
		if x > 0 {
			return val{f: 1}
		} else if x < 0 {
			return val{f: -1}
		}
		return val{f: x}
	case "TRUNCATE":
		d := int64(0)
		if len(vs) == 2 {
			d = arg(1).i
		}
		if t == catalog.BigInt {
			if d >= 0 {
				return arg(0)
			}
			p := new(big.Int).Exp(big.NewInt(10), big.NewInt(-d), nil)
			q := new(big.Int).Quo(big.NewInt(arg(0).i), p)
			return val{i: q.Mul(q, p).Int64()}
		}
		return val{f: refTruncate(arg(0).f, d)}
	case "PI":
		return val{f: math.Pi}
	case "E":
		return val{f: math.E}
	case "BIN":
		return sval(strconv.FormatUint(uint64(arg(0).i), 2))
	case "HEX":
		if ts[0] == catalog.BigInt {
			return sval(strings.ToUpper(strconv.FormatUint(uint64(arg(0).i), 16)))
		}
		return sval(strings.ToUpper(fmt.Sprintf("%x", arg(0).s)))
	case "DATE_FORMAT":
		ms := arg(0).i
		if ts[0] == catalog.Varchar {
			var ok bool
			if ms, ok = refParsePrefix("yyyy-MM-dd HH:mm:ss", str(arg(0))); !ok {
				return null
			}
		}
		out, ok := refDateFormat(str(arg(1)), tm(ms))
		return okVal(ok, sval(out))
	case "FROM_UNIXTIME":
		f := "yyyy-MM-dd HH:mm:ss"
		if len(vs) == 2 {
			f = str(arg(1))
		}
		ms := new(big.Int).Mul(big.NewInt(arg(0).i), big.NewInt(1000))
		if !ms.IsInt64() {
			return null
		}
		out, ok := refDateFormat(f, tm(ms.Int64()))
		return okVal(ok, sval(out))
	case "TO_TIMESTAMP":
		if len(vs) == 1 {
			ms, ok := textconv.ParseTimestamp(arg(0).s)
			if !ok {
				ms, ok = refLenientTimestamp(str(arg(0)), false)
			}
			return okVal(ok, val{i: ms})
		}
		ms, ok := refParseDate(str(arg(1)), str(arg(0)))
		if !ok {
			ms, ok = refLenientTimestamp(strings.TrimSpace(str(arg(0))), true)
		}
		return okVal(ok, val{i: ms})
	case "UNIX_TIMESTAMP":
		f := "yyyy-MM-dd HH:mm:ss"
		if len(vs) == 2 {
			f = str(arg(1))
		}
		ms, ok := refParsePrefix(f, str(arg(0)))
		return okVal(ok, val{i: int64(math.Floor(float64(ms) / 1000))})
	case "TO_TIMESTAMP_LTZ":
		scale := int64(1000)
		if arg(1).i == 3 {
			scale = 1
		}
		if ts[0] == catalog.Double {
			f := arg(0).f * float64(scale)
			if math.IsNaN(f) || math.Abs(f) >= 9.2e18 {
				return null
			}
			return val{i: int64(f)}
		}
		return bigResult(new(big.Int).Mul(big.NewInt(arg(0).i), big.NewInt(scale)))
	case "YEAR", "QUARTER", "MONTH", "WEEK", "DAYOFYEAR", "DAYOFMONTH", "DAYOFWEEK", "HOUR", "MINUTE", "SECOND":
		return val{i: refField(fn, tm(arg(0).i))}
	case "EXTRACT":
		return val{i: refField(str(arg(0)), tm(arg(1).i))}
	case "TIMESTAMPADD":
		n, ts := arg(1).i, arg(2).i
		unit := str(arg(0))
		if months := map[string]int64{"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]; months > 0 {
			total := new(big.Int).Mul(big.NewInt(n), big.NewInt(months))
			if !total.IsInt64() || total.Int64() > 3600000 || total.Int64() < -3600000 {
				return null
			}
			t0 := tm(ts)
			y, m := t0.Year(), int(t0.Month())-1+int(total.Int64())
			y += int(math.Floor(float64(m) / 12))
			m = ((m % 12) + 12) % 12
			last := time.Date(y, time.Month(m+2), 0, 0, 0, 0, 0, time.UTC).Day()
			return val{i: time.Date(y, time.Month(m+1), min(t0.Day(), last), t0.Hour(), t0.Minute(), t0.Second(), t0.Nanosecond(), time.UTC).UnixMilli()}
		}
		step := map[string]int64{"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60000, "HOUR": 3600000, "DAY": 86400000, "WEEK": 604800000}[unit]
		d := new(big.Int).Mul(big.NewInt(n), big.NewInt(step))
		return bigResult(d.Add(d, big.NewInt(ts)))
	case "TIMESTAMPDIFF":
		unit, a, b := str(arg(0)), arg(1).i, arg(2).i
		if months := map[string]int64{"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]; months > 0 {
			sign := int64(1)
			if b < a {
				a, b, sign = b, a, -1
			}
			ta, tb := tm(a), tm(b)
			m := int64(tb.Year()-ta.Year())*12 + int64(tb.Month()) - int64(ta.Month())
			// back off while a + m months passes b
			for m > 0 {
				r := refFunc("TIMESTAMPADD", []val{sval("MONTH"), {i: m}, {i: a}}, nil, catalog.Timestamp)
				if !r.null && r.i <= b {
					break
				}
				m--
			}
			return val{i: sign * m / months}
		}
		step := map[string]int64{"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60000, "HOUR": 3600000, "DAY": 86400000, "WEEK": 604800000}[unit]
		d := new(big.Int).Sub(big.NewInt(b), big.NewInt(a))
		if !d.IsInt64() {
			return null
		}
		return val{i: d.Quo(d, big.NewInt(step)).Int64()}
	case "JSON_QUERY":
		return refJSONQuery(arg(0).s, str(arg(1)), vs[2:])
	case "JSON_VALUE", "JSON_EXISTS":
		if _, indef := refJSONPathAll(arg(0).s, str(arg(1))); indef {
			// a wildcard finds a list: not a scalar (JSON_VALUE's empty), but found, even when empty
			if fn == "JSON_EXISTS" {
				return val{b: json.Valid(arg(0).s)}
			}
			return null
		}
		raw, ok := refJSONPath(arg(0).s, str(arg(1)))
		ok = ok && json.Valid(arg(0).s)
		if fn == "JSON_EXISTS" {
			return val{b: ok}
		}
		if !ok {
			return null
		}
		switch raw[0] {
		case 'n':
			return null
		case '{', '[':
			if fn == "JSON_VALUE" {
				return null
			}
			var buf bytes.Buffer
			if json.Compact(&buf, raw) != nil {
				return null
			}
			return val{s: buf.Bytes()}
		case '"':
			var x string
			if fn == "JSON_QUERY" || json.Unmarshal(raw, &x) != nil {
				return null
			}
			return sval(x)
		}
		if fn == "JSON_QUERY" {
			return null
		}
		return val{s: raw}
	case "IS_JSON":
		if arg(0).null || !json.Valid(arg(0).s) {
			return val{b: false}
		}
		var v any
		_ = json.Unmarshal(arg(0).s, &v)
		kind := "VALUE"
		if len(vs) == 2 {
			kind = strings.ToUpper(str(arg(1)))
		}
		switch v.(type) {
		case []any:
			return val{b: kind == "VALUE" || kind == "ARRAY"}
		case map[string]any:
			return val{b: kind == "VALUE" || kind == "OBJECT"}
		}
		return val{b: kind == "VALUE" || kind == "SCALAR"}
	case "FLOOR", "CEIL":
		t0 := tm(arg(0).i)
		var f time.Time
		switch str(arg(1)) {
		case "YEAR":
			f = time.Date(t0.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		case "QUARTER":
			f = time.Date(t0.Year(), (t0.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
		case "MONTH":
			f = time.Date(t0.Year(), t0.Month(), 1, 0, 0, 0, 0, time.UTC)
		case "DAY":
			f = time.Date(t0.Year(), t0.Month(), t0.Day(), 0, 0, 0, 0, time.UTC)
		case "WEEK": // from Sunday (Flink's julianDateFloor)
			f = time.Date(t0.Year(), t0.Month(), t0.Day()-int(t0.Weekday()), 0, 0, 0, 0, time.UTC)
		default:
			d := map[string]time.Duration{"HOUR": time.Hour, "MINUTE": time.Minute, "SECOND": time.Second, "MILLISECOND": time.Millisecond}[str(arg(1))]
			f = t0.Truncate(d)
			if t0.Before(time.Unix(0, 0)) && !f.Equal(t0) && f.After(t0) {
				f = f.Add(-d)
			}
		}
		if fn == "FLOOR" || f.Equal(t0) {
			return val{i: f.UnixMilli()}
		}
		n := map[string]int{"YEAR": 12, "QUARTER": 3, "MONTH": 1}[str(arg(1))]
		if n > 0 {
			return val{i: f.AddDate(0, n, 0).UnixMilli()}
		}
		d := map[string]time.Duration{"WEEK": 7 * 24 * time.Hour, "DAY": 24 * time.Hour, "HOUR": time.Hour, "MINUTE": time.Minute, "SECOND": time.Second, "MILLISECOND": time.Millisecond}[str(arg(1))]
		return val{i: f.Add(d).UnixMilli()}
	case "JSON_STRING":
		return sval(refJSON(ts[0], arg(0)))
	case "JSON_ARRAY", "JSON_OBJECT":
		return refJSONBuild(fn, vs, ts, nil)
	}
	panic("refFunc: no reference for " + fn)
}

// refJSONBuild is JSON_ARRAY or JSON_OBJECT over vs of types ts; nested[k]
// says that argument k is written directly as a JSON construction call (or is
// the literal one was folded into): Flink inserts its JSON as it is, where
// other text becomes a JSON string.
func refJSONBuild(fn string, vs []val, ts []catalog.Type, nested []bool) val {
	value := func(k int) string {
		if k < len(nested) && nested[k] {
			return string(vs[k].s)
		}
		return refJSON(ts[k], vs[k])
	}
	var parts []string
	if fn == "JSON_ARRAY" {
		for k, v := range vs {
			if !v.null && ts[k] != catalog.Unknown {
				parts = append(parts, value(k))
			}
		}
		return sval("[" + strings.Join(parts, ",") + "]")
	}
	for k := 0; k < len(vs); k += 2 {
		if vs[k].null || ts[k] != catalog.Varchar {
			return null
		}
		v := "null"
		if !vs[k+1].null && ts[k+1] != catalog.Unknown {
			v = value(k + 1)
		}
		parts = append(parts, refJSON(catalog.Varchar, vs[k])+":"+v)
	}
	return sval("{" + strings.Join(parts, ",") + "}")
}

// refChars cuts s into its code points, each as its bytes in s (a byte that
// is not UTF-8 is one on its own and stays as it is).
func refChars(s string) []string {
	var out []string
	for k := 0; k < len(s); {
		_, n := utf8.DecodeRuneInString(s[k:])
		out = append(out, s[k:k+n])
		k += n
	}
	return out
}

// splitSpaces cuts s at each white-space code point; the parts keep s's
// bytes as they are (a byte that is not UTF-8 stays, it is no space).
func splitSpaces(s string) []string {
	var parts []string
	start := 0
	for k, r := range s {
		if unicode.IsSpace(r) {
			parts = append(parts, s[start:k])
			start = k + utf8.RuneLen(r)
		}
	}
	return append(parts, s[start:])
}

// refEquals is SPEC 2's = on two values of type t.
func refEquals(t catalog.Type, a, b val) bool {
	switch t {
	case catalog.Double:
		return a.f == b.f
	case catalog.Varchar:
		return string(a.s) == string(b.s)
	case catalog.Boolean:
		return a.b == b.b
	}
	return a.i == b.i
}

// refCompare orders two values of type t as Java's compareTo (NaN greatest).
func refCompare(t catalog.Type, a, b val) int {
	switch t {
	case catalog.Double:
		if math.IsNaN(a.f) || math.IsNaN(b.f) {
			return map[bool]int{true: 1, false: 0}[math.IsNaN(a.f)] - map[bool]int{true: 1, false: 0}[math.IsNaN(b.f)]
		}
		if a.f == b.f {
			return map[bool]int{true: -1, false: 0}[math.Signbit(a.f)] - map[bool]int{true: -1, false: 0}[math.Signbit(b.f)]
		}
		if a.f < b.f {
			return -1
		}
		return 1
	case catalog.Varchar:
		return strings.Compare(string(a.s), string(b.s))
	case catalog.Boolean:
		if a.b == b.b {
			return 0
		}
		if b.b {
			return -1
		}
		return 1
	}
	switch {
	case a.i < b.i:
		return -1
	case a.i > b.i:
		return 1
	}
	return 0
}

// refRegex compiles a pattern, refusing what RE2 lacks (as Go's regexp does;
// the Java-only constructs are refused at planning).
func refRegex(p string) (*regexp.Regexp, error) {
	for _, bad := range []string{"(?=", "(?!", "(?<=", "(?<!", "(?>"} {
		if strings.Contains(p, bad) {
			return nil, fmt.Errorf("java only")
		}
	}
	return regexp.Compile(p)
}

// refJavaFind lists the matches of re in s as Java's Matcher.find loop
// defines them (Flink's regex functions run on it), by a naive scan: from
// pos, the first start q >= pos (rune by rune) where re matches, taking the
// match re prefers there; the next search starts at that match's end, or one
// rune past an empty match. Whether re matches at q is asked with the text
// before q in view (re after one rune of context), so \b and ^ see it.
func refJavaFind(re *regexp.Regexp, s string) [][]int {
	at0 := regexp.MustCompile(`^(?:` + re.String() + `)`)
	at := regexp.MustCompile(`^(?s:.)(?:` + re.String() + `)`)
	matchAt := func(q int) []int {
		from, pat := 0, at0 // where the text given to pat starts
		if q > 0 {
			_, w := utf8.DecodeLastRuneInString(s[:q])
			from, pat = q-w, at
		}
		loc := pat.FindStringSubmatchIndex(s[from:])
		if loc == nil {
			return nil
		}
		m := []int{q, from + loc[1]}
		for g := 2; g < len(loc); g += 2 {
			if loc[g] < 0 {
				m = append(m, -1, -1)
			} else {
				m = append(m, from+loc[g], from+loc[g+1])
			}
		}
		return m
	}
	var out [][]int
	for pos := 0; pos <= len(s); {
		var m []int
		for q := pos; q <= len(s); {
			if m = matchAt(q); m != nil || q == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[q:])
			q += w
		}
		if m == nil {
			break
		}
		out = append(out, m)
		pos = m[1]
		if m[1] == m[0] {
			if pos == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += w
		}
	}
	return out
}

func refLocate(sub, s string, from int64) int64 {
	r := []rune(s)
	if from < 1 || (from > int64(len(r)) && from > 1 && sub != "") {
		return 0
	}
	if from > int64(len(r)) {
		from = int64(len(r)) + 1
	}
	j := strings.Index(string(r[from-1:]), sub)
	if j < 0 {
		return 0
	}
	return from + int64(len([]rune(string(r[from-1:])[:j])))
}

// refTruncate cuts x toward zero at d decimals of its shortest decimal form,
// in exact decimal arithmetic.
func refTruncate(x float64, d int64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || d > 340 {
		return x
	}
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(d)), nil))
	if d < 0 {
		scale.Inv(scale)
	}
	r.Mul(r, scale)
	q := new(big.Int).Quo(r.Num(), r.Denom())
	out := new(big.Rat).SetInt(q)
	out.Quo(out, scale)
	f, _ := out.Float64()
	if f == 0 {
		return 0
	}
	return f
}

func abs64(d int64) int64 {
	if d < 0 {
		return -d
	}
	return d
}

// refField is a calendar field by Flink's function or EXTRACT unit name.
func refField(name string, t time.Time) int64 {
	switch name {
	case "YEAR":
		return int64(t.Year())
	case "QUARTER":
		return int64((int(t.Month())-1)/3 + 1)
	case "MONTH":
		return int64(t.Month())
	case "WEEK":
		_, w := t.ISOWeek()
		return int64(w)
	case "DAYOFYEAR", "DOY":
		return int64(t.YearDay())
	case "DAYOFMONTH", "DAY":
		return int64(t.Day())
	case "DAYOFWEEK", "DOW":
		return int64(t.Weekday()) + 1
	case "HOUR":
		return int64(t.Hour())
	case "MINUTE":
		return int64(t.Minute())
	case "SECOND":
		return int64(t.Second())
	}
	// Flink's DateTimeUtils.convertExtract, on the epoch milliseconds
	ms := t.UnixMilli()
	msOfSecond := ((ms % 1000) + 1000) % 1000
	days := ms / 86_400_000
	if ms%86_400_000 < 0 {
		days--
	}
	y := int64(t.Year())
	switch name {
	case "MILLISECOND":
		return msOfSecond
	case "MICROSECOND":
		return msOfSecond * 1000
	case "NANOSECOND":
		return msOfSecond * 1_000_000
	case "EPOCH":
		return ms / 1000
	case "ISODOW": // 1970-01-01 was a Thursday (4)
		return ((days+3)%7+7)%7 + 1
	case "ISOYEAR":
		iy, _ := t.ISOWeek()
		return int64(iy)
	case "DECADE":
		return y / 10
	case "CENTURY":
		if y > 0 {
			return (y + 99) / 100
		}
		return (y - 99) / 100
	case "MILLENNIUM":
		if y > 0 {
			return (y + 999) / 1000
		}
		return (y - 999) / 1000
	}
	panic("refField " + name)
}

// refDateFormat formats t by a Java SimpleDateFormat pattern, letter run by
// letter run, through time.Format layouts and fmt.
func refDateFormat(p string, t time.Time) (string, bool) {
	var sb strings.Builder
	rs := []rune(p)
	for i := 0; i < len(rs); {
		c := rs[i]
		if c == '\'' {
			j := i + 1
			if j < len(rs) && rs[j] == '\'' {
				sb.WriteRune('\'')
				i += 2
				continue
			}
			for ; j < len(rs); j++ {
				if rs[j] == '\'' {
					if j+1 < len(rs) && rs[j+1] == '\'' {
						sb.WriteRune('\'')
						j++
						continue
					}
					break
				}
				sb.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return "", false
			}
			i = j + 1
			continue
		}
		if !unicode.IsLetter(c) || c > 'z' {
			sb.WriteRune(c)
			i++
			continue
		}
		n := 1
		for i+n < len(rs) && rs[i+n] == c {
			n++
		}
		i += n
		num := func(v int) { sb.WriteString(fmt.Sprintf("%0*d", n, v)) }
		switch c {
		case 'y':
			if n == 2 {
				sb.WriteString(t.Format("06"))
			} else {
				num(t.Year())
			}
		case 'Y', 'w':
			// US weeks: Sunday to Saturday, week 1 holds January 1; counted
			// here day by day: the Saturday ending t's week names the year,
			// and each Sunday after January 1 up to t starts a week
			sat := t.AddDate(0, 0, 6-int(t.Weekday()))
			y, w := sat.Year(), 1
			if sat.Year() == t.Year() {
				for d := time.Date(t.Year(), 1, 2, 0, 0, 0, 0, time.UTC); !d.After(t); d = d.AddDate(0, 0, 1) {
					if d.Weekday() == time.Sunday {
						w++
					}
				}
			}
			switch {
			case c == 'w':
				num(w)
			case n == 2:
				num(y % 100)
			default:
				num(y)
			}
		case 'W':
			w := 1
			for d := 2; d <= t.Day(); d++ {
				if time.Date(t.Year(), t.Month(), d, 0, 0, 0, 0, time.UTC).Weekday() == time.Sunday {
					w++
				}
			}
			num(w)
		case 'F':
			num((t.Day() + 6) / 7)
		case 'M', 'L':
			switch {
			case n >= 4:
				sb.WriteString(t.Format("January"))
			case n == 3:
				sb.WriteString(t.Format("Jan"))
			default:
				num(int(t.Month()))
			}
		case 'd':
			num(t.Day())
		case 'D':
			num(t.YearDay())
		case 'E':
			if n >= 4 {
				sb.WriteString(t.Format("Monday"))
			} else {
				sb.WriteString(t.Format("Mon"))
			}
		case 'u':
			num((int(t.Weekday())+6)%7 + 1)
		case 'a':
			sb.WriteString(t.Format("PM"))
		case 'H':
			num(t.Hour())
		case 'k':
			num((t.Hour()+23)%24 + 1)
		case 'K':
			num(t.Hour() % 12)
		case 'h':
			num((t.Hour()+11)%12 + 1)
		case 'm':
			num(t.Minute())
		case 's':
			num(t.Second())
		case 'S':
			num(t.Nanosecond() / 1e6)
		case 'G':
			sb.WriteString("AD")
		case 'z':
			if n >= 4 {
				sb.WriteString("Coordinated Universal Time")
			} else {
				sb.WriteString("UTC")
			}
		case 'Z':
			sb.WriteString("+0000")
		case 'X':
			sb.WriteString("Z")
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// refLenientRE is Flink's default timestamp format (DateTimeUtils:
// yyyy-[MM][M]-[dd][d] then optionally [HH][H]:[mm][m]:[ss][s] and a fraction).
var refLenientRE = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{0,9}))?)?$`)

// refLenientTimestamp reads s by refLenientRE, its fraction cut to ms:
// month 1 to 12, day 1 to 31; a day past the month's end is its last day
// and the time must be as written (Java's SMART resolving), or with roll
// every field past its range rolls over (java.sql.Timestamp.valueOf).
func refLenientTimestamp(s string, roll bool) (int64, bool) {
	m := refLenientRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n := make([]int, 6)
	for k := range n {
		n[k], _ = strconv.Atoi(m[k+1])
	}
	frac := (m[7] + "000")[:3]
	ms, _ := strconv.Atoi(frac)
	if n[1] < 1 || n[1] > 12 || n[2] < 1 || n[2] > 31 {
		return 0, false
	}
	if last := time.Date(n[0], time.Month(n[1])+1, 0, 0, 0, 0, 0, time.UTC).Day(); !roll && n[2] > last {
		n[2] = last // (SMART: the month's last day)
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], ms*1e6, time.UTC)
	if !roll && (t.Month() != time.Month(n[1]) || t.Day() != n[2] || t.Hour() != n[3] || t.Minute() != n[4] || t.Second() != n[5]) {
		return 0, false
	}
	return t.UnixMilli(), true
}

// refISODate is Flink's DateTimeUtils.parseDate(String) (TO_DATE without a
// format), by splitting: the text before the first space (when it is not at
// the start), cut at its first two hyphens into year, month and day (1 by
// default), each trimmed and all digits; the date must exist in years 0 to
// 9999. The result is epoch milliseconds of its midnight.
func refISODate(s string) (int64, bool) {
	if k := strings.Index(s, " "); k > 0 {
		s = s[:k]
	}
	parts := strings.SplitN(s, "-", 3)
	n := []int{0, 1, 1}
	for k, p := range parts {
		p = strings.TrimFunc(p, func(r rune) bool { return r <= ' ' })
		if !regexp.MustCompile(`^[0-9]{1,9}$`).MatchString(p) {
			return 0, false
		}
		n[k], _ = strconv.Atoi(p)
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], 0, 0, 0, 0, time.UTC)
	if n[0] > 9999 || t.Year() != n[0] || int(t.Month()) != n[1] || t.Day() != n[2] {
		return 0, false
	}
	return t.UnixMilli(), true
}

// refParseDate reads s by a pattern of numeric fields and literals, through a
// regular expression built from the pattern: the whole of s, as Java's
// DateTimeFormatter resolves SMART (a day of 29 to 31 past the month's end
// is its last day; any other field out of range does not read).
func refParseDate(p, s string) (int64, bool) { return refParseDateAt(p, s, true) }

// refParsePrefix is refParseDate of the start of s, what follows ignored,
// each field past its range rolled over into the next (Java's lenient
// SimpleDateFormat.parse(String): Flink's UNIX_TIMESTAMP, TO_DATE with a
// format, DATE_FORMAT of text, CONVERT_TZ).
func refParsePrefix(p, s string) (int64, bool) { return refParseDateAt(p, s, false) }

func refParseDateAt(p, s string, whole bool) (int64, bool) {
	type fieldRun struct {
		c rune
		n int
	}
	var runs []fieldRun
	var re strings.Builder
	re.WriteString("^")
	rs := []rune(p)
	for i := 0; i < len(rs); {
		c := rs[i]
		if c == '\'' {
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				re.WriteString(regexp.QuoteMeta(string(rs[j])))
				j++
			}
			if j == i+1 && j < len(rs) {
				re.WriteString("'")
			}
			i = j + 1
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			re.WriteString(regexp.QuoteMeta(string(c)))
			i++
			continue
		}
		n := 1
		for i+n < len(rs) && rs[i+n] == c {
			n++
		}
		i += n
		if !strings.ContainsRune("yYMLdHkhKmsSDu", c) || ((c == 'M' || c == 'L') && n >= 3) {
			return 0, false // (names and the rest: not in the fuzzed forms)
		}
		next := i < len(rs) && (rs[i] >= 'a' && rs[i] <= 'z' || rs[i] >= 'A' && rs[i] <= 'Z')
		if next {
			re.WriteString(fmt.Sprintf("([0-9]{%d})", n))
		} else {
			re.WriteString("([0-9]{1,9})")
		}
		runs = append(runs, fieldRun{c, n})
	}
	if whole {
		re.WriteString("$")
	}
	m := regexp.MustCompile(re.String()).FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	y, mo, d, h, mi, sec, ms := 1970, 1, 1, 0, 0, 0, 0
	for k, r := range runs {
		v, _ := strconv.Atoi(m[k+1])
		switch r.c {
		case 'y', 'Y':
			y = v
			if r.n == 2 && len(m[k+1]) == 2 {
				y += 2000
			}
		case 'M', 'L':
			mo = v
		case 'd':
			d = v
		case 'H':
			h = v
		case 'k':
			h = v % 24
		case 'h', 'K':
			h = v % 12
		case 'm':
			mi = v
		case 's':
			sec = v
		case 'S':
			ms = v
		}
	}
	if whole {
		if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 || ms > 999 {
			return 0, false
		}
		d = min(d, time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day())
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ms*1e6, time.UTC)
	if t.Year() > 292278994 || t.Year() < -292275055 {
		return 0, false
	}
	return t.UnixMilli(), true
}

// refJSONPath follows a path ($.a.b, $.a[0], $['k']) through a document
// decoded level by level into raw messages; it returns the value's text.
func refJSONPath(doc []byte, path string) (json.RawMessage, bool) {
	path = strings.TrimPrefix(strings.TrimPrefix(path, "lax "), "strict ")
	path = strings.TrimSpace(path)
	if !strings.HasPrefix(path, "$") {
		return nil, false
	}
	steps := regexp.MustCompile(`\.([^.\[]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]`).FindAllStringSubmatch(path[1:], -1)
	cur := json.RawMessage(bytes.TrimSpace(doc))
	for _, st := range steps {
		switch {
		case st[2] != "":
			n, _ := strconv.Atoi(st[2])
			var arr []json.RawMessage
			if json.Unmarshal(cur, &arr) != nil || n >= len(arr) {
				return nil, false
			}
			cur = arr[n]
		default:
			key := strings.Trim(st[1]+st[3]+st[4], `"`)
			var obj map[string]json.RawMessage
			if len(cur) == 0 || cur[0] != '{' || json.Unmarshal(cur, &obj) != nil {
				return nil, false
			}
			v, ok := obj[key]
			if !ok {
				return nil, false
			}
			cur = v
		}
	}
	if len(cur) == 0 {
		return nil, false
	}
	return cur, true
}

// refJSONPathAll evaluates a path with wildcards (.* and [*]) over doc, as
// Jayway JsonPath's indefinite paths: every member value of an object and
// every element of an array, in the document's order, steps that do not
// apply to a value dropping it. indefinite is false for a path without a
// wildcard (refJSONPath reads those).
func refJSONPathAll(doc []byte, path string) (list []json.RawMessage, indefinite bool) {
	path = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(path, "lax "), "strict "))
	if !strings.HasPrefix(path, "$") || !strings.Contains(path, "*") {
		return nil, false
	}
	steps := regexp.MustCompile(`\.\*|\[\*\]|\.([^.\[]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]`).FindAllStringSubmatch(path[1:], -1)
	cur := []json.RawMessage{bytes.TrimSpace(doc)}
	for _, st := range steps {
		var next []json.RawMessage
		for _, v := range cur {
			switch {
			case st[0] == ".*" || st[0] == "[*]":
				if len(v) > 0 && v[0] == '[' {
					var arr []json.RawMessage
					_ = json.Unmarshal(v, &arr)
					next = append(next, arr...)
				} else if len(v) > 0 && v[0] == '{' {
					dec := json.NewDecoder(bytes.NewReader(v))
					_, _ = dec.Token()
					for dec.More() {
						_, _ = dec.Token() // (the key)
						var m json.RawMessage
						_ = dec.Decode(&m)
						next = append(next, m)
					}
				}
			case st[2] != "":
				n, _ := strconv.Atoi(st[2])
				var arr []json.RawMessage
				if len(v) > 0 && v[0] == '[' && json.Unmarshal(v, &arr) == nil && n < len(arr) {
					next = append(next, arr[n])
				}
			default:
				var obj map[string]json.RawMessage
				if len(v) > 0 && v[0] == '{' && json.Unmarshal(v, &obj) == nil {
					if m, ok := obj[strings.Trim(st[1]+st[3]+st[4], `"`)]; ok {
						next = append(next, m)
					}
				}
			}
		}
		cur = next
	}
	return cur, true
}

// refJSONQuery is Calcite's (Flink's SqlJsonUtils) jsonQuery in lax mode:
// opts are the parser's clause arguments ('WRAPPER=…', 'EMPTY=…',
// 'ERROR=…'). Invalid JSON is the ON ERROR behaviour; nothing found, JSON
// null, or a scalar after the wrapper is applied, the ON EMPTY one; else
// the value (a wildcard path's list as an array), wrapped as asked, as
// compact JSON.
func refJSONQuery(doc []byte, path string, opts []val) val {
	wrapper, onEmpty, onError := "WITHOUT", "NULL", "NULL"
	for _, o := range opts {
		k, v, _ := strings.Cut(string(o.s), "=")
		switch k {
		case "WRAPPER":
			wrapper = v
		case "EMPTY":
			onEmpty = v
		case "ERROR":
			onError = v
		}
	}
	behave := func(b string) val {
		switch b {
		case "EMPTY ARRAY":
			return val{s: []byte("[]")}
		case "EMPTY OBJECT":
			return val{s: []byte("{}")}
		}
		return val{null: true}
	}
	if !json.Valid(doc) {
		return behave(onError)
	}
	var value []byte
	if list, indef := refJSONPathAll(doc, path); indef {
		parts := make([][]byte, len(list))
		for k, m := range list {
			parts[k] = m
		}
		value = append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']')
	} else {
		raw, ok := refJSONPath(doc, path)
		if !ok || string(raw) == "null" {
			return behave(onEmpty)
		}
		value = raw
	}
	if wrapper == "UNCONDITIONAL" || wrapper == "CONDITIONAL" && value[0] != '[' {
		value = append(append([]byte("["), value...), ']')
	}
	if value[0] != '[' && value[0] != '{' {
		return behave(onEmpty)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, value) != nil {
		return val{null: true}
	}
	return val{s: buf.Bytes()}
}

// refJSON is a value as JSON text.
func refJSON(t catalog.Type, v val) string {
	quote := func(s string) string {
		var sb strings.Builder
		sb.WriteByte('"')
		for len(s) > 0 { // (an invalid byte is written \ufffd, as the json format does)
			r, size := utf8.DecodeRuneInString(s)
			s = s[size:]
			switch {
			case r == utf8.RuneError && size == 1:
				sb.WriteString(`\ufffd`)
			case r == 0x2028 || r == 0x2029:
				sb.WriteString(fmt.Sprintf(`\u%04x`, r))
			case r == '"' || r == '\\':
				sb.WriteString(`\` + string(r))
			case r == '\n':
				sb.WriteString(`\n`)
			case r == '\r':
				sb.WriteString(`\r`)
			case r == '\t':
				sb.WriteString(`\t`)
			case r < 0x20:
				sb.WriteString(fmt.Sprintf(`\u%04x`, r))
			default:
				sb.WriteRune(r)
			}
		}
		sb.WriteByte('"')
		return sb.String()
	}
	switch t {
	case catalog.Varchar, catalog.Timestamp:
		return quote(string(printed(t, v)))
	case catalog.Double:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return quote(string(printed(t, v)))
		}
	}
	return string(printed(t, v))
}
