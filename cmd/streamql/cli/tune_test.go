package cli

import (
	"strings"
	"testing"

	"streamql/internal/tune"
)

// TestTuneBlocks: on a terminal the histogram is drawn with block
// characters, otherwise with '#'.
func TestTuneBlocks(t *testing.T) {
	r := tune.Analyze(tune.Input{Stream: "s", Column: "ts", Rows: []tune.Row{{T: 5000}, {T: 1000}}, Position: func(int64) string { return "" }}, tune.Options{Target: 0.001})
	for _, blocks := range []bool{true, false} {
		var sb strings.Builder
		printTune(&sb, r, blocks)
		if strings.Contains(sb.String(), "█") != blocks || strings.Contains(sb.String(), "#") == blocks {
			t.Errorf("blocks %v:\n%s", blocks, sb.String())
		}
	}
}
