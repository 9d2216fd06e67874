package streamql_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering: the library never links the command line (package doc): no
// package under streamql/cmd/ is among the dependencies of the root package.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "streamql").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 5 {
		t.Fatalf("go list -deps gave %q", deps)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "streamql/cmd/") {
			t.Errorf("the root package links %s", d)
		}
	}
}
