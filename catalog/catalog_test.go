package catalog

import "testing"

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
