package expr_test

// The reference interpreter's nested values (SPEC 2.10), written apart from
// the kernels: values boxed as Go slices, printed, built and read from JSON
// with encoding/json's tokenizer.

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// refFromNested boxes row r of a nested vector.
func refFromNested(v *vector.Vec, r int) val {
	var out val
	switch v.Type.Kind() {
	case catalog.KindArray, catalog.KindMap:
		off, n := int(v.Off[r]), int(v.Len[r])
		for e := off; e < off+n; e++ {
			out.elems = append(out.elems, fromVec(v.Kids[0], e))
			if v.Type.Kind() == catalog.KindMap {
				out.vals = append(out.vals, fromVec(v.Kids[1], e))
			}
		}
	case catalog.KindRow:
		for _, k := range v.Kids {
			out.elems = append(out.elems, fromVec(k, r))
		}
	}
	if out.elems == nil {
		out.elems = []val{}
	}
	return out
}

// refPrintNested prints a nested value as Flink's CAST to STRING does:
// [1, 2], {a=1, b=2}, (1, x), NULL inside as NULL.
func refPrintNested(t catalog.Type, v val) string {
	one := func(t catalog.Type, x val) string {
		if x.null {
			return "NULL"
		}
		return string(printed(t, x))
	}
	var parts []string
	switch t.Kind() {
	case catalog.KindArray:
		for _, e := range v.elems {
			parts = append(parts, one(t.Elem(), e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case catalog.KindMap:
		for k, e := range v.elems {
			parts = append(parts, one(t.Key(), e)+"="+one(t.Elem(), v.vals[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	for k, f := range t.Fields() {
		parts = append(parts, one(f.Type, v.elems[k]))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// refKeyEq is = of two keys of type t (SPEC 2: NaN equals nothing).
func refKeyEq(t catalog.Type, a, b val) bool {
	if a.null || b.null {
		return a.null && b.null
	}
	if t == catalog.Double {
		return a.f == b.f
	}
	return string(printed(t, a)) == string(printed(t, b))
}

// refPut sets key k to value x in map m, a key already there keeping its place.
func refPut(t catalog.Type, m *val, k, x val) {
	for i, e := range m.elems {
		if refKeyEq(t, e, k) {
			m.vals[i] = x
			return
		}
	}
	m.elems, m.vals = append(m.elems, k), append(m.vals, x)
}

// refNestedFunc evaluates the nested types' functions; ok is false for others.
func refNestedFunc(fn string, vs []val, ts []catalog.Type, t catalog.Type) (val, bool) {
	switch fn {
	case "ITEM":
		x, k := vs[0], vs[1]
		switch ts[0].Kind() {
		case catalog.KindArray:
			if k.i < 1 || k.i > int64(len(x.elems)) {
				return null, true
			}
			return x.elems[k.i-1], true
		case catalog.KindMap:
			for i := len(x.elems) - 1; i >= 0; i-- {
				if !x.elems[i].null && refKeyEq(ts[0].Key(), x.elems[i], k) {
					return x.vals[i], true
				}
			}
			return null, true
		}
		return x.elems[ts[0].FieldIndex(string(k.s))], true
	case "CARDINALITY":
		return val{i: int64(len(vs[0].elems))}, true
	case "ELEMENT":
		if len(vs[0].elems) != 1 {
			return null, true
		}
		return vs[0].elems[0], true
	case "ARRAY_VALUE_CONSTRUCTOR", "ROW_VALUE_CONSTRUCTOR":
		return val{elems: append([]val{}, vs...)}, true
	case "MAP_VALUE_CONSTRUCTOR":
		m := val{elems: []val{}}
		for k := 0; k+1 < len(vs); k += 2 {
			refPut(t.Key(), &m, vs[k], vs[k+1])
		}
		return m, true
	case "STR_TO_MAP":
		list, kv := ",", "="
		if len(vs) == 3 {
			list, kv = string(vs[1].s), string(vs[2].s)
		}
		lre, err1 := regexp.Compile(list)
		kre, err2 := regexp.Compile(kv)
		if err1 != nil || err2 != nil {
			return null, true
		}
		m := val{elems: []val{}}
		if len(vs[0].s) == 0 {
			return m, true
		}
		// Java's String.split: no leading empty part for a zero-width match
		// at 0, trailing empty parts dropped
		s := string(vs[0].s)
		var pairs []string
		prev := 0
		for _, loc := range refJavaFind(lre, s) {
			if loc[1] == 0 {
				continue
			}
			pairs = append(pairs, s[prev:loc[0]])
			prev = loc[1]
		}
		pairs = append(pairs, s[prev:])
		for len(pairs) > 0 && pairs[len(pairs)-1] == "" {
			pairs = pairs[:len(pairs)-1]
		}
		for _, p := range pairs {
			loc := kre.FindStringIndex(p)
			if loc == nil || loc[1] == 0 {
				refPut(catalog.Varchar, &m, val{s: []byte(p)}, null)
				continue
			}
			refPut(catalog.Varchar, &m, val{s: []byte(p[:loc[0]])}, val{s: []byte(p[loc[1]:])})
		}
		return m, true
	}
	return val{}, false
}

// refFromJSON reads text as a value of nested type t (CAST from VARCHAR,
// the json input's rules); NULL when it does not fit.
func refFromJSON(t catalog.Type, text []byte) val {
	if !utf8.Valid(text) || loneSurrogate(text) || jsonDepth(text) > 512 {
		return null // (encoding/json would read the first two as U+FFFD; the json input refuses them, and JSON nested deeper than 512 levels)
	}
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	v, ok := refJSONValue(d, t)
	if !ok {
		return null
	}
	if _, err := d.Token(); err == nil { // text after the value
		return null
	}
	return v
}

// jsonDepth returns the deepest nesting of arrays and objects in text.
func jsonDepth(text []byte) int {
	d, most, inStr := 0, 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '[' || c == '{'):
			d++
			most = max(most, d)
		case !inStr && (c == ']' || c == '}'):
			d--
		}
	}
	return most
}

// loneSurrogate reports whether text has a \u escape of half a surrogate
// pair without its other half.
func loneSurrogate(text []byte) bool {
	high := false
	for i := 0; i < len(text); i++ {
		if text[i] != '\\' || i+1 >= len(text) {
			high = false
			continue
		}
		if text[i+1] != 'u' || i+6 > len(text) {
			i++
			high = false
			continue
		}
		var r rune
		for _, c := range text[i+2 : i+6] {
			r <<= 4
			switch {
			case c >= '0' && c <= '9':
				r |= rune(c - '0')
			case c >= 'a' && c <= 'f':
				r |= rune(c - 'a' + 10)
			case c >= 'A' && c <= 'F':
				r |= rune(c - 'A' + 10)
			}
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if high {
				return true
			}
			high = true
		case r >= 0xDC00 && r < 0xE000:
			if !high {
				return true
			}
			high = false
		default:
			if high {
				return true
			}
		}
		i += 5
		if high && !(i+2 < len(text) && text[i+1] == '\\' && text[i+2] == 'u') {
			return true
		}
	}
	return high
}

// refJSONValue reads the next JSON value from d as type t.
func refJSONValue(d *json.Decoder, t catalog.Type) (val, bool) {
	if t == catalog.Varchar { // any JSON: a string's text, else the value's compact text
		var raw json.RawMessage
		if d.Decode(&raw) != nil {
			return null, false
		}
		switch raw[0] {
		case 'n':
			return null, true
		case '"':
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return null, false
			}
			return val{s: []byte(s)}, true
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return null, false
		}
		return val{s: b.Bytes()}, true
	}
	tok, err := d.Token()
	if err != nil {
		return null, false
	}
	return refJSONFrom(d, tok, t)
}

func refJSONFrom(d *json.Decoder, tok json.Token, t catalog.Type) (val, bool) {
	if tok == nil {
		return null, true
	}
	switch t.Kind() {
	case catalog.KindArray:
		if tok != json.Delim('[') {
			return null, false
		}
		out := val{elems: []val{}}
		for d.More() {
			e, ok := refJSONValue(d, t.Elem())
			if !ok {
				return null, false
			}
			out.elems = append(out.elems, e)
		}
		_, err := d.Token()
		return out, err == nil
	case catalog.KindMap, catalog.KindRow:
		if tok != json.Delim('{') {
			return null, false
		}
		out := val{elems: []val{}}
		if t.Kind() == catalog.KindRow {
			out.elems = make([]val, len(t.Fields()))
			for k := range out.elems {
				out.elems[k] = null
			}
		}
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return null, false
			}
			name := kt.(string)
			if t.Kind() == catalog.KindMap {
				k, ok := refScalarText(t.Key(), []byte(name))
				if !ok {
					return null, false
				}
				x, ok := refJSONValue(d, t.Elem())
				if !ok {
					return null, false
				}
				refPut(t.Key(), &out, k, x)
				continue
			}
			f := t.FieldIndex(name)
			if f < 0 {
				var skip json.RawMessage
				if d.Decode(&skip) != nil {
					return null, false
				}
				continue
			}
			x, ok := refJSONValue(d, t.Fields()[f].Type)
			if !ok {
				return null, false
			}
			out.elems[f] = x
		}
		_, err := d.Token()
		return out, err == nil
	}
	switch x := tok.(type) {
	case string:
		if t == catalog.Varchar {
			return val{s: []byte(x)}, true
		}
		if x == "" {
			return null, false
		}
		return refScalarText(t, []byte(x))
	case json.Number:
		if t == catalog.Varchar {
			return val{s: []byte(x)}, true
		}
		if t == catalog.Boolean || (t == catalog.BigInt || t == catalog.Timestamp) && strings.ContainsAny(string(x), ".eE") {
			return null, false
		}
		return refScalarText(t, []byte(x))
	case bool:
		switch t {
		case catalog.Boolean:
			return val{b: x}, true
		case catalog.Varchar:
			return val{s: []byte(map[bool]string{true: "true", false: "false"}[x])}, true
		}
		return null, false
	}
	return null, false
}

// refScalarText reads text as text of a scalar type is read (textconv, the
// decoders' rule).
func refScalarText(t catalog.Type, s []byte) (val, bool) {
	switch t {
	case catalog.Varchar:
		return val{s: s}, true
	case catalog.BigInt:
		x, ok := textconv.ParseInt(s)
		return val{i: x}, ok
	case catalog.Double:
		x, ok := textconv.ParseDouble(s)
		return val{f: x}, ok
	case catalog.Boolean:
		x, ok := textconv.ParseBool(s)
		return val{b: x}, ok
	case catalog.Timestamp:
		x, ok := textconv.ParseTimestamp(s)
		return val{i: x}, ok
	}
	return null, false
}

// refNestedEqual is = of two nested values of type t written from SPEC 2.10's
// rule: same shape; ARRAY elements in order, MAP entries in any order, ROW
// fields by position; a NULL element equals a NULL element (Flink's binary
// comparison), other elements by SPEC 2's =.
func refNestedEqual(t catalog.Type, a, b val) bool {
	if a.null || b.null {
		return a.null && b.null
	}
	switch t.Kind() {
	case catalog.KindArray, catalog.KindRow:
		if len(a.elems) != len(b.elems) {
			return false
		}
		for k := range a.elems {
			et := t.Elem()
			if t.Kind() == catalog.KindRow {
				et = t.Fields()[k].Type
			}
			if !refNestedEqual(et, a.elems[k], b.elems[k]) {
				return false
			}
		}
		return true
	case catalog.KindMap:
		if len(a.elems) != len(b.elems) {
			return false
		}
		for k := range a.elems {
			found := -1
			for m := range b.elems {
				if refNestedEqual(t.Key(), a.elems[k], b.elems[m]) {
					found = m
					break
				}
			}
			if found < 0 || !refNestedEqual(t.Elem(), a.vals[k], b.vals[found]) {
				return false
			}
		}
		return true
	}
	return refCmp(plan.EQ, t, a, b).b
}

// refCastNested casts a nested value to another nested type element by
// element with refCast; an element that does not convert makes the whole
// value NULL (Flink's TRY_CAST).
func refCastNested(x val, from, to catalog.Type) val {
	one := func(e val, f, t catalog.Type) (val, bool) {
		c := refCast(e, f, t)
		return c, e.null || !c.null
	}
	out := val{elems: []val{}}
	for k, e := range x.elems {
		var ft, tt catalog.Type
		switch from.Kind() {
		case catalog.KindArray:
			ft, tt = from.Elem(), to.Elem()
		case catalog.KindMap:
			ft, tt = from.Key(), to.Key()
		case catalog.KindRow:
			ft, tt = from.Fields()[k].Type, to.Fields()[k].Type
		}
		c, ok := one(e, ft, tt)
		if !ok {
			return null
		}
		out.elems = append(out.elems, c)
		if from.Kind() == catalog.KindMap {
			v, ok := one(x.vals[k], from.Elem(), to.Elem())
			if !ok {
				return null
			}
			out.vals = append(out.vals, v)
		}
	}
	return out
}
