package connector

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// capsEnv is a driver's Env for TestDeclaredCapsMatch: csv decoders, an empty
// stdin.
func capsEnv() *Env {
	return &Env{Stdin: strings.NewReader(""), State: &State{},
		NewDecoder: func(st *catalog.Stream, r io.Reader, _ bool) (Decoder, error) { return csvDec(st)(r) }}
}

// TestDeclaredCapsMatch: each connector registered here declares exactly the
// capabilities its opened source and sink implement (catalog.Caps, issue 22
// item 5), so a declaration cannot drift from the code; the engine then
// reads the declaration (BindSource, BindSink), never what an opened value
// implements. A connector registered without a case here fails the test.
// (executor/connector/kafka checks its own two the same way.)
func TestDeclaredCapsMatch(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("a,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port, _ := listen(t)
	streams := map[string]func() *catalog.Stream{
		"datagen": func() *catalog.Stream { return newStream(t, kv, "datagen", "number-of-rows", "1") },
		"file":    func() *catalog.Stream { return newStream(t, kv, "file", "path", in) },
		"go":      func() *catalog.Stream { return newStream(t, kv, "go") },
		"nexmark": func() *catalog.Stream { return nexmarkStream(t, "bid", "events.num", "10") },
		"socket":  func() *catalog.Stream { return newStream(t, kv, "socket", "hostname", "127.0.0.1", "port", port) },
		"stdin":   func() *catalog.Stream { return newStream(t, kv, "stdin") },
		"values":  func() *catalog.Stream { return newStream(t, kv, "values") },
	}
	for _, name := range catalog.ConnectorNames() {
		mk := streams[name]
		if mk == nil {
			t.Errorf("connector %s: no case in TestDeclaredCapsMatch: add one that opens its source (and sink)", name)
			continue
		}
		st := mk()
		d := DriverOf(st.Connector)
		src, err := d.Open(context.Background(), st, capsEnv())
		if err != nil {
			t.Fatalf("connector %s: %v", name, err)
		}
		var w SinkWriter
		if d.OpenSink != nil {
			out := newStream(t, kv, name, "path", filepath.Join(dir, name+".out"))
			if w, err = d.OpenSink(context.Background(), out, capsEnv()); err != nil {
				t.Fatalf("connector %s sink: %v", name, err)
			}
		}
		checkCaps(t, st, src, w)
		if _, err := BindSource(st, src); err != nil {
			t.Errorf("connector %s: %v", name, err)
		}
		if w != nil {
			if _, err := BindSink(st, w); err != nil {
				t.Errorf("connector %s: %v", name, err)
			}
			w.Close()
		}
		src.Close()
	}
}

// checkCaps fails t when what src and w implement differs from what st's
// connector declares, for the capabilities an implementation shows
// (ImplementationCaps); a connector that cannot write declares no sink
// capability.
func checkCaps(t *testing.T, st *catalog.Stream, src Source, w SinkWriter) {
	t.Helper()
	declared := st.Connector.Caps & ImplementationCaps
	got := Implemented(src, w)
	if declared != got {
		t.Errorf("connector %s declares %q, its source and sink implement %q: declare what it implements (its Register call)", st.Connector.Name, declared, got)
	}
	if w == nil && st.Connector.Caps&(catalog.CapSinkKinds|catalog.CapDeadLetters|catalog.CapAbort) != 0 {
		t.Errorf("connector %s cannot write but declares sink capabilities %q", st.Connector.Name, st.Connector.Caps)
	}
}

// TestBindRefusesUndeclared: a declared capability the implementation
// lacks is an error naming the stream, the connector and the capability; an
// implemented one the stream does not declare gets no handle.
func TestBindRefusesUndeclared(t *testing.T) {
	spec := &catalog.ConnectorSpec{Name: "x", Bounded: always, Caps: catalog.CapSinkKinds | catalog.CapRecordMetadata}
	st := &catalog.Stream{Name: "s", Connector: spec, Options: map[string]string{}}
	_, err := BindSink(st, plainWriter{})
	if err == nil || !strings.Contains(err.Error(), "stream s: connector 'x' declares the capability 'sink kinds'") {
		t.Errorf("BindSink of a writer without WriteKind: %v", err)
	}
	if _, err := BindSource(st, &valuesSource{}); err == nil || !strings.Contains(err.Error(), "'record metadata'") {
		t.Errorf("BindSource of a source without metadata: %v", err)
	}
	spec.Caps = 0
	s, err := BindSink(st, kindWriter{})
	if err != nil || s.Kinds != nil {
		t.Errorf("BindSink of an undeclared WriteKind: %+v, %v", s, err)
	}
}

type plainWriter struct{}

func (plainWriter) Write([]*vector.Vec, int) error { return nil }
func (plainWriter) Flush() error                   { return nil }
func (plainWriter) Close() error                   { return nil }

type kindWriter struct{ plainWriter }

func (kindWriter) WriteKind([]*vector.Vec, int, vector.RowKind) error { return nil }

// TestWrappedHandles: a source hook's wrapper that passes the rows on keeps
// every handle but the parallel reader, whose rows would bypass it.
func TestWrappedHandles(t *testing.T) {
	st := newStream(t, kv, "file", "path", filepath.Join(t.TempDir(), "in.csv"))
	if err := os.WriteFile(st.Options["path"], []byte("a,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := DriverOf(st.Connector).Open(context.Background(), st, capsEnv())
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	h, err := BindSource(st, src)
	if err != nil || h.Parallel == nil {
		t.Fatalf("a file's handles %+v (%v): want its parallel reader", h, err)
	}
	if w := h.Wrapped(); w.Parallel != nil {
		t.Errorf("wrapped handles keep the parallel reader: %+v", w)
	}
	// a followed file is read as it grows, by Next: its stream does not
	// declare parallel decoding (catalog.Stream.Caps), so it binds
	fst := newStream(t, kv, "file", "path", st.Options["path"], "follow", "true")
	fsrc, err := DriverOf(fst.Connector).Open(context.Background(), fst, capsEnv())
	if err != nil {
		t.Fatal(err)
	}
	defer fsrc.Close()
	if fh, err := BindSource(fst, fsrc); err != nil || fh.Parallel != nil {
		t.Errorf("a followed file's handles %+v (%v): want none", fh, err)
	}
}
