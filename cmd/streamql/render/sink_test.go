package render

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/vector"
	"streamql/internal/session"
)

// mainJob is a job with only a main output of cols.
func mainJob(cols ...catalog.Column) *session.Job {
	return &session.Job{HasMain: true, Bounded: true, Outputs: []session.Output{{Name: "main", Columns: cols}}}
}

// varcharBatch routes the values to output 0 as one VARCHAR column.
func varcharBatch(vals ...string) *session.Batch {
	v := vector.NewVec(catalog.Varchar)
	r := &session.Batch{N: len(vals), Parts: []session.Part{{Output: 0, Cols: []*session.Vec{v}}}}
	for i, s := range vals {
		v.S[i] = []byte(s)
		r.Parts[0].Sel = append(r.Parts[0].Sel, int32(i))
	}
	return r
}

// TestTableChunks: a table holds at most Chunk rows (SPEC 4: 1000), even when
// one routed batch brings more.
func TestTableChunks(t *testing.T) {
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	s, err := NewSink(Config{Format: "table", Stdout: w, Stderr: &out, Files: NewFileSet()}, mainJob(catalog.Column{Name: "v", Type: catalog.Varchar}))
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]string, vector.Cap)
	for i := range vals {
		vals[i] = "x"
	}
	for range 3 { // 3072 rows: tables of 1000, 1000, 1000, 72
		if err := s.Rows(varcharBatch(vals...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, table := range strings.Split(out.String(), "┌")[1:] {
		sizes = append(sizes, strings.Count(table, "│ x │"))
	}
	if want := []int{1000, 1000, 1000, 72}; !equalInts(sizes, want) {
		t.Errorf("tables of %v rows, want %v", sizes, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTableMemory: rendering a chunk that holds a 20 MB value allocates a small
// multiple of the value (its cell's string, the output buffer), not a copy per
// rendering step (tablewriter took about 38 times the value).
func TestTableMemory(t *testing.T) {
	big := strings.Repeat("x", 20<<20)
	for _, format := range []string{"table", "markdown"} {
		var n countWriter
		w := bufio.NewWriter(&n)
		s, err := NewSink(Config{Format: format, Stdout: w, Stderr: &n, Files: NewFileSet()}, mainJob(catalog.Column{Name: "v", Type: catalog.Varchar}))
		if err != nil {
			t.Fatal(err)
		}
		r := varcharBatch(big, "small", "设备")
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		if err := s.Rows(r); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		if n < 20<<20 {
			t.Fatalf("%s: %d bytes written", format, n)
		}
		if got := m1.TotalAlloc - m0.TotalAlloc; got > 3*uint64(len(big)) {
			t.Errorf("%s: rendering a 20 MB value allocated %d MB, want at most 3 times the value", format, got>>20)
		}
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// TestBoxMatchesTablewriter: the table format draws what tablewriter v1 drew
// (the format of the golden files), for text and numbers, wide runes, empty
// cells, tabs, and a table without rows.
func TestBoxMatchesTablewriter(t *testing.T) {
	cols := []catalog.Column{{Name: "name", Type: catalog.Varchar}, {Name: "n", Type: catalog.BigInt}, {Name: "温度", Type: catalog.Double}}
	for _, rows := range [][][]string{
		nil,
		{{"设备1", "1", "5.5"}, {"", "NULL", "NaN"}, {"a\tb", "-12345678901", "1.0E7"}, {"  lead", "0", ""}},
	} {
		var want bytes.Buffer
		header := []any{"name", "n", "温度"}
		tbl := tablewriter.NewTable(&want,
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithTrimSpace(tw.Off),
			tablewriter.WithHeaderAlignment(tw.AlignLeft),
			tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight}}),
		)
		tbl.Header(header...)
		for _, r := range rows {
			tbl.Append(r)
		}
		if err := tbl.Render(); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeTable(&got, "table", "", cols, rowsOf(len(cols), rows)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("rows %q:\ngot\n%s\nwant (tablewriter)\n%s", rows, got.String(), want.String())
		}
	}
}

// TestSideFilesRefuseSymlinks: a side file is never written through a symbolic
// link, for a new file or when a later job appends to it (SPEC 4).
func TestSideFilesRefuseSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.txt")
	os.WriteFile(outside, []byte("keep\n"), 0o644)
	side := filepath.Join(dir, "side")
	os.Mkdir(side, 0o755)
	fs := NewFileSet()
	// a link to an existing file, and a dangling one (creating would make its target)
	os.Symlink(outside, filepath.Join(side, "a.csv"))
	os.Symlink(filepath.Join(dir, "new.txt"), filepath.Join(side, "b.csv"))
	for _, name := range []string{"a.csv", "b.csv"} {
		_, _, _, err := fs.open(filepath.Join(side, name), "x VARCHAR")
		if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming the file as a symbolic link", name, err)
		}
	}
	// appended to by a later job, after the file was swapped for a link
	p := filepath.Join(side, "c.csv")
	f, _, _, err := fs.open(p, "x VARCHAR")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Remove(p)
	os.Symlink(outside, p)
	if _, _, _, err := fs.open(p, "x VARCHAR"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("append through a link: error %v", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
		t.Errorf("the file outside --side-dir became %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("a file was created outside --side-dir through a dangling link")
	}
	// names that would leave the folder
	for _, name := range []string{"../x", "a/b", "/", "", "a\x00b"} {
		if _, err := SideFilePath(side, name, ".csv"); err == nil {
			t.Errorf("side output %q: no error", name)
		}
	}
	// names SPEC 2.1 allows are files directly inside the folder, whatever
	// their dots and backslashes (a Unix path holds no backslash separator)
	for _, name := range []string{".", "..", "...", `a\b`, `\`, ".hidden", "a..b"} {
		for _, ext := range []string{".csv", ".tsv", ".json", ".txt", ".md"} {
			p, err := SideFilePath(side, name, ext)
			if err != nil || filepath.Dir(p) != side || filepath.Base(p) != name+ext {
				t.Errorf("side output %q (%s): %s, %v; want %s inside %s", name, ext, p, err, name+ext, side)
			}
		}
	}
	if p, err := SideFilePath(side, "high-tmp", ".csv"); err != nil || p != filepath.Join(side, "high-tmp.csv") {
		t.Errorf("SideFilePath = %s, %v", p, err)
	}
}

// TestErrorsSidesByName: each errors side output gets its own stream's rows
// (two and three names, the build sides' through Errors, the probe's in Step).
func TestErrorsSidesByName(t *testing.T) {
	for _, names := range [][]string{{"a_bad", "b_bad"}, {"a_bad", "b_bad", "c_bad"}} {
		side := t.TempDir()
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		s, err := NewSink(Config{Format: "csv", SideDir: side, Stdout: w, Stderr: &out, Files: NewFileSet()}, mainJob(catalog.Column{Name: "v", Type: catalog.Varchar}))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names[1:] { // build sides first, as a job reads them
			if err := s.Errors(n, []session.ErrorRow{{Stream: n[:1], Position: n[:1] + ".csv:1", Raw: []byte("raw " + n), Error: "bad"}}); err != nil {
				t.Fatal(err)
			}
		}
		r := varcharBatch("ok")
		r.Errors.Name = names[0]
		r.Errors.Rows = []session.ErrorRow{{Stream: "a", Position: "a.csv:2", Raw: []byte("raw a_bad"), Error: "bad", At: 1}}
		if err := s.Rows(r); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(side, n+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			st := n[:1]
			want := "stream,position,raw,error\n" + st + "," + st + ".csv:" + map[bool]string{true: "2", false: "1"}[st == "a"] + ",raw " + n + ",bad\n"
			if string(b) != want {
				t.Errorf("%v: %s.csv =\n%s\nwant\n%s", names, n, b, want)
			}
		}
	}
}

// TestChunksInOutputOrder: rows an operator made itself (an aggregate's
// fired windows, session.Chunk) are written at their place among the input
// rows (SPEC 2.4, SPEC 4: in the output order, interleaved with the side
// outputs' rows), before the malformed rows at the same place.
func TestChunksInOutputOrder(t *testing.T) {
	col := catalog.Column{Name: "v", Type: catalog.Varchar}
	job := &session.Job{HasMain: true, HasSides: true, Bounded: true,
		Outputs: []session.Output{{Name: "main", Columns: []catalog.Column{col}}, {Name: "early", Columns: []catalog.Column{col}}}}
	var out, errOut bytes.Buffer
	w := bufio.NewWriter(&out)
	s, err := NewSink(Config{Format: "plain", Stdout: w, Stderr: &errOut, Files: NewFileSet()}, job)
	if err != nil {
		t.Fatal(err)
	}
	in := vector.NewVec(catalog.Varchar)
	for i, v := range []string{"r0", "r1", "r2"} {
		in.S[i] = []byte(v)
	}
	made := vector.NewVec(catalog.Varchar)
	for i, v := range []string{"w0", "w1", "w2"} {
		made.S[i] = []byte(v)
	}
	r := &session.Batch{N: 3,
		Parts: []session.Part{{Output: 1, Sel: []int32{0}, Cols: []*session.Vec{in}}, {Output: 0, Sel: []int32{2}, Cols: []*session.Vec{in}}},
		Chunks: []session.Chunk{
			{At: 1, Part: session.Part{Output: 0, Sel: []int32{0, 1}, Cols: []*session.Vec{made}}},
			{At: 3, Part: session.Part{Output: 1, Sel: []int32{2}, Cols: []*session.Vec{made}}},
		},
		Errors: session.ErrorPort{Name: "errors", Rows: []session.ErrorRow{{Stream: "s", Position: "s.csv:3", Raw: []byte("oops"), Error: "bad", At: 1}}},
	}
	if err := s.Rows(r); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	want := "early> (r0)\nmain> (w0)\nmain> (w1)\nmain> (r2)\nearly> (w2)\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "oops") {
		t.Errorf("stderr %q: no malformed row", errOut.String())
	}
}

// engineSink is session.EngineSink for a test that runs a job through the
// executor: NewSink's sink (or its error) as the executor's.
func engineSink(s session.Sink, err error) (executor.Sink, error) {
	if err != nil {
		return nil, err
	}
	return session.EngineSink(s), nil
}

// TestChunkLinesAsRows: a chunk's rows after its first go out together
// (sink.lines) as the lines row writes one by one: an updating output's
// changelog (op column) and a plain one, csv and tsv, values that need
// quoting, chunks of 1 to 300 rows, through stdout buffers of 16 bytes
// (smaller than a line: row by row) to 64 KiB. The reference is the same
// rows as chunks of one row each (row alone), and a first line checked by
// hand.
func TestChunkLinesAsRows(t *testing.T) {
	cols := []catalog.Column{{Name: "k", Type: catalog.BigInt}, {Name: "v", Type: catalog.Varchar}}
	kinds := []session.RowKind{session.Insert, session.UpdateBefore, session.UpdateAfter, session.Delete}
	texts := []string{"a", "b,c", `say "x"`, "", "line\nbreak", "tab\there", "设备7"}
	r := rand.New(rand.NewPCG(24, 7))
	for _, format := range []string{"csv", "tsv"} {
		for _, updating := range []bool{true, false} {
			for _, size := range []int{16, 100, 4096, 64 << 10} {
				k, v := vector.NewVec(catalog.BigInt), vector.NewVec(catalog.Varchar)
				ks := make([]session.RowKind, vector.Cap)
				for i := range vector.Cap {
					k.I[i], v.S[i] = r.Int64N(1<<40)-1<<39, []byte(texts[r.IntN(len(texts))])
					ks[i] = kinds[r.IntN(len(kinds))]
				}
				write := func(split func(from, to int) []int32) string {
					var out bytes.Buffer
					w := bufio.NewWriterSize(&out, size)
					job := &session.Job{HasMain: true, Bounded: true, Outputs: []session.Output{{Name: "main", Columns: cols, Updating: updating}}}
					s, err := NewSink(Config{Format: format, Stdout: w, Stderr: io.Discard, Files: NewFileSet()}, job)
					if err != nil {
						t.Fatal(err)
					}
					for from := 0; from < vector.Cap; {
						sel := split(from, vector.Cap)
						p := session.Part{Output: 0, Sel: sel, Cols: []*session.Vec{k, v}}
						if updating {
							p.Kinds = ks
						}
						if err := s.Rows(&session.Batch{N: 1, Chunks: []session.Chunk{{At: 1, Part: p}}}); err != nil {
							t.Fatal(err)
						}
						from += len(sel)
					}
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
					w.Flush()
					return out.String()
				}
				seq := func(from, to int) []int32 {
					sel := make([]int32, to-from)
					for j := range sel {
						sel[j] = int32(from + j)
					}
					return sel
				}
				want := write(func(from, _ int) []int32 { return seq(from, from+1) })
				got := write(func(from, to int) []int32 { return seq(from, min(to, from+1+r.IntN(300))) })
				if got != want {
					t.Fatalf("%s, updating %v, buffer %d: a chunk's lines differ from its rows one by one:\n%.300s\nwant\n%.300s", format, updating, size, got, want)
				}
				head := "k,v\n"
				if updating {
					head = "op,k,v\n"
				}
				if format == "tsv" {
					head = strings.ReplaceAll(head, ",", "\t")
				}
				if !strings.HasPrefix(want, head) || strings.Count(want, "\n") < vector.Cap+1 {
					t.Fatalf("%s: %.200q does not start with the header %q and hold %d rows", format, want, head, vector.Cap)
				}
			}
		}
	}
}
