package state

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
)

// TestParseSizeForState: the sizes 'state.max-bytes' takes (SPEC 1).
func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"64MiB": 64 << 20, "1GiB": 1 << 30, "2gib": 2 << 30, "1000": 1000, " 512 KiB ": 512 << 10, "1TiB": 1 << 40} {
		if got, err := catalog.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "-1", "0", "1.5GiB", "64XB", "1e9", "99999999999TiB"} {
		if _, err := catalog.ParseSize(in); err == nil || !strings.Contains(err.Error(), "MiB") && !strings.Contains(err.Error(), "too large") {
			t.Errorf("ParseSize(%q): error %v, want one that shows the accepted forms", in, err)
		}
	}
	if got := FormatBytes(2 << 30); got != "2GiB" {
		t.Errorf("FormatBytes(2GiB) = %q", got)
	}
}

// TestFormatBytesUnits: an amount always carries its unit, below 1 MiB too
// (finding 12b: "holds 65884 of groups"), and FormatSize gives values that
// ParseSize reads back exactly.
func TestFormatBytesUnits(t *testing.T) {
	for n, want := range map[int64]string{65884: "64.3KiB", 1000: "1000 bytes", 1: "1 byte", 0: "0 bytes", 1536 << 10: "1536KiB", 1<<20 + 1: "1.0MiB", 64 << 10: "64KiB", 1025: "1.0KiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for _, n := range []int64{1, 1000, 65884, 128 << 10, 200000, 3 << 30, 1<<40 + 1} {
		got, err := catalog.ParseSize(FormatSize(n))
		if err != nil || got != n {
			t.Errorf("ParseSize(FormatSize(%d) = %q) = %d, %v", n, FormatSize(n), got, err)
		}
	}
	e := &LimitError{Operator: "aggregate", What: "groups (GROUP BY without a window)", Bytes: 65884, Max: 64 << 10}
	if msg := e.Error(); !strings.Contains(msg, "holds 64.3KiB of groups") || !strings.Contains(msg, "'state.max-bytes' = '128KiB'") {
		t.Errorf("LimitError: %s", msg)
	}
}

// TestHeadroom: the heap may grow by a quarter of the live heap between
// collections, and at least 32 MiB up to 32 MiB live, falling to 16 MiB at
// 48 MiB live (GOGC 100 up to 32 MiB live, 25 from 64 MiB on).
func TestHeadroom(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 100}, {1 << 20, 100}, {32 << 20, 100}, {40 << 20, 60}, {48 << 20, 33}, {56 << 20, 28}, {64 << 20, 25}, {100 << 20, 25}, {4 << 30, 25}} {
		if got := Headroom(c.live); got != c.want {
			t.Errorf("Headroom(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// TestHeadroomRetunesAfterCollection: a program that owns its process (the
// command line) has its GOGC set from the live heap after each collection:
// with about 96 MiB live it is below 100.
func TestHeadroomRetunesAfterCollection(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: the headroom is the user's")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer headroomStop.Store(true)
	SetHeapLimit(DefaultMaxBytes)
	held := make([]byte, 96<<20)
	for i := range held { // (touched: the pages are the heap's)
		held[i] = byte(i)
	}
	var pct int
	for range 100 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // (the finalizer runs on its own goroutine)
		pct = debug.SetGCPercent(100)
		debug.SetGCPercent(pct)
		if pct < 100 {
			break
		}
	}
	runtime.KeepAlive(held)
	if want := Headroom(96 << 20); pct >= 100 || pct < 25 {
		t.Fatalf("GOGC %d with 96 MiB live, want about %d", pct, want)
	}
}

// TestLimitErrorSuggestsEnough: the limit a LimitError suggests is one the
// job's state at the failure fits in (ParseSize reads it back above Used),
// also when one charge took the state far past the limit (the lookup join
// charging a whole batch of kept rows: 547.1KiB held at a 64KiB limit
// suggested '128KiB'), with and without a stalled stream.
func TestLimitErrorSuggestsEnough(t *testing.T) {
	for _, max := range []int64{1000, 64 << 10, 600 << 10, 1 << 30} {
		for _, used := range []int64{max + 1, 2 * max, 2*max + 1, 8*max + 7, 100 * max} {
			for _, stalled := range []string{"", "B"} {
				e := &LimitError{Operator: "op", What: "rows", Bytes: used, Used: used, Max: max, Stalled: stalled, WatermarkText: "unset"}
				msg := e.Error()
				i := strings.LastIndex(msg, "SET 'state.max-bytes' = '")
				if i < 0 {
					t.Fatalf("max %d used %d: no suggested limit in %q", max, used, msg)
				}
				s := msg[i+len("SET 'state.max-bytes' = '"):]
				s = s[:strings.IndexByte(s, '\'')]
				got, err := catalog.ParseSize(s)
				if err != nil || got <= used || got <= max {
					t.Errorf("max %d, used %d, stalled %q: suggests %q (%d, %v), not above the state's %d bytes", max, used, stalled, s, got, err, used)
				}
			}
		}
	}
}
