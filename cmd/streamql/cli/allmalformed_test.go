package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllMalformedHintPerPolicy: the end-of-job hint of a job whose rows
// read from its FROM stream were all malformed (a column list in another
// order than the file's) says what happened under each 'errors' policy
// (SPEC 1): under 'side' and 'skip' the job read every row and each was
// malformed, "every row (N) was malformed"; under 'fail' the job stopped at
// the first malformed row, so the hint says that its first row was
// malformed and stopped the job (it said "every row (1) was malformed",
// about an input the job never read past its first row). With a good row
// first, no policy gives the hint. Each source kind (a csv and a json file,
// stdin) and both a first-and-only bad row and an all-bad input are run.
func TestAllMalformedHintPerPolicy(t *testing.T) {
	dir := t.TempDir()
	inputs := map[string]string{ // (x BIGINT, y VARCHAR) read from each
		"csv":  "a,1\nb,2\nc,3\n",
		"json": `{"x":"a","y":"1"}` + "\n" + `{"x":"b","y":"2"}` + "\n" + `{"x":"c","y":"3"}` + "\n",
	}
	good := map[string]string{"csv": "7,ok\n", "json": `{"x":7,"y":"ok"}` + "\n"}
	for _, format := range []string{"csv", "json"} {
		for _, source := range []string{"file", "stdin"} {
			for _, policy := range []string{"side", "skip", "fail"} {
				for _, goodFirst := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/%s/goodFirst=%v", format, source, policy, goodFirst)
					input := inputs[format]
					if goodFirst {
						input = good[format] + input
					}
					with := fmt.Sprintf("'connector'='stdin','format'='%s'", format)
					if source == "file" {
						path := filepath.Join(dir, name[:strings.IndexByte(name, '/')]+fmt.Sprint(goodFirst)+".in")
						if err := os.WriteFile(path, []byte(input), 0o644); err != nil {
							t.Fatal(err)
						}
						with = fmt.Sprintf("'connector'='file','path'='%s','format'='%s'", path, format)
					}
					script := filepath.Join(dir, "q.sql")
					sql := fmt.Sprintf("CREATE STREAM h (x BIGINT, y VARCHAR) WITH (%s,'errors'='%s');\nSELECT * FROM h;\n", with, policy)
					if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
						t.Fatal(err)
					}
					var out, errb bytes.Buffer
					code := Run(context.Background(), []string{"--format", "csv", "-f", script}, strings.NewReader(input), &out, &errb)
					stderr := errb.String()
					wantCode := 0
					if policy == "fail" {
						wantCode = 1
					}
					if code != wantCode {
						t.Errorf("%s: exit %d, want %d; stderr:\n%s", name, code, wantCode, stderr)
					}
					var want string
					switch {
					case goodFirst:
					case policy == "fail":
						want = "stream h: its first row was malformed, and 'errors'='fail' stopped the job there; columns declared: x BIGINT, y VARCHAR"
					default:
						want = "stream h: every row (3) was malformed; columns declared: x BIGINT, y VARCHAR"
					}
					if want == "" {
						if strings.Contains(stderr, "was malformed") {
							t.Errorf("%s: a good row was read, yet stderr gives the all-malformed hint:\n%s", name, stderr)
						}
						continue
					}
					if strings.Count(stderr, "was malformed") != 1 || !strings.Contains(stderr, want) {
						t.Errorf("%s: stderr:\n%s\nwant the hint once: %s", name, stderr, want)
					}
					if policy == "fail" && strings.Contains(stderr, "every row") {
						t.Errorf("%s: under 'errors'='fail' the hint says every row was malformed, of a job that stopped at the first:\n%s", name, stderr)
					}
				}
			}
		}
	}
}
