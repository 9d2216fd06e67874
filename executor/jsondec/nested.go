package jsondec

import (
	"strconv"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/vector"
)

// maxDepth bounds how deep a JSON value may nest inside a nested column's
// value (ARRAY, MAP, ROW), so a hostile line cannot exhaust the stack.
const maxDepth = 512

// SetNested reads text, one JSON value, as row row of v, a vector of a
// nested type (SPEC 2.10: JSON input maps nested objects and arrays onto
// ARRAY, MAP and ROW; the csv input reads them from their JSON text):
//
//   - ARRAY<T>: a JSON array, each element read as a field of type T is read
//     (the package's rules: a string read as text for a number, any JSON for
//     VARCHAR kept as its compact text), null as a NULL element;
//   - MAP<K, V>: a JSON object, each key read as text of type K, each value
//     as V; a key written twice keeps its first place and its last value;
//   - ROW<name T, ...>: a JSON object, fields matched by name case-sensitively,
//     missing fields and null NULL, others ignored.
//
// The elements go to v's child vectors (Arrow's layout, vector.Vec). It
// returns "" or the reason the value is malformed (then row row of v is
// unspecified: the caller drops the row). text must be valid UTF-8.
func SetNested(v *vector.Vec, row int, text []byte) string {
	p := nestedParser{s: text}
	p.ws()
	if err := p.value(v, row, 0); err != "" {
		return err
	}
	p.ws()
	if p.i != len(p.s) {
		return "unexpected text after the " + v.Type.String() + " value at byte " + strconv.Itoa(p.i+1)
	}
	return ""
}

type nestedParser struct {
	s       []byte
	i       int
	scratch []byte
	keyIdx  map[string]int // a large MAP value's keys (dupKey)
	keyFrom int
}

func (p *nestedParser) ws() {
	for p.i < len(p.s) && wsTab[p.s[p.i]] {
		p.i++
	}
}

func (p *nestedParser) errAt(what string) string {
	if p.i >= len(p.s) {
		return what + " at the end of the value"
	}
	return what + " at byte " + strconv.Itoa(p.i+1)
}

func (p *nestedParser) lit(w string) bool {
	if len(p.s)-p.i >= len(w) && string(p.s[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

// value reads one JSON value as row row of v (any type).
func (p *nestedParser) value(v *vector.Vec, row, depth int) string {
	if depth > maxDepth {
		return p.errAt("JSON nests deeper than " + strconv.Itoa(maxDepth) + " levels")
	}
	if p.i >= len(p.s) {
		return p.errAt("expected a value")
	}
	if p.lit("null") {
		v.Null[row] = true
		return ""
	}
	switch v.Type.Kind() {
	case catalog.KindArray:
		return p.array(v, row, depth)
	case catalog.KindMap, catalog.KindRow:
		return p.object(v, row, depth)
	}
	return p.scalar(v, row, depth)
}

func (p *nestedParser) array(v *vector.Vec, row, depth int) string {
	if p.s[p.i] != '[' {
		return p.errAt("expected a JSON array for " + v.Type.String())
	}
	p.i++
	el := v.Kids[0]
	v.Off[row], v.Len[row], v.Null[row] = int32(el.Used), 0, false
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return ""
	}
	for {
		p.ws()
		e := el.AddElem()
		if err := p.value(el, e, depth+1); err != "" {
			return err
		}
		v.Len[row]++
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return ""
		}
		return p.errAt("expected ',' or ']'")
	}
}

// object reads a JSON object as a MAP's entries or a ROW's fields.
func (p *nestedParser) object(v *vector.Vec, row, depth int) string {
	if p.s[p.i] != '{' {
		return p.errAt("expected a JSON object for " + v.Type.String())
	}
	p.i++
	isMap := v.Type.Kind() == catalog.KindMap
	if isMap {
		v.Off[row], v.Len[row] = int32(v.Kids[0].Used), 0
	} else {
		for _, k := range v.Kids {
			k.Null[row] = true
		}
	}
	v.Null[row] = false
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return ""
	}
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return p.errAt("expected a field name")
		}
		start := p.i
		if err := p.skipString(); err != "" {
			return err
		}
		key := p.unquote(p.s[start:p.i])
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return p.errAt("expected ':'")
		}
		p.i++
		p.ws()
		if isMap {
			keys, vals := v.Kids[0], v.Kids[1]
			e := keys.AddElem()
			vals.AddElem()
			if err := setText(keys, e, key); err != "" {
				return "map key " + strconv.Quote(string(key)) + ": " + err
			}
			if d := p.dupKey(keys, int(v.Off[row]), e); d >= 0 {
				// a key written twice keeps its first place and its last
				// value (as Flink's JSON format fills a map)
				keys.Used--
				vals.Used--
				e = d
			} else {
				v.Len[row]++
			}
			if err := p.value(vals, e, depth+1); err != "" {
				return err
			}
		} else if k := v.Type.FieldIndex(string(key)); k >= 0 {
			if err := p.value(v.Kids[k], row, depth+1); err != "" {
				return "field " + v.Type.Fields()[k].Name + ": " + err
			}
		} else if err := p.skip(depth + 1); err != "" {
			return err
		}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return ""
		}
		return p.errAt("expected ',' or '}'")
	}
}

// dupKey returns the index among keys [from, e) equal to key e, or -1: a
// scan while the map is small, then an index of the keys' printed text
// (built once per large map value).
func (p *nestedParser) dupKey(keys *vector.Vec, from, e int) int {
	if e-from <= 32 {
		for x := from; x < e; x++ {
			if vector.Equal(keys, x, keys, e) {
				return x
			}
		}
		return -1
	}
	if p.keyIdx == nil || p.keyFrom != from {
		p.keyIdx, p.keyFrom = make(map[string]int, 64), from
		for x := from; x < e; x++ {
			p.keyIdx[string(vector.AppendValue(nil, keys.Type, keys, x))] = x
		}
	}
	k := string(vector.AppendValue(nil, keys.Type, keys, e))
	if x, ok := p.keyIdx[k]; ok && vector.Equal(keys, x, keys, e) {
		return x
	}
	p.keyIdx[k] = e
	return -1
}

// unquote returns the content of the JSON string q (with its quotes),
// unescaped (into the parser's scratch when it has escapes).
func (p *nestedParser) unquote(q []byte) []byte {
	c := q[1 : len(q)-1]
	for _, b := range c {
		if b == '\\' {
			p.scratch = appendUnescaped(p.scratch[:0], c)
			return p.scratch
		}
	}
	return c
}

// scalar reads a JSON scalar (or, for VARCHAR, any value) as row row of a
// scalar vector v.
func (p *nestedParser) scalar(v *vector.Vec, row, depth int) string {
	start := p.i
	c := p.s[p.i]
	switch {
	case c == '"':
		if err := p.skipString(); err != "" {
			return err
		}
		t := p.unquote(p.s[start:p.i])
		if v.Type == catalog.Varchar {
			v.SetString(row, t)
			return ""
		}
		if len(t) == 0 {
			return invalidText(p.s[start:p.i], v.Type)
		}
		return setText(v, row, t)
	case c == '{' || c == '[':
		if v.Type != catalog.Varchar {
			if err := p.skip(depth); err != "" {
				return err
			}
			return invalidText(p.s[start:p.i], v.Type)
		}
		if err := p.skip(depth); err != "" {
			return err
		}
		s := len(v.Arena)
		v.Arena = appendCompact(v.Arena, p.s[start:p.i])
		v.S[row] = v.Arena[s:len(v.Arena):len(v.Arena)]
		v.Null[row] = false
		return ""
	case p.lit("true") || p.lit("false"):
		if v.Type == catalog.Boolean {
			v.B[row], v.Null[row] = p.s[start] == 't', false
			return ""
		}
		if v.Type == catalog.Varchar {
			v.SetString(row, p.s[start:p.i])
			return ""
		}
		return invalidText(p.s[start:p.i], v.Type)
	case c == '-' || c >= '0' && c <= '9':
		if err := p.number(); err != "" {
			return err
		}
		t := p.s[start:p.i]
		switch v.Type {
		case catalog.Varchar:
			v.SetString(row, t)
			return ""
		case catalog.Boolean:
			return invalidText(t, v.Type)
		case catalog.BigInt, catalog.Timestamp:
			for _, b := range t {
				if b == '.' || b == 'e' || b == 'E' {
					return invalidText(t, v.Type)
				}
			}
		}
		return setText(v, row, t)
	}
	return p.errAt("expected a JSON value")
}

// setText reads t as text of v's scalar type is read (textconv) into row row.
func setText(v *vector.Vec, row int, t []byte) string {
	ok := false
	switch v.Type {
	case catalog.Varchar:
		v.SetString(row, t)
		return ""
	case catalog.BigInt:
		v.I[row], ok = textconv.ParseInt(t)
	case catalog.Double:
		v.F[row], ok = textconv.ParseDouble(t)
	case catalog.Boolean:
		v.B[row], ok = textconv.ParseBool(t)
	case catalog.Timestamp:
		v.I[row], ok = textconv.ParseTimestamp(t)
	}
	if !ok {
		return invalidText(t, v.Type)
	}
	v.Null[row] = false
	return ""
}

func invalidText(t []byte, ty catalog.Type) string {
	const maxShown = 64
	shown := t
	if len(shown) > maxShown {
		k := maxShown
		for k > 0 && !utf8.RuneStart(shown[k]) {
			k--
		}
		shown = shown[:k]
	}
	name := ty.String()
	if ty == catalog.Timestamp {
		name = "TIMESTAMP"
	}
	s := string(shown)
	if len(shown) < len(t) {
		s += "..."
	}
	return s + " is not a valid " + name
}

// skipString moves past the JSON string at p.i, checking its escapes and
// that it holds no raw control characters (RFC 8259).
func (p *nestedParser) skipString() string {
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return ""
		case c < 0x20:
			return p.errAt("a control character inside a string")
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return p.errAt("an unfinished escape")
			}
			switch p.s[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				r, ok := hex4(p.s, p.i+2)
				if !ok {
					return p.errAt("a bad \\u escape")
				}
				p.i += 6
				if r >= 0xD800 && r < 0xDC00 { // a high surrogate needs its low half
					r2, ok := hex4(p.s, p.i+2)
					if !(ok && p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' && r2 >= 0xDC00 && r2 < 0xE000) {
						return p.errAt("half of a surrogate pair")
					}
					p.i += 6
				} else if r >= 0xDC00 && r < 0xE000 {
					return p.errAt("half of a surrogate pair")
				}
			default:
				return p.errAt("a bad escape")
			}
		default:
			p.i++
		}
	}
	return p.errAt("an unterminated string")
}

// number moves past a JSON number (RFC 8259's grammar).
func (p *nestedParser) number() string {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	first := p.i
	if n := digits(); n == 0 || n > 1 && p.s[first] == '0' {
		p.i = start
		return p.errAt("a bad number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.errAt("a bad number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.errAt("a bad number")
		}
	}
	return ""
}

// skip moves past any JSON value, checking it.
func (p *nestedParser) skip(depth int) string {
	if depth > maxDepth {
		return p.errAt("JSON nests deeper than " + strconv.Itoa(maxDepth) + " levels")
	}
	if p.i >= len(p.s) {
		return p.errAt("expected a value")
	}
	switch c := p.s[p.i]; {
	case c == '"':
		return p.skipString()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case p.lit("true") || p.lit("false") || p.lit("null"):
		return ""
	case c == '[' || c == '{':
		end := byte(']')
		if c == '{' {
			end = '}'
		}
		p.i++
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return ""
		}
		for {
			p.ws()
			if c == '{' {
				if p.i >= len(p.s) || p.s[p.i] != '"' {
					return p.errAt("expected a field name")
				}
				if err := p.skipString(); err != "" {
					return err
				}
				p.ws()
				if p.i >= len(p.s) || p.s[p.i] != ':' {
					return p.errAt("expected ':'")
				}
				p.i++
				p.ws()
			}
			if err := p.skip(depth + 1); err != "" {
				return err
			}
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == end {
				p.i++
				return ""
			}
			return p.errAt("expected ',' or '" + string(end) + "'")
		}
	}
	return p.errAt("expected a JSON value")
}
