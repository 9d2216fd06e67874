package expr

import (
	le "encoding/binary"
	"errors"
	"fmt"
)

// The time cap per call (SPEC 2.10) without wazero's WithCloseOnContextDone:
// that option makes every loop iteration of the module leave the compiled
// code for a Go function that checks whether the module was closed, and
// starts a goroutine per call, which cost a Go-compiled module (whose every
// jump is a loop in WebAssembly) about 500 ns a row of count_char. Instead,
// withStopFlag rewrites the module before it is compiled: it adds two
// mutable i32 globals, $stop (exported as stopGlobal) and $tick, and at the
// head of every loop the instructions
//
//	$tick = $tick + 1
//	if $tick & 4095 == 0 {
//	  memory.grow 0; drop     (a call into Go: a point where the goroutine
//	                          can be preempted, which compiled code is not)
//	  if $stop { unreachable }
//	}
//
// so a loop traps soon after the host sets $stop to 1 (the watchdog, when a
// call passes its time cap), and a long call lets the Go runtime stop the
// world (a garbage collection waiting for a goroutine in compiled code would
// otherwise wait for the call to end, and the watchdog with it): a few
// instructions per iteration. A module without a memory gets an empty one
// for memory.grow. A
// module the rewriter cannot read whole (an instruction it does not know, a
// proposal it does not handle) is compiled as it is, with
// WithCloseOnContextDone, as before. The rewrite keeps every index of the
// module: the global is the last one, and the code's offsets are only
// those of its own section (custom sections that point into code, such as
// DWARF, are dropped).

// stopGlobal is the export name of the stop flag withStopFlag adds.
const stopGlobal = "__streamql_stop"

// withStopFlag returns code with the stop flag and its checks, or an error
// saying why it cannot (then the caller compiles code as it is).
func withStopFlag(code []byte) ([]byte, error) {
	if len(code) < 8 || string(code[:4]) != "\x00asm" || le.LittleEndian.Uint32(code[4:8]) != 1 {
		return nil, errors.New("not a WebAssembly 1.0 binary")
	}
	type section struct {
		id   byte
		body []byte
	}
	var secs []section
	for p := 8; p < len(code); {
		id := code[p]
		n, w := le.Uvarint(code[p+1:])
		if w <= 0 || p+1+w+int(n) > len(code) {
			return nil, errors.New("a section's size is out of the module")
		}
		secs = append(secs, section{id, code[p+1+w : p+1+w+int(n)]})
		p += 1 + w + int(n)
	}
	// the globals the module imports and defines: the new one comes after them
	globals := uint64(0)
	hasGlobals := false
	for _, s := range secs {
		switch s.id {
		case 2:
			k, err := importedGlobals(s.body)
			if err != nil {
				return nil, err
			}
			globals += k
		case 6:
			k, _ := le.Uvarint(s.body)
			globals += k
			hasGlobals = true
		}
	}
	memories := false
	for _, s := range secs {
		switch s.id {
		case 2:
			memories = memories || importsMemory(s.body)
		case 5:
			k, _ := le.Uvarint(s.body)
			memories = memories || k > 0
		}
	}
	idx, tick := globals, globals+1
	get := func(g uint64) []byte { return append([]byte{0x23}, le.AppendUvarint(nil, g)...) }
	set := func(g uint64) []byte { return append([]byte{0x24}, le.AppendUvarint(nil, g)...) }
	// tick++; every 4096th iteration: memory.grow 0 (a call into Go, where
	// the goroutine can be preempted: compiled code cannot, and a garbage
	// collection waiting for it would stop every goroutine, the watchdog
	// too), then the stop flag
	var check []byte
	check = append(check, get(tick)...)
	check = append(check, 0x41, 0x01, 0x6a) // i32.const 1; i32.add
	check = append(check, set(tick)...)
	check = append(check, get(tick)...)
	check = append(check, 0x41, 0xff, 0x1f, 0x71, 0x45, 0x04, 0x40) // i32.const 4095; i32.and; i32.eqz; if
	check = append(check, 0x41, 0x00, 0x40, 0x00, 0x1a)             // i32.const 0; memory.grow 0; drop
	check = append(check, get(idx)...)
	check = append(check, 0x04, 0x40, 0x00, 0x0b, 0x0b)                             // if unreachable end; end
	newGlobal := []byte{0x7f, 0x01, 0x41, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0x00, 0x0b} // two mut i32 = 0: stop, tick
	out := append([]byte(nil), code[:8]...)
	emit := func(id byte, body []byte) {
		out = append(out, id)
		out = le.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	added, memAdded := false, memories
	addMemory := func() { // memory.grow needs one: a module without gets an empty one
		if !memAdded {
			emit(5, []byte{1, 0x00, 0x00})
			memAdded = true
		}
	}
	addGlobals := func() {
		if !added && !hasGlobals {
			emit(6, append([]byte{2}, newGlobal...))
			added = true
		}
	}
	for _, s := range secs {
		switch s.id {
		case 0:
			continue // custom (names, DWARF): their code offsets would be off
		case 6:
			addMemory()
			n, w := le.Uvarint(s.body)
			body := le.AppendUvarint(nil, n+2)
			body = append(append(body, s.body[w:]...), newGlobal...)
			emit(6, body)
			added = true
			continue
		case 13:
			addMemory()
		case 7, 8, 9, 10, 11, 12:
			addMemory()
			addGlobals()
		}
		switch s.id {
		case 7:
			n, w := le.Uvarint(s.body)
			body := le.AppendUvarint(nil, n+1)
			body = append(body, s.body[w:]...)
			body = le.AppendUvarint(body, uint64(len(stopGlobal)))
			body = append(body, stopGlobal...)
			body = append(body, 0x03)
			body = le.AppendUvarint(body, idx)
			emit(7, body)
		case 10:
			body, err := instrumentCode(s.body, check)
			if err != nil {
				return nil, err
			}
			emit(10, body)
		default:
			emit(s.id, s.body)
		}
	}
	if !added {
		return nil, errors.New("the module exports nothing")
	}
	return out, nil
}

// importedGlobals counts the globals of an import section.
func importedGlobals(b []byte) (uint64, error) {
	r := &wasmReader{b: b}
	n := r.u()
	globals := uint64(0)
	for range n {
		r.skip(int(r.u())) // module
		r.skip(int(r.u())) // name
		switch r.byte() {
		case 0: // func
			r.u()
		case 1: // table
			r.byte()
			r.limits()
		case 2: // memory
			r.limits()
		case 3: // global
			r.valType()
			r.byte()
			globals++
		case 4: // tag
			r.byte()
			r.u()
		default:
			return 0, errors.New("an import of an unknown kind")
		}
	}
	return globals, r.err
}

// importsMemory reports whether an import section imports a memory.
func importsMemory(b []byte) bool {
	r := &wasmReader{b: b}
	n := r.u()
	for range n {
		r.skip(int(r.u()))
		r.skip(int(r.u()))
		switch r.byte() {
		case 0:
			r.u()
		case 1:
			r.byte()
			r.limits()
		case 2:
			return r.err == nil
		case 3:
			r.valType()
			r.byte()
		case 4:
			r.byte()
			r.u()
		}
	}
	return false
}

// instrumentCode returns a code section whose every loop starts with check.
func instrumentCode(b []byte, check []byte) ([]byte, error) {
	r := &wasmReader{b: b}
	n := r.u()
	out := le.AppendUvarint(nil, n)
	var body []byte
	for range n {
		size := int(r.u())
		if r.err != nil || r.p+size > len(b) {
			return nil, errors.New("a function body is out of the code section")
		}
		f := &wasmReader{b: b[r.p : r.p+size]}
		r.skip(size)
		body = body[:0]
		for range f.u() { // locals
			f.u()
			f.valType()
		}
		from := 0
		for f.p < len(f.b) && f.err == nil {
			op := f.byte()
			if op == 0x03 { // loop bt: the check right after its block type
				f.blockType()
				body = append(body, f.b[from:f.p]...)
				body = append(body, check...)
				from = f.p
				continue
			}
			f.immediates(op)
		}
		if f.err != nil {
			return nil, f.err
		}
		body = append(body, f.b[from:]...)
		out = le.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out, r.err
}

// wasmReader reads a WebAssembly binary's values; the first error sticks.
type wasmReader struct {
	b   []byte
	p   int
	err error
}

func (r *wasmReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at byte %d", what, r.p)
	}
	r.p = len(r.b)
}

func (r *wasmReader) byte() byte {
	if r.p >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	c := r.b[r.p]
	r.p++
	return c
}

// u reads an unsigned LEB128 (u32 or u64).
func (r *wasmReader) u() uint64 {
	if r.p >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	x, w := le.Uvarint(r.b[r.p:])
	if w <= 0 {
		r.fail("a bad LEB128")
		return 0
	}
	r.p += w
	return x
}

// s skips a signed LEB128 (s32, s33, s64).
func (r *wasmReader) s() {
	for r.p < len(r.b) {
		c := r.b[r.p]
		r.p++
		if c&0x80 == 0 {
			return
		}
	}
	r.fail("unexpected end")
}

func (r *wasmReader) skip(n int) {
	if n < 0 || r.p+n > len(r.b) {
		r.fail("unexpected end")
		return
	}
	r.p += n
}

func (r *wasmReader) limits() {
	flags := r.byte()
	r.u()
	if flags&1 != 0 {
		r.u()
	}
	if flags > 7 {
		r.fail("unknown limits")
	}
}

// valType reads a value type: a number or vector type, funcref, externref,
// or a typed reference (ref null? ht).
func (r *wasmReader) valType() {
	switch c := r.byte(); c {
	case 0x63, 0x64:
		r.s()
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f, 0x69:
	default:
		r.fail("an unknown value type")
	}
}

// blockType reads a block type: empty, a value type, or a type index.
func (r *wasmReader) blockType() {
	if r.p < len(r.b) && (r.b[r.p] == 0x40 || r.b[r.p] >= 0x69 && r.b[r.p] <= 0x7f || r.b[r.p] == 0x63 || r.b[r.p] == 0x64) {
		if r.b[r.p] == 0x40 {
			r.p++
			return
		}
		r.valType()
		return
	}
	r.s()
}

func (r *wasmReader) memarg() {
	align := r.u()
	if align&0x40 != 0 { // multi-memory: a memory index follows
		r.u()
	}
	r.u()
}

// immediates skips the immediates of the instruction op (read); an
// instruction it does not know fails the reader.
func (r *wasmReader) immediates(op byte) {
	switch {
	case op <= 0x01, op == 0x05, op == 0x0b, op == 0x0f, op == 0x0a, op == 0x19, op == 0x1a, op == 0x1b,
		op >= 0x45 && op <= 0xc4, op == 0xd1, op == 0xd3, op == 0xd4:
	case op == 0x02, op == 0x04, op == 0x06:
		r.blockType()
	case op == 0x07, op == 0x08, op == 0x09, op == 0x0c, op == 0x0d, op == 0x10, op == 0x12, op == 0x14, op == 0x15, op == 0x18,
		op >= 0x20 && op <= 0x26, op == 0x3f, op == 0x40, op == 0xd2, op == 0xd5, op == 0xd6:
		r.u()
	case op == 0x0e: // br_table
		for range r.u() {
			r.u()
		}
		r.u()
	case op == 0x11, op == 0x13: // call_indirect: type, table
		r.u()
		r.u()
	case op == 0x1c: // select t*
		for range r.u() {
			r.valType()
		}
	case op == 0x1f: // try_table bt catch*
		r.blockType()
		for range r.u() {
			if k := r.byte(); k <= 1 {
				r.u()
			}
			r.u()
		}
	case op >= 0x28 && op <= 0x3e:
		r.memarg()
	case op == 0x41, op == 0x42, op == 0xd0:
		r.s()
	case op == 0x43:
		r.skip(4)
	case op == 0x44:
		r.skip(8)
	case op == 0xfc:
		switch sub := r.u(); {
		case sub <= 7:
		case sub == 8, sub == 10, sub == 12, sub == 14:
			r.u()
			r.u()
		case sub == 9, sub == 11, sub == 13, sub >= 15 && sub <= 17:
			r.u()
		default:
			r.fail("an unknown 0xfc instruction")
		}
	case op == 0xfd:
		switch sub := r.u(); {
		case sub <= 11, sub == 92, sub == 93:
			r.memarg()
		case sub == 12, sub == 13:
			r.skip(16)
		case sub >= 21 && sub <= 34:
			r.skip(1)
		case sub >= 84 && sub <= 91:
			r.memarg()
			r.skip(1)
		}
	default:
		r.fail(fmt.Sprintf("an instruction it does not know (0x%02x)", op))
	}
}
