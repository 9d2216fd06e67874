package cli

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
)

// countdown is a connector registered by this test only: 'from' = N gives the
// rows N, N-1, ..., 1 in its one BIGINT column.
type countdown struct{ next, emitted int64 }

func (c *countdown) Next(b *vector.Batch, _ *[]connector.BadRow) error {
	b.Reset()
	if c.next == 0 {
		return io.EOF
	}
	for b.N < vector.Cap && c.next > 0 {
		b.Cols[0].Null[b.N] = false
		b.Cols[0].I[b.N] = c.next
		c.emitted++
		b.Pos[b.N] = c.emitted
		b.N++
		c.next--
	}
	return nil
}
func (c *countdown) Position(line int64) string { return "countdown#" + strconv.FormatInt(line, 10) }
func (c *countdown) Progress() (int64, int64)   { return 0, 0 }
func (c *countdown) Close() error               { return nil }

func init() {
	connector.Register(&catalog.ConnectorSpec{
		Name: "countdown", Doc: "counts down from 'from' to 1 (a test connector)",
		Options: []catalog.OptionSpec{{Name: "from", Kind: catalog.OptInt, Required: true, Doc: "first row"}},
		Bounded: func(map[string]string) bool { return true },
		Validate: func(st *catalog.Stream) error {
			if n, _ := strconv.Atoi(st.Options["from"]); n > 1000 {
				return &catalog.OptionError{Key: "from", Msg: "'" + st.Options["from"] + "' is more than 1000"}
			}
			return nil
		},
	}, &connector.Driver{Open: func(_ context.Context, st *catalog.Stream, env *connector.Env) (connector.Source, error) {
		noteOpen(st, env) // (buildside_test.go)
		n, _ := strconv.ParseInt(st.Options["from"], 10, 64)
		return &countdown{next: n}, nil
	}})
}

// TestRegisteredConnector: a connector registered by its spec alone (issue 10
// item 5) is declared, validated, described and read end to end, with no other
// code knowing its name.
func TestRegisteredConnector(t *testing.T) {
	out, errs, code := runArgs(t, "--format", "csv", "-e", "CREATE STREAM c (n BIGINT) WITH ('connector' = 'countdown', 'from' = '4');\nSELECT n FROM c WHERE n > 1;\n.streams\n")
	if want := "n\n4\n3\n2\nname,connector,bounded,columns\nc,countdown,true,n BIGINT\n"; code != 0 || out != want {
		t.Errorf("exit %d, stdout %q, want %q; stderr %q", code, out, want, errs)
	}
	// its Validate error is positioned at the option's value, with a caret
	_, errs, code = runArgs(t, "-e", "CREATE STREAM c (n BIGINT) WITH ('connector' = 'countdown', 'from' = '5000');")
	if code == 0 || !strings.Contains(errs, "option 'from': '5000' is more than 1000") || !strings.Contains(errs, "-e, line 1, column 70:") {
		t.Errorf("Validate error: exit %d, stderr %q", code, errs)
	}
	// its options come from its spec; the unknown-connector message lists it
	_, errs, _ = runArgs(t, "-e", "CREATE STREAM c (n BIGINT) WITH ('connector' = 'countdown');")
	if !strings.Contains(errs, "connector 'countdown' needs option 'from' (first row)") {
		t.Errorf("required option: stderr %q", errs)
	}
	_, errs, _ = runArgs(t, "-e", "CREATE STREAM c (n BIGINT) WITH ('connector' = 'nope');")
	if !strings.Contains(errs, "use one of: countdown, datagen, file, go, kafka, nexmark, socket, stdin, upsert-kafka, values") {
		t.Errorf("unknown connector: stderr %q", errs)
	}
}
