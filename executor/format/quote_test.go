package format

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestNeedsQuoteAgainstBytes: NeedsQuote's word-at-a-time scan against a
// byte-at-a-time reference (SPEC 4: empty, or holding the delimiter, a
// quote, CR or LF), over random fields of 0 to 40 bytes drawn mostly from
// the bytes that matter and their neighbours (each special byte at every
// place of a word and of the overlapping last word), for the delimiters
// the formats use and others.
func TestNeedsQuoteAgainstBytes(t *testing.T) {
	ref := func(f []byte, d byte) bool {
		if len(f) == 0 {
			return true
		}
		for _, c := range f {
			if c == d || c == '"' || c == '\n' || c == '\r' {
				return true
			}
		}
		return false
	}
	alphabet := []byte{'a', 'Z', '0', ',', '\t', ';', '|', '"', '\n', '\r', '!', '#', '+', '-', 0x0b, 0x0c, 0x09, 0x21, 0x23, 0x80, 0xff, 0x00, 0x01, 0xac, 0xa2}
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []byte{',', '\t', ';', '|', 0x00, 0xff} {
		for range 20000 {
			f := make([]byte, r.IntN(41))
			for i := range f {
				if r.IntN(4) == 0 {
					f[i] = alphabet[r.IntN(len(alphabet))]
				} else {
					f[i] = byte('a' + r.IntN(26))
				}
			}
			if got, want := NeedsQuote(f, d), ref(f, d); got != want {
				t.Fatalf("NeedsQuote(%q, %q) = %v, want %v", f, d, got, want)
			}
			if want := ref(f, d); bytes.Equal(AppendCSVField(nil, f, d), f) == want {
				t.Fatalf("AppendCSVField(%q, %q) quoted: %v, want %v", f, d, !want, want)
			}
		}
		for n := 1; n <= 24; n++ { // one special byte at each place
			for at := range n {
				for _, c := range []byte{d, '"', '\n', '\r'} {
					f := bytes.Repeat([]byte{'x'}, n)
					if d == 'x' {
						continue
					}
					f[at] = c
					if !NeedsQuote(f, d) {
						t.Fatalf("NeedsQuote(%q, %q) = false", f, d)
					}
				}
			}
			if !NeedsQuote(bytes.Repeat([]byte{'x'}, n), 'x') || NeedsQuote(bytes.Repeat([]byte{'x'}, n), d) {
				t.Fatalf("NeedsQuote of %d x's is wrong", n)
			}
		}
	}
}

// BenchmarkNeedsQuote is the benchmark suite's lookup join's VARCHAR
// values: urls, user names and country codes.
func BenchmarkNeedsQuote(b *testing.B) {
	fs := [][]byte{[]byte("/item/1234"), []byte("user12345"), []byte("DE")}
	n := 0
	for b.Loop() {
		for _, f := range fs {
			if NeedsQuote(f, ',') {
				n++
			}
		}
	}
	if n != 0 {
		b.Fatal(n)
	}
}

// BenchmarkNeedsQuoteBytes is BenchmarkNeedsQuote's byte-at-a-time
// reference, for the ratio.
func BenchmarkNeedsQuoteBytes(b *testing.B) {
	fs := [][]byte{[]byte("/item/1234"), []byte("user12345"), []byte("DE")}
	n := 0
	for b.Loop() {
		for _, f := range fs {
			for _, c := range f {
				if c == ',' || c == '"' || c == '\n' || c == '\r' {
					n++
					break
				}
			}
		}
	}
	if n != 0 {
		b.Fatal(n)
	}
}

// TestPlainIsNoQuoteForCommaAndTab: Plain, the fact a producer marks text
// with once (vector.Vec.Text), holds exactly when neither the csv nor the
// tsv delimiter makes NeedsQuote quote the field, over random fields drawn
// mostly from the bytes that matter.
func TestPlainIsNoQuoteForCommaAndTab(t *testing.T) {
	alphabet := []byte{'a', ',', '\t', ';', '|', '"', '\n', '\r', ' ', 0x00, 0xc3, 0xa9}
	r := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		f := make([]byte, r.IntN(20))
		for i := range f {
			f[i] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(3) > 0 {
				f[i] = byte('a' + r.IntN(26))
			}
		}
		if got, want := Plain(f), !NeedsQuote(f, ',') && !NeedsQuote(f, '\t'); got != want {
			t.Fatalf("Plain(%q) = %v, want %v", f, got, want)
		}
	}
}
