package expr

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"streamql/catalog"
	"streamql/executor/vector"
)

// spinWasm is a hand-written module exporting spin (i64) -> i64, a loop
// that never ends, and one (i64) -> i64 = 1, without loops; it has a memory
// (which the stop flag's checks need to yield to Go).
var spinWasm = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x01, 0x06, 0x01, 0x60, 0x01, 0x7e, 0x01, 0x7e, // type 0: (i64) -> i64
	0x03, 0x03, 0x02, 0x00, 0x00, // two functions of type 0
	0x05, 0x03, 0x01, 0x00, 0x01, // a memory of one page
	0x07, 0x0e, 0x02, 0x04, 's', 'p', 'i', 'n', 0x00, 0x00, 0x03, 'o', 'n', 'e', 0x00, 0x01,
	0x0a, 0x10, 0x02,
	0x09, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x42, 0x00, 0x0b, // spin: loop br 0 end; i64.const 0
	0x04, 0x00, 0x42, 0x01, 0x0b, // one: i64.const 1
}

// TestStopFlag: the rewritten modules (count_char compiled from Go, the
// hand-written spin) are valid, export the stop flag, compute what the
// originals do, and a call past the time cap stops through the flag (the
// runtime without WithCloseOnContextDone); a module with an instruction the
// rewriter does not know is refused by it (and then run as before).
func TestStopFlag(t *testing.T) {
	ctx := context.Background()
	noMem := append(append([]byte(nil), spinWasm[:21]...), spinWasm[26:]...) // (spinWasm without its memory section)
	for _, code := range [][]byte{spinWasm, countCharCode(t)} {
		got, err := withStopFlag(code)
		if err != nil {
			t.Fatal(err)
		}
		rt := wazero.NewRuntime(ctx)
		if _, err := rt.CompileModule(ctx, got); err != nil {
			t.Errorf("the rewritten module does not compile: %v", err)
		}
		rt.Close(ctx)
	}
	f, err := WasmFunction("count_char", "count_char.wasm", countCharCode(t), DefaultWasmLimits)
	if err != nil {
		t.Fatal(err)
	}
	row, _ := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt, testFails)
	a, out := udfBenchArgs(), vector.NewVec(catalog.BigInt)
	if !row(a, 0, out) || out.I[0] != 3 {
		t.Errorf("count_char gave %d", out.I[0])
	}
	for _, code := range [][]byte{spinWasm, noMem} {
		limits := WasmLimits{MemoryPages: 16, CallTimeout: 30 * time.Millisecond}
		f, err := WasmFunction("spin", "spin.wasm", code, limits)
		if err != nil {
			t.Fatal(err)
		}
		row, _ := f.Impl.(*UserFunc).Prepare(nil, catalog.BigInt, testFails)
		a, out := []*vector.Vec{vector.NewVec(catalog.BigInt)}, vector.NewVec(catalog.BigInt)
		// garbage collections while the call spins: they must not wait for
		// it (the checks yield to Go), nor keep the watchdog from stopping it
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-done:
					return
				default:
					runtime.GC()
				}
			}
		}()
		start := time.Now()
		ok := row(a, 0, out)
		close(done)
		if ok {
			t.Fatal("spin returned")
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the call was stopped after %v", d)
		}
		fails := testFails.Take(nil)
		if len(fails) != 1 || !strings.Contains(fails[0].Reason, "ran longer than 30ms") {
			t.Errorf("failures %+v", fails)
		}
		one, err := WasmFunction("one", "spin.wasm", code, limits)
		if err != nil {
			t.Fatal(err)
		}
		r1, _ := one.Impl.(*UserFunc).Prepare(nil, catalog.BigInt, testFails)
		if !r1(a, 0, out) || out.I[0] != 1 {
			t.Errorf("one gave %d", out.I[0])
		}
	}
	// without a memory: it gets an empty one (for the checks' memory.grow)
	if got, err := withStopFlag(noMem); err != nil {
		t.Errorf("a module without memory: %v", err)
	} else {
		rt := wazero.NewRuntime(ctx)
		if _, err := rt.CompileModule(ctx, got); err != nil {
			t.Errorf("the rewritten module without memory does not compile: %v", err)
		}
		rt.Close(ctx)
	}
	// an atomic instruction (0xfe): not rewritten
	atomic := append(append([]byte(nil), spinWasm[:len(spinWasm)-5]...), 0x04, 0x00, 0xfe, 0x03, 0x0b)
	if _, err := withStopFlag(atomic); err == nil || !strings.Contains(err.Error(), "0xfe") {
		t.Errorf("an atomic instruction: %v", err)
	}
}

func countCharCode(t *testing.T) []byte {
	t.Helper()
	code, err := os.ReadFile("../../queries/udf/count_char/count_char.wasm")
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// batchTrapWasm is a hand-written module of the batch ABI: f (i64) -> i64
// is x + 1 and traps (unreachable) for 13; f_batch(n, args, res) calls f
// for each row; alloc gives offset 1024 of its one-page memory.
var batchTrapWasm = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x01, 0x11, 0x03, 0x60, 0x01, 0x7e, 0x01, 0x7e, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00, 0x60, 0x01, 0x7f, 0x01, 0x7f,
	0x03, 0x04, 0x03, 0x00, 0x01, 0x02,
	0x05, 0x03, 0x01, 0x00, 0x01,
	0x07, 0x20, 0x04,
	0x01, 'f', 0x00, 0x00,
	0x07, 'f', '_', 'b', 'a', 't', 'c', 'h', 0x00, 0x01,
	0x05, 'a', 'l', 'l', 'o', 'c', 0x00, 0x02,
	0x06, 'm', 'e', 'm', 'o', 'r', 'y', 0x02, 0x00,
	0x0a, 0x4b, 0x03,
	// f: if x == 13 { unreachable }; x + 1
	0x10, 0x00, 0x20, 0x00, 0x42, 0x0d, 0x51, 0x04, 0x40, 0x00, 0x0b, 0x20, 0x00, 0x42, 0x01, 0x7c, 0x0b,
	// f_batch: for i := 0; i < n; i++ { res[i] = f(args[i]) }
	0x32, 0x01, 0x01, 0x7f, 0x02, 0x40, 0x03, 0x40,
	0x20, 0x03, 0x20, 0x00, 0x4f, 0x0d, 0x01,
	0x20, 0x02, 0x20, 0x03, 0x41, 0x03, 0x74, 0x6a,
	0x20, 0x01, 0x20, 0x03, 0x41, 0x03, 0x74, 0x6a, 0x29, 0x03, 0x00,
	0x10, 0x00, 0x37, 0x03, 0x00,
	0x20, 0x03, 0x41, 0x01, 0x6a, 0x21, 0x03,
	0x0c, 0x00, 0x0b, 0x0b, 0x0b,
	// alloc: 1024
	0x05, 0x00, 0x41, 0x80, 0x08, 0x0b,
}

// TestWasmBatchTrap: when a batch call traps, the batch is run again row by
// row, so only the row that traps gives NULL and reaches the errors output
// (with the function's name and the reason); the others get their values,
// and NULL arguments give NULL without a call.
func TestWasmBatchTrap(t *testing.T) {
	f, err := WasmFunction("f", "trap.wasm", batchTrapWasm, DefaultWasmLimits)
	if err != nil {
		t.Fatal(err)
	}
	if f.Impl.(*UserFunc).PrepareBatch == nil {
		t.Fatal("the module's f_batch is not used")
	}
	batch, _ := f.Impl.(*UserFunc).PrepareBatch(nil, catalog.BigInt, testFails)
	x := vector.NewVec(catalog.BigInt)
	copy(x.I, []int64{1, 13, 5, 0, 7})
	x.Null[3] = true
	out := vector.NewVec(catalog.BigInt)
	for round := range 2 { // the second round runs on a fresh instance
		batch([]*vector.Vec{x}, []int32{0, 1, 2, 3, 4}, out)
		for i, want := range []int64{2, -1, 6, -1, 8} {
			if (want < 0) != out.Null[i] || want >= 0 && out.I[i] != want {
				t.Errorf("round %d row %d: %d (null %v), want %d", round, i, out.I[i], out.Null[i], want)
			}
		}
		fails := testFails.Take(nil)
		if len(fails) != 1 || fails[0].Row != 1 || fails[0].Func != "F" || !strings.Contains(fails[0].Reason, "unreachable") {
			t.Errorf("round %d: failures %+v", round, fails)
		}
	}
}
