package csvdec

import (
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestDecodeValue: a record given on its own (a Kafka value, SPEC 2.5) is one
// row whatever line breaks it holds: inside quotes they are data, outside
// they are part of a field (so a value of two csv lines has the wrong field
// count); an unclosed quote and a bad number are malformed as in Decode.
func TestDecodeValue(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt}
	d := NewDecoder(nil, []string{"name", "n"}, types, Options{})
	b := vector.NewBatch(types)
	for _, c := range []struct{ in, name, reason string }{
		{"\"multi\nline\",2", "multi\nline", ""},
		{"\"a \"\"q\"\"\",3", `a "q"`, ""},
		{"plain,4", "plain", ""},
		{"a,1\nb,2", "", "expected 2 fields, got 3"},
		{"\"open,1", "", "quote never closed"},
		{"x,abc", "", `column n: "abc" is not a valid BIGINT`},
	} {
		reason := d.DecodeValue(b, []byte(c.in))
		if reason != c.reason {
			t.Errorf("DecodeValue(%q): reason %q, want %q", c.in, reason, c.reason)
			continue
		}
		if reason == "" && string(b.Cols[0].S[b.N]) != c.name {
			t.Errorf("DecodeValue(%q): name %q, want %q", c.in, b.Cols[0].S[b.N], c.name)
		}
	}
	rec := []byte("\"multi\nline\",2")
	if n := testing.AllocsPerRun(100, func() { d.DecodeValue(b, rec) }); n != 0 {
		t.Errorf("DecodeValue allocates %.1f times per row, want 0", n)
	}
}
