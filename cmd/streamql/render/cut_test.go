package render

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/internal/session"
)

// closingWriter accepts k bytes, then fails with EPIPE, reporting the bytes
// of the failing write that got through (write(2) on a pipe whose reader
// went away after k bytes).
type closingWriter struct{ n, k int }

func (w *closingWriter) Write(p []byte) (int, error) {
	if w.n+len(p) <= w.k {
		w.n += len(p)
		return len(p), nil
	}
	n := max(0, w.k-w.n)
	w.n += n
	return n, syscall.EPIPE
}

// TestCutLogModel checks the cut's log (cut.go) against a model: random
// sequences of main rows and side rows of random lengths, stdout behind a
// small buffer over a writer that takes k bytes, the side files behind
// buffers of their own, flushes and prunes at random places (the log's
// first capacity is 1, so mainRow prunes often). At the end each side file's
// kept length must be its header and its rows routed before the last main
// row whose bytes were all accepted.
func TestCutLogModel(t *testing.T) {
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 3))
		k := r.IntN(3000)
		out := &WriteCounter{W: &closingWriter{k: k}}
		w := bufio.NewWriterSize(out, 16+r.IntN(300))
		header := r.IntN(20)
		w.Write(make([]byte, header)) // the main header
		c := &cutLog{out: out, w: w, ends: make([]int64, 0, 1)}
		type sideRow struct {
			mains int // main rows routed before it
			end   int64
		}
		ns := 1 + r.IntN(3)
		sides, headers := make([][]sideRow, ns), make([]int64, ns)
		for s := range ns {
			cw := &WriteCounter{W: io.Discard}
			f := &target{cw: cw, w: bufio.NewWriterSize(cw, 16+r.IntN(100))}
			f.w.Write(make([]byte, r.IntN(10))) // its header
			f.tag, f.base, headers[s] = c.tag(), cutLen{n: f.length()}, f.length()
			c.files = append(c.files, f)
		}
		var mainEnds []int64
		mainAt := int64(header)
		events := r.IntN(400)
		for range events {
			line := make([]byte, 1+r.IntN(40))
			switch x := r.IntN(10); {
			case x < 4:
				w.Write(line)
				c.mainRow()
				mainAt += int64(len(line))
				mainEnds = append(mainEnds, mainAt)
			case x < 9:
				s := r.IntN(ns)
				f := c.files[s]
				c.sideRow(f, c.tag())
				f.w.Write(line)
				sides[s] = append(sides[s], sideRow{mains: len(mainEnds), end: f.length()})
			default:
				if r.IntN(2) == 0 {
					w.Flush()
				}
				c.prune()
			}
		}
		w.Flush()
		last := 0 // main rows accepted whole
		for last < len(mainEnds) && mainEnds[last] <= out.N {
			last++
		}
		if out.Err == nil {
			continue // stdout took every byte: nothing is cut (apply)
		}
		got := c.accepted()
		for s, f := range c.files {
			want := headers[s]
			for _, row := range sides[s] {
				if row.mains < last {
					want = row.end
				}
			}
			if n := f.kept(got).n; n != want {
				t.Fatalf("seed %d: side %d keeps %d bytes, want %d (stdout took %d of %d bytes, %d of %d main rows)", seed, s, n, want, out.N, mainAt, last, len(mainEnds))
			}
		}
	}
}

// TestWriteCounter: the bytes of a failing write that got through count.
func TestWriteCounter(t *testing.T) {
	c := &WriteCounter{W: &closingWriter{k: 5}}
	n1, err1 := c.Write([]byte("abc"))
	n2, err2 := c.Write([]byte("defg"))
	if got := fmt.Sprint(n1, err1, n2, err2 == syscall.EPIPE, c.N, c.Err == syscall.EPIPE); got != "3 <nil> 2 true 5 true" {
		t.Fatal(got)
	}
}

// TestSideFilesRefuseFIFOs: a named pipe in --side-dir, with or without a
// reader, or a symbolic link to one, is refused at once (a side file must
// be a regular file to be cut back when stdout is closed early, SPEC 4),
// naming the file; the open does not wait for a reader.
func TestSideFilesRefuseFIFOs(t *testing.T) {
	side := t.TempDir()
	fifo := filepath.Join(side, "p.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := os.Symlink(fifo, filepath.Join(side, "l.csv")); err != nil {
		t.Fatal(err)
	}
	fs := NewFileSet()
	check := func(name, want string) {
		t.Helper()
		done := make(chan error, 1)
		go func() { _, _, _, err := fs.open(filepath.Join(side, name), "x VARCHAR"); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s: error %v, want one naming it and saying %q", name, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the open waits for a reader", name)
		}
	}
	check("p.csv", "not a regular file")
	check("l.csv", "symbolic link")
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader now
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	check("p.csv", "not a regular file")
	// a regular file is still written
	f, _, _, err := fs.open(filepath.Join(side, "ok.csv"), "x VARCHAR")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// acceptWriter is stdout that takes k bytes, then fails with EPIPE
// (closingWriter), keeping what it took.
type acceptWriter struct {
	closingWriter
	got []byte
}

func (w *acceptWriter) Write(p []byte) (int, error) {
	n, err := w.closingWriter.Write(p)
	w.got = append(w.got, p[:n]...)
	return n, err
}

// TestTableCutModel: --format table and markdown with --side-dir, stdout
// closed after k bytes (SPEC 4, cut.go). Random rows of random widths go to
// main and two side files in random batches, tables of a few rows (Chunk),
// sometimes a first job whose files the second appends to. The model draws
// each chunk's tables itself (writeTable, tested against tablewriter): main's
// on stdout says which main rows the k bytes hold whole; each side file must
// then be byte for byte the first job's tables, then the second's whole
// tables of its rows routed before the last main row written, the table the
// cut falls in ending after its last row kept with its own bottom border
// (or blank line), or, when the job created the file and keeps none of its
// rows, the empty table.
func TestTableCutModel(t *testing.T) {
	cols := []catalog.Column{{Name: "id", Type: catalog.BigInt}, {Name: "v", Type: catalog.Varchar}}
	job := &session.Job{HasMain: true, HasSides: true, Bounded: true,
		Outputs: []session.Output{{Name: "main", Columns: cols}, {Name: "s0", Columns: cols}, {Name: "s1", Columns: cols}}}
	type row struct {
		out int
		id  int64
		v   string
	}
	// draw is a table of rows as writeTable draws it, split in lines.
	draw := func(format, title string, rows []row) []string {
		var b bytes.Buffer
		var tr tableRows
		for _, r := range rows {
			tr.text = strconv.AppendInt(tr.text, r.id, 10)
			tr.addText()
			tr.addCell([]byte(r.v))
			tr.endRow()
		}
		if err := writeTable(&b, format, title, cols, &tr); err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(b.String(), "\n")
		return lines[:len(lines)-1] // (the "" after the last LF)
	}
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 5))
		format := []string{"table", "markdown"}[r.IntN(2)]
		chunk := 1 + r.IntN(6)
		side := t.TempDir()
		files := NewFileSet()
		want := make([]string, 3) // the side files' model text
		for jobN := range 1 + r.IntN(2) {
			last := jobN == 0 && r.IntN(2) == 0 // (a second job follows)
			var rows []row
			for id := range int64(r.IntN(60)) {
				rows = append(rows, row{out: r.IntN(3), id: id + 1, v: strings.Repeat("w", r.IntN(14))})
			}
			// the model: the chunks' tables, main's on stdout (titled)
			var stdout []string
			var mainEnds []int // per row: the end of its line on stdout, -1 for a side row
			sideLines := make([][][]string, 3)
			for c := 0; c < len(rows) || c == 0; c += chunk {
				part := rows[c:min(c+chunk, len(rows))]
				for out := range 3 {
					var of []row
					for _, x := range part {
						if x.out == out {
							of = append(of, x)
						}
					}
					if len(of) == 0 {
						continue
					}
					if out == 0 {
						lines := draw(format, "main", of)
						at := len(strings.Join(stdout, ""))
						for _, x := range part {
							if x.out == 0 {
								mainEnds = append(mainEnds, -2) // filled below
							} else {
								mainEnds = append(mainEnds, -1)
							}
						}
						head := 4 // "main", top, header, middle border
						if format == "markdown" {
							head = 3
						}
						k := 0
						for i := c; i < c+len(part); i++ {
							if mainEnds[i] == -2 {
								mainEnds[i] = at + len(strings.Join(lines[:head+k+1], ""))
								k++
							}
						}
						stdout = append(stdout, lines...)
					} else {
						sideLines[out] = append(sideLines[out], draw(format, "", of))
					}
				}
				if len(mainEnds) < c+len(part) { // no main row in the chunk
					for range c + len(part) - len(mainEnds) {
						mainEnds = append(mainEnds, -1)
					}
				}
			}
			if len(stdout) == 0 { // main shows at the end even without rows (SPEC 4)
				stdout = draw(format, "main", nil)
			}
			total := len(strings.Join(stdout, ""))
			k := total + 1
			if !last && r.IntN(4) != 0 {
				k = r.IntN(total + 1)
			}
			written := -1 // the index in rows of the last main row written
			for i, e := range mainEnds {
				if e >= 0 && e <= k {
					written = i
				}
			}
			if k > total {
				written = len(rows)
			}
			// the side files: whole tables up to the row before written
			for out := 1; out < 3; out++ {
				kept, n := 0, 0 // its rows kept, and seen
				for i, x := range rows {
					if x.out == out && i < written {
						kept++
					}
				}
				var text strings.Builder
				for _, lines := range sideLines[out] {
					head, tail := 3, 1 // top, header, middle border; bottom border
					if format == "markdown" {
						head = 2 // header, its line under; then a blank line
					}
					rowsIn := len(lines) - head - tail
					switch {
					case n+rowsIn <= kept:
						text.WriteString(strings.Join(lines, ""))
					case n < kept:
						text.WriteString(strings.Join(lines[:head+kept-n], "") + lines[len(lines)-1])
					}
					n += rowsIn
				}
				if text.Len() == 0 && jobN == 0 {
					text.WriteString(strings.Join(draw(format, "", nil), ""))
				}
				want[out] += text.String()
			}
			// the sink
			stdoutW := &acceptWriter{closingWriter: closingWriter{k: k}}
			wc := &WriteCounter{W: stdoutW}
			cfg := Config{Format: format, SideDir: side, Stdout: bufio.NewWriterSize(wc, 16+r.IntN(200)), Stderr: io.Discard, Files: files, Written: wc, Chunk: chunk, Every: time.Hour}
			s, err := NewSink(cfg, job)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(rows); {
				n := min(len(rows)-i, 1+r.IntN(8))
				id, v := vector.NewVec(catalog.BigInt), vector.NewVec(catalog.Varchar)
				rt := &session.Batch{N: n}
				for out := range 3 {
					rt.Parts = append(rt.Parts, session.Part{Output: out, Cols: []*session.Vec{id, v}})
				}
				for j := range n {
					x := rows[i+j]
					id.I[j], v.S[j] = x.id, []byte(x.v)
					rt.Parts[x.out].Sel = append(rt.Parts[x.out].Sel, int32(j))
				}
				if err := s.Rows(rt); err != nil && wc.Err == nil {
					t.Fatal(err)
				}
				i += n
			}
			s.Close()
			if got := string(stdoutW.got); got != strings.Join(stdout, "")[:min(k, total)] {
				t.Fatalf("seed %d job %d: stdout %q,\nthe model's %q", seed, jobN, got, strings.Join(stdout, ""))
			}
			for out := 1; out < 3; out++ {
				b, err := os.ReadFile(filepath.Join(side, fmt.Sprintf("s%d%s", out-1, Ext(format))))
				if err != nil {
					t.Fatal(err)
				}
				if string(b) != want[out] {
					t.Fatalf("seed %d job %d, %s, chunks of %d rows, stdout took %d bytes of %d (the last main row written: row %d of %d):\ns%d holds\n%s\nwant\n%s", seed, jobN, format, chunk, k, total, written, len(rows), out-1, b, want[out])
				}
			}
			if last {
				break
			}
		}
	}
}
