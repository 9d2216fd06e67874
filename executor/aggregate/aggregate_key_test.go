package aggregate

import (
	"math"
	"math/rand"
	"strconv"
	"testing"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// TestGroupLookupInPlace: findGroup, which hashes and compares a single key's
// value where it is, finds a row's group exactly when agg.Key (SPEC 2.4's
// grouping: NULL one value, all NaNs one value, 0.0 and -0.0 apart, text by
// bytes) says the keys are equal, for every key type and for one and two keys,
// below and past smallWindow groups (hash scan, then the index); and the hash
// it gives a new group is groupHash of the built key, which the session merge
// looks groups up by.
func TestGroupLookupInPlace(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	nans := []float64{math.NaN(), math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0xfff0000000000010)}
	fill := func(v *vector.Vec, i, distinct int) {
		v.Null[i] = r.Intn(10) == 0
		k := r.Intn(distinct)
		switch v.Type {
		case catalog.Varchar:
			v.SetString(i, []byte([]string{"", "设备", "a-much-longer-device-name-"}[k%3]+strconv.Itoa(k))) // 1 to 28 bytes
			if k%5 == 0 {
				v.SetString(i, nil) // the empty text, not NULL
			}
		case catalog.BigInt, catalog.Timestamp:
			v.I[i] = int64(k) - int64(distinct)/2
			if k == 1 {
				v.I[i] = math.MinInt64
			}
		case catalog.Double:
			v.F[i] = float64(k) / 4
			switch k % 7 {
			case 0:
				v.F[i] = nans[r.Intn(len(nans))]
			case 1:
				v.F[i] = math.Copysign(0, -1)
			case 2:
				v.F[i] = 0
			}
		case catalog.Boolean:
			v.B[i] = k%2 == 0
		}
	}
	for _, keys := range [][]catalog.Type{{catalog.Varchar}, {catalog.BigInt}, {catalog.Timestamp}, {catalog.Double}, {catalog.Boolean}, {catalog.Varchar, catalog.Double}} {
		for _, distinct := range []int{3, 8, 40} {
			a := &plan.Aggregate{}
			for _, tp := range keys {
				a.Keys = append(a.Keys, &plan.Expr{Type: tp})
			}
			o := &aggOp{a: a}
			for _, tp := range keys {
				o.keys = append(o.keys, vector.NewVec(tp))
			}
			// rows alternate between two windows: a group is found in its own only
			wss := [2]*winState{{index: map[string]*aggGroup{}}, {index: map[string]*aggGroup{}}}
			wants := [2]map[string]*aggGroup{{}, {}} // agg.Key bytes -> group
			for batch := 0; batch < 4; batch++ {
				for _, v := range o.keys {
					v.ResetArena()
				}
				for i := 0; i < vector.Cap; i++ {
					for _, v := range o.keys {
						fill(v, i, distinct)
					}
				}
				for i := 0; i < vector.Cap; i++ {
					ws, want := wss[i%2], wants[i%2]
					var ref []byte
					for k, v := range o.keys {
						if len(o.keys) == 1 {
							ref = agg.Key(ref, keys[k], v, i)
						} else {
							ref = agg.AppendKeyFramed(ref, keys[k], v, i)
						}
					}
					g, kh := o.findGroup(ws, i)
					if w := want[string(ref)]; g != w {
						t.Fatalf("keys %v, row %d (key %q): found group %p, want %p", keys, i, ref, g, w)
					}
					if g != nil {
						continue
					}
					o.buildKey(i)
					if string(o.keyBuf) != string(ref) {
						t.Fatalf("keys %v: built key %q, want %q", keys, o.keyBuf, ref)
					}
					if h := o.groupHash(o.keyBuf); h != kh {
						t.Fatalf("keys %v, key %q: findGroup's hash %x, groupHash %x", keys, ref, kh, h)
					}
					g = o.newGroup(kh)
					o.insert(ws, g)
					want[string(ref)] = g
				}
			}
			for k, ws := range wss {
				if len(ws.groups) != len(wants[k]) {
					t.Fatalf("keys %v: %d groups, %d distinct keys", keys, len(ws.groups), len(wants[k]))
				}
				if len(ws.groups) > smallWindow && len(ws.index) != len(ws.groups) {
					t.Fatalf("keys %v: %d groups, %d in the index", keys, len(ws.groups), len(ws.index))
				}
			}
		}
	}
}

// TestShortKeyHash: shortKey's hash of a single VARCHAR key of 1 to 7 bytes
// is the group's hash (groupHash of its built key: a non-NULL flag, the
// bytes), so the cache slot where the lookup puts a group is the one the
// probes of tumbleRun and findGroup read.
func TestShortKeyHash(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	o := &aggOp{keys: make([]*vector.Vec, 1)}
	for range 10_000 {
		s := make([]byte, 1+r.Intn(7))
		for k := range s {
			s[k] = byte(r.Intn(256))
		}
		w, kh := shortKey(s)
		if w != shortWord(s) || kh != o.groupHash(append([]byte{1}, s...)) {
			t.Fatalf("shortKey(%q) = %x, %x; shortWord %x, groupHash %x", s, w, kh, shortWord(s), o.groupHash(append([]byte{1}, s...)))
		}
	}
}
