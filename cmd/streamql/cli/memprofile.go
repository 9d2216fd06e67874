package cli

import (
	"bytes"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// peakHeapProfile starts measuring the heap's live bytes every 100 ms (a
// garbage collection, then runtime/metrics) and keeps the heap profile
// (pprof's, in-use and allocated space) taken when they were most so far; stop ends the sampling and writes the kept
// profile to path (--memprofile, for development: what a job's peak memory
// holds, issue 26). The error is the file's creation's.
func peakHeapProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	done, finished := make(chan struct{}), make(chan struct{})
	var best bytes.Buffer
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peak uint64
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			runtime.GC() // (the profile's in-use figures are the last collection's)
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak {
				peak = v
				best.Reset()
				_ = pprof.Lookup("heap").WriteTo(&best, 0)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		_, _ = f.Write(best.Bytes())
		_ = f.Close()
	}, nil
}
