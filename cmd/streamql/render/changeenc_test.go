package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/internal/session"
)

// TestChangeEncoderAsSink: with the changelog encoder goroutine
// (changeenc.go) the sink writes the bytes it writes without it, on
// stdout, stderr and every side file, and counts the same rows: random
// batches of an updating main output's chunks (every type it copies, NULLs,
// values that need quoting, chunks of 1 to 1024 rows), with input rows
// routed to main and to a side output, malformed rows and flushes between
// them, in csv, tsv and json, with and without --side-dir (and the cut's
// log), through stdout buffers of 16 bytes to 64 KiB. After each batch the
// vectors its chunks pointed at are overwritten (as an operator reuses
// them), so a row the encoder read from them instead of its copy shows.
// The encoder's batches hold 1, 7, 1024 or (as by default) 32,768 rows.
func TestChangeEncoderAsSink(t *testing.T) {
	cols := []catalog.Column{{Name: "k", Type: catalog.BigInt}, {Name: "s", Type: catalog.Varchar},
		{Name: "d", Type: catalog.Double}, {Name: "b", Type: catalog.Boolean}, {Name: "ts", Type: catalog.Timestamp}}
	types := []catalog.Type{catalog.BigInt, catalog.Varchar, catalog.Double, catalog.Boolean, catalog.Timestamp}
	texts := []string{"a", "b,c", `say "x"`, "", "line\nbreak", "tab\there", "设备7", "NULL"}
	kinds := []session.RowKind{session.Insert, session.UpdateBefore, session.UpdateAfter, session.Delete}
	side := []catalog.Column{{Name: "v", Type: catalog.Varchar}}
	counts := []catalog.Column{{Name: "k", Type: catalog.BigInt}, {Name: "n", Type: catalog.BigInt}}
	for seed := range uint64(32) {
		cols, types := cols, types
		if seed >= 24 { // (a count per key: every column BIGINT, encBatch.ints)
			cols, types = counts, []catalog.Type{catalog.BigInt, catalog.BigInt}
		}
		job := &session.Job{HasMain: true, HasSides: true, EncodeAhead: true, Outputs: []session.Output{ // (EncodeAhead: the planner's choice on 2 CPUs or more)
			{Name: "main", Columns: cols, Updating: true}, {Name: "side", Columns: side}}}
		format := []string{"csv", "tsv", "json"}[seed%3]
		sideDir := seed%2 == 0
		size := []int{16, 100, 4096, 64 << 10}[seed/6%4]
		defer func(n int) { encRows = n }(encRows)
		encRows = []int{1, 7, 1024, 32 * vector.Cap}[seed/2%4] // (batches that fill up and wait for the encoder; the default)
		run := func(off bool) (string, string, string, []OutputRows) {
			changeEncodeOff = off
			defer func() { changeEncodeOff = false }()
			r := rand.New(rand.NewPCG(seed, 15))
			var out, errOut bytes.Buffer
			wc := &WriteCounter{W: &out}
			w := bufio.NewWriterSize(wc, size)
			cfg := Config{Format: format, Stdout: w, Stderr: &errOut, Files: NewFileSet()}
			dir := t.TempDir()
			if sideDir {
				cfg.SideDir, cfg.Written = dir, wc
			}
			s, err := NewSink(cfg, job)
			if err != nil {
				t.Fatal(err)
			}
			made := vector.NewBatch(types)
			in := vector.NewBatch(types)
			sv := vector.NewVec(catalog.Varchar)
			ks := make([]session.RowKind, vector.Cap)
			fill := func(b *vector.Batch) {
				b.Reset()
				for i := range vector.Cap {
					for _, v := range b.Cols {
						v.Null[i] = r.IntN(8) == 0
					}
					for _, v := range b.Cols {
						switch v.Type {
						case catalog.BigInt:
							v.I[i] = r.Int64N(1<<40) - 1<<39
							if r.IntN(2) == 0 { // (a key repeated by the next row: its text again, encBatch.key)
								v.I[i] = r.Int64N(3) - 1
							}
						case catalog.Varchar:
							v.SetString(i, []byte(texts[r.IntN(len(texts))]))
						case catalog.Double:
							v.F[i] = []float64{0.5, -1e300, math.Inf(1), 3, 1.0 / 3}[r.IntN(5)]
						case catalog.Boolean:
							v.B[i] = r.IntN(2) == 0
						case catalog.Timestamp:
							v.I[i] = r.Int64N(1 << 42)
						}
					}
					ks[i] = kinds[r.IntN(len(kinds))]
				}
			}
			for i := range vector.Cap {
				sv.S[i] = []byte(fmt.Sprintf("side%d", i))
			}
			for range 40 {
				fill(made)
				fill(in)
				n := 1 + r.IntN(64)
				batch := &session.Batch{N: n}
				var toMain, toSide []int32
				for i := range n {
					switch r.IntN(4) {
					case 0:
						toMain = append(toMain, int32(i))
					case 1:
						toSide = append(toSide, int32(i))
					}
				}
				if len(toMain) > 0 && r.IntN(3) == 0 {
					batch.Parts = append(batch.Parts, session.Part{Output: 0, Sel: toMain, Cols: in.Cols, Kinds: ks})
				}
				if len(toSide) > 0 && r.IntN(2) == 0 {
					batch.Parts = append(batch.Parts, session.Part{Output: 1, Sel: toSide, Cols: []*session.Vec{sv}})
				}
				from := 0
				for at := 0; at <= n && from < vector.Cap; at += 1 + r.IntN(8) {
					m := min(vector.Cap-from, 1+r.IntN([]int{3, 100, vector.Cap}[r.IntN(3)]))
					sel := make([]int32, m)
					for j := range sel {
						sel[j] = int32(from + j)
					}
					switch r.IntN(4) {
					case 0: // every other row (encBatch.add's rows one by one)
						sel = sel[:0]
						for j := from; j < from+m; j += 2 {
							sel = append(sel, int32(j))
						}
					case 1: // a run's rows out of order (not a run: isRun)
						if m > 2 {
							sel[1], sel[m-2] = sel[m-2], sel[1]
						}
					}
					from += m
					batch.Chunks = append(batch.Chunks, session.Chunk{At: at, Part: session.Part{Output: 0, Sel: sel, Cols: made.Cols, Kinds: ks}})
				}
				if r.IntN(4) == 0 {
					batch.Errors = session.ErrorPort{Name: "errors", Rows: []session.ErrorRow{{Stream: "s", Position: "s.csv:3", Raw: []byte("oops"), Error: "bad", At: r.IntN(n + 1)}}}
				}
				if err := s.Rows(batch); err != nil {
					t.Fatal(err)
				}
				fill(made) // (the operator's buffers, reused)
				if r.IntN(8) == 0 {
					if err := s.Flush(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			var files bytes.Buffer
			if sideDir {
				for _, name := range []string{"side", "errors"} {
					b, err := os.ReadFile(filepath.Join(dir, name+"."+Ext(format)))
					if err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
					files.Write(b)
				}
			}
			return out.String(), errOut.String(), files.String(), s.(Counter).Counts()
		}
		out, errOut, files, counts := run(false)
		wout, werrOut, wfiles, wcounts := run(true)
		if out != wout || errOut != werrOut || files != wfiles || fmt.Sprint(counts) != fmt.Sprint(wcounts) {
			t.Fatalf("seed %d (%s, side-dir %v, buffer %d): with the encoder goroutine, stdout %d bytes, stderr %d, side files %d, counts %v; without, %d, %d, %d, %v; first difference at stdout byte %d",
				seed, format, sideDir, size, len(out), len(errOut), len(files), counts, len(wout), len(werrOut), len(wfiles), wcounts, firstDiff(out, wout))
		}
		if len(out) < 1000 {
			t.Fatalf("seed %d: only %d bytes on stdout", seed, len(out))
		}
	}
}

// failAfter is a writer that accepts n bytes, then fails.
type failAfter struct{ n int }

var errClosed = errors.New("closed")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) <= f.n {
		f.n -= len(p)
		return len(p), nil
	}
	k := f.n
	f.n = 0
	return k, errClosed
}

// TestChangeEncoderWriteError: a write error the encoder goroutine meets
// (stdout closed) is returned by the sink, at the latest by Close, and
// the rows after it are not written.
func TestChangeEncoderWriteError(t *testing.T) {
	cols := []catalog.Column{{Name: "k", Type: catalog.BigInt}}
	job := &session.Job{HasMain: true, EncodeAhead: true, Outputs: []session.Output{{Name: "main", Columns: cols, Updating: true}}}
	fa := &failAfter{n: 5000}
	wc := &WriteCounter{W: fa}
	s, err := NewSink(Config{Format: "csv", Stdout: bufio.NewWriterSize(wc, 4096), Stderr: io.Discard, Files: NewFileSet()}, job)
	if err != nil {
		t.Fatal(err)
	}
	v := vector.NewVec(catalog.BigInt)
	sel := make([]int32, vector.Cap)
	for i := range sel {
		sel[i], v.I[i] = int32(i), int64(i)
	}
	var got error
	for range 100 {
		if got = s.Rows(&session.Batch{N: 1, Chunks: []session.Chunk{{At: 1, Part: session.Part{Output: 0, Sel: sel, Cols: []*session.Vec{v}}}}}); got != nil {
			break
		}
	}
	if cerr := s.Close(); got == nil {
		got = cerr
	}
	if !errors.Is(got, errClosed) || wc.N > 5000 {
		t.Fatalf("got %v after %d bytes accepted, want the write's error after at most 5000", got, wc.N)
	}
}

// TestChangeEncoderFollowsPlan: the sink starts the encoder goroutine for
// an updating main output printed as csv exactly when the plan chose it
// (session.Job.EncodeAhead, the planner's encode-ahead rule, which EXPLAIN
// shows as the main Sink's strategy), and not for a table, whatever the
// plan says (the frontend's format).
func TestChangeEncoderFollowsPlan(t *testing.T) {
	cols := []catalog.Column{{Name: "k", Type: catalog.BigInt}}
	v := vector.NewVec(catalog.BigInt)
	sel := []int32{0, 1, 2}
	for _, c := range []struct {
		ahead  bool
		format string
		want   bool
	}{{true, "csv", true}, {false, "csv", false}, {true, "table", false}, {true, "tsv", true}} {
		job := &session.Job{HasMain: true, EncodeAhead: c.ahead, Outputs: []session.Output{{Name: "main", Columns: cols, Updating: true}}}
		var out strings.Builder
		s, err := NewSink(Config{Format: c.format, Stdout: bufio.NewWriter(&out), Stderr: io.Discard, Files: NewFileSet()}, job)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Rows(&session.Batch{N: 1, Chunks: []session.Chunk{{At: 1, Part: session.Part{Output: 0, Sel: sel, Cols: []*session.Vec{v}}}}}); err != nil {
			t.Fatal(err)
		}
		if got := s.(*sink).enc != nil; got != c.want {
			t.Errorf("EncodeAhead %v, format %s: encoder goroutine %v, want %v", c.ahead, c.format, got, c.want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
