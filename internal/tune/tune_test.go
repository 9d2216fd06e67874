package tune

import (
	"strconv"
	"testing"
)

// TestIdlePartition: partition 1 stops after its 10th row while partition 0
// goes on for 10 minutes: it is named, with its last row's position and how
// far behind it holds the watermark; partition 0 is not.
func TestIdlePartition(t *testing.T) {
	var rows []Row
	for i := 0; i < 600; i++ {
		rows = append(rows, Row{T: int64(i) * 1000, Pos: int64(2 * i), Part: 0})
		if i < 10 {
			rows = append(rows, Row{T: int64(i) * 1000, Pos: int64(2*i + 1), Part: 1})
		}
	}
	r := Analyze(Input{Stream: "s", Column: "ts", Rows: rows, Position: func(p int64) string { return "at " + strconv.FormatInt(p, 10) }}, Options{Target: 0.001, FarAhead: 3600000})
	if len(r.Idle) != 1 || r.Idle[0].Partition != 1 || r.Idle[0].Last != "at 19" || r.Idle[0].BehindMs != 590000 {
		t.Fatalf("idle %+v", r.Idle)
	}
	if r.SuggestedMs != 0 || len(r.FarAhead) != 0 {
		t.Errorf("suggested %d ms, far ahead %v; want 0 and none", r.SuggestedMs, r.FarAhead)
	}
}

// TestWindowLate: a row 8 s behind the running max is late for SPEC 2.3 with
// delay 5 s; for a 10 s TUMBLE it is late only when its window ended at or
// below the watermark.
func TestWindowLate(t *testing.T) {
	rows := []Row{{T: 1000}, {T: 19000}, {T: 11000}, {T: 9000}}
	r := Analyze(Input{Rows: rows, Column: "ts", Windows: []Window{{Name: "w", Func: "TUMBLE", Size: 10000, Slide: 10000}}, Position: func(int64) string { return "" }}, Options{Target: 0.001})
	d := r.Delays[2] // 5 s: watermark 14 s before rows 3 and 4
	if d.DelayMs != 5000 || d.Late != 2 || d.Windows[0].Late != 1 {
		t.Fatalf("%+v", d)
	}
	if r.SuggestedMs != 10000 || r.SuggestedLate != 0 {
		t.Errorf("suggested %d ms with %d late", r.SuggestedMs, r.SuggestedLate)
	}
}

// TestSuggestionCountsWhatReadsLateness: a row 8 s behind in a 10 s TUMBLE
// window that has not fired is late for SPEC 2.3 but not for the window:
// with only the window query reading the stream, the suggestion is for the
// window (0 s); when a query reads the rows' own lateness (RowLate:
// CURRENT_WATERMARK, an event-time join), it is for SPEC 2.3 (10 s).
func TestSuggestionCountsWhatReadsLateness(t *testing.T) {
	rows := []Row{{T: 1000}, {T: 12000}, {T: 13000}, {T: 19000}, {T: 11000}}
	in := Input{Rows: rows, Column: "ts", Windows: []Window{{Name: "w", Func: "TUMBLE", Size: 10000, Slide: 10000}}, Position: func(int64) string { return "" }, ScriptMs: 5000}
	r := Analyze(in, Options{Target: 0.001})
	if r.For != "windows" || r.SuggestedMs != 0 || r.SuggestedLate != 0 {
		t.Errorf("windows only: suggested %d ms for %q with %d late; want 0 for windows", r.SuggestedMs, r.For, r.SuggestedLate)
	}
	if r.Script == nil || r.Script.DelayMs != 5000 || r.Script.Late != 1 || r.Script.Windows[0].Late != 0 {
		t.Errorf("the script's delay: %+v", r.Script)
	}
	in.RowLate = true
	r = Analyze(in, Options{Target: 0.001})
	if r.For != "SPEC 2.3" || r.SuggestedMs != 10000 || r.SuggestedLate != 0 {
		t.Errorf("with RowLate: suggested %d ms for %q with %d late; want 10000 for SPEC 2.3", r.SuggestedMs, r.For, r.SuggestedLate)
	}
}
