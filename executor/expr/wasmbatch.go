package expr

import (
	le "encoding/binary"
	"math"

	"github.com/tetratelabs/wazero/api"

	"streamql/catalog"
	"streamql/executor/vector"
)

// The batch ABI (optional; SPEC 2.10): a module may also export
//
//	name_batch(n i32, args i32, results i32)
//
// which computes n rows in one call, so that the cost of entering the module
// (and of the time cap's watch) is paid once per batch of rows instead of
// once per row. args points at n rows of one 8-byte little-endian slot per
// argument (BIGINT, DOUBLE as its IEEE bits, BOOLEAN 0 or 1, VARCHAR as
// ptr<<32 | len of bytes the host wrote into the same buffer), results at n
// 8-byte slots the function fills (a VARCHAR result as ptr<<32 | len, kept
// by the module until its next call). The host writes into memory it got
// from alloc; rows with a NULL argument are left out (they give NULL). When
// the batch call fails, the rows are called one by one through name, so that
// each failing row reaches the errors output with its own reason.

// hasBatch reports whether the module exports name_batch of the batch ABI.
func (m *wasmModule) hasBatch() bool {
	def, ok := m.compiled.ExportedFunctions()[m.export+"_batch"]
	if !ok {
		return false
	}
	p := def.ParamTypes()
	return len(p) == 3 && p[0] == api.ValueTypeI32 && p[1] == api.ValueTypeI32 && p[2] == api.ValueTypeI32 && len(def.ResultTypes()) == 0
}

// batchFunc returns the batch function of one call site.
func (m *wasmModule) batchFunc(fails *Context) BatchFunc {
	h := m.newSlot()
	row := m.rowFunc(fails) // for the rows of a failed batch call
	rows := make([]int32, 0, vector.Cap)
	stack := make([]uint64, 3)
	nargs := len(m.sig.Args)
	perRow := func(a []*vector.Vec, out *vector.Vec) {
		for _, i := range rows {
			out.Null[i] = !row(a, int(i), out)
		}
	}
	return func(a []*vector.Vec, sel []int32, out *vector.Vec) {
		rows = rows[:0]
		text := 0
		for _, i := range sel {
			if anyNull(a, int(i)) {
				out.Null[i] = true
				continue
			}
			rows = append(rows, i)
			for k, t := range m.sig.Args {
				if t == catalog.Varchar {
					text += len(a[k].S[i])
				}
			}
		}
		if len(rows) == 0 {
			return
		}
		in, err := h.get()
		if err != nil {
			perRow(a, out)
			return
		}
		n := len(rows)
		argBytes, resBytes := n*nargs*8, n*8
		total := argBytes + resBytes + text
		if in.alloc == nil || in.reserve(uint32(total)) != nil {
			h.drop()
			perRow(a, out)
			return
		}
		view, ok := in.mem.Read(in.buf, uint32(total))
		if !ok {
			h.drop()
			perRow(a, out)
			return
		}
		at := argBytes + resBytes
		for r, i := range rows {
			for k, t := range m.sig.Args {
				var x uint64
				switch t {
				case catalog.BigInt:
					x = uint64(a[k].I[i])
				case catalog.Double:
					x = math.Float64bits(a[k].F[i])
				case catalog.Boolean:
					if a[k].B[i] {
						x = 1
					}
				default:
					s := a[k].S[i]
					copy(view[at:], s)
					x = uint64(in.buf+uint32(at))<<32 | uint64(len(s))
					at += len(s)
				}
				le.LittleEndian.PutUint64(view[(r*nargs+k)*8:], x)
			}
		}
		stack[0], stack[1], stack[2] = uint64(n), uint64(in.buf), uint64(in.buf+uint32(argBytes))
		in.calls.Add(1)
		err = in.batch.CallWithStack(in.ctx, stack)
		in.calls.Add(1)
		var res []byte
		if err == nil {
			res, ok = in.mem.Read(in.buf+uint32(argBytes), uint32(resBytes)) // again: the call may have grown memory
		}
		if err != nil || !ok {
			h.drop()
			perRow(a, out)
			return
		}
		for r, i := range rows {
			out.Null[i] = !in.setResult(m.sig.Result, le.LittleEndian.Uint64(res[r*8:]), out, int(i))
			if out.Null[i] {
				fails.fail(m.name, int(i), "the result's text is out of the memory's bounds", false)
			}
		}
	}
}
