package vector

import (
	"testing"

	"streamql/catalog"
)

// TestOwnStrings: after OwnStrings the VARCHAR values no longer share the
// buffer they pointed into (overwritten here, as a decoder reuses its
// buffer), NULL rows stay NULL, other columns are untouched.
func TestOwnStrings(t *testing.T) {
	b := NewBatch([]catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Varchar})
	buf := []byte("alphabetagamma")
	b.Cols[0].S[0], b.Cols[0].S[1] = buf[0:5], buf[5:9]
	b.Cols[0].Null[2] = true
	b.Cols[1].I[0], b.Cols[1].I[1], b.Cols[1].I[2] = 1, 2, 3
	b.Cols[2].S[0], b.Cols[2].S[1], b.Cols[2].S[2] = buf[9:], buf[:0], buf[2:4]
	b.N = 3
	b.OwnStrings()
	for i := range buf {
		buf[i] = '#'
	}
	got := string(b.Cols[0].S[0]) + "|" + string(b.Cols[0].S[1]) + "|" + string(b.Cols[2].S[0]) + "|" + string(b.Cols[2].S[1]) + "|" + string(b.Cols[2].S[2])
	if got != "alpha|beta|gamma||ph" || !b.Cols[0].Null[2] || b.Cols[1].I[2] != 3 {
		t.Fatalf("after OwnStrings and the buffer overwritten: %q, null %v, I %v", got, b.Cols[0].Null[2], b.Cols[1].I[:3])
	}
}
