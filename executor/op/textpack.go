package op

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// textPack is how a Rows column packs its VARCHAR values (Rows.packText):
// the rows an operator keeps and prints but never compares (a Top-N's
// other columns), whose text is most of its state (issue 24: memory
// proportional to the keys). It learns from the column's first values (the
// training sample: packSampleValues values or packSampleBytes bytes) a
// prefix and a suffix most of them share, which a packed value leaves out,
// and the bytes their middles use, each of which then takes width bits
// (at most 127 bytes: 4 to 7 bits); a byte it has not seen gets a code
// while codes are left (the codes given never change, so every packed
// value reads back the same), and a value holding one beyond them keeps
// its middle as it is.
//
// A packed value is a header byte (packPrefix, packSuffix, packBits: what
// was left out, whether the middle is in codes) and the middle, raw or in
// codes of width bits, first code in the high bits, the last byte padded
// with one bits (the code of all ones ends the value: no code has it). The
// empty value stays empty (no header), so a NULL or ” costs no byte. Values
// stored before the training ended have header 0. On nexmark's bids (random
// lowercase letters, urls of one site) a value takes 60-65% of its bytes,
// and a url's shared 'https://www.nexmark.com/' and '/item.htm?query=1' a
// byte.
type textPack struct {
	trained bool
	sample  []byte    // the training values, end to end
	ends    []int     // each training value's end in sample
	prefix  []byte    // left out of the values that start with it
	suffix  []byte    // left out of the values that end with it (after the prefix)
	width   uint      // bits a code: 4 to 7; 0: middles stay raw
	code    [256]byte // each byte's code, noCode: none
	sym     []byte    // code c's byte
}

// The header bits of a packed value.
const (
	packPrefix = 1 << iota // the prefix was left out
	packSuffix             // the suffix was left out
	packBits               // the middle is in codes
)

// The training sample's bound: the values or their bytes, whichever comes
// first.
const (
	packSampleValues = 256
	packSampleBytes  = 32 << 10
)

func newTextPack() *textPack {
	p := &textPack{}
	for i := range p.code {
		p.code[i] = noCode
	}
	return p
}

// encode appends x's packed form to dst (x not empty) and returns it.
func (p *textPack) encode(dst, x []byte) []byte {
	if !p.trained {
		p.sample = append(p.sample, x...)
		p.ends = append(p.ends, len(p.sample))
		if len(p.ends) >= packSampleValues || len(p.sample) >= packSampleBytes {
			p.train()
		}
		return append(append(dst, 0), x...)
	}
	var head byte
	if len(p.prefix) > 0 && bytes.HasPrefix(x, p.prefix) {
		x, head = x[len(p.prefix):], head|packPrefix
	}
	if len(p.suffix) > 0 && bytes.HasSuffix(x, p.suffix) {
		x, head = x[:len(x)-len(p.suffix)], head|packSuffix
	}
	h := len(dst)
	if w := p.width; w > 0 && len(x) > 0 {
		// the codes into room made once: fewer than len(x) bytes (w < 8),
		// and 8 to spare for the last write; eight codes at a time (w
		// bytes), then 32 bits at a time
		dst = slices.Grow(dst, 1+len(x)+8)
		buf := dst[h+1 : h+1+len(x)+8]
		var acc uint64
		var nb uint
		o := 0
		code := &p.code
		mid := x // (x as it was, for a middle that stays raw)
		for len(x) >= 8 {
			k0, k1, k2, k3 := code[x[0]], code[x[1]], code[x[2]], code[x[3]]
			k4, k5, k6, k7 := code[x[4]], code[x[5]], code[x[6]], code[x[7]]
			if (k0|k1|k2|k3|k4|k5|k6|k7)&0x80 != 0 { // (a byte without a code: the loop below gives it one)
				break
			}
			v := uint64(k0)<<(7*w) | uint64(k1)<<(6*w) | uint64(k2)<<(5*w) | uint64(k3)<<(4*w) |
				uint64(k4)<<(3*w) | uint64(k5)<<(2*w) | uint64(k6)<<w | uint64(k7)
			binary.BigEndian.PutUint64(buf[o:], v<<(64-8*w))
			o += int(w)
			x = x[8:]
		}
		for _, c := range x {
			k := p.code[c]
			if k == noCode {
				if k = p.give(c); k == noCode {
					return append(append(dst[:h], head), mid...)
				}
			}
			acc = acc<<w | uint64(k)
			if nb += w; nb >= 32 {
				nb -= 32
				binary.BigEndian.PutUint32(buf[o:], uint32(acc>>nb))
				o += 4
			}
		}
		if nb > 0 { // (the last bits, padded with ones: the end code)
			pad := (8 - nb%8) % 8
			last := acc<<pad | (1<<pad - 1)
			for nb += pad; nb > 0; nb -= 8 {
				buf[o] = byte(last >> (nb - 8))
				o++
			}
		}
		dst = dst[:h+1+o]
		dst[h] = head | packBits
		return dst
	}
	return append(append(dst, head), x...)
}

// noCode is textPack.code's entry of a byte without a code.
const noCode = 0xff

// give gives byte c the next free code and returns it, or noCode when none
// is left (the code of all ones ends a value).
func (p *textPack) give(c byte) byte {
	if len(p.sym) >= 1<<p.width-1 {
		return noCode
	}
	p.code[c] = byte(len(p.sym))
	p.sym = append(p.sym, c)
	return p.code[c]
}

// decode appends the value enc packs (encode's result, or empty) to dst.
func (p *textPack) decode(dst, enc []byte) []byte {
	if len(enc) == 0 {
		return dst
	}
	head, x := enc[0], enc[1:]
	if head&packPrefix != 0 {
		dst = append(dst, p.prefix...)
	}
	if head&packBits == 0 {
		dst = append(dst, x...)
	} else {
		w := p.width
		end := uint64(1)<<w - 1
		n := len(dst)
		dst = slices.Grow(dst, len(x)*8/int(w))
		out := dst[n : n+len(x)*8/int(w)]
		o := 0
		var acc uint64
		var nb uint
		sym := p.sym
		// eight codes (w bytes) at a time while a byte follows them: the
		// end code is in the last byte only
		for len(x) >= 8 && len(out)-o >= 8 {
			v := binary.BigEndian.Uint64(x) >> (64 - 8*w)
			out[o] = sym[v>>(7*w)&end]
			out[o+1] = sym[v>>(6*w)&end]
			out[o+2] = sym[v>>(5*w)&end]
			out[o+3] = sym[v>>(4*w)&end]
			out[o+4] = sym[v>>(3*w)&end]
			out[o+5] = sym[v>>(2*w)&end]
			out[o+6] = sym[v>>w&end]
			out[o+7] = sym[v&end]
			o += 8
			x = x[w:]
		}
	done:
		for len(x) > 0 {
			if len(x) >= 4 {
				acc = acc<<32 | uint64(binary.BigEndian.Uint32(x))
				x, nb = x[4:], nb+32
			} else {
				acc = acc<<8 | uint64(x[0])
				x, nb = x[1:], nb+8
			}
			for nb >= w {
				nb -= w
				k := acc >> nb & end
				if k == end {
					break done
				}
				out[o] = sym[k]
				o++
			}
		}
		dst = dst[:n+o]
	}
	if head&packSuffix != 0 {
		dst = append(dst, p.suffix...)
	}
	return dst
}

// train chooses the prefix, the suffix and the codes from the sample.
func (p *textPack) train() {
	p.trained = true
	vals := make([][]byte, len(p.ends))
	for i, from := range p.ends {
		start := 0
		if i > 0 {
			start = p.ends[i-1]
		}
		vals[i] = p.sample[start:from]
	}
	p.prefix = bytes.Clone(sharedEnd(vals, false))
	var counts [256]int
	for i, v := range vals {
		vals[i] = bytes.TrimPrefix(v, p.prefix)
	}
	p.suffix = bytes.Clone(sharedEnd(vals, true))
	for _, v := range vals {
		for _, c := range bytes.TrimSuffix(v, p.suffix) {
			counts[c]++
		}
	}
	used := 0
	for _, n := range counts {
		if n > 0 {
			used++
		}
	}
	for w := uint(4); w <= 7; w++ {
		if used <= 1<<w-1 {
			p.width = w
			break
		}
	}
	if p.width > 0 {
		for c, n := range counts { // (the codes in byte order: the middles' bytes first)
			if n > 0 {
				p.give(byte(c))
			}
		}
	}
	p.sample, p.ends = nil, nil
}

// sharedEnd returns the prefix (suffix: the suffix) of one of the first
// values that saves the most bytes over vals (its length times the values
// that have it), at least 4 bytes and shared by a quarter of them, or nil.
func sharedEnd(vals [][]byte, suffix bool) []byte {
	var best []byte
	bestSave := 0
	lens := make([]int, len(vals))
	for _, ref := range vals[:min(8, len(vals))] {
		for i, v := range vals {
			lens[i] = sharedLen(ref, v, suffix)
		}
		// the best length: each length l saves l times the values sharing at least l
		sorted := append([]int(nil), lens...)
		for i := 1; i < len(sorted); i++ { // (insertion sort, descending: at most packSampleValues)
			for j := i; j > 0 && sorted[j] > sorted[j-1]; j-- {
				sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
			}
		}
		for i, l := range sorted {
			if l >= 4 && 4*(i+1) >= len(vals) && l*(i+1) > bestSave {
				bestSave = l * (i + 1)
				if suffix {
					best = ref[len(ref)-l:]
				} else {
					best = ref[:l]
				}
			}
		}
	}
	return best
}

// sharedLen returns the length of the prefix (suffix: suffix) a and b share.
func sharedLen(a, b []byte, suffix bool) int {
	n := min(len(a), len(b))
	i := 0
	if suffix {
		for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
			i++
		}
		return i
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
