package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runExportCmd runs `streamql export args...` in-process.
func runExportCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"export"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestExportCommand checks the subcommand's exit statuses (SPEC 4): 0 with
// the Flink script, 2 under --strict with the differences and their lines,
// 2 without --flink or for a script that does not plan.
func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	late := filepath.Join(dir, "late.sql")
	os.WriteFile(late, []byte("CREATE STREAM c (uid VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts)\n"+
		"  WITH ('connector'='file', 'path'='c.csv', 'errors'='fail');\n"+
		"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE c, DESCRIPTOR(ts), INTERVAL '5' SECOND))\n"+
		"  GROUP BY window_start, window_end;\n"), 0o644)
	code, out, errs := runExportCmd(t, "--flink", late)
	if code != 0 || !strings.Contains(out, "EXECUTE STATEMENT SET") || !strings.Contains(out, "late.sql:3: a window's late rows") {
		t.Errorf("export: code %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	code, out, errs = runExportCmd(t, "--flink", "--strict", late)
	if code != exitPlanning || out != "" || !strings.Contains(errs, "late.sql:3: a window's late rows go to the side output 'late'") {
		t.Errorf("--strict: code %d, stdout %q, stderr:\n%s", code, out, errs)
	}
	if code, _, errs = runExportCmd(t, late); code != exitPlanning || !strings.Contains(errs, "--flink") {
		t.Errorf("without --flink: code %d, stderr %q", code, errs)
	}
	bad := filepath.Join(dir, "bad.sql")
	os.WriteFile(bad, []byte("SELECT x FROM nowhere;\n"), 0o644)
	if code, _, errs = runExportCmd(t, "--flink", bad); code != exitPlanning || !strings.Contains(errs, "nowhere") || !strings.Contains(errs, "line 1") {
		t.Errorf("bad script: code %d, stderr %q", code, errs)
	}
}
