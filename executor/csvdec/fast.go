package csvdec

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"

	"streamql/catalog"
	"streamql/executor/vector"
)

// Fast paths of the decoder's hot loop for the common shapes of CSV text:
// records without quotes, and numbers written as plain digits. Anything else
// goes the general way (splitQuoted, textconv's parsers), which gives the same
// results for these shapes.

const (
	swarLo = 0x0101010101010101
	swar7f = 0x7f7f7f7f7f7f7f7f
	swarHi = 0x8080808080808080
)

// zeroBytes returns a word with the high bit set in exactly the bytes of x
// that are zero (no false positives: no carry crosses a byte).
func zeroBytes(x uint64) uint64 {
	return ^(((x & swar7f) + swar7f) | x) & swarHi
}

// setPlain stores field text b (not escaped; the stream has no null literal) as
// row row of v when it has a common shape that needs none of setField's rules:
// VARCHAR text that is valid UTF-8 (spaces kept, SPEC 1); BIGINT digits; DOUBLE digits[.digits]. It reports false, storing
// nothing, for anything else: setField then decides, with the same result for
// these shapes.
func setPlain(v *vector.Vec, row int, b []byte, quoted bool) bool {
	ok, _ := plainField(v, row, b, nil)
	return ok
}

// plainField is setPlain, VARCHAR text checked with texts (nil: utf8.Valid);
// printed also reports that b is byte for byte how
// the csv encoder writes the value it stored (format.AppendCSVValue, SPEC 4)
// when b holds no quote, CR or LF (the caller's to check): VARCHAR text that
// is not empty, and numbers in their printed form (vector.Vec.Text).
func plainField(v *vector.Vec, row int, b []byte, texts *shortTexts) (ok, printed bool) {
	switch v.Type {
	case catalog.Varchar:
		if !texts.valid(b) {
			return false, false
		}
		v.S[row] = b[:len(b):len(b)]
		printed = len(b) > 0
		if v.Text != nil {
			v.Text[row] = nil // (not marked here: plainRow marks, Batch.PlainMarks)
		}
	case catalog.BigInt:
		x, ok := digitsInt(b)
		if !ok {
			return false, false
		}
		v.I[row] = x
		printed = len(b) == 1 || b[0] != '0' // as strconv prints it
		if v.Text != nil {
			keepText(v, row, b, printed)
		}
	case catalog.Double:
		x, frac, ok := plainDecimal(b)
		if !ok {
			return false, false
		}
		v.F[row] = x
		printed = javaPlain(b, frac)
		if v.Text != nil {
			keepText(v, row, b, printed)
		}
	default:
		return false, false
	}
	v.Null[row] = false
	return true, printed
}

// keepText sets row's number text (vector.Vec.Text, not nil) to b when b is
// the value's printed form, else to nil (the encoder formats the value).
func keepText(v *vector.Vec, row int, b []byte, printed bool) {
	var t []byte
	if printed {
		t = b[:len(b):len(b)]
	}
	v.Text[row] = t
}

// plainRecords turns recordPlain on; the tests turn it off to compare with
// the general path.
var plainRecords = true

// recordPlain stores rec, a record without quoted fields, as row row of cols
// (the stream's columns, in order) when it has exactly len(cols) fields split
// at delim, each of a shape plainField takes: splitting and storing in one
// pass, without the field list. ok is false for any other record, with some
// of its fields stored: the general path (splitUnquoted, setField) stores the
// row again and decides. line reports that rec is byte for byte the row's csv
// encoding with delimiter delim (vector.Batch.Line: SPEC 4 csv) when it holds
// no quote (the caller's to check): no CR in it and every field printed
// (plainField).
func recordPlain(cols []*vector.Vec, row int, rec []byte, delim byte, texts *shortTexts) (ok, line bool) {
	if len(cols) == 0 {
		return false, false
	}
	pat := uint64(delim) * swarLo
	const crPat = '\r' * swarLo
	var cr uint64
	line = true
	j, start, i := 0, 0, 0
	last := len(cols) - 1
	for ; i+8 <= len(rec); i += 8 {
		w := binary.LittleEndian.Uint64(rec[i:])
		cr |= zeroBytes(w ^ crPat)
		for z := zeroBytes(w ^ pat); z != 0; z &= z - 1 {
			k := i + bits.TrailingZeros64(z)>>3
			if j == last {
				return false, false // more fields than columns
			}
			ok, printed := plainField(cols[j], row, rec[start:k], texts)
			if !ok {
				return false, false
			}
			line = line && printed
			j++
			start = k + 1
		}
	}
	// The last bytes one at a time, each field stored as above: written out
	// twice on purpose (a helper, or the tail read as a padded word, measured
	// 3 ns a row slower).
	for ; i < len(rec); i++ {
		switch rec[i] {
		case '\r':
			cr = 1
		case delim:
			if j == last {
				return false, false
			}
			ok, printed := plainField(cols[j], row, rec[start:i], texts)
			if !ok {
				return false, false
			}
			line = line && printed
			j++
			start = i + 1
		}
	}
	if j != last {
		return false, false // fewer fields than columns
	}
	ok, printed := plainField(cols[j], row, rec[start:], texts)
	return ok, ok && line && printed && cr == 0
}

// shortTexts remembers short texts found valid UTF-8 (SPEC 1: VARCHAR fields
// must be), so the repeated values of a column (device names, codes) are
// checked once. A text of at most 8 bytes is its bytes as one word, w: its
// bytes past its length are zeros, and zeros (ASCII NUL) change no text's
// validity, so w decides it. A direct-mapped table of such words, each one
// that utf8.Valid accepted; a decoder's own (not safe for concurrent use).
type shortTexts struct{ seen [64]uint64 }

// valid reports whether b is valid UTF-8, as utf8.Valid (t nil: utf8.Valid
// itself). A text of 1 to 8 bytes with 8 bytes readable from its start (cap)
// is read as one word: ASCII at once, else looked up, else checked and
// remembered; a longer one is validLong's.
func (t *shortTexts) valid(b []byte) bool {
	n := len(b)
	if t == nil || n == 0 || n > 8 || cap(b) < 8 {
		return validLong(b)
	}
	return t.validWord(binary.LittleEndian.Uint64(b[:8]), b)
}

// validLong is utf8.Valid, but a text of 9 to 16 bytes whose first and last
// 8 bytes are ASCII (a url, a name) is valid at once, two words read.
func validLong(b []byte) bool {
	if n := len(b); n > 8 && n <= 16 && (binary.LittleEndian.Uint64(b)|binary.LittleEndian.Uint64(b[n-8:]))&swarHi == 0 {
		return true
	}
	return utf8.Valid(b)
}

// validWord is valid for b of 1 to 8 bytes, w the 8 bytes at its start.
func (t *shortTexts) validWord(w uint64, b []byte) bool {
	if n := len(b); n < 8 {
		w &= 1<<(8*uint(n)&63) - 1 // (&63: no check for 64 and more)
	}
	if w&swarHi == 0 {
		return true // ASCII
	}
	h := (w * 0x9E3779B97F4A7C15) >> 58 // (Fibonacci hashing: the top 6 bits)
	if t.seen[h] == w {                 // (an empty slot's 0 is ASCII: never looked up)
		return true
	}
	if !utf8.Valid(b) {
		return false
	}
	t.seen[h] = w
	return true
}

// splitUnquoted appends the fields of rec, a record without quoted fields,
// split at delim, to fs. It stores at most ncols fields and returns fs and the
// number of fields rec has (more than ncols when it has extra ones).
func splitUnquoted(fs []field, rec []byte, delim byte, ncols int) ([]field, int) {
	pat := uint64(delim) * swarLo
	start, i := 0, 0
	for ; i+8 <= len(rec); i += 8 {
		z := zeroBytes(binary.LittleEndian.Uint64(rec[i:]) ^ pat)
		for z != 0 {
			j := i + bits.TrailingZeros64(z)>>3
			fs = append(fs, field{b: rec[start:j]})
			start = j + 1
			if len(fs) == ncols {
				return fs, ncols + 1 + countByte(rec[start:], delim)
			}
			z &= z - 1
		}
	}
	for ; i < len(rec); i++ {
		if rec[i] == delim {
			fs = append(fs, field{b: rec[start:i]})
			start = i + 1
			if len(fs) == ncols {
				return fs, ncols + 1 + countByte(rec[start:], delim)
			}
		}
	}
	fs = append(fs, field{b: rec[start:]})
	return fs, len(fs)
}

func countByte(b []byte, c byte) int {
	n := 0
	for _, x := range b {
		if x == c {
			n++
		}
	}
	return n
}

// digitsInt reads b when it is 1 to 18 ASCII digits (no sign, no spaces: the
// value cannot overflow); ok is false for anything else. From 8 digits on,
// words of eight are read (wordDigitsInt); fewer a digit at a time (b may be
// the last bytes of its buffer: no word is loaded past it).
func digitsInt(b []byte) (int64, bool) {
	if len(b) >= 8 {
		return wordDigitsInt(binary.LittleEndian.Uint64(b), b)
	}
	var n uint64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	return int64(n), len(b) > 0
}

// wordDigitsInt is digitsInt(b) where w is b's first eight bytes loaded
// little-endian (the field's word, with the bytes after b in it when b is
// shorter), in words of eight digits (eightDigits), a word's first h digits
// moved to its top, its other bytes '0': one to eight digits (a table's
// ids, a click's user, issue 23) as one word, w, without a loop a digit;
// nine to sixteen as two, w's first h and the last eight; seventeen and
// eighteen as three, w, the one or two after it and the last eight. Called
// in plainRow's place of digitsInt, which has no word for a field (not
// inlined: inlined, its paths cost plainRow's other columns registers, 11
// instructions a row more for the split job's 13-digit ts, cachegrind).
//
//go:noinline
func wordDigitsInt(w uint64, b []byte) (int64, bool) {
	// head is eightDigits of x's first h digits (1 to 8), moved up, below
	// them '0's (masked shifts: h 8 shifts by 0 and 64)
	head := func(x uint64, h uint) (uint64, bool) {
		return eightDigits(x<<(8*(8-h)&63) | 0x0030303030303030>>(8*(h-1)&63))
	}
	n := uint(len(b))
	if n-1 < 8 {
		u, ok := head(w, n)
		return int64(u), ok
	}
	if n-9 < 8 {
		h := n - 8
		hi, ok1 := head(w, h)
		lo, ok2 := eightDigits(binary.LittleEndian.Uint64(b[h:]))
		return int64(hi*1e8 + lo), ok1 && ok2
	}
	if n-17 < 2 {
		m := n - 16
		hi, ok1 := eightDigits(w)
		mid, ok2 := head(binary.LittleEndian.Uint64(b[8:]), m)
		lo, ok3 := eightDigits(binary.LittleEndian.Uint64(b[n-8:]))
		scale := uint64(10)
		if m == 2 {
			scale = 100
		}
		return int64((hi*scale+mid)*1e8 + lo), ok1 && ok2 && ok3
	}
	return 0, false
}

// eightDigits reads x, eight bytes loaded little-endian (the first byte
// lowest), as eight ASCII digits: their value, or ok false when a byte is not
// a digit. The digits are combined in pairs, then fours, then the eight, with
// three multiplications (the SWAR method of simdjson's parse_eight_digits).
func eightDigits(x uint64) (uint64, bool) {
	// Every byte in '0'..'9': its high nibble is 3, and adding 6 keeps it 3.
	if x&0xF0F0F0F0F0F0F0F0|(x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0>>4 != 0x3333333333333333 {
		return 0, false
	}
	x -= 0x3030303030303030
	x = x*10 + x>>8 // byte 2k: digits 2k, 2k+1 as a number 0..99
	x = ((x&0x000000FF000000FF)*(100+1000000<<32) + (x>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
	return x & 0xFFFFFFFF, true
}

// fastPow10 are the powers of ten plainDecimal divides by, exact in float64.
var fastPow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// plainDecimal reads b when it is digits[.digits] with at most 15 digits in all
// (no sign, no spaces, no exponent): the digits and the power of ten are exact
// in float64, so one division is correctly rounded (Clinger's fast path, as
// textconv.ParseDouble's). frac is the index of the '.', or -1 without one. ok
// is false for anything else.
func plainDecimal(b []byte) (x float64, frac int, ok bool) {
	frac = -1
	if len(b) == 0 || len(b) > 16 {
		return 0, frac, false
	}
	var mant uint64
	for i, c := range b {
		d := c - '0'
		if d <= 9 {
			mant = mant*10 + uint64(d)
			continue
		}
		if c != '.' || frac >= 0 || i == 0 || i == len(b)-1 {
			return 0, -1, false
		}
		frac = i
	}
	if frac < 0 {
		if len(b) > 15 {
			return 0, frac, false
		}
		return float64(mant), frac, true
	}
	return float64(mant) / fastPow10[len(b)-frac-1], frac, true
}

// shortDecimal is plainDecimal for b of 1 to 8 bytes, w the 8 bytes at its
// start, without a loop: the '.' is found in the word and taken out, and the
// digits left are read as one word of eight (eightDigits, padded with leading
// zeros). Same results as plainDecimal for every such b.
func shortDecimal(w uint64, b []byte) (x float64, frac int, ok bool) {
	// (shift counts are masked with 63 where they are below 64 anyway: Go
	// then leaves out its check for counts of 64 and more)
	n := uint(len(b))
	if n < 8 {
		w &= 1<<(8*n&63) - 1
	}
	const dotPat = '.' * swarLo
	dots := zeroBytes(w ^ dotPat) // (the bytes past b are 0: never '.')
	digits, k := w, n
	frac = -1
	if dots != 0 {
		p := uint(bits.TrailingZeros64(dots) >> 3)
		if dots&(dots-1) != 0 || p == 0 || p == n-1 {
			return 0, -1, false // two dots, or one first or last
		}
		low := uint64(1)<<(8*p&63) - 1
		digits = w&low | w>>8&^low
		k, frac = n-1, int(p)
	}
	// the k digits moved to the top of a word whose other bytes are '0'
	// ('0's >> 8k is >> (8k-1) >> 1: 0 for k = 8)
	mant, ok := eightDigits(digits<<(8*(8-k)&63) | 0x3030303030303030>>((8*k-1)&63)>>1)
	if !ok {
		return 0, -1, false
	}
	if frac < 0 {
		return float64(mant), -1, true
	}
	return float64(mant) / fastPow10[k-uint(frac)], frac, true
}

// javaPlain reports whether b, a decimal plainDecimal read (frac the index of
// its '.'), is byte for byte how textconv.AppendDouble prints its value (SPEC 4
// values: Java's Double.toString), so an encoder may copy it (vector.Vec.Text):
// a '.', an integer part of 1 to 7 digits without a leading zero (0 ≤ x < 1e7),
// at least one fraction digit and no trailing zero but in "d.0", and for 0.x at
// least 1e-3 or 0.0 (Java writes smaller numbers with an exponent). With at
// most 15 significant digits the decimal is the shortest that reads back to
// its double: two decimals of 15 digits never share one.
func javaPlain(b []byte, frac int) bool {
	if frac < 1 || frac > 7 || (b[0] == '0' && frac > 1) {
		return false
	}
	last := len(b) - 1
	if b[last] == '0' && last != frac+1 {
		return false
	}
	if b[0] == '0' && last > frac+1 { // 0.ddd: 1e-3 or more
		return b[2] != '0' || b[3] != '0' || (last > 3 && b[4] != '0')
	}
	return true
}

// plainRow is recordPlain for the record at data[s:], which needs no field
// list and no second pass: each field's end (the next delimiter, or the LF
// for the last column) is found a word at a time from its start, and its
// first word serves its check. cols are the stream's columns, each VARCHAR,
// BIGINT or DOUBLE (plainKinds). lf is the index of the record's LF in data:
// the record is data[s:lf] without a CR before the LF; lf is -1 when a word
// past the record would not be in data (the record near data's end: the
// caller takes it the other way). ok and line are recordPlain's for that
// record (keepLine false: line not computed); ok false leaves some of its
// fields stored, and lf then is not meaningful but -1. Its stores repeat
// plainField's on purpose: plainField called for each field measured 9% more
// instructions a row (cachegrind, BenchmarkDecodeNoText) and 5-9% more CPU
// time for the TUMBLE job of issue 11.
func plainRow(cols []*vector.Vec, row int, data []byte, s int, delim byte, texts *shortTexts, keepLine bool) (lf int, ok, line bool) {
	const lfPat = '\n' * swarLo
	const crPat = '\r' * swarLo
	dp := uint64(delim) * swarLo
	last := len(cols) - 1
	line = keepLine
	base := unsafe.Pointer(unsafe.SliceData(data))
	for j, v := range cols {
		if s+8 > len(data) {
			return -1, false, false
		}
		w := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(base, s))[:]) // (data[s:s+8], checked above)
		e, x := s, w
		var m, ml uint64
		for {
			ml = zeroBytes(x ^ lfPat)
			if m = zeroBytes(x^dp) | ml; m != 0 {
				break
			}
			e += 8
			if e+8 > len(data) {
				return -1, false, false
			}
			x = binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(base, e))[:]) // (data[e:e+8], checked above)
		}
		e += bits.TrailingZeros64(m) >> 3
		// data[s:e:e] (e < len(data))
		f := unsafe.Slice((*byte)(unsafe.Add(base, s)), e-s)
		if ml&m&-m != 0 { // (the field ends at the LF)
			if j != last {
				return 0, false, false // fewer fields than columns
			}
			if len(f) > 0 && f[len(f)-1] == '\r' {
				f = f[:len(f)-1] // (the record ends in CRLF)
			}
		} else if j == last {
			return 0, false, false // more fields than columns
		}
		switch v.Type {
		case catalog.Varchar:
			if len(f) > 0 && len(f) <= 8 {
				if !texts.validWord(w, f) {
					return 0, false, false
				}
				if keepLine && zeroBytes(w^crPat)&(1<<(8*uint(len(f)))-1) != 0 {
					line = false // a CR is data in a field: not the csv encoding
				}
			} else {
				if !validLong(f) {
					return 0, false, false
				}
				if keepLine && (len(f) == 0 || bytes.IndexByte(f, '\r') >= 0) {
					line = false
				}
			}
			v.S[row] = f // (its cap is its length)

			if v.Text != nil { // (Batch.PlainMarks: Decoder.Prepare)
				// f (no '"': a record before the first quote, Plain) is
				// marked when not empty and without a comma or a control
				// character, a word at a time (notPlain): w, then the
				// words after it, the last one overlapping the one before
				var mark []byte
				if n := len(f); n > 0 {
					bad := notPlain(w)
					if n < 8 {
						bad &= 1<<(8*uint(n)&63) - 1 // (f's bytes only)
					}
					for i := 8; i < n; i += 8 {
						bad |= notPlain(binary.LittleEndian.Uint64(f[min(i, n-8):]))
					}
					if bad == 0 {
						mark = f
					}
				}
				v.Text[row] = mark
			}
		case catalog.BigInt:
			x, ok := wordDigitsInt(w, f)
			if !ok {
				return 0, false, false
			}
			v.I[row] = x
			if v.Text != nil || keepLine {
				printed := len(f) == 1 || f[0] != '0' // as strconv prints it
				line = line && printed
				if v.Text != nil {
					keepText(v, row, f, printed)
				}
			}
		default: // catalog.Double (plainKinds)
			var x float64
			var frac int
			var ok bool
			if len(f) > 0 && len(f) <= 8 {
				x, frac, ok = shortDecimal(w, f)
			} else {
				x, frac, ok = plainDecimal(f)
			}
			if !ok {
				return 0, false, false
			}
			v.F[row] = x
			if v.Text != nil || keepLine {
				printed := javaPlain(f, frac)
				line = line && printed
				if v.Text != nil {
					keepText(v, row, f, printed)
				}
			}
		}
		v.Null[row] = false
		s = e + 1
	}
	return s - 1, true, line
}

// notPlain sets the high bit of the lowest byte of x that is a comma or a
// control character (below 0x20: tab, CR, LF), and maybe of bytes above
// it, but of no byte when x has none (the borrows of the subtractions run
// upward only from such a byte): so a field's words, masked to its bytes,
// are all 0 exactly when it holds none, and a VARCHAR text that is not
// empty, holds no '"' and none of these is format.Plain (plainRow marks
// it, vector.Batch.PlainMarks). Stricter than Plain (other control
// characters are not marked: the encoder then checks them), cheaper than
// a test a byte each.
func notPlain(x uint64) uint64 {
	const commaPat = ',' * swarLo
	c := x ^ commaPat
	return ((x-0x20*swarLo)&^x | (c-swarLo)&^c) & swarHi
}

// plainKinds reports whether every type of types is one plainRow decodes:
// VARCHAR, BIGINT or DOUBLE.
func plainKinds(types []catalog.Type) bool {
	for _, t := range types {
		if t != catalog.Varchar && t != catalog.BigInt && t != catalog.Double {
			return false
		}
	}
	return len(types) > 0
}
