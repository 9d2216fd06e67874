package kafka

import (
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
)

// TestDeclaredCapsMatch: kafka and upsert-kafka declare exactly the
// capabilities their source and sink types implement (catalog.Caps, issue
// 22 item 5; executor/connector's test of the same name checks the other
// connectors by opening them), checked on the types, without a broker. The
// one difference is upsert-kafka's record metadata: its source is the
// kafka connector's, but the session refuses METADATA columns on it.
func TestDeclaredCapsMatch(t *testing.T) {
	got := connector.Implemented((*kafkaSource)(nil), (*kafkaSink)(nil))
	for _, c := range []struct {
		name string
		not  catalog.Caps // implemented but deliberately not declared
	}{{"kafka", 0}, {"upsert-kafka", catalog.CapRecordMetadata}} {
		spec := catalog.LookupConnector(c.name)
		if declared := spec.Caps & connector.ImplementationCaps; declared != got&^c.not {
			t.Errorf("connector %s declares %q, its source and sink implement %q", c.name, declared, got&^c.not)
		}
		if !spec.Caps.Has(catalog.CapPartitioned) {
			t.Errorf("connector %s: its source has partitions, each with its own watermark; declare catalog.CapPartitioned", c.name)
		}
	}
	if catalog.LookupConnector("upsert-kafka").Caps.Has(catalog.CapGroups) {
		t.Error("upsert-kafka reads its topic whole, in no consumer group, but declares catalog.CapGroups")
	}
}
