package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowedRowsRSS: a window TVF without aggregation (its rows as they
// are, with window_start and window_end, alone or as the input of a window
// join) makes a chunk of rows per input row; its memory must not grow with
// the number of those chunks. It used to take a buffer of 1,024 rows per
// chunk, so a batch of 1,024 input rows held 1,024 buffers: the TVF alone
// peaked at 1.65× the plain SELECT of the same stream, and a window join of
// two 20,000-row streams at 107 MB RSS while its state stopped the job at 64
// KiB. Each shape's peak RSS is compared, in the same run, with the plain
// SELECT's (a ratio; no timing).
func TestWindowedRowsRSS(t *testing.T) {
	t.Parallel() // (subprocesses measured by their own peak RSS)
	dir := t.TempDir()
	var l, r bytes.Buffer
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&l, "%d,%s,%d\n", (i*7919)%5000, strings.Repeat("s", 1+i%40), i)
		fmt.Fprintf(&r, "%d,r,%d\n", (i*104729)%5000, i)
	}
	for name, b := range map[string]*bytes.Buffer{"l.csv": &l, "r.csv": &r} {
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ddl := ""
	for _, s := range []string{"l", "r"} {
		ddl += fmt.Sprintf("CREATE STREAM %s (k BIGINT, s VARCHAR, t BIGINT, WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector'='file','path'='%s','format'='csv');\n", s, filepath.Join(dir, s+".csv"))
	}
	tv := func(s string) string {
		return "(SELECT * FROM TABLE(TUMBLE(TABLE " + s + ", DESCRIPTOR(t), INTERVAL '100' SECOND)))"
	}
	run := func(sql string, wantCode int) float64 {
		t.Helper()
		cmd := exec.Command(binary, "--format", "csv", "-e", ddl+sql)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		peak, code, err := runPeakRSS(t, cmd)
		if err != nil || code != wantCode {
			t.Fatalf("%s: %v, exit %d, want %d; stderr %q", sql, err, code, wantCode, errb.String())
		}
		return float64(peak)
	}
	plain := run("SELECT k, s, t FROM l;", 0)
	for _, sh := range []struct {
		name, sql string
		code      int
	}{
		{"tvf", "SELECT k, s, window_start FROM " + tv("l") + ";", 0},
		{"tvf-hop", "SELECT k, s, window_start FROM TABLE(HOP(TABLE l, DESCRIPTOR(t), INTERVAL '50' SECOND, INTERVAL '100' SECOND));", 0},
		{"window-join-at-limit", "SET 'state.max-bytes' = '64KiB';\nSELECT L.k, R.s FROM " + tv("l") + " L JOIN " + tv("r") +
			" R ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;", 1},
	} {
		rss := run(sh.sql, sh.code)
		t.Logf("%s: peak RSS %.1f MiB, the plain SELECT's %.1f MiB: %.2f×", sh.name, rss/(1<<20), plain/(1<<20), rss/plain)
		if rss > 1.3*plain {
			t.Errorf("%s: peak RSS %.1f MiB is %.2f× the plain SELECT's %.1f MiB (want at most 1.3×)", sh.name, rss/(1<<20), rss/plain, plain/(1<<20))
		}
	}
}
