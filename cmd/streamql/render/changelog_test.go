package render

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/internal/session"
)

// changeBatch routes rows (key, count, kind) to output 0 of an updating job.
func changeBatch(rows ...any) *session.Batch {
	k, n := vector.NewVec(catalog.Varchar), vector.NewVec(catalog.BigInt)
	kinds := make([]session.RowKind, vector.Cap)
	m := len(rows) / 3
	r := &session.Batch{N: m, Parts: []session.Part{{Output: 0, Cols: []*session.Vec{k, n}, Kinds: kinds}}}
	for i := 0; i < m; i++ {
		k.S[i], n.I[i], kinds[i] = []byte(rows[3*i].(string)), int64(rows[3*i+1].(int)), rows[3*i+2].(session.RowKind)
		r.Parts[0].Sel = append(r.Parts[0].Sel, int32(i))
	}
	return r
}

func updatingJob() *session.Job {
	return &session.Job{HasMain: true, Bounded: true, Outputs: []session.Output{{Name: "main", Updating: true,
		Columns: []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "n", Type: catalog.BigInt}}}}}
}

// TestMaterializedTable: the table of an updating output is its materialized
// result (SPEC 2.8): -U/+U update a row in place, -D removes it, and the
// table is printed once at the end; on a terminal it is redrawn in place
// while the job runs (the cursor goes up over the last drawing, which is
// cleared), and the final table replaces the last drawing.
func TestMaterializedTable(t *testing.T) {
	for _, term := range []bool{false, true} {
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		s, err := NewSink(Config{Format: "markdown", Stdout: w, Stderr: &out, Files: NewFileSet(), Terminal: term, Every: time.Nanosecond}, updatingJob())
		if err != nil {
			t.Fatal(err)
		}
		steps := []*session.Batch{
			changeBatch("a", 1, session.Insert, "b", 1, session.Insert),
			changeBatch("a", 1, session.UpdateBefore, "a", 2, session.UpdateAfter, "c", 1, session.Insert),
			changeBatch("b", 1, session.Delete),
		}
		for _, r := range steps {
			if err := s.Rows(r); err != nil {
				t.Fatal(err)
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		final := "| k | n |\n|---|---:|\n| a | 2 |\n| c | 1 |\n\n"
		got := out.String()
		if !term {
			if got != final {
				t.Errorf("in a pipe: got\n%q\nwant the final table once\n%q", got, final)
			}
			continue
		}
		draws := strings.Count(got, "| k | n |")
		redraws := len(regexp.MustCompile("\x1b\\[\\d+A\\| k \\| n \\|").FindAllString(got, -1))
		erase, ok := strings.CutSuffix(got, final)
		if i := strings.LastIndex(erase, "\n\x1b[J"); i >= 0 {
			erase = erase[i+4:]
		}
		if !ok || !liveErase.MatchString(erase) || draws != 4 || redraws != 3 || !strings.Contains(got, "| a | 1 |\x1b[K\n| b | 1 |") {
			t.Errorf("on a terminal: %d drawings, %d drawn over the last (2 redrawings, then the final table), got\n%q", draws, redraws, got)
		}
	}
}

// TestChangelogLines: an updating output in the line formats prints each
// row's kind (SPEC 2.8): an op column in csv, "op" in json, Flink's print
// sink in plain.
func TestChangelogLines(t *testing.T) {
	for _, tc := range []struct{ format, want string }{
		{"csv", "op,k,n\n+I,a,1\n-U,a,1\n+U,a,2\n-D,a,2\n"},
		{"tsv", "op\tk\tn\n+I\ta\t1\n-U\ta\t1\n+U\ta\t2\n-D\ta\t2\n"},
		{"json", `{"op":"+I","k":"a","n":1}` + "\n" + `{"op":"-U","k":"a","n":1}` + "\n" + `{"op":"+U","k":"a","n":2}` + "\n" + `{"op":"-D","k":"a","n":2}` + "\n"},
		{"plain", "+I[a, 1]\n-U[a, 1]\n+U[a, 2]\n-D[a, 2]\n"},
	} {
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		s, err := NewSink(Config{Format: tc.format, Stdout: w, Stderr: &out, Files: NewFileSet()}, updatingJob())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Rows(changeBatch("a", 1, session.Insert, "a", 1, session.UpdateBefore, "a", 2, session.UpdateAfter, "a", 2, session.Delete)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.format, out.String(), tc.want)
		}
	}
}

// TestMaterializedMatchesValues: the materialized result (SPEC 2.8's table
// mode) matches a retraction with the row of equal values, not with a row
// that only shows alike: NULL and the text 'NULL', the empty string and a
// NULL, a control character and the text of its \xNN spelling (SPEC 4). Each
// pair p, q: +I p, +I z, +I q, then -D p must leave z, q in that order (a
// match by the table cells took q back and left p's row first).
func TestMaterializedMatchesValues(t *testing.T) {
	null := []byte(nil)
	for _, pair := range [][2][]byte{{null, []byte("NULL")}, {[]byte("NULL"), null}, {null, []byte("")}, {[]byte(""), null},
		{[]byte("\x01"), []byte(`\x01`)}, {[]byte(`\x01`), []byte("\x01")}, {[]byte("a\nb"), []byte(`a\nb`)}} {
		k := vector.NewVec(catalog.Varchar)
		n := vector.NewVec(catalog.BigInt)
		kinds := make([]session.RowKind, vector.Cap)
		b := &session.Batch{N: 4, Parts: []session.Part{{Output: 0, Cols: []*session.Vec{k, n}, Kinds: kinds, Sel: []int32{0, 1, 2, 3}}}}
		for i, row := range []struct {
			v    []byte
			kind session.RowKind
		}{{pair[0], session.Insert}, {[]byte("z"), session.Insert}, {pair[1], session.Insert}, {pair[0], session.Delete}} {
			k.S[i], k.Null[i], n.I[i], kinds[i] = row.v, row.v == nil, 1, row.kind
		}
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		s, err := NewSink(Config{Format: "markdown", Stdout: w, Stderr: &out, Files: NewFileSet()}, updatingJob())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Rows(b); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		shown := func(v []byte) string {
			switch {
			case v == nil:
				return "NULL"
			case string(v) == "\x01":
				return `\x01`
			case string(v) == "a\nb":
				return `a\nb`
			}
			return string(v)
		}
		want := "| k | n |\n|---|---:|\n| z | 1 |\n| " + shown(pair[1]) + " | 1 |\n\n"
		if got := out.String(); got != want {
			t.Errorf("+I %q, +I z, +I %q, -D %q: got\n%q\nwant\n%q", pair[0], pair[1], pair[0], got, want)
		}
	}
}
