package textconv

import (
	"encoding/binary"
	"math/bits"
)

// AppendInt appends x in decimal (SPEC 4's BIGINT: digits, a leading '-'
// when negative) and returns the extended buffer: the bytes of
// strconv.AppendInt(dst, x, 10), written in place two digits at a time
// (up to eight digits as one store, nine to sixteen as two),
// without strconv's intermediate buffer and copy (issue 24: a changelog's
// counts and keys are most of its csv). It allocates nothing when dst has
// room for 20 bytes.
func AppendInt(dst []byte, x int64) []byte {
	u := uint64(x)
	if x < 0 {
		dst = append(dst, '-')
		u = -u // (MinInt64: 1<<63, as it should)
	}
	n := decimalLen(u)
	if u < 10000 && cap(dst)-len(dst) >= 4 {
		// up to four digits as one 4-byte store, the leading zeros shifted
		// out: no branch on the number of digits (a changelog's counts and
		// keys, mostly short, vary in length from row to row)
		w := fourDigits(u)
		l := len(dst)
		binary.LittleEndian.PutUint32(dst[l:l+4], w>>(8*(4-n)))
		return dst[:l+n]
	}
	if u < 1e8 && cap(dst)-len(dst) >= 8 {
		// five to eight digits (a table's ids, a click's user) as one 8-byte
		// store, the same way: two groups of four, the leading zeros
		// shifted out
		l := len(dst)
		binary.LittleEndian.PutUint64(dst[l:l+8], eightDigits(u)>>(8*(8-n)&63))
		return dst[:l+n]
	}
	if u >= 1e8 && u < 1e16 && cap(dst)-len(dst) >= 16 {
		// nine to sixteen digits (an epoch-millisecond time has thirteen:
		// the interval join's output, issue 23) as two 8-byte stores: the
		// first n-8 digits, the leading zeros of their group shifted out,
		// then the last eight, over the first store's zeros
		hi := u / 1e8
		l, nh := len(dst), n-8
		binary.LittleEndian.PutUint64(dst[l:l+8], eightDigits(hi)>>(8*(8-nh)&63))
		binary.LittleEndian.PutUint64(dst[l+nh:l+nh+8], eightDigits(u-hi*1e8))
		return dst[:l+n]
	}
	l := len(dst) + n
	if l > cap(dst) {
		dst = append(dst, make([]byte, n)...)
	}
	dst = dst[:l]
	d := dst[l-n : l]
	i := n
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		d[i], d[i+1] = twoDigits[r], twoDigits[r+1]
		u = q
	}
	if u >= 10 {
		d[0], d[1] = twoDigits[2*u], twoDigits[2*u+1]
	} else {
		d[0] = byte('0' + u)
	}
	return dst
}

// fourDigits returns u (below 10,000) as four ASCII digits, leading zeros
// included, in a word whose lowest byte is the first digit (a little-endian
// store writes them in order).
func fourDigits(u uint64) uint32 {
	q := u / 100
	r := u - q*100
	return uint32(twoDigits[2*q]) | uint32(twoDigits[2*q+1])<<8 |
		uint32(twoDigits[2*r])<<16 | uint32(twoDigits[2*r+1])<<24
}

// eightDigits returns u (below 10^8) as eight ASCII digits, leading zeros
// included, in a word whose lowest byte is the first digit, computed in
// the word's lanes (no table loads): u's two groups of four digits in its
// 32-bit halves, each group's two pairs of digits in 16-bit lanes
// (x*10486>>20 is x/100 below 43,699), each pair's two digits in bytes
// (x*103>>10 is x/10 below 179); no lane's product reaches the next lane.
func eightDigits(u uint64) uint64 {
	hi := u / 1e4
	v := hi | (u-hi*1e4)<<32
	q := v * 10486 >> 20 & 0x0000007f0000007f
	v = q | (v-q*100)<<16
	q = v * 103 >> 10 & 0x000f000f000f000f
	v = q | (v-q*10)<<8
	return v | 0x3030303030303030
}

// decimalLen is the number of decimal digits of u (1 for 0).
func decimalLen(u uint64) int {
	t := (bits.Len64(u|1) * 1233) >> 12 // about log10(u), maybe one less (at most 19)
	t += int((pow10[t] - 1 - u) >> 63)  // one more when u >= 10^t (u < 10^19 + 2^63: no wrap past it)
	return max(t, 1)
}

// pow10 holds 10^0 to 10^19, every power of ten a uint64 holds.
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// twoDigits holds "00" to "99".
const twoDigits = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"
