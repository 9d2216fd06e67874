package catalog

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseType(t *testing.T) {
	ok := map[string]Type{
		"BIGINT": BigInt, "int": BigInt, "INTEGER": BigInt, "smallint": BigInt, "TINYINT": BigInt,
		"DOUBLE": Double, "FLOAT": Double, "REAL": Double, "DECIMAL(10, 2)": Double,
		"VARCHAR": Varchar, "varchar(20)": Varchar, "STRING": Varchar, "TEXT": Varchar, "CHAR": Varchar,
		"BOOLEAN": Boolean, "TIMESTAMP": Timestamp, "TIMESTAMP(3)": Timestamp,
	}
	for name, want := range ok {
		if got, err := ParseType(name); err != nil || got != want {
			t.Errorf("ParseType(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	for _, bad := range []string{"BLOB", "TIMESTAMP(6)", "INT(3", "", "BOOLEAN(1)"} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) gave no error", bad)
		}
	}
	// Flink's instant type is named, with what to declare instead
	for _, ltz := range []string{"TIMESTAMP_LTZ(3)", "timestamp_ltz", "TIMESTAMP(3) WITH LOCAL TIME ZONE"} {
		if _, err := ParseType(ltz); err == nil || !strings.Contains(err.Error(), "has no time zone (an input offset is converted to UTC); declare TIMESTAMP(3)") {
			t.Errorf("ParseType(%q): %v", ltz, err)
		}
	}
}

// TestParseSizeUnits: ParseSize, the one parser of the memory-size options
// ('max-record-size', 'state.max-bytes': TestSizeOptionsTakeFlinkUnits), takes
// every unit of Flink's MemorySize.MemoryUnit with its meaning (all powers of
// 1024), and the IEC symbols taken before, in any case and with or without a
// space after the number; every other input is an error that shows the
// accepted units (issue 24: '64kb' was refused).
func TestParseSizeUnits(t *testing.T) {
	// Flink's units (MemorySize.MemoryUnit), written out here, and KiB…TiB
	for unit, pow := range map[string]int{
		"": 0, "b": 0, "bytes": 0,
		"k": 1, "kb": 1, "kibibytes": 1, "KiB": 1,
		"m": 2, "mb": 2, "mebibytes": 2, "MiB": 2,
		"g": 3, "gb": 3, "gibibytes": 3, "GiB": 3,
		"t": 4, "tb": 4, "tebibytes": 4, "TiB": 4,
	} {
		mult := int64(1)
		for range pow {
			mult *= 1024
		}
		for _, n := range []int64{1, 64, 1000} {
			for _, u := range []string{unit, strings.ToUpper(unit), strings.ToLower(unit)} {
				for _, form := range []string{"%d%s", "%d %s", " %d%s ", "%d  %s"} {
					v := fmt.Sprintf(form, n, u)
					if got, err := ParseSize(v); err != nil || got != n*mult {
						t.Errorf("ParseSize(%q) = %d, %v; want %d", v, got, err, n*mult)
					}
				}
			}
		}
	}
	units := []string{"b", "bytes", "k", "kb", "KiB", "kibibytes", "m", "mb", "MiB", "mebibytes", "g", "gb", "GiB", "gibibytes", "t", "tb", "TiB", "tebibytes"}
	for _, bad := range []string{"", " ", "0", "0kb", "00", "-1", "+1", "1.5MiB", "1.5m", "1e9", "0x10", "MiB", "kb", "abc", "10 zb", "10XB", "1 k b", "1kbb", "1kb1",
		"1 kibibyte", "1 bit", "64 KIBI", "1,000", "1_000", "64MiB!"} {
		_, err := ParseSize(bad)
		if err == nil {
			t.Errorf("ParseSize(%q) gave no error", bad)
			continue
		}
		for _, u := range units {
			if !strings.Contains(err.Error(), " "+u) {
				t.Errorf("ParseSize(%q): the error %q does not list the unit %s", bad, err, u)
			}
		}
	}
	for _, big := range []string{"99999999999999999999", "4194305TiB", "4611686018427387905", "5000000t", "99999999999GiB"} {
		if _, err := ParseSize(big); err == nil || !strings.Contains(err.Error(), "too large") {
			t.Errorf("ParseSize(%q): %v, want a too-large error", big, err)
		}
	}
	if got, err := ParseSize("4194304tb"); err != nil || got != 1<<62 {
		t.Errorf("ParseSize(the largest size) = %d, %v", got, err)
	}
}

// TestUpdatingAndTakesChanges: a changelog format makes a stream updating
// and, when a sink writes it, a sink of changes; csv and json do neither.
func TestUpdatingAndTakesChanges(t *testing.T) {
	for _, tc := range []struct {
		format   string
		updating string
		takes    bool
	}{{"csv", "", false}, {"json", "", false}, {"debezium-json", "format 'debezium-json'", true}, {"canal-json", "format 'canal-json'", false}, {"maxwell-json", "format 'maxwell-json'", false}} {
		s := &Stream{Connector: &ConnectorSpec{Name: "file"}, Options: map[string]string{"format": tc.format}}
		if s.Updating() != tc.updating || s.TakesChanges() != tc.takes {
			t.Errorf("%s: Updating %q, TakesChanges %v; want %q, %v", tc.format, s.Updating(), s.TakesChanges(), tc.updating, tc.takes)
		}
	}
	up := &Stream{Connector: &ConnectorSpec{Name: "upsert-kafka", Upserts: true}, Options: map[string]string{}}
	if up.Updating() != "connector 'upsert-kafka'" || !up.TakesChanges() {
		t.Errorf("upsert connector: Updating %q, TakesChanges %v", up.Updating(), up.TakesChanges())
	}
}

// TestParseNestedType: the nested types of SPEC 2.10 parse, print as
// DESCRIBE shows them, are interned (one Type per distinct type) and
// describe their parts; malformed ones are errors that say what to write.
func TestParseNestedType(t *testing.T) {
	for in, want := range map[string]string{
		"ARRAY<VARCHAR>":                        "ARRAY<VARCHAR>",
		"array < string >":                      "ARRAY<VARCHAR>",
		"MAP<VARCHAR, BIGINT>":                  "MAP<VARCHAR, BIGINT>",
		"ROW<id BIGINT, name VARCHAR(10)>":      "ROW<id BIGINT, name VARCHAR>",
		"ROW(id INT, `the name` STRING)":        "ROW<id BIGINT, `the name` VARCHAR>",
		"ARRAY<ROW<a ARRAY<MAP<INT, DOUBLE>>>>": "ARRAY<ROW<a ARRAY<MAP<BIGINT, DOUBLE>>>>",
	} {
		ty, err := ParseType(in)
		if err != nil || ty.String() != want {
			t.Errorf("ParseType(%q) = %v, %v; want %s", in, ty, err, want)
			continue
		}
		again, err := ParseType(want)
		if err != nil || again != ty {
			t.Errorf("ParseType(%q) = %v, %v; want the interned %d", want, again, err, ty)
		}
	}
	m, _ := ParseType("MAP<VARCHAR, BIGINT>")
	if m.Kind() != KindMap || m.Key() != Varchar || m.Elem() != BigInt || m != MapOf(Varchar, BigInt) {
		t.Errorf("MAP<VARCHAR, BIGINT>: kind %v key %v value %v", m.Kind(), m.Key(), m.Elem())
	}
	r := RowOf([]Field{{"id", BigInt}, {"Name", Varchar}})
	if r.FieldIndex("Name") != 1 || r.FieldIndex("name") != -1 || len(r.Fields()) != 2 {
		t.Errorf("ROW fields: %v", r.Fields())
	}
	if ArrayOf(BigInt).Kind() != KindArray || BigInt.Kind() != KindScalar || BigInt.IsNested() {
		t.Error("kinds")
	}
	for _, bad := range []string{"ARRAY", "ARRAY<>", "ARRAY<BIGINT", "MAP<BIGINT>", "MAP<ARRAY<BIGINT>, BIGINT>", "ROW<>", "ROW<a>", "ROW<a BIGINT, a BIGINT>", "ARRAY<BLOB>", "ARRAY<BIGINT> x"} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) gave no error", bad)
		}
	}
}
