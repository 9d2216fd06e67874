package textconv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// slowDouble is AppendDouble without the plain-layout fast paths: strconv's
// shortest 'e' digits, laid out by Java's rules. It is the reference for them.
func slowDouble(f float64) string {
	var dst []byte
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var digs [24]byte
	nd, exp := shortestDigits(&digs, f)
	return string(appendJavaLayout(dst, digs[:nd], exp))
}

// TestAppendDoubleFastPaths compares the plain-layout fast paths with the
// reference on decimals with few fraction digits (the common case of sensor
// data), their neighbouring doubles, integers, and the ends of the range,
// each into a buffer without room (appended) and one with room for it.
func TestAppendDoubleFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	room := make([]byte, 2, 64)
	check := func(f float64) {
		t.Helper()
		if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return
		}
		for _, x := range []float64{f, -f, math.Nextafter(f, 0), math.Nextafter(f, math.Inf(1))} {
			got, want := string(AppendDouble(nil, x)), slowDouble(x)
			if got != want {
				t.Fatalf("AppendDouble(%v, %016x) = %q, want %q", x, math.Float64bits(x), got, want)
			}
			if got := string(AppendDouble(room[:2], x)[2:]); got != want { // (with room: appendFixed's 8-byte stores)
				t.Fatalf("AppendDouble(%v, %016x) with room = %q, want %q", x, math.Float64bits(x), got, want)
			}
		}
	}
	for _, f := range []float64{1e-3, 1e7, 9999999, 9999999.5, 0.0015, 0.001953125, 1, 10, 100, 0.1, 0.3, 2.5, 1234567.8, 9999999.999999998} {
		check(f)
	}
	for i := range 500_000 {
		k := i % 12
		m := r.Int64N(int64(math.Pow(10, float64(r.IntN(16)))) + 1)
		check(float64(m) / math.Pow(10, float64(k)))
		check(r.Float64() * math.Pow(10, float64(r.IntN(11)-4)))
	}
}

func TestFewFractionDigitsCommon(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		want string
	}{{23.4, "23.4"}, {100, "100.0"}, {0.001, "0.001"}, {0.0012, "0.0012"}, {1234567, "1234567.0"}, {9999999.9, "9999999.9"}, {pointOne + pointTwo, "0.30000000000000004"}, {70.1, "70.1"}} {
		if got := string(AppendDouble(nil, tt.f)); got != tt.want {
			t.Errorf("AppendDouble(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// BenchmarkAppendDoubleSensor formats temperatures with one decimal, as the
// sensor split job prints them.
func BenchmarkAppendDoubleSensor(b *testing.B) {
	vals := make([]float64, 1001)
	for i := range vals {
		vals[i] = float64(i) / 10
	}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = AppendDouble(buf[:0], vals[i%len(vals)])
	}
}
