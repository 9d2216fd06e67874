package textenc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func mustLookup(t testing.TB, name string) *Encoding {
	t.Helper()
	e, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// encode encodes UTF-8 text s in e.
func encode(t testing.TB, e *Encoding, s string) []byte {
	t.Helper()
	b, err := e.enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode %q in %s: %v", s, e.Name, err)
	}
	return b
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{
		"": "utf-8", "utf-8": "utf-8", "UTF8": "utf-8",
		"gbk": "gbk", "GBK": "gbk", "cp936": "gbk", "GB2312": "gbk", "windows-936": "gbk",
		"gb18030": "gb18030", "GB-18030": "gb18030",
		"latin1": "latin1", "Latin-1": "latin1", "ISO-8859-1": "latin1", "iso_8859_1": "latin1", "l1": "latin1",
		"windows-1252": "windows-1252", "CP1252": "windows-1252",
		"utf-16le": "utf-16le", "UTF16LE": "utf-16le", "utf_16_be": "utf-16be", "UTF-16BE": "utf-16be",
	} {
		e, err := Lookup(name)
		if err != nil || e.Name != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", name, e, err, want)
		}
	}
	for _, name := range []string{"utf-16", "big5", "latin9", "ebcdic", "x"} {
		_, err := Lookup(name)
		if err == nil || !strings.Contains(err.Error(), "unknown encoding '"+name+"'") || !strings.Contains(err.Error(), "gb18030") {
			t.Errorf("Lookup(%q): %v", name, err)
		}
	}
	if !utf8Enc.IsUTF8() || gbkEnc.IsUTF8() {
		t.Error("IsUTF8")
	}
}

// transcoded is what a Reader produced: the UTF-8 text and the bad lines as
// "line:raw:reason".
type transcoded struct {
	out string
	bad []string
}

func readAll(t testing.TB, r *Reader) transcoded {
	t.Helper()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var res transcoded
	res.out = string(out)
	lines := int64(strings.Count(res.out, "\n")) + 1
	for l := int64(1); l <= lines; l++ {
		if raw, reason, bad := r.Check(l, l, nil); bad {
			res.bad = append(res.bad, fmt.Sprintf("%d:%x:%s", l, raw, reason))
		}
	}
	return res
}

// readings reads in through a Reader of e three ways (whole, one byte per Read
// with a one-byte buffer, half reads) and fails unless they agree.
func readings(t testing.TB, e *Encoding, in []byte) transcoded {
	t.Helper()
	whole := readAll(t, NewReader(bytes.NewReader(in), e))
	saved := bufSize
	bufSize = 1
	bytewise := readAll(t, NewReader(iotest.OneByteReader(bytes.NewReader(in)), e))
	bufSize = saved
	half := readAll(t, NewReader(iotest.HalfReader(bytes.NewReader(in)), e))
	if fmt.Sprint(whole) != fmt.Sprint(bytewise) || fmt.Sprint(whole) != fmt.Sprint(half) {
		t.Fatalf("%s input %x: readings differ:\n%q\n%q\n%q", e.Name, in, whole, bytewise, half)
	}
	return whole
}

// TestTranscode checks valid text in every encoding: CJK, CRLF and lone CR,
// blank lines, no final line end, a BOM.
func TestTranscode(t *testing.T) {
	cjk := "设备1,温度,10.2\r\n\n\"多\n行\",a\rb\nlast"
	latin := "café,naïve,Ærø\r\n\n\"x\ny\",a\rb\n£5 ×2"
	for _, tc := range []struct {
		enc, text string
	}{
		{"gbk", cjk}, {"gb18030", cjk + ",😀"}, {"utf-16le", cjk + ",😀"}, {"utf-16be", cjk + ",😀"},
		{"latin1", latin}, {"windows-1252", latin + " €“”"},
	} {
		e := mustLookup(t, tc.enc)
		in := encode(t, e, tc.text)
		if got := readings(t, e, in); got.out != tc.text || len(got.bad) != 0 {
			t.Errorf("%s: got %q %q, want %q", tc.enc, got.out, got.bad, tc.text)
		}
		if e.bom != nil {
			withBOM := append(append([]byte{}, e.bom...), in...)
			if got := readings(t, e, withBOM); got.out != tc.text || len(got.bad) != 0 {
				t.Errorf("%s with a BOM: got %q %q", tc.enc, got.out, got.bad)
			}
		}
	}
}

func TestInvalid(t *testing.T) {
	for _, tc := range []struct {
		name, enc string
		in        []byte
		out       string
		bad       []string
	}{
		{"gbk lead byte before ASCII", "gbk", []byte("ok\nx\x81 y,1\nz\n"), "ok\nx\uFFFD y,1\nz\n",
			[]string{"2:788120792c31:invalid gbk input at byte 2: 81"}},
		{"gbk 0xFF", "gbk", []byte("\xff\n"), "\uFFFD\n", []string{"1:ff:invalid gbk input at byte 1: ff"}},
		{"gbk unmapped pair", "gbk", []byte("a\xa2\xa0b"), "a\uFFFDb", []string{"1:61a2a062:invalid gbk input at byte 2: a2 a0"}},
		{"gbk lead byte at the end of the input", "gbk", []byte("a\n\xb6"), "a\n\uFFFD", []string{"2:b6:invalid gbk input at byte 1: b6"}},
		{"gbk lead byte before LF keeps the line end", "gbk", []byte("\xb6\nb\n"), "\uFFFD\nb\n", []string{"1:b6:invalid gbk input at byte 1: b6"}},
		{"gbk has no 4-byte forms", "gbk", []byte("\x81\x30\x81\x30\n"), "\uFFFD0\uFFFD0\n", []string{"1:81308130:invalid gbk input at byte 1: 81"}},
		{"gbk CRLF kept in raw", "gbk", []byte("\xff\r\nb\r\n"), "\uFFFD\r\nb\r\n", []string{"1:ff0d:invalid gbk input at byte 1: ff"}},
		{"gb18030 invalid 4-byte", "gb18030", []byte("\x81\x30\x81\xff\n"), "\uFFFD0\uFFFD\uFFFD\n", []string{"1:813081ff:invalid gb18030 input at byte 1: 81"}},
		{"gb18030 U+FFFD itself is valid", "gb18030", []byte("\x84\x31\xa4\x37\n"), "\uFFFD\n", nil},
		{"utf-16le lone high surrogate", "utf-16le", []byte("a\x00\x00\xd8b\x00\n\x00"), "a\uFFFDb\n", []string{"1:610000d86200:invalid utf-16le input at byte 3: 00 d8"}},
		{"utf-16le lone low surrogate", "utf-16le", []byte("\x00\xdc\n\x00o\x00k\x00"), "\uFFFD\nok", []string{"1:00dc:invalid utf-16le input at byte 1: 00 dc"}},
		{"utf-16le odd byte at the end", "utf-16le", []byte("a\x00\n\x00b"), "a\n\uFFFD", []string{"2:62:invalid utf-16le input at byte 1: 62"}},
		{"utf-16le U+FFFD itself is valid", "utf-16le", []byte("\xfd\xff\n\x00"), "\uFFFD\n", nil},
		{"utf-16be lone surrogate", "utf-16be", []byte("\x00a\xd8\x00\x00\n\x00b"), "a\uFFFD\nb", []string{"1:0061d800:invalid utf-16be input at byte 3: d8 00"}},
		{"utf-16 LF must be aligned", "utf-16le", []byte("\x0a\x0a\x00\x0a\x0a\x00"), "\u0a0a\u0a00\n", nil},
		{"windows-1252 undefined byte", "windows-1252", []byte("a\x81b\n"), "a\uFFFDb\n", []string{"1:618162:invalid windows-1252 input at byte 2: 81"}},
		{"latin1 has no invalid bytes", "latin1", []byte("\x81\xff\n"), "\u0081\u00ff\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLookup(t, tc.enc)
			got := readings(t, e, tc.in)
			if got.out != tc.out || fmt.Sprint(got.bad) != fmt.Sprint(tc.bad) {
				t.Errorf("got %q %q\nwant %q %q", got.out, got.bad, tc.out, tc.bad)
			}
		})
	}
}

// TestReadError checks that the lines before a read error come first, then the
// error, every time.
func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("a\nb\nc"), iotest.ErrReader(boom)), latin1Enc)
	got, err := io.ReadAll(r)
	if string(got) != "a\nb\n" || err != boom {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
	if _, err := r.Read(make([]byte, 8)); err != boom {
		t.Fatal(err)
	}
}

// TestLongLine checks lines longer than the buffer, and that a long line arriving
// in small reads is not scanned again and again.
func TestLongLine(t *testing.T) {
	for _, name := range []string{"gbk", "utf-16le", "utf-16be"} {
		e := mustLookup(t, name)
		text := "x\n" + strings.Repeat("设备", 3*initialBufSize) + "\ny"
		in := encode(t, e, text)
		got := readAll(t, NewReader(&chunkReader{b: in, n: 1000}, e))
		if got.out != text || len(got.bad) != 0 {
			t.Errorf("%s: long line wrong (%d bytes out)", name, len(got.out))
		}
	}
}

type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[k:]
	return k, nil
}

// FuzzReader checks, for any bytes in any encoding: no panic; the same result
// however the input arrives; UTF-8 output with one line per source line; a line
// marked bad exactly when x/text's decoding of it holds a U+FFFD that does not
// encode back to the input, with its input bytes as raw; a good line equal to x/text's decoding.
func FuzzReader(f *testing.F) {
	for i, s := range []string{"a,b\nc\n", "设备,1\n\x81 \n", "\xff\xfe\x00\xd8\n\x00", "x\r\ny\rz", "\x84\x31\xa4\x37\n\x81\x30", "",
		"  \n \x00 \x00\n\x00", "a\n" + strings.Repeat("\xb6\xe0", 300) + "\x81\n"} {
		f.Add([]byte(s), uint8(i))
	}
	encs := []*Encoding{gbkEnc, gb18030Enc, latin1Enc, cp1252Enc, utf16leEnc, utf16beEnc}
	f.Fuzz(func(t *testing.T, in []byte, sel uint8) {
		e := encs[int(sel)%len(encs)]
		got := readings(t, e, in)
		if !utf8.ValidString(got.out) {
			t.Fatalf("output not UTF-8: %q", got.out)
		}
		src := bytes.TrimPrefix(in, e.bom)
		var lines [][]byte
		for {
			k := e.index(src)
			if k < 0 {
				if len(src) > 0 || len(lines) == 0 {
					lines = append(lines, src)
				}
				break
			}
			lines = append(lines, src[:k])
			src = src[k+len(e.lf):]
			if len(src) == 0 {
				lines = append(lines, src)
				break
			}
		}
		outLines := strings.Split(got.out, "\n")
		if len(outLines) != len(lines) {
			t.Fatalf("%s %x: %d lines out, %d in", e.Name, in, len(outLines), len(lines))
		}
		badAt := map[int]string{}
		for _, b := range got.bad {
			l, _ := strconv.Atoi(b[:strings.IndexByte(b, ':')])
			badAt[l] = b
		}
		for i, l := range lines {
			dec, _ := e.enc.NewDecoder().Bytes(l)
			if string(dec) != outLines[i] {
				t.Fatalf("%s %x line %d: %q, x/text says %q", e.Name, in, i+1, outLines[i], dec)
			}
			// U+FFFD stands for invalid bytes unless encoding the line back gives
			// the input (U+FFFD itself encoded in gb18030 or UTF-16).
			hasBad := false
			if bytes.Contains(dec, fffdUTF8) {
				back, err := e.Encode(dec)
				hasBad = err != nil || !bytes.Equal(back, l)
			}
			b, marked := badAt[i+1]
			if marked != hasBad {
				t.Fatalf("%s %x line %d (%x → %q): marked %v", e.Name, in, i+1, l, dec, marked)
			}
			if marked && !strings.HasPrefix(b, fmt.Sprintf("%d:%x:", i+1, l)) {
				t.Fatalf("%s %x: bad line %q, want raw %x", e.Name, in, b, l)
			}
		}
	})
}

// TestAllLinesBad checks that the queue of bad lines stays bounded when every
// line is bad (a file in another encoding than declared).
func TestAllLinesBad(t *testing.T) {
	const n = 1 << 20
	r := NewReader(bytes.NewReader(bytes.Repeat([]byte("\xff\n"), n)), gbkEnc)
	buf := make([]byte, 4096)
	line := int64(1)
	for {
		k, err := r.Read(buf)
		for _, c := range buf[:k] {
			if c == '\n' {
				if _, _, bad := r.Check(line, line, nil); !bad {
					t.Fatalf("line %d not bad", line)
				}
				line++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if line != n+1 || cap(r.bad) > n/4 {
		t.Fatalf("%d lines, queue capacity %d", line-1, cap(r.bad))
	}
}
