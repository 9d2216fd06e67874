package expr

import (
	"math/rand"
	"os"
	"strings"
	"syscall"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// udfBenchArgs are a short string and a one-character string, as Nexmark
// q14 calls count_char(extra, 'c').
func udfBenchArgs() []*vector.Vec {
	s, c := vector.NewVec(catalog.Varchar), vector.NewVec(catalog.Varchar)
	s.S[0], c.S[0] = []byte("abcacbc-short-extra"), []byte("c")
	return []*vector.Vec{s, c}
}

func benchRowFunc(b *testing.B, f *Function) {
	row, err := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt, testFails)
	if err != nil {
		b.Fatal(err)
	}
	a, out := udfBenchArgs(), vector.NewVec(catalog.BigInt)
	if !row(a, 0, out) || out.I[0] != 3 {
		b.Fatalf("count_char gave %d", out.I[0])
	}
	cpu := cpuTime()
	b.ResetTimer()
	for range b.N {
		row(a, 0, out)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/row")
	if n := len(testFails.Take(nil)); n > 0 {
		b.Fatalf("%d calls failed", n)
	}
}

func countCharGo(s, c string) int64 { return int64(strings.Count(s, c)) }

// BenchmarkUDFCountChar: a call of Nexmark q14's count_char on a short
// string (SPEC 2.10; issue 25's goal: a WASM call under 100 ns), as the
// WebAssembly module of queries/udf/count_char, as a registered Go function,
// and as plain Go. docs/performance.md records the figures.
func BenchmarkUDFCountChar(b *testing.B) {
	b.Run("wasm", func(b *testing.B) { benchRowFunc(b, countCharWasm(b, DefaultWasmLimits)) })
	b.Run("wasm-no-time-cap", func(b *testing.B) {
		benchRowFunc(b, countCharWasm(b, WasmLimits{MemoryPages: DefaultWasmLimits.MemoryPages}))
	})
	b.Run("go-registered", func(b *testing.B) {
		f, err := GoFunction("count_char", countCharGo)
		if err != nil {
			b.Fatal(err)
		}
		benchRowFunc(b, f)
	})
	b.Run("go-plain", func(b *testing.B) {
		a := udfBenchArgs()
		n := int64(0)
		for range b.N {
			n += countCharGo(string(a[0].S[0]), string(a[1].S[0]))
		}
		if n != 3*int64(b.N) {
			b.Fatal(n)
		}
	})
}

// incWasm is a hand-written module exporting inc (i64) -> i64 (x + 1).
var incWasm = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7e, 0x01, 0x7e, 0x03, 0x02, 0x01, 0x00, 0x07, 0x07, 0x01, 0x03, 0x69, 0x6e, 0x63, 0x00, 0x00, 0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x42, 0x01, 0x7c, 0x0b}

// BenchmarkUDFInc: the cost of a WASM call itself, of a module without a
// language runtime (inc), with and without the time cap.
func BenchmarkUDFInc(b *testing.B) {
	for _, c := range []struct {
		name   string
		limits WasmLimits
	}{{"time-cap", DefaultWasmLimits}, {"no-time-cap", WasmLimits{MemoryPages: 16}}} {
		b.Run(c.name, func(b *testing.B) {
			f, err := WasmFunction("inc", "inc.wasm", incWasm, c.limits)
			if err != nil {
				b.Fatal(err)
			}
			row, _ := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt, testFails)
			a, out := []*vector.Vec{vector.NewVec(catalog.BigInt)}, vector.NewVec(catalog.BigInt)
			a[0].I[0] = 41
			row(a, 0, out) // (instantiates the module)
			cpu := cpuTime()
			b.ResetTimer()
			for range b.N {
				row(a, 0, out)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/row")
			if out.I[0] != 42 {
				b.Fatal(out.I[0])
			}
		})
	}
}

func countCharWasm(tb testing.TB, limits WasmLimits) *Function {
	code, err := os.ReadFile("../../queries/udf/count_char/count_char.wasm")
	if err != nil {
		tb.Fatal(err)
	}
	f, err := WasmFunction("count_char", "count_char.wasm", code, limits)
	if err != nil {
		tb.Fatal(err)
	}
	if f.Impl.(*UserFunc).PrepareBatch == nil {
		tb.Fatal("count_char.wasm has no count_char_batch")
	}
	return f
}

// batchArgs fills a whole batch of count_char's arguments: short strings
// (row k has k%7 'c's), c = "c", every 10th s NULL; sel selects every row.
func batchArgs() ([]*vector.Vec, []int32) {
	s, c := vector.NewVec(catalog.Varchar), vector.NewVec(catalog.Varchar)
	sel := make([]int32, vector.Cap)
	for i := range vector.Cap {
		s.S[i] = []byte("ab" + strings.Repeat("c", i%7) + "-extra")
		s.Null[i] = i%10 == 9
		c.S[i] = []byte("c")
		sel[i] = int32(i)
	}
	return []*vector.Vec{s, c}, sel
}

// TestWasmBatchMatchesRows: count_char's batch export gives, row for row,
// what its row export gives, NULLs included.
func TestWasmBatchMatchesRows(t *testing.T) {
	f := countCharWasm(t, DefaultWasmLimits)
	row, _ := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt, testFails)
	batch, _ := f.Impl.(*UserFunc).PrepareBatch(nil, catalog.BigInt, testFails)
	a, sel := batchArgs()
	out := vector.NewVec(catalog.BigInt)
	batch(a, sel, out)
	one := vector.NewVec(catalog.BigInt)
	for _, i := range sel {
		want := int64(i % 7)
		if a[0].Null[i] {
			if !out.Null[i] {
				t.Errorf("row %d: NULL s gave %d", i, out.I[i])
			}
			continue
		}
		if out.Null[i] || out.I[i] != want || !row(a, int(i), one) || one.I[i] != want {
			t.Errorf("row %d: batch %d (null %v), row %d, want %d", i, out.I[i], out.Null[i], one.I[i], want)
		}
	}
	if n := testFails.Take(nil); len(n) > 0 {
		t.Errorf("failures: %v", n)
	}
}

// BenchmarkUDFCountCharBatch: count_char through the batch ABI, per row
// (ns/op is one row), a whole batch per call, with the time cap on and
// off, against the same loop in Go over the same batch. cpu-ns/row is the
// process's CPU time per row (getrusage), which a shared machine's load
// does not inflate as it does ns/op.
func BenchmarkUDFCountCharBatch(b *testing.B) {
	for _, c := range []struct {
		name   string
		limits WasmLimits
	}{{"wasm", DefaultWasmLimits}, {"wasm-no-time-cap", WasmLimits{MemoryPages: DefaultWasmLimits.MemoryPages}}} {
		b.Run(c.name, func(b *testing.B) {
			f := countCharWasm(b, c.limits)
			batch, _ := f.Impl.(*UserFunc).PrepareBatch(nil, catalog.BigInt, testFails)
			a, sel := batchArgs()
			out := vector.NewVec(catalog.BigInt)
			batch(a, sel, out) // (instantiates the module)
			cpu := cpuTime()
			b.ResetTimer()
			for done := 0; done < b.N; done += len(sel) {
				batch(a, sel, out)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/row")
		})
	}
	b.Run("go-plain", func(b *testing.B) {
		a, sel := batchArgs()
		out := vector.NewVec(catalog.BigInt)
		cpu := cpuTime()
		b.ResetTimer()
		for done := 0; done < b.N; done += len(sel) {
			for _, i := range sel {
				if out.Null[i] = a[0].Null[i] || a[1].Null[i]; !out.Null[i] {
					out.I[i] = countCharGo(string(a[0].S[i]), string(a[1].S[i]))
				}
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/row")
	})
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestCountCharAgainstGo: count_char.wasm, through its row and batch
// exports, counts as strings.Count does, over random strings of 0 to 40
// bytes (so its eight-bytes-at-a-time loop and its tail both run, at every
// alignment) and one-byte or longer patterns.
func TestCountCharAgainstGo(t *testing.T) {
	f := countCharWasm(t, DefaultWasmLimits)
	row, _ := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt, testFails)
	batch, _ := f.Impl.(*UserFunc).PrepareBatch(nil, catalog.BigInt, testFails)
	rng := rand.New(rand.NewSource(14))
	s, c := vector.NewVec(catalog.Varchar), vector.NewVec(catalog.Varchar)
	sel := make([]int32, vector.Cap)
	for i := range vector.Cap {
		b := make([]byte, rng.Intn(41))
		for k := range b {
			b[k] = "abc\x00\xff"[rng.Intn(5)]
		}
		s.S[i] = b
		c.S[i] = []byte{"abc\x00\xff"[rng.Intn(5)]}
		if i%5 == 0 {
			c.S[i] = []byte("ab")
		}
		sel[i] = int32(i)
	}
	a := []*vector.Vec{s, c}
	out, one := vector.NewVec(catalog.BigInt), vector.NewVec(catalog.BigInt)
	batch(a, sel, out)
	for i := range vector.Cap {
		want := int64(strings.Count(string(s.S[i]), string(c.S[i])))
		if out.Null[i] || out.I[i] != want || !row(a, i, one) || one.I[i] != want {
			t.Fatalf("count_char(%q, %q): batch %d, row %d, want %d", s.S[i], c.S[i], out.I[i], one.I[i], want)
		}
	}
}
