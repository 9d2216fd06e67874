package render

import (
	"math"
	"streamql/executor/format"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

func TestCSVQuoting(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "": `""`, "a,b": `"a,b"`, `say "hi"`: `"say ""hi"""`,
		"line\nbreak": "\"line\nbreak\"", "cr\rx": "\"cr\rx\"", "设备": "设备", " sp ": " sp ",
	} {
		if got := string(format.AppendCSVField(nil, []byte(in), ',')); got != want {
			t.Errorf("csv %q = %s, want %s", in, got, want)
		}
	}
	if got := string(format.AppendCSVField(nil, []byte("a\tb"), '\t')); got != "\"a\tb\"" {
		t.Errorf("tsv tab field = %s", got)
	}
}

func TestJSONValues(t *testing.T) {
	v := vector.NewVec(catalog.Double)
	v.F[0], v.F[1], v.F[2], v.F[3] = math.NaN(), math.Inf(-1), 88.2, 1e7
	v.Null[4] = true
	for i, want := range []string{`"NaN"`, `"-Infinity"`, "88.2", "1.0E7", "null"} {
		if got := string(format.AppendJSONValue(nil, catalog.Double, v, i)); got != want {
			t.Errorf("json double %d = %s, want %s", i, got, want)
		}
	}
	if got := string(format.AppendJSONString(nil, []byte("a\"b\\c\n\x01设备"))); got != `"a\"b\\c\n\u0001设备"` {
		t.Errorf("json string = %s", got)
	}
}
