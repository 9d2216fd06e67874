package expr

import (
	"os"
	"strings"
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
	row, err := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt)
	if err != nil {
		b.Fatal(err)
	}
	a, out := udfBenchArgs(), vector.NewVec(catalog.BigInt)
	if !row(a, 0, out) || out.I[0] != 3 {
		b.Fatalf("count_char gave %d", out.I[0])
	}
	b.ResetTimer()
	for range b.N {
		row(a, 0, out)
	}
	if n := len(TakeUDFFailures(nil)); n > 0 {
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
			row, _ := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt)
			a, out := []*vector.Vec{vector.NewVec(catalog.BigInt)}, vector.NewVec(catalog.BigInt)
			a[0].I[0] = 41
			for range b.N {
				row(a, 0, out)
			}
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
	row, _ := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt)
	batch, _ := f.Impl.(*UserFunc).PrepareBatch(nil, catalog.BigInt)
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
	if n := TakeUDFFailures(nil); len(n) > 0 {
		t.Errorf("failures: %v", n)
	}
}

// BenchmarkUDFCountCharBatch: count_char through the batch ABI, per row
// (ns/op is one row), a whole batch per call, with the time cap on.
func BenchmarkUDFCountCharBatch(b *testing.B) {
	f := countCharWasm(b, DefaultWasmLimits)
	batch, _ := f.Impl.(*UserFunc).PrepareBatch(nil, catalog.BigInt)
	a, sel := batchArgs()
	out := vector.NewVec(catalog.BigInt)
	b.ResetTimer()
	for done := 0; done < b.N; done += len(sel) {
		batch(a, sel, out)
	}
}
