package chunked

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/jsondec"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// A case is one input and how it is decoded.
type tcase struct {
	data    []byte
	json    bool
	types   []catalog.Type
	csv     csvdec.Options
	maxRec  int
	chunk   int64
	workers int
	maxRedo int
	overrun int64
	work    bool  // decode with Options.Work and NextChunk
	redo    int64 // with work: give the chunks whose Index % redo is 0 back to the merge (Redo); 0: none
	maxRead int64 // > 0: the Reader's reads fail past this many bytes in all
}

// boundedReader fails its reads once they total more than max bytes.
type boundedReader struct {
	r    io.ReaderAt
	read atomic.Int64
	max  int64
}

func (b *boundedReader) ReadAt(p []byte, off int64) (int, error) {
	if b.read.Add(int64(len(p))) > b.max {
		return 0, fmt.Errorf("read %d bytes, more than %d", b.read.Load(), b.max)
	}
	return b.r.ReadAt(p, off)
}

func (c *tcase) names() []string {
	n := make([]string, len(c.types))
	for i := range n {
		n[i] = "c" + strconv.Itoa(i)
	}
	return n
}

// newDec returns a decoder of c's format over r.
func (c *tcase) newDec(r io.Reader) Decoder {
	if c.json {
		return jsondec.NewDecoder(r, c.names(), c.types, jsondec.Options{MaxRecord: c.maxRec})
	}
	o := c.csv
	o.MaxRecord = c.maxRec
	return csvdec.NewDecoder(r, c.names(), c.types, o)
}

// events renders what a batch holds, in order: each malformed row before the
// good row it precedes (BadRow.Index), with its line, raw text and reason; each
// good row with its line and values.
func events(out []string, b *vector.Batch, bad []records.BadRow, ncols int) []string {
	j := 0
	for i := 0; i <= b.N; i++ {
		for ; j < len(bad) && bad[j].Index == i; j++ {
			out = append(out, fmt.Sprintf("bad %d %q %s", bad[j].Line, bad[j].Raw, bad[j].Reason))
		}
		if i == b.N {
			break
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "row %d", b.Pos[i])
		for _, v := range b.Cols[:ncols] {
			if v.Null[i] {
				sb.WriteString(" NULL")
				continue
			}
			sb.WriteString(" ")
			sb.WriteString(strconv.Quote(string(vector.AppendValue(nil, v.Type, v, i))))
		}
		out = append(out, sb.String())
	}
	if j != len(bad) {
		out = append(out, fmt.Sprintf("bad rows out of order: %d of %d", j, len(bad)))
	}
	return out
}

// sequential is what one decoder reading c.data gives, and its final error.
func (c *tcase) sequential() ([]string, error) {
	d := c.newDec(bytes.NewReader(c.data))
	b := vector.NewBatch(c.types)
	var out []string
	for {
		var bad []records.BadRow
		err := d.Decode(b, &bad)
		if err != nil {
			return out, err
		}
		out = events(out, b, bad, len(c.types))
	}
}

// parallel is what a Reader over c.data gives, and its final error.
func (c *tcase) parallel() ([]string, *Reader, error) {
	decs := make([]Decoder, c.workers)
	for i := range decs {
		decs[i] = c.newDec(nil)
	}
	types := append(append([]catalog.Type{}, c.types...), catalog.BigInt) // a caller's extra column
	opts := Options{ChunkSize: c.chunk, Header: c.csv.Header, MaxRedo: c.maxRedo, Overrun: c.overrun}
	if c.work {
		opts.Work = func(_ int, ch *Chunk) {
			var evs []string
			for {
				b, bad, err := ch.Next()
				if err != nil {
					break
				}
				evs = events(evs, b, bad, len(c.types))
			}
			ch.Out = evs
		}
	}
	var f io.ReaderAt = bytes.NewReader(c.data)
	if c.maxRead > 0 {
		f = &boundedReader{r: f, max: c.maxRead}
	}
	r := New(f, int64(len(c.data)), decs, c.newDec(nil), types, opts)
	defer r.Close()
	var out []string
	for c.work {
		ch, base, b, bad, err := r.NextChunk()
		if err != nil {
			return out, r, err
		}
		if ch == nil {
			out = events(out, b, bad, len(c.types))
			continue
		}
		if c.redo > 0 && ch.Index%c.redo == 0 {
			r.Redo(ch.Index > 0 && ch.Index%7 == 0) // its rows (and sometimes the rest) come again, decoded by the merge
			continue
		}
		for _, e := range ch.Out.([]string) { // "row LINE ..." or "bad LINE ...", LINE counted in the chunk
			f := strings.SplitN(e, " ", 3)
			line, _ := strconv.ParseInt(f[1], 10, 64)
			out = append(out, fmt.Sprintf("%s %d %s", f[0], base+line, strings.Join(f[2:], "")))
		}
	}
	for {
		b, bad, err := r.Next()
		if err != nil {
			return out, r, err
		}
		out = events(out, b, bad, len(c.types))
	}
}

// check compares the two decodings of c.
func check(t *testing.T, c *tcase) {
	t.Helper()
	want, werr := c.sequential()
	got, r, gerr := c.parallel()
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("final error %v, sequential %v\ninput %q", gerr, werr, c.data)
	}
	if r.BytesRead() != int64(len(c.data)) && werr == io.EOF {
		t.Errorf("BytesRead = %d at the end of %d bytes", r.BytesRead(), len(c.data))
	}
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Fatalf("event %d: chunked %s, sequential %s (chunk %d, %d workers, max redo %d, overrun %d, header %v, ragged %v, max record %d)\ninput %q",
				i, g, w, c.chunk, c.workers, c.maxRedo, c.overrun, c.csv.Header, c.csv.AllowRagged, c.maxRec, c.data)
		}
	}
}

// randCSV writes n random records of ncols fields: numbers, words, quoted
// fields with delimiters, LF, CRLF and doubled quotes, empty fields, blank
// lines, CRLF line ends, ragged and malformed records (unclosed quotes, text
// after a closing quote, invalid UTF-8, bad numbers), long records.
func randCSV(rng *rand.Rand, n, ncols int) []byte {
	var sb bytes.Buffer
	if rng.IntN(8) == 0 {
		sb.WriteString("\xEF\xBB\xBF")
	}
	for i := 0; i < n; i++ {
		switch rng.IntN(20) {
		case 0:
			sb.WriteString("\n")
			continue
		case 1:
			sb.WriteString("\r\n")
			continue
		}
		nf := ncols
		if rng.IntN(10) == 0 {
			nf = max(1, ncols+rng.IntN(3)-1)
		}
		for j := 0; j < nf; j++ {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(randField(rng))
		}
		if rng.IntN(4) == 0 {
			sb.WriteString("\r\n")
		} else if i < n-1 || rng.IntN(2) == 0 {
			sb.WriteString("\n")
		}
	}
	return sb.Bytes()
}

func randField(rng *rand.Rand) string {
	switch rng.IntN(16) {
	case 0:
		return ""
	case 1:
		return `"a,b"`
	case 2:
		return "\"line\nbreak\""
	case 3:
		return "\"crlf\r\nin\r\nquotes\""
	case 4:
		return `"say ""hi"""`
	case 5:
		return "\"\n\n\n\""
	case 6:
		return `"unclosed`
	case 7:
		return `"x"y`
	case 8:
		return "\xff"
	case 9:
		return "abc"
	case 10:
		return strings.Repeat("long", 1+rng.IntN(12))
	case 11:
		return "1.5"
	case 12:
		return "\"\",\"\"" // two empty quoted fields
	case 13:
		return "a\"b" // a quote inside an unquoted field is data
	case 14:
		return "\"multi\n\"\"q\"\"\n,\n\""
	}
	return strconv.Itoa(rng.IntN(1000))
}

var typeSets = [][]catalog.Type{
	{catalog.Varchar, catalog.Varchar, catalog.Varchar},
	{catalog.Varchar, catalog.BigInt, catalog.Double},
	{catalog.Varchar},
	{catalog.BigInt, catalog.Varchar},
}

// randCase is a random csv case with tiny chunks, so that chunk ends fall
// everywhere: inside quotes, between a CR and its LF, in blank lines, inside
// records longer than the chunk or 'max-record-size'.
func randCase(rng *rand.Rand) *tcase {
	types := typeSets[rng.IntN(len(typeSets))]
	c := &tcase{
		types:   types,
		data:    randCSV(rng, rng.IntN(60), len(types)),
		chunk:   int64(16 + rng.IntN(64)),
		workers: 2 + rng.IntN(3),
		maxRedo: []int{-1, 0, 1, 3}[rng.IntN(4)],
		overrun: []int64{0, 1, 40}[rng.IntN(3)],
	}
	c.csv.Header = rng.IntN(3) == 0
	c.csv.AllowRagged = rng.IntN(3) == 0
	if rng.IntN(3) == 0 {
		c.maxRec = 20 + rng.IntN(40)
	}
	if rng.IntN(5) == 0 {
		c.csv.NullLiteral, c.csv.HasNull = []byte("abc"), true
	}
	return c
}

// TestChunkedMatchesSequential is the property: on random csv, decoding in
// chunks gives the sequential decoder's rows, values, line numbers and
// malformed rows (positions, raw text, reasons), in the same order.
func TestChunkedMatchesSequential(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(1, 15))
	for range n {
		check(t, randCase(rng))
	}
}

// TestChunkedWorkMatchesSequential is the same property for a Reader whose
// workers hand each chunk's rows to Options.Work (the executor's morsel
// pipeline): the rows of the chunks NextChunk gives, with its line base,
// and the rows the merge decoded itself, in order, are the sequential
// decoder's.
func TestChunkedWorkMatchesSequential(t *testing.T) {
	checkRandom(t, 3, func(c *tcase, _ *rand.Rand) { c.work = true })
}

// checkRandom checks random cases (randCase, seed), each changed by set.
func checkRandom(t *testing.T, seed uint64, set func(c *tcase, rng *rand.Rand)) {
	t.Helper()
	n := 1500
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(seed, 15))
	for range n {
		c := randCase(rng)
		set(c, rng)
		check(t, c)
	}
}

// TestChunkedRedoMatchesSequential: a Reader with Options.Work whose caller
// gives chunks back (Redo: the executor's parallel window aggregate, when
// the watermark before a chunk makes its worker's result wrong) still gives
// the sequential decoder's rows, line numbers and malformed rows, in order:
// each chunk given back (or the rest of the file, from it) comes again as
// batches the merge decoded.
func TestChunkedRedoMatchesSequential(t *testing.T) {
	checkRandom(t, 4, func(c *tcase, rng *rand.Rand) { c.work, c.redo = true, 1+rng.Int64N(3) })
}

// TestChunkedEdges are the boundary cases by name.
func TestChunkedEdges(t *testing.T) {
	many := strings.Repeat("a,1\n", 200)
	for _, tc := range []struct {
		name string
		data string
		opts csvdec.Options
	}{
		{"no final newline", many + "z,9", csvdec.Options{}},
		{"CRLF", strings.ReplaceAll(many, "\n", "\r\n"), csvdec.Options{}},
		{"BOM and header", "\xEF\xBB\xBFh,n\n" + many, csvdec.Options{Header: true}},
		{"blank lines before the header", strings.Repeat("\n", 300) + "h,n\n" + many, csvdec.Options{Header: true}},
		{"blank lines before a BOM-like record", strings.Repeat("\r\n", 300) + "\xEF\xBB\xBFh,n\n" + many, csvdec.Options{Header: true}},
		{"one quoted field over many chunks", "a,\"" + strings.Repeat("x\n", 500) + "\"\n" + many, csvdec.Options{}},
		{"unclosed quote to the end", many + "b,\"" + strings.Repeat("y\n", 100), csvdec.Options{}},
		{"every line in quotes", strings.Repeat("\"p\nq\",1\n", 200), csvdec.Options{}},
		{"ragged", strings.Repeat("a\nb,2,3\n", 100), csvdec.Options{AllowRagged: true}},
		{"malformed", strings.Repeat("a,x\nb\n", 100), csvdec.Options{}},
		{"empty", "", csvdec.Options{}},
		{"only blank lines", strings.Repeat("\n", 100), csvdec.Options{Header: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunk := range []int64{16, 17, 31, 64, 100} {
				for _, redo := range []int{-1, 1, 0} {
					check(t, &tcase{data: []byte(tc.data), types: []catalog.Type{catalog.Varchar, catalog.BigInt},
						csv: tc.opts, chunk: chunk, workers: 2, maxRedo: redo})
					check(t, &tcase{data: []byte(tc.data), types: []catalog.Type{catalog.Varchar, catalog.BigInt},
						csv: tc.opts, chunk: chunk, workers: 3, maxRedo: redo, maxRec: 24, overrun: 8})
				}
			}
		})
	}
}

// TestChunkedLongLines: a line far longer than a chunk (issue 30: each chunk
// searched for its first line to the line's end, a quadratic read that
// ignored Close) gives the sequential decoder's rows, reading the file a few
// times at most, whether the line is a record, malformed (past 'max-record-
// size'), quoted, json, or the file's only line.
func TestChunkedLongLines(t *testing.T) {
	long := strings.Repeat("x", 6<<20)
	short := strings.Repeat("a,1\n", 300)
	for _, tc := range []struct {
		name, data string
		json       bool
	}{
		{"the only line", "b," + long, false},
		{"the only line, ended", "b," + long + "\n", false},
		{"among short lines", short + "b," + long + ",7\n" + short, false},
		{"quoted, without line breaks", short + "\"" + long + "\",2\n" + short, false},
		{"json", `{"c0":"a","c1":1}` + "\n" + `{"c0":"` + long + `","c1":2}` + "\n" + `{"c0":"z","c1":3}` + "\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, maxRec := range []int{1 << 20, 16 << 20} {
				check(t, &tcase{data: []byte(tc.data), json: tc.json, types: []catalog.Type{catalog.Varchar, catalog.BigInt},
					chunk: 4 << 10, workers: 2, maxRec: maxRec, maxRead: 4*int64(len(tc.data)) + 32<<20})
			}
		})
	}
}

// TestChunkedJSON: json lines in chunks give the sequential decoder's rows.
func TestChunkedJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 15))
	lines := []string{`{"a":"x","b":1}`, `{"b":2}`, ``, `  `, `not json`, `{"a":"` + strings.Repeat("w", 40) + `"}`,
		`{"a":"\u00e9\n","b":3}`, `{"b":1.5}`, "\r", `{"a":"\xff"}`, `[1]`}
	for range 500 {
		var sb strings.Builder
		if rng.IntN(6) == 0 {
			sb.WriteString("\xEF\xBB\xBF")
		}
		for i := rng.IntN(50); i > 0; i-- {
			sb.WriteString(lines[rng.IntN(len(lines))])
			if i > 1 || rng.IntN(2) == 0 {
				sb.WriteString("\n")
			}
		}
		c := &tcase{json: true, data: []byte(sb.String()), types: []catalog.Type{catalog.Varchar, catalog.BigInt},
			chunk: int64(16 + rng.IntN(50)), workers: 2 + rng.IntN(2), maxRedo: -1}
		if rng.IntN(3) == 0 {
			c.maxRec = 30
		}
		check(t, c)
	}
}

// FuzzChunked is the property for any input: the chunked decoding equals the
// sequential one. Its seeds run in every go test.
func FuzzChunked(f *testing.F) {
	for _, s := range []string{
		"a,1\nb,2\nc,3\nd,4\ne,5\nf,6\ng,7\nh,8\n",
		"\"a\nb\",1\n\"c\r\nd\",2\n\"\"\"\",3\n" + strings.Repeat("x,1\n", 20),
		"\xEF\xBB\xBFh\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\na,1\n",
		"\"" + strings.Repeat("\n", 40) + "\"\n" + strings.Repeat("y,2\n", 10),
		strings.Repeat("a,\"x\"y\n", 10) + "\"never",
		strings.Repeat("\r\n", 30) + "z,1\r\nw,2",
	} {
		for sel := range uint8(8) {
			f.Add([]byte(s), sel)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, sel uint8) {
		c := &tcase{data: data, types: typeSets[int(sel)%len(typeSets)], chunk: 16 + int64(sel>>2)%8*7,
			workers: 2 + int(sel>>5)%2, maxRedo: []int{-1, 1}[sel>>6&1], overrun: int64(sel>>7) * 20}
		c.csv.Header = sel&1 != 0
		c.csv.AllowRagged = sel&2 != 0
		if sel&4 != 0 {
			c.maxRec = 32
		}
		check(t, c)
	})
}

// sensors is n rows of the benchmark's sensor csv.
func sensors(n int) []byte {
	var sb bytes.Buffer
	rng := rand.New(rand.NewPCG(3, 15))
	for i := range n {
		fmt.Fprintf(&sb, "dev%d,%d,%d.%d\n", rng.IntN(100), 1600000000000+int64(i), rng.IntN(90), rng.IntN(10))
	}
	return sb.Bytes()
}

var sensorTypes = []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Double}

func sensorDec(r io.Reader) Decoder {
	return csvdec.NewDecoder(r, []string{"deviceNo", "ts", "temperature"}, sensorTypes, csvdec.Options{})
}

// TestSteadyStateAllocs: once the chunks' batches exist, reading more chunks
// allocates nothing per row (nor per chunk: batches, arenas and decoders are
// reused).
func TestSteadyStateAllocs(t *testing.T) {
	data := sensors(200_000) // about 5 MiB: 80 chunks of 64 KiB
	r := New(bytes.NewReader(data), int64(len(data)), []Decoder{sensorDec(nil), sensorDec(nil)}, sensorDec(nil), sensorTypes,
		Options{ChunkSize: 64 << 10})
	defer r.Close()
	rows := 0
	next := func() bool {
		b, _, err := r.Next()
		if err == io.EOF {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		rows += b.N
		return true
	}
	for rows < 50_000 { // warm up: every chunk in flight has its batches
		next()
	}
	before := rows
	allocs := testing.AllocsPerRun(1, func() {
		for next() {
		}
	})
	if rows != 200_000 {
		t.Fatalf("read %d rows, want 200000", rows)
	}
	// A few allocations of the runtime (goroutines parking) are tolerated;
	// one per row, or per batch, would be thousands.
	t.Logf("%v allocations for %d rows", allocs, rows-before)
	if allocs > 20 {
		t.Errorf("%v allocations for %d rows in steady state", allocs, rows-before)
	}
}

// BenchmarkDecode compares the sequential decoder with the chunked one on
// the sensor csv (b.N passes over 4 MiB).
func BenchmarkDecode(b *testing.B) {
	data := sensors(1_000_000)
	b.Run("sequential", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		batch := vector.NewBatch(sensorTypes)
		var bad []records.BadRow
		for range b.N {
			d := sensorDec(bytes.NewReader(data))
			for d.Decode(batch, &bad) == nil {
			}
		}
	})
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("chunked-%d", w), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				decs := make([]Decoder, w)
				for i := range decs {
					decs[i] = sensorDec(nil)
				}
				r := New(bytes.NewReader(data), int64(len(data)), decs, sensorDec(nil), sensorTypes, Options{})
				for {
					if _, _, err := r.Next(); err != nil {
						break
					}
				}
				r.Close()
			}
		})
	}
}
