package render

import (
	"bytes"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/internal/session"
)

// refRow is a row of TestMaterializedSortAgainstReference's reference: its
// typed values (nil: NULL), a BIGINT, a DOUBLE and a VARCHAR.
type refRow [3]any

var refCols = []catalog.Column{{Name: "a", Type: catalog.BigInt}, {Name: "d", Type: catalog.Double}, {Name: "s", Type: catalog.Varchar}}

// refCompare orders two values of one column as SPEC 2.9's final table
// does, written from the values themselves: NULL first, numbers by value
// (a NaN below every number, -0.0 equal to 0.0), text by its bytes.
func refCompare(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case float64:
		y := b.(float64)
		xn, yn := math.IsNaN(x), math.IsNaN(y)
		switch {
		case xn && yn:
			return 0
		case xn:
			return -1
		case yn:
			return 1
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(a.(string), b.(string))
}

// refVecs makes row r a one-row output of refCols.
func refVecs(r refRow) []*session.Vec {
	vs := []*session.Vec{vector.NewVec(catalog.BigInt), vector.NewVec(catalog.Double), vector.NewVec(catalog.Varchar)}
	for c, v := range r {
		switch x := v.(type) {
		case nil:
			vs[c].Null[0] = true
		case int64:
			vs[c].I[0] = x
		case float64:
			vs[c].F[0] = x
		case string:
			vs[c].S[0] = []byte(x)
		}
	}
	return vs
}

// TestMaterializedSortAgainstReference: the final table of a result with
// an order (SPEC 2.9: a Top-N's, printed once by SPEC 2.8's table format)
// holds its live rows in the order a reference sort of their typed values
// gives (stable: ties in the order the rows came), over random rows with
// NULLs, ties, negative and extreme BIGINTs, DOUBLE specials (NaN,
// ±Infinity, -0.0) and text, by one to three keys ascending or
// descending, some rows taken back (-D) before the end.
func TestMaterializedSortAgainstReference(t *testing.T) {
	ints := []int64{-3, -2, -1, 0, 1, 2, 10, -10, math.MinInt64, math.MaxInt64}
	dbls := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, -1.5, 2.25, 1e10, -1e-5, 3e-7, 12345678.5}
	strs := []string{"", "a", "b", "NULL", "ab", "-1", "10", "9"}
	for seed := int64(1); seed <= 500; seed++ {
		rng := rand.New(rand.NewSource(seed))
		val := func(c int) any {
			if rng.Intn(5) == 0 {
				return nil
			}
			switch c {
			case 0:
				return ints[rng.Intn(len(ints))]
			case 1:
				return dbls[rng.Intn(len(dbls))]
			}
			return strs[rng.Intn(len(strs))]
		}
		m := newMaterialized()
		for k := 1 + rng.Intn(3); k > 0; k-- {
			m.order = append(m.order, session.OrderKey{Col: rng.Intn(3), Desc: rng.Intn(2) == 0})
		}
		var live []refRow
		for n := rng.Intn(60); n > 0; n-- {
			if len(live) > 0 && rng.Intn(6) == 0 { // take back a live row (the newest of its equals, as apply does)
				r := live[rng.Intn(len(live))]
				m.apply(session.Delete, refCols, refVecs(r), 0)
				for i := len(live) - 1; i >= 0; i-- { // (equal as they print: valueKey)
					if bytes.Equal(valueKey(nil, refCols, refVecs(live[i]), 0), valueKey(nil, refCols, refVecs(r), 0)) {
						live = append(live[:i], live[i+1:]...)
						break
					}
				}
				continue
			}
			r := refRow{val(0), val(1), val(2)}
			m.apply(session.Insert, refCols, refVecs(r), 0)
			live = append(live, r)
		}
		want := append([]refRow(nil), live...)
		sort.SliceStable(want, func(i, j int) bool {
			for _, o := range m.order {
				c := refCompare(want[i][o.Col], want[j][o.Col])
				if o.Desc {
					c = -c
				}
				if c != 0 {
					return c < 0
				}
			}
			return false
		})
		m.sort(refCols)
		var got [][]byte
		for _, key := range m.rows {
			if key != nil {
				got = append(got, key)
			}
		}
		ok := len(got) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = bytes.Equal(got[i], valueKey(nil, refCols, refVecs(want[i]), 0))
		}
		if !ok {
			t.Fatalf("seed %d, order %v: %d rows sorted\n%q\nwant %d\n%v", seed, m.order, len(got), got, len(want), want)
		}
	}
}
