package jsondec

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/inbuf"
)

// FuzzDecode checks the decoder two ways:
//
//   - differential: each line is also read with encoding/json into a
//     map[string]json.RawMessage, whose rules coincide with SPEC 1's where the line
//     is valid UTF-8 (encoding/json replaces invalid bytes and lone surrogate
//     escapes by U+FFFD, which SPEC forbids): exact, case-sensitive keys, the last
//     duplicate wins, and a line is good exactly when it is an object. The columns
//     are named by the keys found in the input plus one never present; each gets a
//     type chosen by the fuzzer and the expected value follows SPEC 1's rules
//     applied to the reference's raw value;
//   - properties, for any input: no panic, the same result whether the input
//     arrives at once or one byte per Read, every bad row's raw text found in the
//     input, line numbers never going back.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		`{"a":"x","b":1,"c":2.5}` + "\n" + `{"a":null}` + "\n",
		`{"a":"x\"y\\z\u00e9\ud83d\ude00","b":"12","c":"NaN"}` + "\n",
		`{"a":{"k" : [1, 2, {"z":null}]},"b":-0,"c":1e3}` + "\r\n",
		`{"A":1,"a":2,"a":3}` + "\n",
		"\xEF\xBB\xBF{\"a\":1}\n\n  \n",
		`{"b":12.5}` + "\n" + `{"b":1e3}` + "\n" + `{"b":9223372036854775808}` + "\n",
		`[1,2]` + "\n" + `"x"` + "\n" + `null` + "\n",
		`{"a":1,}` + "\n" + `{"a" 1}` + "\n" + `{"a":01}` + "\n",
		"{\"a\":\"\xff\"}\n",
		`{"a":"\ud800"}` + "\n",
		`{"设备":"温度","a":true,"b":false}`,
		`{"a":[[[[]]]],"b":{"c":{"d":[]}}}` + "\n" + `{"a":[[[` + "\n",
		`{"\u0061":"esc key","b":" 7 "}` + "\n",
		"{}\n{ }\n{\t}\n",
		// spaces-only strings are kept; lines longer than a small max-record-size (sel&64)
		`{"a":"  ","b":"  "}` + "\n" + `{"a":" "}` + "\r\n",
		`{"a":"a very long line indeed, longer than the limit"}` + "\r\n" + `{"a":"x"}` + "\n" + `{"a":"long at the end"}`,
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i))
		f.Add([]byte(s), uint8(i)|64)
	}
	saved := bufSize
	bufSize = 64
	f.Cleanup(func() { bufSize = saved })
	f.Fuzz(func(t *testing.T, data []byte, sel uint8) {
		differential(t, data, sel)
		properties(t, data, sel)
	})
}

var allTypes = []catalog.Type{V, I, D, B, T}

func differential(t *testing.T, data []byte, sel uint8) {
	text := bytes.TrimPrefix(data, inbuf.UTF8BOM)
	lines := bytes.Split(text, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // after the final LF
	}
	// Reference parse of every line.
	type refLine struct {
		blank bool
		ok    bool // an object per encoding/json
		m     map[string]json.RawMessage
	}
	refs := make([]refLine, len(lines))
	keys := map[string]bool{}
	endsLF := len(text) > 0 && text[len(text)-1] == '\n'
	for i, l := range lines {
		if k := len(l); k > 0 && l[k-1] == '\r' && (i < len(lines)-1 || endsLF) {
			l = l[:k-1] // the CR of a CRLF
		}
		if len(bytes.Trim(l, " \t\r")) == 0 {
			refs[i].blank = true
			continue
		}
		if !utf8.Valid(l) {
			continue // malformed for SPEC; encoding/json would replace the bytes
		}
		if hasSurrogateEscape(l) {
			return // encoding/json replaces lone ones by U+FFFD, which SPEC rejects
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			if strings.Contains(err.Error(), "exceeded max depth") {
				return
			}
			continue
		}
		if m == nil { // null
			continue
		}
		refs[i] = refLine{ok: true, m: m}
		for k := range m {
			keys[k] = true
		}
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 6 {
		names = names[:6]
	}
	if !keys["\x00never"] {
		names = append(names, "\x00never")
	}
	types := make([]catalog.Type, len(names))
	for j := range types {
		types[j] = allTypes[(int(sel)+j*int(sel>>3+1))%len(allTypes)]
	}
	res, err := decodeAll(t, bytes.NewReader(data), names, types, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, r := range refs {
		line := strconv.Itoa(i + 1)
		switch {
		case r.blank:
		case !r.ok:
			want = append(want, "bad "+line)
		default:
			row := line + ":"
			for j, n := range names {
				if j > 0 {
					row += "|"
				}
				v, ok := expected(r.m[n], types[j])
				if !ok {
					row = "bad " + line
					break
				}
				row += v
			}
			want = append(want, row)
		}
	}
	var got []string
	for _, s := range res.all {
		if strings.HasPrefix(s, "bad ") {
			s = s[:strings.IndexByte(s, ':')]
		}
		got = append(got, s)
	}
	if !equalStrings(got, want) {
		t.Fatalf("input %q, columns %q %v:\n got %q\nwant %q", data, names, types, got, want)
	}
}

// hasSurrogateEscape reports whether l may hold a \u escape of a surrogate.
func hasSurrogateEscape(l []byte) bool {
	s := strings.ToLower(string(l))
	for i := 0; i+4 <= len(s); i++ {
		if s[i] == '\\' && s[i+1] == 'u' && s[i+2] == 'd' && s[i+3] >= '8' {
			return true
		}
	}
	return false
}

// expected is SPEC 1's value of raw (a JSON value, nil when missing) in a column
// of type t, formatted like formatRow, or false when the row is malformed.
func expected(raw json.RawMessage, t catalog.Type) (string, bool) {
	if raw == nil || string(raw) == "null" {
		return "∅", true
	}
	var s string
	isString := raw[0] == '"'
	if isString {
		if err := json.Unmarshal(raw, &s); err != nil {
			panic(err)
		}
	}
	switch t {
	case V:
		if isString {
			return s, true
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			panic(err)
		}
		return buf.String(), true
	case I, T:
		txt := s
		if !isString {
			if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') || bytes.ContainsAny(raw, ".eE") {
				return "", false
			}
			txt = string(raw)
		}
		var v int64
		var ok bool
		if t == I {
			v, ok = textconv.ParseInt([]byte(txt))
		} else {
			v, ok = textconv.ParseTimestamp([]byte(txt))
		}
		return strconv.FormatInt(v, 10), ok
	case D:
		txt := s
		if !isString {
			if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
				return "", false
			}
			txt = string(raw)
		}
		v, ok := textconv.ParseDouble([]byte(txt))
		return string(textconv.AppendDouble(nil, v)), ok
	case B:
		switch {
		case isString:
			v, ok := textconv.ParseBool([]byte(s))
			return string(textconv.AppendBool(nil, v)), ok
		case string(raw) == "true", string(raw) == "false":
			return string(raw), true
		}
		return "", false
	}
	panic("type")
}

func properties(t *testing.T, data []byte, sel uint8) {
	ncols := 1 + int(sel)%4
	names := []string{"a", "b", "c", "设备"}[:ncols]
	types := make([]catalog.Type, ncols)
	for j := range types {
		types[j] = allTypes[(int(sel)/4+j)%len(allTypes)]
	}
	opts := Options{}
	if sel&128 != 0 {
		opts.NotNull = []bool{true}
	}
	if sel&64 != 0 {
		opts.MaxRecord = 8 + int(sel)%8
	}
	whole, err1 := decodeAll(t, bytes.NewReader(data), names, types, opts)
	saved := bufSize
	bufSize = 1
	bytewise, err2 := decodeAll(t, iotest.OneByteReader(bytes.NewReader(data)), names, types, opts)
	bufSize = saved
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !equalStrings(whole.all, bytewise.all) {
		t.Fatalf("input %q: whole and byte-wise reads differ:\n%q\n%q", data, whole.all, bytewise.all)
	}
	var last int64
	for _, s := range whole.all {
		s = strings.TrimPrefix(s, "bad ")
		line, err := strconv.ParseInt(s[:strings.IndexByte(s, ':')], 10, 64)
		if err != nil || line <= last {
			t.Fatalf("input %q: line numbers %q", data, whole.all)
		}
		last = line
	}
	for _, b := range whole.bad {
		if !bytes.Contains(data, b.Raw) || b.Reason == "" || bytes.IndexByte(b.Raw, '\n') >= 0 {
			t.Fatalf("input %q: bad row %+v", data, b)
		}
	}
}
