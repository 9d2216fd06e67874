package textconv

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendIntAsStrconv: AppendInt's bytes are strconv.AppendInt's for
// every number of digits and sign, the powers of ten and their neighbours,
// the int64 bounds, random values and random values of 5 to 8 and of 9 to 16 digits, appended after text already in the
// buffer, with and without room in it; and it allocates nothing with room.
func TestAppendIntAsStrconv(t *testing.T) {
	xs := []int64{0, 1, -1, 9, 10, 11, 99, 100, 101, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		xs = append(xs, p-1, p, p+1, -p+1, -p, -p-1, 10*p-1)
	}
	for x := int64(-100000); x <= 100000; x++ { // (every number of up to five digits: the 4-byte store's)
		xs = append(xs, x)
	}
	r := rand.New(rand.NewPCG(24, 4))
	for range 200000 { // (numbers of 5 to 8 digits: the 8-byte store's)
		x := 10000 + r.Int64N(1e8-10000)
		xs = append(xs, x, -x)
	}
	for range 200000 { // (numbers of 9 to 16 digits, epoch milliseconds among them: the two 8-byte stores')
		x := 1e8 + r.Int64N(1e16-1e8)
		xs = append(xs, x, -x, 1e8+r.Int64N(1e9), 1e12+r.Int64N(1e13))
	}
	for range 100000 {
		x := int64(r.Uint64() >> r.IntN(64))
		if r.IntN(2) == 0 {
			x = -x
		}
		xs = append(xs, x)
	}
	for _, x := range xs {
		want := strconv.AppendInt([]byte("a,"), x, 10)
		if got := AppendInt([]byte("a,"), x); string(got) != string(want) {
			t.Fatalf("AppendInt(%d) = %q, want %q", x, got, want)
		}
		if got := AppendInt(make([]byte, 2, 64), x)[2:]; string(got) != string(want[2:]) {
			t.Fatalf("AppendInt(%d) with room = %q, want %q", x, got, want[2:])
		}
	}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = AppendInt(buf[:0], math.MinInt64) }); n != 0 {
		t.Fatalf("%v allocations with room", n)
	}
}

// TestEightDigits: eightDigits' word is the eight digits of every number
// below 10^8 (fourDigits of its two halves, the table's digits).
func TestEightDigits(t *testing.T) {
	for u := uint64(0); u < 1e8; u++ {
		hi := u / 1e4
		if got, want := eightDigits(u), uint64(fourDigits(hi))|uint64(fourDigits(u-hi*1e4))<<32; got != want {
			t.Fatalf("eightDigits(%d) = %016x, want %016x", u, got, want)
		}
	}
}

// BenchmarkAppendInt and BenchmarkStrconvAppendInt compare AppendInt with
// strconv.AppendInt over the numbers of 1 to 5 digits a changelog prints;
// BenchmarkAppendInt8 over numbers of 5 to 8 digits (a lookup join's ids);
// BenchmarkAppendIntMillis over epoch milliseconds.
//
//	go test ./catalog/textconv -run XXX -bench AppendInt
func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendInt(buf[:0], int64(i%20000))
	}
}

func BenchmarkStrconvAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = strconv.AppendInt(buf[:0], int64(i%20000), 10)
	}
}

func BenchmarkAppendInt8(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendInt(buf[:0], int64(10000+i%(1e8-10000)))
	}
}

// BenchmarkAppendIntMillis formats epoch milliseconds (13 digits, an
// interval join's times, issue 23).
func BenchmarkAppendIntMillis(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendInt(buf[:0], int64(1610035289740+i*12))
	}
}
