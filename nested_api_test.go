package streamql_test

import (
	"context"
	"encoding/json"
	"testing"

	"streamql"
)

// TestRowsNestedValues: through the library, an ARRAY, MAP or ROW value is
// a json.RawMessage of its nested JSON (Rows.Value) and prints as Flink
// prints it (Rows.String), SPEC 2.10; NULL is nil.
func TestRowsNestedValues(t *testing.T) {
	var vals []any
	var texts []string
	s, err := streamql.Open(streamql.Options{OnRows: func(out streamql.Output, rows *streamql.Rows) error {
		for r := 0; r < rows.Len(); r++ {
			for c := range out.Columns {
				vals = append(vals, rows.Value(c, r))
				texts = append(texts, rows.String(c, r))
			}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(context.Background(), `SELECT ARRAY[1, 2], MAP['k', ROW('x', 2.5)], CAST(NULL AS ARRAY<BIGINT>);`); err != nil {
		t.Fatal(err)
	}
	if len(vals) != 3 {
		t.Fatalf("values %v", vals)
	}
	if j, ok := vals[0].(json.RawMessage); !ok || string(j) != "[1,2]" {
		t.Errorf("ARRAY value %T %s", vals[0], vals[0])
	}
	if j, ok := vals[1].(json.RawMessage); !ok || string(j) != `{"k":{"EXPR$0":"x","EXPR$1":2.5}}` {
		t.Errorf("MAP value %T %s", vals[1], vals[1])
	}
	if vals[2] != nil {
		t.Errorf("NULL ARRAY value %v", vals[2])
	}
	if texts[0] != "[1, 2]" || texts[1] != "{k=(x, 2.5)}" {
		t.Errorf("texts %q", texts)
	}
}
