package connector

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestFileSinkWriteAllocs: writing a row to a file sink allocates nothing (the
// hot path, DESIGN), in csv and in json; Close leaves every row in the file.
func TestFileSinkWriteAllocs(t *testing.T) {
	cols := []catalog.Column{{Name: "n", Type: catalog.BigInt}, {Name: "s", Type: catalog.Varchar}, {Name: "d", Type: catalog.Double}}
	vals := []*vector.Vec{vector.NewVec(catalog.BigInt), vector.NewVec(catalog.Varchar), vector.NewVec(catalog.Double)}
	vals[0].I[0] = 42
	vals[1].SetString(0, []byte("a,b"))
	vals[2].Null[0] = true
	for _, tc := range []struct{ format, row string }{{"csv", "42,\"a,b\",\n"}, {"json", `{"n":42,"s":"a,b","d":null}` + "\n"}} {
		dir := t.TempDir()
		st := &catalog.Stream{Name: "k", Columns: cols, BaseDir: dir, Options: map[string]string{"path": "k.out", "format": tc.format, "csv.delimiter": ","}}
		w, err := OpenFileSink(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(100, func() {
			if err := w.Write(vals, 0); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 0 {
			t.Errorf("%s: %v allocations per row", tc.format, allocs)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "k.out"))
		want := ""
		if tc.format == "csv" {
			want = "n,s,d\n"
		}
		for i := 0; i < 101; i++ {
			want += tc.row
		}
		if string(b) != want {
			t.Errorf("%s: file %q, want %q", tc.format, b, want)
		}
	}
}
