package expr_test

import (
	"testing"

	"streamql/executor/expr"
	"streamql/executor/vector"
)

// allocFree are calls whose kernels allocate nothing per batch once warm:
// the fixed-width results, and text built in the output's arena (SPEC 2.10;
// the hot path allocates nothing per row).
var allocFree = []string{
	"HOUR(ts)", "EXTRACT(MONTH FROM ts)", "DAYOFWEEK(ts)", "TIMESTAMPADD(MONTH, i, ts)", "TIMESTAMPDIFF(DAY, ts, ts)",
	"FLOOR(ts TO HOUR)", "CEIL(ts TO MONTH)", "TO_TIMESTAMP(s)", "TO_TIMESTAMP(s, 'yyyy-MM-dd')", "UNIX_TIMESTAMP(s)", "TO_TIMESTAMP_LTZ(i, 0)",
	"DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS')", "DATE_FORMAT(ts, 'EEE, d MMM yy')", "FROM_UNIXTIME(i)",
	"SPLIT_INDEX(s, ',', 1)", "REPLACE(s, ',', ';')", "POSITION(',' IN s)", "LOCATE('b', s, 2)", "INSTR(s, 'c')", "LEFT(s, 2)", "RIGHT(s, 2)",
	"LPAD(s, 9, 'xy')", "RPAD(s, 9, 'é')", "REPEAT(s, 3)", "REVERSE(s)", "INITCAP(s)", "ASCII(s)", "CHR(i)", "CONCAT_WS('-', s, i)",
	"MD5(s)", "SHA1(s)", "SHA256(s)", "SHA512(s)", "TO_BASE64(s)", "FROM_BASE64(TO_BASE64(s))", "HEX(s)", "HEX(i)", "BIN(i)",
	"s REGEXP 'b'", "POWER(d, 2)", "SQRT(d)", "LOG(2, d)", "SIGN(i)", "TRUNCATE(i, -1)", "GREATEST(i, j, 3)", "LEAST(d, 1.5)", "NULLIF(i, j)",
	"JSON_VALUE(s, '$.a')", "JSON_EXISTS(s, '$.a')", "JSON_QUERY(s, '$.a')", "s IS JSON", "JSON_STRING(s)", "JSON_ARRAY(i, s, b)", "JSON_OBJECT('a', i)",
	"i IS DISTINCT FROM j", "CURRENT_TIMESTAMP", "RAND(1)",
	"ASIN(d)", "ATAN2(d, i)", "COT(d)", "TANH(d)", "UUID()", "CURRENT_DATE", "CURRENT_TIME", "TO_DATE(s)", "TO_DATE(s, 'yyyy-MM-dd')", "CONVERT_TZ(CAST(ts AS VARCHAR), 'PST', 'Asia/Shanghai')",
	"TRANSLATE(s, 'abc', 'xy')", "TRANSLATE(s, s, 'q')", "ELT(i, s, 'b')", "STARTSWITH(s, 'a')", "ENDSWITH(s, s)", "URL_ENCODE(s)", "URL_DECODE(s)", "OVERLAY(s PLACING 'x' FROM 2)",
	"IS_ALPHA(s)", "IS_DIGIT(s)", "IS_DECIMAL(s)", "SPLIT(s, ',')", "SPLIT(s, '')",
	"ARRAY_CONTAINS(SPLIT(s, ','), 'bc')", "ARRAY_POSITION(SPLIT(s, ','), 'bc')", "ARRAY_DISTINCT(SPLIT(s, ''))", "ARRAY_REMOVE(SPLIT(s, ','), 'x')",
	"ARRAY_REVERSE(SPLIT(s, ','))", "ARRAY_SLICE(SPLIT(s, ','), 2)", "ARRAY_APPEND(SPLIT(s, ','), s)", "ARRAY_CONCAT(SPLIT(s, ','), SPLIT(s, ''))",
	"ARRAY_UNION(SPLIT(s, ','), SPLIT(s, ''))", "ARRAY_EXCEPT(SPLIT(s, ''), SPLIT(s, ','))", "ARRAY_MAX(SPLIT(s, ''))", "ARRAY_SORT(SPLIT(s, ''))",
	"ARRAY_JOIN(SPLIT(s, ','), '|')", "ARRAY_JOIN(ARRAY[i, d], '|')", "MAP_KEYS(MAP[s, i])", "MAP_ENTRIES(MAP[s, i])", "MAP_FROM_ARRAYS(SPLIT(s, ','), SPLIT(s, ','))",
	"MAP_UNION(MAP[s, i], MAP['a', j])",
}

func TestFunctionsAllocateNothing(t *testing.T) {
	b := fuzzBatch(7, 2.5, `{"a": "x,y", "b": [1]}`, true, 1610975309123)
	b.Cols[2].SetString(2, []byte("a,bc,d"))
	sel := []int32{0, 1, 2, 3, 4}
	for _, text := range allocFree {
		e, ok := planExpr(text)
		if !ok {
			t.Errorf("%s does not plan", text)
			continue
		}
		k := expr.Compile(e)
		k.Eval(b, sel)
		if n := testing.AllocsPerRun(50, func() { k.Eval(b, sel) }); n != 0 {
			t.Errorf("%s: %.1f allocations per batch, want 0", text, n)
		}
	}
}

// benchBatch is a full batch of timestamps and URL-like text.
func benchBatch() (*vector.Batch, []int32) {
	b := vector.NewBatch(fuzzStream().Types())
	sel := make([]int32, vector.Cap)
	for r := range sel {
		sel[r] = int32(r)
		b.Cols[4].I[r] = 1610975309123 + int64(r)*7919
		b.Cols[2].SetString(r, []byte("https://www.nexmark.com/item.htm?query=1&channel_id=1478"))
	}
	b.N = vector.Cap
	return b, sel
}

func benchCall(bm *testing.B, text string) {
	e, ok := planExpr(text)
	if !ok {
		bm.Fatalf("%s does not plan", text)
	}
	b, sel := benchBatch()
	k := expr.Compile(e)
	bm.ReportAllocs()
	bm.ResetTimer()
	for range bm.N {
		k.Eval(b, sel)
	}
	bm.SetBytes(int64(len(sel))) // (one "byte" per row: MB/s reads as million rows/s)
}

// BenchmarkDateFormat and BenchmarkRegexpExtract time the Nexmark calls (q10,
// q21) over batches of rows; MB/s is millions of rows per second.
func BenchmarkDateFormat(b *testing.B) { benchCall(b, "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm')") }
func BenchmarkRegexpExtract(b *testing.B) {
	benchCall(b, "REGEXP_EXTRACT(s, '(&|^)channel_id=([^&]*)', 2)")
}
func BenchmarkSplitIndex(b *testing.B) { benchCall(b, "SPLIT_INDEX(s, '/', 3)") }
func BenchmarkHour(b *testing.B)       { benchCall(b, "HOUR(ts)") }

// TestMustLiteral: the literal every match holds, or none when a match may lack it.
func TestMustLiteral(t *testing.T) {
	for p, want := range map[string]string{
		"(&|^)channel_id=([^&]*)": "channel_id=", "foo(.*?)(bar)": "foo", "a|b": "", "(?i)abc": "", "x*": "", "(ab)+": "", "((abc))d": "abc", "": "",
	} {
		if got := string(expr.MustLiteral(p)); got != want {
			t.Errorf("MustLiteral(%q) = %q, want %q", p, got, want)
		}
	}
}
