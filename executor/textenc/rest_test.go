package textenc_test

import (
	"bytes"
	"io"
	"strconv"
	"testing"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/textenc"
	"streamql/executor/vector"
)

// chunkReader gives r's bytes n at a time, like a pipe.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// TestRest: after any batch, the source bytes after its first rows good rows
// that were read are given back exactly as read (SPEC 1, stdin read on by a later job),
// wherever the reads cut the input, with bytes that do not survive a
// round trip (gbk 0x80 and 0xA2E3 both read as €, an invalid byte), CRLF,
// blank lines, and a BOM (given back with all of the text only).
func TestRest(t *testing.T) {
	for _, c := range []struct {
		enc string
		bom []byte
	}{{"gbk", nil}, {"utf-16le", nil}, {"utf-16le", []byte{0xFF, 0xFE}}, {"utf-16be", []byte{0xFE, 0xFF}}} {
		e := lookup(t, c.enc)
		input := append([]byte{}, c.bom...)
		var ends []int // source offset after each good row's line end
		for i := range 3000 {
			line := encode(t, e, "r"+strconv.Itoa(i)+",")
			good := true
			switch i % 7 {
			case 1:
				if c.enc == "gbk" {
					line = append(line, 0x80, 0xA2, 0xE3) // €€
				} else {
					line = append(line, encode(t, e, "€")...)
				}
			case 3:
				line = append(line, encode(t, e, "\r")...)
			case 4:
				if c.enc == "gbk" {
					line, good = append(line, 0xFF), false // invalid: a malformed row
				} else {
					line, good = append(line, 0x00, 0xD8), false // a lone surrogate (le)
					if e.Name == "utf-16be" {
						line[len(line)-2], line[len(line)-1] = 0xD8, 0x00
					}
				}
			case 5:
				line = append(line, encode(t, e, "\n")...) // a blank line after it
			}
			input = append(append(input, line...), e.LF()...)
			if good {
				ends = append(ends, len(input)-len(e.LF())*btoi(i%7 == 5)) // before the blank line
			}
		}
		for _, chunk := range []int{4096, 1 << 20, 7, 1} {
			tr := textenc.NewReader(&chunkReader{input, chunk}, e)
			tr.KeepRest()
			d := csvdec.NewDecoder(tr, nil, []catalog.Type{catalog.Varchar, catalog.Varchar}, csvdec.Options{Lines: tr})
			b := vector.NewBatch([]catalog.Type{catalog.Varchar, catalog.Varchar})
			var bad []csvdec.BadRow
			row, batches := 0, 0
			for {
				tr.Forget(d.BytesRead() - int64(len(d.Rest(-1))))
				bad = bad[:0]
				err := d.Decode(b, &bad)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if batches == 0 {
					if got := tr.Rest(d.Rest(0)); !bytes.Equal(got, input[:tr.BytesRead()]) {
						t.Fatalf("%s %x chunk %d: Rest(0) of the first batch: % x, want all that was read", c.enc, c.bom, chunk, got[:min(16, len(got))])
					}
				}
				for _, n := range []int{1, b.N / 2, b.N} {
					if n == 0 || n > b.N {
						continue
					}
					if got, want := tr.Rest(d.Rest(n)), input[ends[row+n-1]:tr.BytesRead()]; !bytes.Equal(got, want) {
						t.Fatalf("%s %x chunk %d: batch %d, Rest(%d): %d bytes % x..., want %d bytes % x...", c.enc, c.bom, chunk, batches, n, len(got), got[:min(16, len(got))], len(want), want[:min(16, len(want))])
					}
				}
				row += b.N
				batches++
			}
			if row != len(ends) {
				t.Fatalf("%s chunk %d: %d rows, want %d", c.enc, chunk, row, len(ends))
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
