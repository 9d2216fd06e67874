package jsondec

import (
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestDecodeValue: a JSON object given on its own (a Kafka value, SPEC 2.5) is
// one row, line breaks being JSON whitespace; what is not one object is
// malformed as in Decode.
func TestDecodeValue(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt}
	d := NewDecoder(nil, []string{"name", "n"}, types, Options{})
	b := vector.NewBatch(types)
	for _, c := range []struct{ in, name, reason string }{
		{"{\"name\":\"a\\nb\",\n  \"n\":2\n}", "a\nb", ""},
		{"{\"n\":1,\"name\":\"x\"}\n", "x", ""},
		{"[1,2]", "", "not a JSON object"},
		{"{\"n\":1}\n{\"n\":2}", "", "invalid JSON at byte 9: text after the object"},
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
	rec := []byte(`{"name":"plain","n":7}`)
	if n := testing.AllocsPerRun(100, func() { d.DecodeValue(b, rec) }); n != 0 {
		t.Errorf("DecodeValue allocates %.1f times per row, want 0", n)
	}
}
