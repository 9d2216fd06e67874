package connector

import (
	"fmt"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/planner"
)

func TestValuesTable(t *testing.T) {
	cols := []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "v", Type: catalog.BigInt}}
	st := newStream(t, cols, "values")
	tab := NewTable(st.Types())
	if got := readAll(t, tab.Open(), st); len(got) != 0 {
		t.Fatalf("empty table gave %q", got)
	}
	var rows [][]planner.Value
	var want []string
	for i := range 1500 { // more than a batch
		rows = append(rows, []planner.Value{{S: []byte(fmt.Sprint("r", i))}, {I: int64(i), Null: i%7 == 0}})
		v := fmt.Sprint(i)
		if i%7 == 0 {
			v = "NULL"
		}
		want = append(want, fmt.Sprintf("r%d,%s", i, v))
	}
	tab.Append(rows[:1])
	src := tab.Open() // sees the rows inserted so far only
	tab.Append(rows[1:])
	if got := readAll(t, src, st); !slices.Equal(got, want[:1]) {
		t.Fatalf("snapshot: got %q", got)
	}
	if got := readAll(t, tab.Open(), st); !slices.Equal(got, want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	if tab.Len() != 1500 {
		t.Errorf("Len %d", tab.Len())
	}
	if p := src.Position(1025); p != "1025" {
		t.Errorf("position %q", p)
	}
}
