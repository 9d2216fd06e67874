package vector

import (
	"encoding/binary"
	"math"

	"streamql/catalog"
)

// AppendBinary appends row i of v (a value of v's type, not NULL) to dst in
// a compact binary form that ReadBinary reads back exactly: every element
// keeps its type and value (a DOUBLE its bits, NaN and -0.0 included; a
// TIMESTAMP its milliseconds), which a JSON text would not. It is how
// operators that keep rows as bytes (executor/op.Rows: a join's held rows,
// a Top-N's state) keep an ARRAY, MAP or ROW value (SPEC 2.10: nested
// values pass whole through every operator). The form: BIGINT, TIMESTAMP
// and DOUBLE 8 bytes little-endian, BOOLEAN 1 byte, VARCHAR a uvarint length
// then its bytes, ARRAY and MAP a uvarint count then each element (a MAP's
// key, then its value), ROW its fields in order; inside a nested value each
// element or field starts with a byte, 1 when it is NULL (nothing follows)
// and 0 when not.
func AppendBinary(dst []byte, v *Vec, i int) []byte {
	switch v.Type {
	case catalog.BigInt, catalog.Timestamp:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.I[i]))
	case catalog.Double:
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F[i]))
	case catalog.Boolean:
		if v.B[i] {
			return append(dst, 1)
		}
		return append(dst, 0)
	case catalog.Varchar:
		dst = binary.AppendUvarint(dst, uint64(len(v.S[i])))
		return append(dst, v.S[i]...)
	}
	elem := func(dst []byte, k *Vec, e int) []byte {
		if k.Null[e] {
			return append(dst, 1)
		}
		return AppendBinary(append(dst, 0), k, e)
	}
	switch v.Type.Kind() {
	case catalog.KindArray, catalog.KindMap:
		off, n := v.Elems(i)
		dst = binary.AppendUvarint(dst, uint64(n))
		for e := off; e < off+n; e++ {
			for _, k := range v.Kids {
				dst = elem(dst, k, e)
			}
		}
	case catalog.KindRow:
		for _, k := range v.Kids {
			dst = elem(dst, k, i)
		}
	}
	return dst
}

// ReadBinary sets row i of v (not NULL) to the value AppendBinary wrote of
// v's type at the start of data, its elements added to v's child vectors,
// text copied into their arenas, and returns the bytes after it. data must
// be what AppendBinary wrote for that type (a malformed form panics).
func ReadBinary(v *Vec, i int, data []byte) []byte {
	v.Null[i] = false
	switch v.Type {
	case catalog.BigInt, catalog.Timestamp:
		v.I[i] = int64(binary.LittleEndian.Uint64(data))
		return data[8:]
	case catalog.Double:
		v.F[i] = math.Float64frombits(binary.LittleEndian.Uint64(data))
		return data[8:]
	case catalog.Boolean:
		v.B[i] = data[0] == 1
		return data[1:]
	case catalog.Varchar:
		n, w := binary.Uvarint(data)
		v.SetString(i, data[w:w+int(n)])
		return data[w+int(n):]
	}
	elem := func(k *Vec, e int, data []byte) []byte {
		if data[0] == 1 {
			k.Null[e] = true
			return data[1:]
		}
		return ReadBinary(k, e, data[1:])
	}
	switch v.Type.Kind() {
	case catalog.KindArray, catalog.KindMap:
		n, w := binary.Uvarint(data)
		data = data[w:]
		v.Off[i], v.Len[i] = int32(v.Kids[0].Used), int32(n)
		for range n {
			for _, k := range v.Kids {
				data = elem(k, k.AddElem(), data)
			}
		}
	case catalog.KindRow:
		for _, k := range v.Kids {
			data = elem(k, i, data)
		}
	}
	return data
}
