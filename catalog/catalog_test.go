package catalog

import (
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

// TestMaxRecordSize: the stream option 'max-record-size' (SPEC 1) takes bytes
// or KiB, MiB, GiB (its default and a bad value: TestMaxRecordSizeOption).
func TestMaxRecordSize(t *testing.T) {
	for v, want := range map[string]int64{"1": 1, "4096": 4096, "512KiB": 512 << 10, "64MiB": 64 << 20, "1GiB": 1 << 30, "2 mib": 2 << 20} {
		if got, err := ParseSize(v); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", v, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1.5MiB", "10MB", "MiB", "abc", "99999999999GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) gave no error", bad)
		}
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
