package expr

import (
	"strconv"
	"strings"

	"streamql/catalog"
	"streamql/executor/format"
	"streamql/executor/vector"
)

// The JSON functions of the function table (SPEC 2.10) over VARCHAR JSON
// text: a path is compiled once (when constant) and walked over the text
// without decoding it into Go values.

// pathStep is one step of a JSON path: a member key, an array index, or a
// wildcard (.* or [*]: every member value of an object, every element of
// an array).
type pathStep struct {
	key   string
	index int
	isKey bool
	wild  bool
}

// indefinite reports whether a path has a wildcard: it finds a list of
// values, as Jayway JsonPath's (Flink's SqlJsonUtils) indefinite paths do,
// which JSON_QUERY gives as a JSON array (empty when nothing matches).
func indefinite(steps []pathStep) bool {
	for _, st := range steps {
		if st.wild {
			return true
		}
	}
	return false
}

// compileJSONPath reads a lax SQL/JSON path: $ then .key, ."key", ['key'] or
// [n] steps. The "lax" / "strict" mode words are accepted (lax is used).
func compileJSONPath(p string) ([]pathStep, *ArgError) {
	i := 0
	for _, mode := range []string{"lax ", "strict "} {
		if len(p) >= len(mode) && p[:len(mode)] == mode {
			i = len(mode)
		}
	}
	for i < len(p) && p[i] == ' ' {
		i++
	}
	if i >= len(p) || p[i] != '$' {
		return nil, &ArgError{Offset: i, Msg: "a JSON path starts with $ (like '$.a.b' or '$.a[0]')"}
	}
	i++
	var steps []pathStep
	for i < len(p) {
		switch p[i] {
		case '.':
			i++
			if i < len(p) && p[i] == '[' {
				continue // $.["a.b"] is $["a.b"] (Flink's docs write it so)
			}
			if i < len(p) && p[i] == '"' {
				end := i + 1
				for end < len(p) && p[end] != '"' {
					end++
				}
				if end >= len(p) {
					return nil, &ArgError{Offset: i, Msg: "unterminated quoted key in the JSON path"}
				}
				steps = append(steps, pathStep{key: p[i+1 : end], isKey: true})
				i = end + 1
				continue
			}
			start := i
			for i < len(p) && p[i] != '.' && p[i] != '[' {
				i++
			}
			if i == start {
				return nil, &ArgError{Offset: start, Msg: "a JSON path step needs a key after '.'"}
			}
			if p[start:i] == "*" {
				steps = append(steps, pathStep{wild: true})
				continue
			}
			steps = append(steps, pathStep{key: p[start:i], isKey: true})
		case '[':
			end := i + 1
			for end < len(p) && p[end] != ']' {
				end++
			}
			if end >= len(p) {
				return nil, &ArgError{Offset: i, Msg: "missing ] in the JSON path"}
			}
			in := p[i+1 : end]
			if in == "*" {
				steps = append(steps, pathStep{wild: true})
			} else if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] {
				steps = append(steps, pathStep{key: in[1 : len(in)-1], isKey: true})
			} else {
				n, err := strconv.Atoi(in)
				if err != nil || n < 0 {
					return nil, &ArgError{Offset: i + 1, Msg: "a JSON path index is a number from 0 or a quoted key"}
				}
				steps = append(steps, pathStep{index: n})
			}
			i = end + 1
		case ' ':
			i++
		default:
			return nil, &ArgError{Offset: i, Msg: "unexpected '" + string(p[i]) + "' in the JSON path"}
		}
	}
	return steps, nil
}

// pathArg returns argument k's compiled path (nil, false: no path, NULL).
func pathArg(args []Arg, k int) (func(a []*vector.Vec, i int) ([]pathStep, bool), error) {
	if args[k].Const {
		if args[k].Value.Null {
			return func([]*vector.Vec, int) ([]pathStep, bool) { return nil, false }, nil
		}
		steps, err := compileJSONPath(string(args[k].Value.S))
		if err != nil {
			err.Arg = k
			return nil, err
		}
		return func([]*vector.Vec, int) ([]pathStep, bool) { return steps, true }, nil
	}
	return func(a []*vector.Vec, i int) ([]pathStep, bool) {
		steps, err := compileJSONPath(string(a[k].S[i]))
		return steps, err == nil
	}, nil
}

// skipWS skips JSON whitespace from i.
func skipWS(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the (valid) JSON value starting at i.
func skipValue(s []byte, i int) int {
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				i = skipString(s, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(s) && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	return i
}

// skipString returns the end of the JSON string starting at i (its quote).
func skipString(s []byte, i int) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// keyEquals reports whether the JSON string s (quotes included) is key.
func keyEquals(s []byte, key string) bool {
	inner := s[1 : len(s)-1]
	for _, c := range inner {
		if c == '\\' {
			var buf [64]byte
			return string(appendUnquoted(buf[:0], s)) == key
		}
	}
	return string(inner) == key
}

// walkJSON returns the value the path finds in valid JSON text s (its
// bytes), or false.
func walkJSON(s []byte, steps []pathStep) ([]byte, bool) {
	i := skipWS(s, 0)
	for _, st := range steps {
		if i >= len(s) {
			return nil, false
		}
		found := false
		switch {
		case st.isKey && s[i] == '{':
			// the last member of the key wins, as in Flink's JSON tree
			i = skipWS(s, i+1)
			at := 0
			for i < len(s) && s[i] == '"' {
				kend := skipString(s, i)
				match := keyEquals(s[i:kend], st.key)
				i = skipWS(s, kend)
				i = skipWS(s, i+1) // ':'
				if match {
					found, at = true, i
				}
				i = skipWS(s, skipValue(s, i))
				if i < len(s) && s[i] == ',' {
					i = skipWS(s, i+1)
				}
			}
			i = at
		case !st.isKey && s[i] == '[':
			i = skipWS(s, i+1)
			for n := 0; i < len(s) && s[i] != ']'; n++ {
				if n == st.index {
					found = true
					break
				}
				i = skipWS(s, skipValue(s, i))
				if i < len(s) && s[i] == ',' {
					i = skipWS(s, i+1)
				}
			}
		}
		if !found {
			return nil, false
		}
	}
	if i >= len(s) {
		return nil, false
	}
	return s[i:skipValue(s, i)], true
}

// walkJSONAll calls visit with each value the path steps find in valid JSON
// text s from offset i, in document order: a wildcard step goes into every
// member value of an object and every element of an array, a key or index
// step that does not match a value skips it (Jayway JsonPath's indefinite
// paths, without REQUIRE_PROPERTIES).
func walkJSONAll(s []byte, i int, steps []pathStep, visit func(v []byte)) {
	i = skipWS(s, i)
	if i >= len(s) {
		return
	}
	if len(steps) == 0 {
		visit(s[i:skipValue(s, i)])
		return
	}
	st := steps[0]
	if !st.wild {
		if v, ok := walkJSON(s[i:skipValue(s, i)], steps[:1]); ok {
			walkJSONAll(v, 0, steps[1:], visit)
		}
		return
	}
	switch s[i] {
	case '{':
		i = skipWS(s, i+1)
		for i < len(s) && s[i] == '"' {
			i = skipWS(s, skipString(s, i))
			i = skipWS(s, i+1) // ':'
			walkJSONAll(s, i, steps[1:], visit)
			i = skipWS(s, skipValue(s, i))
			if i < len(s) && s[i] == ',' {
				i = skipWS(s, i+1)
			}
		}
	case '[':
		i = skipWS(s, i+1)
		for i < len(s) && s[i] != ']' {
			walkJSONAll(s, i, steps[1:], visit)
			i = skipWS(s, skipValue(s, i))
			if i < len(s) && s[i] == ',' {
				i = skipWS(s, i+1)
			}
		}
	}
}

// appendJSONList appends, as one compact JSON array, the values the
// indefinite path steps find in valid JSON text s ([] when none).
func appendJSONList(dst, s []byte, steps []pathStep) []byte {
	dst = append(dst, '[')
	first := true
	walkJSONAll(s, 0, steps, func(v []byte) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendCompact(dst, v)
	})
	return append(dst, ']')
}

// appendCompact appends JSON text v without its insignificant whitespace.
func appendCompact(dst, v []byte) []byte {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			end := skipString(v, i)
			dst = append(dst, v[i:end]...)
			i = end - 1
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// jsonPathFn prepares a function of (json, path): it gets the value found.
func jsonPathFn(args []Arg, f func(v []byte, dst []byte) ([]byte, bool)) (RowFunc, error) {
	pathOf, err := pathArg(args, 1)
	if err != nil {
		return nil, err
	}
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		steps, ok := pathOf(a, i)
		if !ok || !validJSON(a[0].S[i]) || indefinite(steps) {
			return dst, false
		}
		v, ok := walkJSON(a[0].S[i], steps)
		if !ok {
			return dst, false
		}
		return f(v, dst)
	}), nil
}

// prepJSONValue is JSON_VALUE(json, path): a string's text, a number's or a
// boolean's JSON text; NULL for null, an object or an array, and for a path
// with a wildcard, which finds a list (Flink's NULL ON EMPTY, NULL ON
// ERROR).
func prepJSONValue(args []Arg, _ catalog.Type) (RowFunc, error) {
	return jsonPathFn(args, func(v, dst []byte) ([]byte, bool) {
		switch v[0] {
		case '{', '[', 'n':
			return dst, false
		case '"':
			return appendUnquoted(dst, v), true
		}
		return append(dst, v...), true
	})
}

// jsonQueryOpts are JSON_QUERY's clauses, which the parser writes as
// constant arguments after the path ('WRAPPER=…', 'EMPTY=…', 'ERROR=…'):
// the wrapper (WITHOUT, CONDITIONAL or UNCONDITIONAL) and what an empty
// result and an error give ('NULL', 'EMPTY ARRAY' or 'EMPTY OBJECT').
type jsonQueryOpts struct {
	wrapper, empty, err string
}

// jsonQueryOptions reads JSON_QUERY's clause arguments (from 2).
func jsonQueryOptions(args []Arg) (jsonQueryOpts, error) {
	o := jsonQueryOpts{wrapper: "WITHOUT", empty: "NULL", err: "NULL"}
	for k := 2; k < len(args); k++ {
		bad := &ArgError{Arg: k, Offset: -1, Msg: "JSON_QUERY takes its clauses after the path: [WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]] [ARRAY] WRAPPER, {NULL | EMPTY ARRAY | EMPTY OBJECT} ON EMPTY, {NULL | EMPTY ARRAY | EMPTY OBJECT} ON ERROR"}
		if !args[k].Const || args[k].Value.Null {
			return o, bad
		}
		key, v, _ := strings.Cut(string(args[k].Value.S), "=")
		switch {
		case key == "WRAPPER" && (v == "WITHOUT" || v == "CONDITIONAL" || v == "UNCONDITIONAL"):
			o.wrapper = v
		case key == "EMPTY" && (v == "NULL" || v == "EMPTY ARRAY" || v == "EMPTY OBJECT"):
			o.empty = v
		case key == "ERROR" && (v == "NULL" || v == "EMPTY ARRAY" || v == "EMPTY OBJECT"):
			o.err = v
		default:
			return o, bad
		}
	}
	return o, nil
}

// appendBehavior appends what an ON EMPTY / ON ERROR behaviour gives: false
// for NULL.
func appendBehavior(dst []byte, b string) ([]byte, bool) {
	switch b {
	case "EMPTY ARRAY":
		return append(dst, "[]"...), true
	case "EMPTY OBJECT":
		return append(dst, "{}"...), true
	}
	return dst, false
}

// prepJSONQuery is JSON_QUERY(json, path [clauses]) as Flink's
// SqlJsonUtils.jsonQuery in lax mode: the value found, wrapped in an array
// WITH UNCONDITIONAL WRAPPER, or WITH CONDITIONAL WRAPPER when it is not an
// array, as compact JSON text; a path with a wildcard finds the list of
// values it matches, a JSON array ([] when none). Nothing found, JSON null,
// or a scalar left unwrapped (WITHOUT WRAPPER, the default) is the ON EMPTY
// behaviour; JSON text that does not parse the ON ERROR one (NULL, '[]' or
// '{}'; NULL by default).
func prepJSONQuery(args []Arg, _ catalog.Type) (RowFunc, error) {
	o, err := jsonQueryOptions(args)
	if err != nil {
		return nil, err
	}
	pathOf, err := pathArg(args, 1)
	if err != nil {
		return nil, err
	}
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		steps, ok := pathOf(a, i)
		s := a[0].S[i]
		if !ok || !validJSON(s) { // (a path of the row's that does not compile is an error too)
			return appendBehavior(dst, o.err)
		}
		start := len(dst)
		var v []byte
		if indefinite(steps) {
			dst = appendJSONList(dst, s, steps)
			v = dst[start:]
		} else if v, ok = walkJSON(s, steps); !ok || v[0] == 'n' {
			return appendBehavior(dst, o.empty)
		}
		isArray := v[0] == '['
		if o.wrapper == "UNCONDITIONAL" || o.wrapper == "CONDITIONAL" && !isArray {
			if start < len(dst) { // (the list, already in dst: wrap it in place)
				dst = append(dst, 0, 0)
				copy(dst[start+1:], dst[start:len(dst)-2])
				dst[start], dst[len(dst)-1] = '[', ']'
				return dst, true
			}
			dst = append(dst, '[')
			return append(appendCompact(dst, v), ']'), true
		}
		if !isArray && v[0] != '{' {
			return appendBehavior(dst[:start], o.empty) // (a scalar, unwrapped: lax mode's empty)
		}
		if start < len(dst) {
			return dst, true
		}
		return appendCompact(dst, v), true
	}), nil
}

// prepJSONExists is JSON_EXISTS(json, path): FALSE for invalid JSON (Flink's
// FALSE ON ERROR).
func prepJSONExists(args []Arg, _ catalog.Type) (RowFunc, error) {
	pathOf, err := pathArg(args, 1)
	if err != nil {
		return nil, err
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		steps, ok := pathOf(a, i)
		if !ok {
			return false
		}
		found := indefinite(steps) // (a list, even an empty one, is found: Jayway's indefinite path)
		if !found {
			_, found = walkJSON(a[0].S[i], steps)
		}
		out.B[i] = found && validJSON(a[0].S[i])
		return true
	}, nil
}

// prepIsJSON is s IS JSON [kind] (IS_JSON(s[, kind])): whether s is valid
// JSON of the kind (VALUE: any, SCALAR, ARRAY, OBJECT); FALSE for NULL.
func prepIsJSON(args []Arg, _ catalog.Type) (RowFunc, error) {
	kind := "VALUE"
	if len(args) == 2 {
		kind = strings.ToUpper(string(args[1].Value.S))
		if !args[1].Const || (kind != "VALUE" && kind != "SCALAR" && kind != "ARRAY" && kind != "OBJECT") {
			return nil, &ArgError{Arg: 1, Offset: -1, Msg: "IS JSON takes VALUE, SCALAR, ARRAY or OBJECT"}
		}
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		s := a[0].S[i]
		ok := !a[0].Null[i] && validJSON(s)
		if ok && kind != "VALUE" {
			switch c := s[skipWS(s, 0)]; kind {
			case "ARRAY":
				ok = c == '['
			case "OBJECT":
				ok = c == '{'
			default:
				ok = c != '[' && c != '{'
			}
		}
		out.B[i] = ok
		return true
	}, nil
}

// appendJSONString appends s as a JSON string, as the json format writes
// text (executor/format).
func appendJSONString(dst, s []byte) []byte { return format.AppendJSONString(dst, s) }

// appendJSONValue appends row i of v, of type t, as JSON: text and
// timestamps as strings, numbers and booleans as they print (a DOUBLE that is
// not finite as a string, as Jackson writes it).
func appendJSONValue(dst []byte, t catalog.Type, v *vector.Vec, i int) []byte {
	if t.IsNested() { // ARRAY, MAP, ROW as nested JSON (the json format's)
		return format.AppendJSONValue(dst, t, v, i)
	}
	switch t {
	case catalog.Varchar:
		return appendJSONString(dst, v.S[i])
	case catalog.Timestamp:
		start := len(dst)
		dst = vector.AppendValue(dst, t, v, i)
		var buf [40]byte
		txt := append(buf[:0], dst[start:]...)
		return appendJSONString(dst[:start], txt)
	case catalog.Double:
		f := v.F[i]
		if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
			start := len(dst)
			dst = vector.AppendValue(dst, t, v, i)
			var buf [16]byte
			txt := append(buf[:0], dst[start:]...)
			return appendJSONString(dst[:start], txt)
		}
	}
	return vector.AppendValue(dst, t, v, i)
}

// prepJSONString is JSON_STRING(x): x as JSON text.
func prepJSONString(args []Arg, _ catalog.Type) (RowFunc, error) {
	t := args[0].Type
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		return appendJSONValue(dst, t, a[0], i), true
	}), nil
}

// jsonValueTypes returns the types of a JSON construction call's arguments,
// with catalog.Unknown for NULL literals, and which of them are JSON made by
// a JSON construction call (Arg.JSON): those are inserted as they are.
func jsonValueTypes(args []Arg) (types []catalog.Type, raw []bool) {
	types, raw = make([]catalog.Type, len(args)), make([]bool, len(args))
	for k, a := range args {
		types[k], raw[k] = a.Type, a.JSON && a.Type == catalog.Varchar
	}
	return types, raw
}

// appendJSONArg appends row i of a JSON construction call's argument k as a
// JSON value: as it is when it is JSON made by a nested JSON_OBJECT or
// JSON_ARRAY call (Flink inserts those directly), else appendJSONValue's.
func appendJSONArg(dst []byte, types []catalog.Type, raw []bool, k int, v *vector.Vec, i int) []byte {
	if raw[k] {
		return append(dst, v.S[i]...)
	}
	return appendJSONValue(dst, types[k], v, i)
}

// prepJSONArray is JSON_ARRAY(x, ...): the values that are not NULL (Flink's
// ABSENT ON NULL); an element that is a JSON_OBJECT or JSON_ARRAY call is
// inserted as JSON (Flink's rule).
func prepJSONArray(args []Arg, _ catalog.Type) (RowFunc, error) {
	types, raw := jsonValueTypes(args)
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		dst = append(dst, '[')
		first := true
		for k, v := range a {
			if v.Null[i] || types[k] == catalog.Unknown {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendJSONArg(dst, types, raw, k, v, i)
		}
		return append(dst, ']'), true
	}), nil
}

// prepJSONObject is JSON_OBJECT(k1, v1, ...), TiDB's spelling of Flink's
// JSON_OBJECT(KEY k1 VALUE v1, ...): NULL values are written as null
// (Flink's NULL ON NULL); a NULL key gives NULL (Flink throws); a value that
// is a JSON_OBJECT or JSON_ARRAY call is inserted as JSON (Flink's rule).
func prepJSONObject(args []Arg, _ catalog.Type) (RowFunc, error) {
	if len(args)%2 != 0 {
		return nil, &ArgError{Arg: len(args) - 1, Offset: -1, Msg: "JSON_OBJECT takes key, value pairs"}
	}
	types, raw := jsonValueTypes(args)
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		dst = append(dst, '{')
		for k := 0; k < len(a); k += 2 {
			if a[k].Null[i] || types[k] != catalog.Varchar {
				return dst, false
			}
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendJSONString(dst, a[k].S[i]), ':')
			if a[k+1].Null[i] || types[k+1] == catalog.Unknown {
				dst = append(dst, "null"...)
			} else {
				dst = appendJSONArg(dst, types, raw, k+1, a[k+1], i)
			}
		}
		return append(dst, '}'), true
	}), nil
}
