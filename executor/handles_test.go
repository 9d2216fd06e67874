package executor

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
)

// The two connectors of TestHandlesNotUnwrapped: both open a twoParts
// source, which implements connector.PartitionedSource; only the first
// declares it (catalog.CapPartitioned).
func init() {
	open := func(context.Context, *catalog.Stream, *connector.Env) (connector.Source, error) {
		return &twoParts{}, nil
	}
	always := func(map[string]string) bool { return true }
	connector.Register(&catalog.ConnectorSpec{Name: "test-parts-declared", Doc: "test", Bounded: always, Caps: catalog.CapPartitioned}, &connector.Driver{Open: open})
	connector.Register(&catalog.ConnectorSpec{Name: "test-parts-undeclared", Doc: "test", Bounded: always}, &connector.Driver{Open: open})
}

// opaque is a source hook's wrapper that cannot be seen through: it has a
// Source's methods only.
type opaque struct{ Source }

// TestHandlesNotUnwrapped (issue 22 item 1): the engine keeps one watermark
// per partition exactly when the handles bound as the stream opened say the
// source has partitions (its stream's declaration, catalog.CapPartitioned,
// or a source hook's handles), whatever the source or its wrapper
// implements, and never unwraps a source to find them. Each row's on-time
// flag (its time not below CURRENT_WATERMARK) is checked against a
// reference computed from the rows alone: the largest earlier time of its
// partition, or of the stream.
func TestHandlesNotUnwrapped(t *testing.T) {
	passOn := func(_ *catalog.Stream, src Source, h SourceHandles) (Source, SourceHandles) {
		return opaque{src}, h.Wrapped()
	}
	hide := func(_ *catalog.Stream, src Source, _ SourceHandles) (Source, SourceHandles) {
		return opaque{src}, SourceHandles{}
	}
	give := func(_ *catalog.Stream, src Source, _ SourceHandles) (Source, SourceHandles) {
		return opaque{src}, SourceHandles{Partitions: src.(connector.PartitionedSource)} // (as `streamql test --shuffle` gives a file its own)
	}
	for _, tc := range []struct {
		name      string
		connector string
		hook      SourceHook
		perPart   bool
	}{
		{"declared", "test-parts-declared", nil, true},
		{"declared, through an opaque wrapper passing the handles on", "test-parts-declared", passOn, true},
		{"declared, a wrapper declaring none", "test-parts-declared", hide, false},
		{"implemented but not declared", "test-parts-undeclared", nil, false},
		{"not declared, a wrapper giving partitions", "test-parts-undeclared", give, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, cat := streamS(t, "ts", "'connector'='"+tc.connector+"'")
			job := planWith(t, cat, "SELECT k, CURRENT_WATERMARK(ts) IS NULL OR ts >= CURRENT_WATERMARK(ts) AS on_time FROM s")
			env := &Env{}
			env.SetSourceHook(tc.hook)
			sink := &flagSink{}
			if _, err := Run(context.Background(), job, env, func() (Sink, error) { return sink, nil }); err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(sink.out, " "), onTimeReference(tc.perPart); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// onTimeReference is the "k:on_time" of each of twoPartsRows, each row's
// watermark the largest time before it of its partition (perPart) or of the
// stream, none before the first.
func onTimeReference(perPart bool) string {
	var out []string
	max := map[int32]int64{}
	for _, r := range twoPartsRows {
		key := int32(0)
		if perPart {
			key = r.p
		}
		wm, set := max[key]
		out = append(out, r.k+":"+strconv.FormatBool(!set || r.ts >= wm))
		if !set || r.ts > wm {
			max[key] = r.ts
		}
	}
	return strings.Join(out, " ")
}

// flagSink records the main output's rows as "k:on_time".
type flagSink struct{ out []string }

func (f *flagSink) Rows(r *Step) error {
	dest := destsOf(r)
	for i := 0; i < r.N; i++ {
		if k := dest[i]; k >= 0 {
			p := r.Parts[k]
			f.out = append(f.out, string(p.Cols[0].S[i])+":"+strconv.FormatBool(p.Cols[1].B[i]))
		}
	}
	return nil
}
func (f *flagSink) Errors(string, []ErrorRow) error { return nil }
func (f *flagSink) Flush() error                    { return nil }
func (f *flagSink) Close() error                    { return nil }
