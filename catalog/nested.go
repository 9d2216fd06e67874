package catalog

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
)

// Kind is what a Type is made of: a scalar of SPEC 1, or one of the nested
// types of SPEC 2.10.
type Kind uint8

// The kinds of types.
const (
	KindScalar Kind = iota // BIGINT, DOUBLE, VARCHAR, BOOLEAN, TIMESTAMP (or Unknown)
	KindArray              // ARRAY<T>: a list of elements of one type
	KindMap                // MAP<K, V>: keys of one type to values of one type
	KindRow                // ROW<name T, ...>: named fields, each of its own type
)

// Field is one field of a ROW type: its name as written (case kept) and type.
type Field struct {
	Name string
	Type Type
}

// nested is the description of one interned nested type.
type nested struct {
	kind     Kind
	elem     Type // ARRAY's element, MAP's value
	key      Type // MAP's key
	fields   []Field
	name     string // the type as String prints it
	fieldIdx map[string]int
}

// maxNested bounds the number of distinct nested types of a process, so a
// script cannot grow the table without end; more is a planning error.
const maxNested = 1 << 15

var (
	nestedMu  sync.RWMutex
	nestedTab []nested            // index t - firstNested
	nestedBy  = map[string]Type{} // by name
)

// intern returns the Type of n, adding it to the table the first time.
func intern(n nested) (Type, error) {
	nestedMu.RLock()
	t, ok := nestedBy[n.name]
	nestedMu.RUnlock()
	if ok {
		return t, nil
	}
	nestedMu.Lock()
	defer nestedMu.Unlock()
	if t, ok := nestedBy[n.name]; ok {
		return t, nil
	}
	if len(nestedTab) >= maxNested {
		return Unknown, fmt.Errorf("too many distinct nested types (%d): use fewer ARRAY, MAP and ROW types", maxNested)
	}
	if n.kind == KindRow {
		n.fieldIdx = make(map[string]int, len(n.fields))
		for k, f := range n.fields {
			n.fieldIdx[f.Name] = k
		}
	}
	t = firstNested + Type(len(nestedTab))
	nestedTab = append(nestedTab, n)
	nestedBy[n.name] = t
	return t, nil
}

func lookupNested(t Type) *nested {
	if t < firstNested {
		return nil
	}
	nestedMu.RLock()
	defer nestedMu.RUnlock()
	if int(t-firstNested) >= len(nestedTab) {
		return nil
	}
	return &nestedTab[t-firstNested]
}

func nestedName(t Type) string {
	if n := lookupNested(t); n != nil {
		return n.name
	}
	return "NULL"
}

// ArrayOf returns the type ARRAY<elem> (SPEC 2.10). It panics only when the
// process already holds 32768 distinct nested types (maxNested); ParseType
// reports that as an error instead.
func ArrayOf(elem Type) Type {
	return must(intern(nested{kind: KindArray, elem: elem, name: "ARRAY<" + elem.String() + ">"}))
}

// MapOf returns the type MAP<key, val> (SPEC 2.10); as ArrayOf.
func MapOf(key, val Type) Type {
	return must(intern(nested{kind: KindMap, key: key, elem: val, name: "MAP<" + key.String() + ", " + val.String() + ">"}))
}

// RowOf returns the type ROW<name T, ...> of fields (SPEC 2.10); as ArrayOf.
// Field names are matched case-sensitively (Flink's rule).
func RowOf(fields []Field) Type {
	return must(intern(rowNested(fields)))
}

func rowNested(fields []Field) nested {
	var sb strings.Builder
	sb.WriteString("ROW<")
	for k, f := range fields {
		if k > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(QuoteName(f.Name) + " " + f.Type.String())
	}
	sb.WriteString(">")
	return nested{kind: KindRow, fields: append([]Field(nil), fields...), name: sb.String()}
}

func must(t Type, err error) Type {
	if err != nil {
		panic("catalog: " + err.Error())
	}
	return t
}

// QuoteName returns name as SQL writes it: bare when it is a plain
// identifier (letters, digits not first, '_'), else in back-quotes with a
// back-quote doubled (Flink's quoting). A ROW type prints its field names so,
// and the planner's messages name a relation so (a quoted file name in FROM,
// 's.csv', is qualified as `s.csv`.col).
func QuoteName(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// Kind returns what t is made of.
func (t Type) Kind() Kind {
	if n := lookupNested(t); n != nil {
		return n.kind
	}
	return KindScalar
}

// IsNested reports whether t is an ARRAY, MAP or ROW type.
func (t Type) IsNested() bool { return t >= firstNested }

// Elem returns an ARRAY's element type or a MAP's value type (Unknown for
// other types).
func (t Type) Elem() Type {
	if n := lookupNested(t); n != nil {
		return n.elem
	}
	return Unknown
}

// Key returns a MAP's key type (Unknown for other types).
func (t Type) Key() Type {
	if n := lookupNested(t); n != nil {
		return n.key
	}
	return Unknown
}

// Fields returns a ROW's fields (nil for other types). The slice is shared:
// do not change it.
func (t Type) Fields() []Field {
	if n := lookupNested(t); n != nil {
		return n.fields
	}
	return nil
}

// FieldIndex returns the index of a ROW's field named name (case-sensitive,
// as Flink), or -1.
func (t Type) FieldIndex(name string) int {
	if n := lookupNested(t); n != nil && n.fieldIdx != nil {
		if k, ok := n.fieldIdx[name]; ok {
			return k
		}
	}
	return -1
}

// isNestedName reports whether a type as written starts with ARRAY, MAP or ROW
// followed by '<' or '('.
func isNestedName(s string) bool {
	u := strings.ToUpper(strings.TrimSpace(s))
	for _, p := range []string{"ARRAY", "MAP", "ROW"} {
		if strings.HasPrefix(u, p) {
			rest := strings.TrimSpace(u[len(p):])
			return rest == "" || rest[0] == '<' || rest[0] == '('
		}
	}
	return false
}

// typeParser reads a nested type name.
type typeParser struct {
	s   string
	pos int
}

func (p *typeParser) ws() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

func (p *typeParser) eat(c byte) bool {
	p.ws()
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// word reads an identifier (letters, digits, _) or a back-quoted or
// double-quoted name.
func (p *typeParser) word() string {
	p.ws()
	if p.pos < len(p.s) && (p.s[p.pos] == '`' || p.s[p.pos] == '"') {
		q := p.s[p.pos]
		var sb strings.Builder
		for i := p.pos + 1; i < len(p.s); i++ {
			if p.s[i] == q {
				if i+1 < len(p.s) && p.s[i+1] == q {
					sb.WriteByte(q)
					i++
					continue
				}
				p.pos = i + 1
				return sb.String()
			}
			sb.WriteByte(p.s[i])
		}
		return ""
	}
	start := p.pos
	for p.pos < len(p.s) {
		c := rune(p.s[p.pos])
		if c == '_' || c >= 0x80 || unicode.IsLetter(c) || unicode.IsDigit(c) {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

// typ reads one type: a scalar name with its optional (args), or a nested type.
func (p *typeParser) typ(depth int) (Type, error) {
	if depth > 32 {
		return Unknown, fmt.Errorf("type %q nests deeper than 32 levels", p.s)
	}
	w := p.word()
	switch strings.ToUpper(w) {
	case "ARRAY":
		if !p.eat('<') {
			return Unknown, fmt.Errorf("unknown type %q: write ARRAY<T>", p.s)
		}
		e, err := p.typ(depth + 1)
		if err != nil {
			return Unknown, err
		}
		if !p.eat('>') {
			return Unknown, fmt.Errorf("unknown type %q: ARRAY<T> needs its closing '>'", p.s)
		}
		return intern(nested{kind: KindArray, elem: e, name: "ARRAY<" + e.String() + ">"})
	case "MAP":
		if !p.eat('<') {
			return Unknown, fmt.Errorf("unknown type %q: write MAP<K, V>", p.s)
		}
		k, err := p.typ(depth + 1)
		if err != nil {
			return Unknown, err
		}
		if !p.eat(',') {
			return Unknown, fmt.Errorf("unknown type %q: MAP<K, V> takes a key type and a value type", p.s)
		}
		v, err := p.typ(depth + 1)
		if err != nil {
			return Unknown, err
		}
		if !p.eat('>') {
			return Unknown, fmt.Errorf("unknown type %q: MAP<K, V> needs its closing '>'", p.s)
		}
		if k.IsNested() {
			return Unknown, fmt.Errorf("unsupported type %q: a MAP's key must be BIGINT, DOUBLE, VARCHAR, BOOLEAN or TIMESTAMP", p.s)
		}
		return intern(nested{kind: KindMap, key: k, elem: v, name: "MAP<" + k.String() + ", " + v.String() + ">"})
	case "ROW":
		closer := byte('>')
		if !p.eat('<') {
			if !p.eat('(') {
				return Unknown, fmt.Errorf("unknown type %q: write ROW<name T, ...>", p.s)
			}
			closer = ')'
		}
		var fields []Field
		seen := map[string]bool{}
		for {
			name := p.word()
			if name == "" {
				return Unknown, fmt.Errorf("unknown type %q: ROW<name T, ...> needs a name for each field", p.s)
			}
			if seen[name] {
				return Unknown, fmt.Errorf("type %q: field %s appears twice", p.s, name)
			}
			seen[name] = true
			t, err := p.typ(depth + 1)
			if err != nil {
				return Unknown, err
			}
			fields = append(fields, Field{name, t})
			if p.eat(',') {
				continue
			}
			if !p.eat(closer) {
				return Unknown, fmt.Errorf("unknown type %q: ROW needs its closing '%c'", p.s, closer)
			}
			break
		}
		return intern(rowNested(fields))
	case "":
		return Unknown, fmt.Errorf("unknown type %q: a type name is missing", p.s)
	}
	// a scalar: its name and optional (args)
	start := p.pos - len(w)
	p.ws()
	if p.pos < len(p.s) && p.s[p.pos] == '(' {
		end := strings.IndexByte(p.s[p.pos:], ')')
		if end < 0 {
			return Unknown, fmt.Errorf("unknown type %q: a type argument needs a closing ')'", p.s)
		}
		p.pos += end + 1
	}
	return ParseType(p.s[start:p.pos])
}

// parseNested reads a nested type name whole.
func parseNested(s string) (Type, error) {
	p := &typeParser{s: s}
	t, err := p.typ(0)
	if err != nil {
		return Unknown, err
	}
	p.ws()
	if p.pos != len(p.s) {
		return Unknown, fmt.Errorf("unknown type %q: unexpected %q after the type", s, p.s[p.pos:])
	}
	return t, nil
}
