package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestGoConnectorRefused: a stream WITH ('connector'='go') is fed only by Go
// code (package streamql); the command line refuses it before any job, with
// exit status 2 and a caret at the WITH, instead of waiting forever.
func TestGoConnectorRefused(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"-e", "CREATE STREAM g (x BIGINT) WITH ('connector'='go');\nSELECT * FROM g;"}, strings.NewReader(""), &out, &errOut)
	if code != exitPlanning {
		t.Fatalf("exit %d, want 2; stderr %s", code, errOut.String())
	}
	want := "error: stream 'g' uses connector 'go', whose rows are pushed by a Go program through the streamql package; the command line cannot feed it: use 'values', 'stdin', 'file' or 'socket'\n-e, line 1, column 28:\n"
	if !strings.HasPrefix(errOut.String(), want) || out.Len() != 0 {
		t.Fatalf("stderr:\n%s\nwant it to start with:\n%s", errOut.String(), want)
	}
}
