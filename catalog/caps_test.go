package catalog

import "testing"

// TestStreamCaps: a stream's capabilities are its connector's declared ones
// with CapBounded by the connector's Bounded rule of its options, CapSink
// when the connector writes and CapUpdates when it upserts, a declared
// CapParallelDecode only when bounded; each capability has a name.
func TestStreamCaps(t *testing.T) {
	spec := &ConnectorSpec{Name: "x", Caps: CapPartitioned | CapBounded | CapParallelDecode, Writes: true,
		Bounded: func(o map[string]string) bool { return o["end"] == "yes" }}
	st := &Stream{Connector: spec, Options: map[string]string{"end": "no"}}
	if got := st.Caps(); got != CapPartitioned|CapSink || got.String() != "sink, partitioned" {
		t.Errorf("caps %q", got)
	}
	st.Options["end"] = "yes"
	spec.Upserts = true
	if got := st.Caps(); !got.Has(CapBounded|CapSink|CapUpdates|CapPartitioned|CapParallelDecode) || got.Has(CapAbort) {
		t.Errorf("caps %q", got)
	}
	if (&Stream{}).Caps() != 0 {
		t.Error("a stream without a connector has capabilities")
	}
	all := AllCaps()
	if len(all) != len(capNames) {
		t.Fatalf("%d capabilities, %d names", len(all), len(capNames))
	}
	for _, c := range all {
		if c.String() == "" {
			t.Errorf("capability %d has no name", c)
		}
	}
}
