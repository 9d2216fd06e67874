package textconv

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"-42", -42, true},
		{"+42", 42, true},
		{"  7\t", 7, true},
		{"007", 7, true},
		{"1610035289736", 1610035289736, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"+0009223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"99999999999999999999999", 0, false},
		{"18446744073709551616", 0, false},
		{"", 0, false},
		{"   ", 0, false},
		{"-", 0, false},
		{"+", 0, false},
		{"1.0", 0, false},
		{"1e3", 0, false},
		{"12a", 0, false},
		{"1 2", 0, false},
		{"--1", 0, false},
		{"0x10", 0, false},
		{"1_000", 0, false},
		{"١٢", 0, false}, // non-ASCII digits
	}
	for _, tt := range tests {
		got, ok := ParseInt([]byte(tt.in))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseDouble(t *testing.T) {
	tests := []struct {
		in   string
		want float64 // compared bit for bit; NaN compared with IsNaN
		ok   bool
	}{
		{"1", 1, true},
		{"+6.25E-02", 0.0625, true},
		{"1e3", 1000, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"+.5", 0.5, true},
		{"-.5e-3", -0.0005, true},
		{"5.e3", 5000, true},
		{"1E+05", 100000, true},
		{"00012", 12, true},
		{"-0", math.Copysign(0, -1), true},
		{"-0.0", math.Copysign(0, -1), true},
		{"0", 0, true},
		{" 1.5 ", 1.5, true},
		{"\t88.2\t", 88.2, true},
		{"NaN", math.NaN(), true},
		{"-NaN", math.NaN(), true},
		{"+NaN", math.NaN(), true},
		{"Infinity", math.Inf(1), true},
		{"+Infinity", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"1e400", math.Inf(1), true},
		{"-1e400", math.Inf(-1), true},
		{"1e-400", 0, true},
		{"-1e-400", math.Copysign(0, -1), true},
		{"1.7976931348623157e308", math.MaxFloat64, true},
		{"1.7976931348623159e308", math.Inf(1), true},
		{"4.9e-324", 5e-324, true},
		{"2.4703282292062328e-324", 5e-324, true},
		{"2.4703282292062327e-324", 0, true},
		{"9007199254740993", 9007199254740992, true},
		{"0.1", 0.1, true},
		{"123456789012345678901234567890", 1.2345678901234568e29, true},
		{"0.000000000000000000001", 1e-21, true},
		{"1e99999999999999999999", math.Inf(1), true},
		{"1.79769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792e308", math.Inf(1), true},
		{"1.79769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791e308", math.MaxFloat64, true},
		{"1.797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179775872070963302864166928879109465555478519404026306574886715058206819089020007083836762738548458177115317644757302700698555713669596228429148198608349364752927190741684443655107043427115596995080930428801779041744977920000001e308", math.Inf(1), true},
		{"0.000179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792e312", math.Inf(1), true},
		{"1797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179775872070.96330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791e209", math.MaxFloat64, true},
		{"-1.8e308", math.Inf(-1), true},
		{"0.00000000000000000000000000000000000000000000000000000000018e366", math.Inf(1), true},
		{"", 0, false},
		{"  ", 0, false},
		{".", 0, false},
		{"+", 0, false},
		{"-.", 0, false},
		{"e5", 0, false},
		{"1e", 0, false},
		{"1e+", 0, false},
		{".e1", 0, false},
		{"1d", 0, false},
		{"1f", 0, false},
		{"1.5D", 0, false},
		{"0x1p3", 0, false},
		{"0x10", 0, false},
		{"inf", 0, false},
		{"+inf", 0, false},
		{"infinity", 0, false},
		{"INFINITY", 0, false},
		{"Inf", 0, false},
		{"nan", 0, false},
		{"NAN", 0, false},
		{"1_000", 0, false},
		{"1_000.5", 0, false},
		{"++1", 0, false},
		{"1..2", 0, false},
		{"1e5.5", 0, false},
		{"1 2", 0, false},
		{"abc", 0, false},
		{"1,5", 0, false},
		{"NaNx", 0, false},
		{"Infinityx", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseDouble([]byte(tt.in))
		if ok != tt.ok {
			t.Errorf("ParseDouble(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if math.IsNaN(tt.want) {
			if !math.IsNaN(got) {
				t.Errorf("ParseDouble(%q) = %v, want NaN", tt.in, got)
			}
			continue
		}
		if math.Float64bits(got) != math.Float64bits(tt.want) {
			t.Errorf("ParseDouble(%q) = %v (%x), want %v (%x)", tt.in, got, math.Float64bits(got), tt.want, math.Float64bits(tt.want))
		}
	}
}

func TestParseBool(t *testing.T) {
	tests := []struct {
		in       string
		want, ok bool
	}{
		{"true", true, true},
		{"TRUE", true, true},
		{"True", true, true},
		{" tRuE\t", true, true},
		{"false", false, true},
		{"FALSE", false, true},
		{"  False ", false, true},
		{"", false, false},
		{"t", false, false},
		{"1", false, false},
		{"0", false, false},
		{"yes", false, false},
		{"truee", false, false},
		{"fals", false, false},
		{"tru\x05", false, false},
	}
	for _, tt := range tests {
		got, ok := ParseBool([]byte(tt.in))
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseBool(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2021-01-17 12:48:29", 1610887709000, true},
		{"2021-01-17 12:48:29.1", 1610887709100, true},
		{"2021-01-17 12:48:29.12", 1610887709120, true},
		{"2021-01-17 12:48:29.123", 1610887709123, true},
		{"2021-01-17 12:48:29.123456", 1610887709123, true},
		{"2021-01-17 12:48:29.999999999", 1610887709999, true},
		{"2021-01-17T12:48:29", 1610887709000, true},
		{"2021-01-17T12:48:29.5Z", 1610887709500, true},
		{"2021-01-17T12:48:29Z", 1610887709000, true},
		{"2021-01-17T20:48:29+08:00", 1610887709000, true},
		{"2021-01-17T07:18:29-0530", 1610887709000, true},
		{"2021-01-17T14:48:29.123+02", 1610887709123, true},
		{"2021-01-17T12:48", 1610887680000, true},
		{"2021-01-17T12:48Z", 1610887680000, true},
		{"2021-01-17T13:48+01:00", 1610887680000, true},
		// RFC 3339's lowercase t and z
		{"2021-01-17t12:48:29z", 1610887709000, true},
		{"2021-01-17t12:48:29", 1610887709000, true},
		{"2021-01-17t12:48Z", 1610887680000, true},
		{"2021-01-17 12:48z", 0, false},
		// SPEC 1 lists the space form with seconds and no offset, ISO-8601
		// with T, and epoch ms: anything else is malformed
		{"2021-01-17", 0, false},
		{"2021-01-17 12:48", 0, false},
		{"2021-01-17 20:48:29+08:00", 0, false},
		{"2021-01-17 12:48:29Z", 0, false},
		{"2021-01-17T12:48.5", 0, false},
		{"2021-01-17T", 0, false},
		{" 2021-01-17 12:48:29 ", 1610887709000, true},
		{"1970-01-01 00:00:00", 0, true},
		{"1969-12-31 23:59:59.999", -1, true},
		{"1900-01-01 00:00:00", -2208988800000, true},
		{"2000-02-29 00:00:00", 951782400000, true},
		{"2024-02-29 23:59:59", 1709251199000, true},
		{"9999-12-31 23:59:59.999", 253402300799999, true},
		{"0000-01-01 00:00:00", -62167219200000, true},
		{"1610035289736", 1610035289736, true},
		{"-1000", -1000, true},
		{"0", 0, true},
		{"", 0, false},
		{"abc", 0, false},
		{"2021-13-01 00:00:00", 0, false},
		{"2021-00-01 00:00:00", 0, false},
		{"2021-02-29 00:00:00", 0, false},
		{"1900-02-29 00:00:00", 0, false},
		{"2021-04-31 00:00:00", 0, false},
		{"2021-01-00 00:00:00", 0, false},
		{"2021-01-17 24:00:00", 0, false},
		{"2021-01-17 12:60:00", 0, false},
		{"2021-01-17 12:48:60", 0, false},
		{"2021-01-17 12:48:29.", 0, false},
		{"2021-01-17 12:48:29.1234567890", 0, false},
		{"2021-01-17 12:48:29.12a", 0, false},
		{"2021-01-17 12:48:2", 0, false},
		{"2021-01-17 12:4", 0, false},
		{"2021-01-17X12:48:29", 0, false},
		{"2021-1-17 12:48:29", 0, false},
		{"2021/01/17 12:48:29", 0, false},
		{"2021-01-17T12:48:29+8", 0, false},
		{"2021-01-17T12:48:29+08:0", 0, false},
		{"2021-01-17T12:48:29+0800x", 0, false},
		{"2021-01-17 12:48:29 Z", 0, false},
		{"2021-01-17Z", 0, false},
		{"1.5", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseTimestamp([]byte(tt.in))
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("ParseTimestamp(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAppendTimestamp(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		{1610887709123, "2021-01-17 12:48:29.123"},
		{1610887709000, "2021-01-17 12:48:29.000"},
		{1610887709005, "2021-01-17 12:48:29.005"},
		{0, "1970-01-01 00:00:00.000"},
		{-1, "1969-12-31 23:59:59.999"},
		{-2208988800000, "1900-01-01 00:00:00.000"},
		{951782400000, "2000-02-29 00:00:00.000"},
		{253402300799999, "9999-12-31 23:59:59.999"},
		{253402300800000, "+10000-01-01 00:00:00.000"},
		{-62167219200000, "0000-01-01 00:00:00.000"},
		{-62167219200001, "-0001-12-31 23:59:59.999"},
	}
	for _, tt := range tests {
		if got := string(AppendTimestamp(nil, tt.ms)); got != tt.want {
			t.Errorf("AppendTimestamp(%d) = %q, want %q", tt.ms, got, tt.want)
		}
	}
	// Round trip over a wide range.
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		ms := r.Int64N(253402300800000+62167219200000) - 62167219200000
		s := AppendTimestamp(nil, ms)
		back, ok := ParseTimestamp(s)
		if !ok || back != ms {
			t.Fatalf("ParseTimestamp(AppendTimestamp(%d) = %q) = %d, %v", ms, s, back, ok)
		}
	}
}

func TestAppendBool(t *testing.T) {
	if got := string(AppendBool(AppendBool(nil, true), false)); got != "truefalse" {
		t.Errorf("AppendBool = %q", got)
	}
}

// javaCases are Double.toString outputs of Java 19+ (JDK 25), written out by hand
// for the cases SPEC 4 names; testdata/java_double_tostring.txt holds thousands
// more, produced by testdata/Gen.java.
var javaCases = []struct {
	f    float64
	want string
}{
	{0, "0.0"},
	{math.Copysign(0, -1), "-0.0"},
	{math.NaN(), "NaN"},
	{math.Inf(1), "Infinity"},
	{math.Inf(-1), "-Infinity"},
	{1, "1.0"},
	{-1, "-1.0"},
	{2, "2.0"},
	{10, "10.0"},
	{100, "100.0"},
	{88.2, "88.2"},
	{0.59, "0.59"},
	{38.8, "38.8"},
	{50, "50.0"},
	{0.001, "0.001"},
	{0.002, "0.002"},
	{9.999999999999998e-4, "9.999999999999998E-4"},
	{1e-4, "1.0E-4"},
	{1e-5, "1.0E-5"},
	{-3.0e-5, "-3.0E-5"},
	{1234567.0, "1234567.0"},
	{9999999.0, "9999999.0"},
	{9999999.999999998, "9999999.999999998"},
	{1e7, "1.0E7"},
	{10000000.000000002, "1.0000000000000002E7"},
	{1.2345e10, "1.2345E10"},
	{pointOne + pointTwo, "0.30000000000000004"},
	{1.0 / 3, "0.3333333333333333"},
	{2.0 / 3, "0.6666666666666666"},
	{math.Pi, "3.141592653589793"},
	{5e-324, "4.9E-324"},
	{1e-323, "9.9E-324"},
	{1.5e-323, "1.5E-323"},
	{2e-323, "2.0E-323"},
	{math.MaxFloat64, "1.7976931348623157E308"},
	{math.SmallestNonzeroFloat64 * 3, "1.5E-323"},
	{2.2250738585072014e-308, "2.2250738585072014E-308"},
	{1e23, "1.0E23"},
	{2e23, "2.0E23"},
	{1e22, "1.0E22"},
	{9007199254740992, "9.007199254740992E15"},
	{1e16, "1.0E16"},
	{2.82879384806159e17, "2.82879384806159E17"},
	{4.8726570057e288, "4.8726570057E288"},
	{5.684341886080802e-14, "5.684341886080802E-14"},
	{123456.789, "123456.789"},
	{-0.5, "-0.5"},
	{100.5, "100.5"},
}

func TestAppendDoubleTable(t *testing.T) {
	for _, tt := range javaCases {
		if got := string(AppendDouble(nil, tt.f)); got != tt.want {
			t.Errorf("AppendDouble(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// TestAppendDoubleJava compares with a table written by JDK 25's Double.toString
// (testdata/Gen.java: specials, every power of two, multiples of 2^-1074, powers of
// ten, random bit patterns, decimals and subnormals). Set JAVA_DOUBLE_TABLE to the
// path of a bigger table of the same format to check more.
func TestAppendDoubleJava(t *testing.T) {
	paths := []string{"testdata/java_double_tostring.txt"}
	if p := os.Getenv("JAVA_DOUBLE_TABLE"); p != "" {
		paths = append(paths, p)
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		n, bad := 0, 0
		for sc.Scan() {
			hex, want, ok := strings.Cut(sc.Text(), " ")
			if !ok {
				t.Fatalf("%s: bad line %q", path, sc.Text())
			}
			bits, err := strconv.ParseUint(hex, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			x := math.Float64frombits(bits)
			n++
			if got := string(AppendDouble(nil, x)); got != want {
				bad++
				if bad < 20 {
					t.Errorf("AppendDouble(%016x = %v) = %q, Java prints %q", bits, x, got, want)
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if n < 1000 {
			t.Fatalf("%s: only %d cases", path, n)
		}
		t.Logf("%s: %d cases, %d mismatches", path, n, bad)
	}
}

// TestAppendDoubleProperties checks random doubles: the text reads back to the same
// double, its digits are as few as strconv's shortest (or two when the shortest has
// one), and the layout follows Java's rules.
func TestAppendDoubleProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300000 {
		var x float64
		switch i % 3 {
		case 0:
			x = math.Float64frombits(r.Uint64())
		case 1:
			x = float64(r.Int64N(2000000)-1000000) / 100
		default:
			x = r.Float64() * math.Pow(10, float64(r.IntN(40)-20))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		checkDouble(t, x)
	}
}

func checkDouble(t *testing.T, x float64) {
	t.Helper()
	s := string(AppendDouble(nil, x))
	back, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Float64bits(back) != math.Float64bits(x) {
		t.Fatalf("AppendDouble(%v) = %q reads back as %v, %v", x, s, back, err)
	}
	mant, exp, sci := strings.Cut(strings.TrimPrefix(s, "-"), "E")
	if !strings.Contains(mant, ".") || strings.HasSuffix(mant, ".") {
		t.Fatalf("AppendDouble(%v) = %q: no fraction digit", x, s)
	}
	a := math.Abs(x)
	if wantSci := a < 1e-3 || a >= 1e7; wantSci != sci && !(a < 1e7 && s[len(s)-3:] == "E7") {
		t.Fatalf("AppendDouble(%v) = %q: wrong layout", x, s)
	}
	if sci && (strings.HasPrefix(exp, "+") || mant[1] != '.') {
		t.Fatalf("AppendDouble(%v) = %q: bad scientific form", x, s)
	}
	digits := strings.Trim(strings.ReplaceAll(mant, ".", ""), "0")
	short := strconv.FormatFloat(a, 'e', -1, 64)
	short, _, _ = strings.Cut(short, "e")
	shortDigits := strings.Trim(strings.ReplaceAll(short, ".", ""), "0")
	if len(shortDigits) == 1 {
		if len(digits) > 2 {
			t.Fatalf("AppendDouble(%v) = %q: more than two digits where one suffices", x, s)
		}
	} else if len(digits) != len(shortDigits) {
		t.Fatalf("AppendDouble(%v) = %q: %d digits, shortest has %d (%s)", x, s, len(digits), len(shortDigits), short)
	}
}

func TestZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	cases := map[string]func(){
		"AppendDouble":    func() { buf = AppendDouble(buf[:0], 1.2345e-300) },
		"AppendDouble1":   func() { buf = AppendDouble(buf[:0], 5e-324) },
		"AppendDouble2":   func() { buf = AppendDouble(buf[:0], 88.2) },
		"AppendTimestamp": func() { buf = AppendTimestamp(buf[:0], 1610887709123) },
		"ParseDouble": func() {
			ParseDouble([]byte("6.02214076e23"))
		},
		"ParseDoubleInf": func() { ParseDouble([]byte("1e999")) },
		"ParseInt":       func() { ParseInt([]byte(" -1610035289736 ")) },
		"ParseTimestamp": func() { ParseTimestamp([]byte("2021-01-17T12:48:29.123+08:00")) },
		"ParseBool":      func() { ParseBool([]byte("TRUE")) },
	}
	for name, fn := range cases {
		if n := testing.AllocsPerRun(100, fn); n != 0 {
			t.Errorf("%s: %v allocs per run", name, n)
		}
	}
}

func FuzzParseDouble(f *testing.F) {
	for _, s := range []string{"1", "+6.25E-02", "1e3", ".5", "5.", "-0", "NaN", "-Infinity", "inf",
		"0x1p-2", "1_000", "1e400", "4.9e-324", "123456789012345678", "0.1", "1d", " 2.5 ", "", ".", "1e+", "00.00e00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDouble([]byte(s))
		trimmed := strings.Trim(s, " \t")
		// Reference: the grammar, checked independently with a simple scanner,
		// then strconv for the value.
		wantOK := refValidDouble(trimmed)
		if ok != wantOK {
			t.Fatalf("ParseDouble(%q) ok = %v, want %v", s, ok, wantOK)
		}
		if !ok {
			return
		}
		if strings.TrimLeft(trimmed, "+-") == "NaN" {
			if !math.IsNaN(got) {
				t.Fatalf("ParseDouble(%q) = %v, want NaN", s, got)
			}
			return
		}
		want, err := strconv.ParseFloat(trimmed, 64)
		if err != nil && !errorsIsRange(err) {
			t.Fatalf("strconv.ParseFloat(%q): %v", trimmed, err)
		}
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Fatalf("ParseDouble(%q) = %v, want NaN", s, got)
			}
			return
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("ParseDouble(%q) = %v, want %v", s, got, want)
		}
		// Printing and reading back gives the same double.
		if back, ok := ParseDouble(AppendDouble(nil, got)); !ok || math.Float64bits(back) != math.Float64bits(got) {
			t.Fatalf("round trip of %v: %v, %v", got, back, ok)
		}
	})
}

func errorsIsRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// refValidDouble is a deliberately different formulation of Java's grammar.
func refValidDouble(s string) bool {
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	if s == "NaN" || s == "Infinity" {
		return true
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if strings.HasPrefix(exp, "+") || strings.HasPrefix(exp, "-") {
			exp = exp[1:]
		}
		if exp == "" || strings.Trim(exp, "0123456789") != "" {
			return false
		}
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if ip+fp == "" {
		return false
	}
	return strings.Trim(ip, "0123456789") == "" && strings.Trim(fp, "0123456789") == ""
}

func BenchmarkAppendDouble(b *testing.B) {
	vals := []float64{88.2, 0.59, 1e7, 1.2345e-300, 5e-324, pointOne + pointTwo, 1610035289.736, 100}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = AppendDouble(buf[:0], vals[i%len(vals)])
	}
}

func BenchmarkParseDouble(b *testing.B) {
	vals := [][]byte{[]byte("88.2"), []byte("0.59"), []byte("1e7"), []byte("-12.345678"), []byte("6.02214076e23")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ParseDouble(vals[i%len(vals)])
	}
}

// Variables, so that the sum is computed in float64 and not as an exact constant.
var pointOne, pointTwo = 0.1, 0.2
