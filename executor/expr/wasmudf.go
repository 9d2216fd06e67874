package expr

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"streamql/catalog"
	"streamql/executor/vector"
)

// WASM user-defined functions (SPEC 2.10: CREATE FUNCTION name AS
// 'module.wasm' [LANGUAGE WASM]) run in github.com/tetratelabs/wazero, a
// pure-Go WebAssembly runtime, in a sandbox: no file system, no network, no
// clock (wazero's fixed fake clock; WASI's random_get gives a deterministic
// stream), no arguments or environment, stdout and stderr discarded; memory
// capped at WasmLimits.MemoryPages pages of 64 KiB, each call capped at
// WasmLimits.CallTimeout.
//
// # The ABI
//
// The module exports, for a function called name in SQL (the export is its
// lower-case name):
//
//	name(args...) result     the function
//	name_signature() i64     optional: its SQL signature as text, such as
//	                         "(VARCHAR, VARCHAR) BIGINT", returned as
//	                         ptr<<32 | len of the text in the module's memory
//	alloc(size i32) i32      needed when an argument is VARCHAR: memory for
//	                         the host to write arguments into, kept until
//	dealloc(ptr i32, size i32)
//	memory                   the module's memory (exported as "memory")
//	_initialize()            optional (a WASI reactor's, e.g. Go's
//	                         -buildmode=c-shared): run once per instance
//
// The SQL types map onto WebAssembly values: BIGINT i64, DOUBLE f64, BOOLEAN
// i32 (0 false, else true), VARCHAR as two i32 arguments (pointer, length of
// UTF-8 bytes that the host wrote into memory it got from alloc; valid during
// the call) and as an i64 result ptr<<32 | len (bytes the module keeps until
// its next call). Without name_signature, the signature is read from the
// export's types: i64 BIGINT, f64 DOUBLE, i32 BOOLEAN (so no VARCHAR).
//
// A NULL argument gives NULL without a call. A trap (unreachable, an access
// out of bounds, memory past the cap, a Go panic) or a call past the time cap
// gives NULL and sends the row to the errors output with the function's name
// and the reason; the module is then instantiated afresh for the next row.
// The time cap is kept by a stop flag the module's loops check (the module
// is rewritten before it is compiled, wasmstop.go: the export name
// __streamql_stop is reserved), or, for a module the rewriter cannot read,
// by wazero's WithCloseOnContextDone.
// The module is compiled once per CREATE FUNCTION and instantiated once per
// call site of a job (on its first row), never per row.

// WasmLimits are the sandbox's caps for WASM functions.
type WasmLimits struct {
	// MemoryPages caps a module's memory, in pages of 64 KiB.
	MemoryPages uint32
	// CallTimeout caps one call; a call that runs longer is stopped (the
	// stop flag of wasmstop.go, else wazero's WithCloseOnContextDone) and its
	// row goes to the errors output. 0: no cap (a call that never ends then
	// hangs its job).
	CallTimeout time.Duration
}

// DefaultWasmLimits are the caps CREATE FUNCTION uses: 2048 pages (128 MiB)
// and 1 second a call.
var DefaultWasmLimits = WasmLimits{MemoryPages: 2048, CallTimeout: time.Second}

// wasmModule is a compiled WASM function: its runtime (which caps memory and
// makes calls interruptible) and module, shared by the jobs that call it.
type wasmModule struct {
	name     string // SQL name, upper case
	export   string
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	sig      Sig
	limits   WasmLimits
}

// WasmFunction compiles the WebAssembly module code (read from path, which
// messages name) into the user function name, checking that it exports name
// (lower case) with a signature of the ABI above (see the package's WASM
// comment). Errors say what the module lacks.
func WasmFunction(name, path string, code []byte, limits WasmLimits) (*Function, error) {
	ctx := context.Background()
	// the time cap: the module's loops check a stop flag the watchdog sets
	// (wasmstop.go); a module the rewriter cannot read is stopped by
	// wazero's WithCloseOnContextDone, much slower
	flagged := false
	if limits.CallTimeout > 0 {
		if c, err := withStopFlag(code); err == nil {
			code, flagged = c, true
		}
	}
	cfg := wazero.NewRuntimeConfig().WithMemoryLimitPages(limits.MemoryPages).WithCloseOnContextDone(limits.CallTimeout > 0 && !flagged)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	fail := func(err error) (*Function, error) {
		rt.Close(ctx)
		return nil, err
	}
	compiled, err := rt.CompileModule(ctx, code)
	if err != nil {
		return fail(fmt.Errorf("%s is not a WebAssembly module: %v", path, err))
	}
	for _, imp := range compiled.ImportedFunctions() {
		if mod, _, _ := imp.Import(); mod != wasi_snapshot_preview1.ModuleName {
			return fail(fmt.Errorf("%s imports %s from %q: a function may only import WASI (%s)", path, imp.DebugName(), mod, wasi_snapshot_preview1.ModuleName))
		}
	}
	if len(compiled.ImportedFunctions()) > 0 {
		if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
			return fail(err)
		}
	}
	m := &wasmModule{name: strings.ToUpper(name), export: strings.ToLower(name), rt: rt, compiled: compiled, limits: limits}
	exports := compiled.ExportedFunctions()
	def, ok := exports[m.export]
	if !ok {
		var names []string
		for n := range exports {
			names = append(names, n)
		}
		sort.Strings(names)
		return fail(fmt.Errorf("%s exports no function %s (it exports %s); the export must have the function's name", path, m.export, strings.Join(names, ", ")))
	}
	if _, ok := exports[m.export+"_signature"]; ok {
		text, err := m.signatureText()
		if err != nil {
			return fail(fmt.Errorf("%s: %s_signature: %v", path, m.export, err))
		}
		if m.sig, err = parseWasmSig(text); err != nil {
			return fail(fmt.Errorf("%s: %s_signature %q: %v", path, m.export, text, err))
		}
	} else if m.sig, err = sigOfTypes(def); err != nil {
		return fail(fmt.Errorf("%s: %s: %v; or export %s_signature", path, m.export, err, m.export))
	}
	if err := checkWasmTypes(def, m.sig); err != nil {
		return fail(fmt.Errorf("%s: %s: %v", path, m.export, err))
	}
	if sigHasText(m.sig) {
		for _, need := range []string{"alloc", "dealloc"} {
			if _, ok := exports[need]; !ok {
				return fail(fmt.Errorf("%s exports no %s, which a function with VARCHAR arguments needs", path, need))
			}
		}
	}
	f := &Function{
		Name: name, Group: "user", Sigs: []Sig{m.sig},
		Nulls:   nullsAny,
		Failure: "a trap or a call past the time cap sends the row to the errors output; the call gives NULL",
		Doc:     "WASM function of " + path,
	}
	impl := &UserFunc{Prepare: func(_ []Arg, _ catalog.Type, fails *Context) (RowFunc, error) { return m.rowFunc(fails), nil }}
	if _, ok := exports["alloc"]; ok && m.hasBatch() {
		impl.PrepareBatch = func(_ []Arg, _ catalog.Type, fails *Context) (BatchFunc, error) { return m.batchFunc(fails), nil }
	}
	f.Impl = impl
	return f, nil
}

func sigHasText(s Sig) bool {
	for _, a := range s.Args {
		if a == catalog.Varchar {
			return true
		}
	}
	return false
}

// signatureText calls name_signature in an instance of its own.
func (m *wasmModule) signatureText() (string, error) {
	in, err := m.instantiate()
	if err != nil {
		return "", err
	}
	defer in.close()
	res, err := in.mod.ExportedFunction(m.export + "_signature").Call(in.ctx)
	if err != nil || len(res) != 1 {
		return "", fmt.Errorf("the call failed: %v", err)
	}
	b, ok := in.mem.Read(uint32(res[0]>>32), uint32(res[0]))
	if !ok {
		return "", errors.New("its text is out of the memory's bounds")
	}
	return string(b), nil
}

// parseWasmSig parses "(T, ...) R".
func parseWasmSig(text string) (Sig, error) {
	text = strings.TrimSpace(text)
	closeAt := strings.IndexByte(text, ')')
	if !strings.HasPrefix(text, "(") || closeAt < 0 {
		return Sig{}, errors.New(`write "(TYPE, ...) TYPE"`)
	}
	var s Sig
	if args := strings.TrimSpace(text[1:closeAt]); args != "" {
		for _, w := range strings.Split(args, ",") {
			t, ok := typeOfWord(w)
			if !ok {
				return Sig{}, fmt.Errorf("unknown type %q: use BIGINT, DOUBLE, BOOLEAN or VARCHAR", strings.TrimSpace(w))
			}
			s.Args = append(s.Args, t)
		}
	}
	t, ok := typeOfWord(text[closeAt+1:])
	if !ok {
		return Sig{}, fmt.Errorf("unknown result type %q: use BIGINT, DOUBLE, BOOLEAN or VARCHAR", strings.TrimSpace(text[closeAt+1:]))
	}
	s.Result = t
	return s, nil
}

// typeOfWord is the SQL type of a signature word (BIGINT, DOUBLE, BOOLEAN,
// VARCHAR, and their Flink synonyms INT, FLOAT, BOOL, STRING).
func typeOfWord(w string) (catalog.Type, bool) {
	switch strings.ToUpper(strings.TrimSpace(w)) {
	case "BIGINT", "INT", "INTEGER":
		return catalog.BigInt, true
	case "DOUBLE", "FLOAT":
		return catalog.Double, true
	case "BOOLEAN", "BOOL":
		return catalog.Boolean, true
	case "VARCHAR", "STRING":
		return catalog.Varchar, true
	}
	return catalog.Unknown, false
}

func wasmTypeOf(t api.ValueType) (catalog.Type, bool) {
	switch t {
	case api.ValueTypeI64:
		return catalog.BigInt, true
	case api.ValueTypeF64:
		return catalog.Double, true
	case api.ValueTypeI32:
		return catalog.Boolean, true
	}
	return catalog.Unknown, false
}

// sigOfTypes reads a signature from the export's WebAssembly types.
func sigOfTypes(def api.FunctionDefinition) (Sig, error) {
	var s Sig
	for _, p := range def.ParamTypes() {
		t, ok := wasmTypeOf(p)
		if !ok {
			return Sig{}, fmt.Errorf("parameter type %s has no SQL type", api.ValueTypeName(p))
		}
		s.Args = append(s.Args, t)
	}
	if len(def.ResultTypes()) != 1 {
		return Sig{}, errors.New("it must return one value")
	}
	t, ok := wasmTypeOf(def.ResultTypes()[0])
	if !ok {
		return Sig{}, fmt.Errorf("result type %s has no SQL type", api.ValueTypeName(def.ResultTypes()[0]))
	}
	s.Result = t
	return s, nil
}

// checkWasmTypes checks the export's types against the ABI's for s.
func checkWasmTypes(def api.FunctionDefinition, s Sig) error {
	var want []api.ValueType
	for _, a := range s.Args {
		switch a {
		case catalog.BigInt:
			want = append(want, api.ValueTypeI64)
		case catalog.Double:
			want = append(want, api.ValueTypeF64)
		case catalog.Boolean:
			want = append(want, api.ValueTypeI32)
		default:
			want = append(want, api.ValueTypeI32, api.ValueTypeI32)
		}
	}
	res := map[catalog.Type]api.ValueType{catalog.BigInt: api.ValueTypeI64, catalog.Double: api.ValueTypeF64, catalog.Boolean: api.ValueTypeI32, catalog.Varchar: api.ValueTypeI64}[s.Result]
	got := def.ParamTypes()
	ok := len(got) == len(want) && len(def.ResultTypes()) == 1 && def.ResultTypes()[0] == res
	for k := 0; ok && k < len(want); k++ {
		ok = got[k] == want[k]
	}
	if !ok {
		return fmt.Errorf("its WebAssembly type %s does not fit the signature %s (BIGINT i64, DOUBLE f64, BOOLEAN i32, VARCHAR i32 pointer and i32 length, a VARCHAR result i64 pointer<<32|length)", wasmTypeText(def), s.String("f"))
	}
	return nil
}

func wasmTypeText(def api.FunctionDefinition) string {
	var ps, rs []string
	for _, p := range def.ParamTypes() {
		ps = append(ps, api.ValueTypeName(p))
	}
	for _, r := range def.ResultTypes() {
		rs = append(rs, api.ValueTypeName(r))
	}
	return "(" + strings.Join(ps, ", ") + ") -> (" + strings.Join(rs, ", ") + ")"
}

// wasmInstance is one instance of a module, called from one goroutine.
type wasmInstance struct {
	mod     api.Module
	fn      api.Function
	batch   api.Function // name_batch, nil when the module has none (wasmbatch.go)
	alloc   api.Function
	dealloc api.Function
	mem     api.Memory
	ctx     context.Context
	cancel  context.CancelFunc
	// calls counts call starts and ends: odd while a call runs. The
	// watchdog reads it to find a call past the time cap.
	calls    atomic.Uint64
	timedOut atomic.Bool
	// stop is the module's stop flag (wasmstop.go), nil when it has none
	// (then the watchdog cancels ctx, which WithCloseOnContextDone watches)
	stop     api.MutableGlobal
	buf, cap uint32 // the argument buffer from alloc
}

func (m *wasmModule) instantiate() (*wasmInstance, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions()
	if m.compiled.ExportedFunctions()["_initialize"] != nil {
		cfg = cfg.WithStartFunctions("_initialize")
	}
	mod, err := m.rt.InstantiateModule(ctx, m.compiled, cfg)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("instantiating the module: %v", firstLine(err))
	}
	in := &wasmInstance{mod: mod, fn: mod.ExportedFunction(m.export), batch: mod.ExportedFunction(m.export + "_batch"), alloc: mod.ExportedFunction("alloc"),
		dealloc: mod.ExportedFunction("dealloc"), mem: mod.Memory(), ctx: ctx, cancel: cancel}
	if g, ok := mod.ExportedGlobal(stopGlobal).(api.MutableGlobal); ok {
		in.stop = g
	}
	if in.mem == nil && sigHasText(m.sig) {
		in.close()
		return nil, errors.New("the module has no memory")
	}
	return in, nil
}

func (in *wasmInstance) close() {
	in.cancel()
	_ = in.mod.Close(context.Background())
}

// reserve makes the argument buffer hold n bytes.
func (in *wasmInstance) reserve(n uint32) error {
	if n <= in.cap {
		return nil
	}
	size := max(n, 2*in.cap, 256)
	if in.cap > 0 {
		if _, err := in.dealloc.Call(in.ctx, uint64(in.buf), uint64(in.cap)); err != nil {
			return err
		}
	}
	res, err := in.alloc.Call(in.ctx, uint64(size))
	if err != nil {
		return err
	}
	in.buf, in.cap = uint32(res[0]), size
	return nil
}

// slot holds a call site's instance: made on first use, dropped (closed)
// after a failed call, closed when the job's kernels are collected.
type slot struct {
	m    *wasmModule
	in   *wasmInstance
	live *atomic.Pointer[wasmInstance]
}

func (m *wasmModule) newSlot() *slot {
	h := &slot{m: m, live: &atomic.Pointer[wasmInstance]{}}
	runtime.AddCleanup(h, func(w *atomic.Pointer[wasmInstance]) {
		if in := w.Load(); in != nil {
			unwatch(in)
			in.close()
		}
	}, h.live)
	return h
}

func (h *slot) get() (*wasmInstance, error) {
	if h.in == nil {
		in, err := h.m.instantiate()
		if err != nil {
			return nil, err
		}
		h.in = in
		h.live.Store(in)
		watch(in, h.m.limits.CallTimeout)
	}
	return h.in, nil
}

func (h *slot) drop() {
	unwatch(h.in)
	h.in.close()
	h.in = nil
	h.live.Store(nil)
}

// rowFunc returns the row function of one call site: it instantiates the
// module on its first row and again after a failed call.
func (m *wasmModule) rowFunc(fails *Context) RowFunc {
	h := m.newSlot()
	drop := h.drop
	stack := make([]uint64, max(2*len(m.sig.Args), 1))
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		in, err := h.get()
		if err != nil {
			fails.fail(m.name, i, err.Error(), false)
			return false
		}
		need := uint32(0)
		for k, t := range m.sig.Args {
			if t == catalog.Varchar {
				need += uint32(len(a[k].S[i]))
			}
		}
		if need > 0 {
			if err := in.reserve(need); err != nil {
				fails.fail(m.name, i, "alloc: "+firstLine(err), false)
				drop()
				return false
			}
		}
		n, at := 0, in.buf
		for k, t := range m.sig.Args {
			v := a[k]
			switch t {
			case catalog.BigInt:
				stack[n] = uint64(v.I[i])
			case catalog.Double:
				stack[n] = api.EncodeF64(v.F[i])
			case catalog.Boolean:
				stack[n] = 0
				if v.B[i] {
					stack[n] = 1
				}
			default:
				s := v.S[i]
				if len(s) > 0 && !in.mem.Write(at, s) {
					fails.fail(m.name, i, "the argument buffer is out of the memory's bounds", false)
					drop()
					return false
				}
				stack[n], stack[n+1] = uint64(at), uint64(len(s))
				at += uint32(len(s))
				n++
			}
			n++
		}
		in.calls.Add(1)
		err = in.fn.CallWithStack(in.ctx, stack)
		in.calls.Add(1)
		if err != nil {
			reason := "trap: " + firstLine(err)
			var ee *sys.ExitError
			if in.timedOut.Load() || (errors.As(err, &ee) && (ee.ExitCode() == sys.ExitCodeContextCanceled || ee.ExitCode() == sys.ExitCodeDeadlineExceeded)) {
				reason = fmt.Sprintf("the call ran longer than %v (the time cap per call) and was stopped", m.limits.CallTimeout)
			} else if errors.As(err, &ee) {
				reason = fmt.Sprintf("the module exited with code %d", ee.ExitCode())
			}
			fails.fail(m.name, i, reason, false)
			drop()
			return false
		}
		if !in.setResult(m.sig.Result, stack[0], out, i) {
			fails.fail(m.name, i, "the result's text is out of the memory's bounds", false)
			drop()
			return false
		}
		return true
	}
}

// setResult writes x, a result of type t in the ABI's encoding, into row i
// of out; false when a VARCHAR result is out of the memory's bounds.
func (in *wasmInstance) setResult(t catalog.Type, x uint64, out *vector.Vec, i int) bool {
	switch t {
	case catalog.BigInt:
		out.I[i] = int64(x)
	case catalog.Double:
		out.F[i] = api.DecodeF64(x)
	case catalog.Boolean:
		out.B[i] = uint32(x) != 0
	default:
		b, ok := in.mem.Read(uint32(x>>32), uint32(x))
		if !ok {
			return false
		}
		start := len(out.Arena)
		out.Arena = append(out.Arena, b...)
		setText(out, i, start)
	}
	return true
}

func firstLine(err error) string {
	s := err.Error()
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		s = s[:k]
	}
	return s
}

// The watchdog stops calls past their time cap: every tick it looks at each
// live instance's call counter, and cancels the instance's context (which
// wazero's WithCloseOnContextDone turns into the end of the call) when the
// same call has been running for the cap. Calls pay two atomic adds.
var dog struct {
	mu      sync.Mutex
	live    map[*wasmInstance]*watched
	running bool
}

type watched struct {
	timeout time.Duration
	seen    uint64
	since   time.Time
}

func watch(in *wasmInstance, timeout time.Duration) {
	if timeout <= 0 {
		return
	}
	dog.mu.Lock()
	defer dog.mu.Unlock()
	if dog.live == nil {
		dog.live = map[*wasmInstance]*watched{}
	}
	dog.live[in] = &watched{timeout: timeout}
	if !dog.running {
		dog.running = true
		go watchdog()
	}
}

func unwatch(in *wasmInstance) {
	dog.mu.Lock()
	delete(dog.live, in)
	dog.mu.Unlock()
}

func watchdog() {
	for {
		dog.mu.Lock()
		if len(dog.live) == 0 {
			dog.running = false
			dog.mu.Unlock()
			return
		}
		tick := 10 * time.Millisecond
		now := time.Now()
		for in, w := range dog.live {
			tick = min(tick, max(w.timeout/4, time.Millisecond))
			c := in.calls.Load()
			switch {
			case c%2 == 0 || c != w.seen:
				w.seen, w.since = c, now
			case now.Sub(w.since) >= w.timeout:
				in.timedOut.Store(true)
				if in.stop != nil {
					in.stop.Set(1) // its next loop iteration traps
				} else {
					in.cancel()
				}
				delete(dog.live, in)
			}
		}
		dog.mu.Unlock()
		time.Sleep(tick)
	}
}
