//go:build wasip1

// Command count_char is Nexmark q14's user-defined function count_char(s
// VARCHAR, c VARCHAR) BIGINT as a WebAssembly module for CREATE FUNCTION
// (SPEC 2.10), written to streamql's WASM ABI (executor/expr/wasmudf.go):
//
//	alloc(size i32) i32               memory for the arguments' text
//	dealloc(ptr i32, size i32)        frees it
//	count_char(sp, sl, cp, cl i32) i64 the function: s and c as pointer+length
//	count_char_signature() i64        "(VARCHAR, VARCHAR) BIGINT", ptr<<32 | len
//	count_char_batch(n, args, res i32) n rows at once (the batch ABI,
//	                                  executor/expr/wasmbatch.go)
//
// Rebuild it (count_char.wasm, committed next to this file) with
//
//	scripts/build-udf-wasm
//
// which runs GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath
// -ldflags=-s -o queries/udf/count_char/count_char.wasm ./queries/udf/count_char
package main

import (
	"math/bits"
	"unsafe"
)

// live keeps the buffers alloc handed out until dealloc, so that Go's
// collector does not free them while the host writes into them.
var live = map[uintptr][]byte{}

//go:wasmexport alloc
func alloc(size uint32) uint32 {
	b := make([]byte, max(size, 1))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	live[p] = b
	return uint32(p)
}

//go:wasmexport dealloc
func dealloc(ptr, size uint32) {
	delete(live, uintptr(ptr))
}

// text is the host's bytes at ptr, n bytes long, without a copy.
func text(ptr, n uint32) string {
	if n == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Pointer(uintptr(ptr))), n)
}

// countChar counts the occurrences of c in s, as Nexmark's CountChar (c is
// one character there; a longer c counts its non-overlapping occurrences, an
// empty c gives 0).
//
//go:wasmexport count_char
func countChar(sp, sl, cp, cl uint32) int64 {
	return count(text(sp, sl), text(cp, cl))
}

// countCharBatch is count_char over n rows: args holds per row two 8-byte
// slots (s and c, each ptr<<32 | len), res gets one 8-byte count per row.
//
//go:wasmexport count_char_batch
func countCharBatch(n, args, res uint32) {
	in := unsafe.Slice((*uint64)(unsafe.Pointer(uintptr(args))), 2*n)
	out := unsafe.Slice((*int64)(unsafe.Pointer(uintptr(res))), n)
	for r := range out {
		s, c := in[2*r], in[2*r+1]
		out[r] = count(text(uint32(s>>32), uint32(s)), text(uint32(c>>32), uint32(c)))
	}
}

// count counts the non-overlapping occurrences of c in s (countByte for
// Nexmark's one-byte c).
func count(s, c string) int64 {
	n := int64(0)
	switch len(c) {
	case 0:
		return 0
	case 1:
		return countByte(s, c[0])
	}
	for i := 0; i+len(c) <= len(s); {
		if s[i:i+len(c)] == c {
			n++
			i += len(c)
			continue
		}
		i++
	}
	return n
}

// countByte counts the bytes of s equal to b, eight at a time: in the word
// y = x ^ bbbbbbbb a byte is zero where x's equals b, and ((y & 0x7f..) +
// 0x7f..) | y | 0x7f.. has a byte's high bit clear exactly where y's byte
// is zero, so the complement's set bits count them (no carry crosses a
// byte: 0x7f + 0x7f < 0x100). WebAssembly loads may be unaligned.
func countByte(s string, b byte) int64 {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	p, n := uintptr(unsafe.Pointer(unsafe.StringData(s))), len(s)
	pat := uint64(b) * 0x0101010101010101
	c, j := 0, 0
	for ; j+8 <= n; j += 8 {
		y := *(*uint64)(unsafe.Pointer(p + uintptr(j))) ^ pat
		c += bits.OnesCount64(^(((y & lo7) + lo7) | y | lo7))
	}
	for ; j < n; j++ {
		if s[j] == b {
			c++
		}
	}
	return int64(c)
}

const signature = "(VARCHAR, VARCHAR) BIGINT"

//go:wasmexport count_char_signature
func countCharSignature() uint64 {
	return uint64(uintptr(unsafe.Pointer(unsafe.StringData(signature))))<<32 | uint64(len(signature))
}

func main() {}
