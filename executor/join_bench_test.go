package executor

import (
	"fmt"
	"runtime"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner"
)

// BenchmarkSemiJoinProbe measures SPEC 2.2's bounded strategy as issue 5 asks:
// the memory of the build state per distinct key (100,000 keys) and the probe
// rate of a 1,000,000-row left stream, keys of the form "device-<n>".
func BenchmarkSemiJoinProbe(b *testing.B) {
	const keys, probeRows = 100_000, 1_000_000
	job := planBounded(b, "SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;")
	j := job.Main.Join
	build := vector.NewBatch(j.BuildTypes)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	ks := newSemiBuild(j, nil, nil)
	sel := make([]int32, 0, vector.Cap)
	for k := 0; k < keys; {
		build.Reset()
		sel = sel[:0]
		for build.N < vector.Cap && k < keys {
			build.Cols[0].SetString(build.N, []byte(fmt.Sprintf("device-%d", k*2)))
			sel = append(sel, int32(build.N))
			build.N++
			k++
		}
		_ = ks.absorb(build, sel)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	bytesPerKey := float64(ms1.HeapAlloc-ms0.HeapAlloc) / keys

	m := newMarkJoin(j, ks, nil)
	probe := vector.NewBatch(job.BatchTypes)
	names := make([][]byte, 4096)
	for i := range names {
		names[i] = []byte(fmt.Sprintf("device-%d", i*37%(2*keys)))
	}
	all := make([]int32, vector.Cap)
	for i := range all {
		all[i] = int32(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	matched := 0
	for it := 0; it < b.N; it++ {
		for done := 0; done < probeRows; done += vector.Cap {
			for i := 0; i < vector.Cap; i++ {
				probe.Cols[0].S[i] = names[(done+i)%len(names)]
			}
			probe.N = vector.Cap
			if mark := m.Eval(probe, all); mark.B[0] {
				matched++
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(bytesPerKey, "bytes/key")
	b.ReportMetric(float64(probeRows)*float64(b.N)/b.Elapsed().Seconds(), "probe-rows/s")
	if matched == 0 {
		b.Fatal("no probe row matched: the benchmark is not probing real keys")
	}
}

// planBounded plans sql over bounded file streams l (k VARCHAR, ts BIGINT) and
// r (k VARCHAR).
func planBounded(tb testing.TB, sql string) *planner.Job {
	tb.Helper()
	cat := catalog.New()
	for _, s := range []*catalog.Stream{
		{Name: "l", EventTime: -1, Columns: []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}}},
		{Name: "r", EventTime: -1, Columns: []catalog.Column{{Name: "k", Type: catalog.Varchar}}},
	} {
		s.Connector = catalog.LookupConnector("file")
		s.Options = map[string]string{"path": s.Name + ".csv", "errors": "side", "errors.side": "errors"}
		cat.Add(s)
	}
	return planWith(tb, cat, sql)
}
