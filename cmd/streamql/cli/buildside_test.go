package cli

import (
	"sync"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
)

// buildSides records, per stream, whether its source was opened as a join's
// build side (connector.Env.BuildSide), by the test connector 'countdown'
// (registry_test.go), while a test sets m.
var buildSides struct {
	mu sync.Mutex
	m  map[string][]bool
}

// noteOpen records how st was opened (the countdown connector's Open,
// registry_test.go).
func noteOpen(st *catalog.Stream, env *connector.Env) {
	buildSides.mu.Lock()
	if buildSides.m != nil {
		buildSides.m[st.Name] = append(buildSides.m[st.Name], env.BuildSide)
	}
	buildSides.mu.Unlock()
}

// TestBuildSideReachesSources: a source learns that it is read as a join's
// build side (SPEC 2.2 and 2.5: a Kafka source then reads every partition,
// outside its consumer group) from connector.Env when the job opens it, also
// when it is read by a derived relation (SPEC 2.6) that is itself a join's
// input; a probe stream, and a subquery read as the probe, are not.
func TestBuildSideReachesSources(t *testing.T) {
	ddl := "CREATE STREAM a (n BIGINT) WITH ('connector' = 'countdown', 'from' = '3');\n" +
		"CREATE STREAM b (n BIGINT) WITH ('connector' = 'countdown', 'from' = '2');\n"
	for _, c := range []struct {
		query string
		a, b  bool // opened as a build side
	}{
		{"SELECT n FROM a WHERE n IN (SELECT n FROM b);", false, true},
		{"SELECT n FROM (SELECT n FROM a) x WHERE n IN (SELECT n FROM b);", false, true},
		{"SELECT a.n FROM a JOIN (SELECT n FROM b) s ON a.n = s.n;", true, true},
	} {
		buildSides.mu.Lock()
		buildSides.m = map[string][]bool{}
		buildSides.mu.Unlock()
		out, errs, code := runArgs(t, "--format", "csv", "-e", ddl+c.query)
		if code != 0 {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", c.query, code, out, errs)
		}
		buildSides.mu.Lock()
		got := buildSides.m
		buildSides.mu.Unlock()
		for name, want := range map[string]bool{"a": c.a, "b": c.b} {
			if len(got[name]) == 0 {
				t.Errorf("%s: stream %s not opened", c.query, name)
			}
			for _, bs := range got[name] {
				if bs != want {
					t.Errorf("%s: stream %s opened with BuildSide %v, want %v (opens %v)", c.query, name, bs, want, got[name])
				}
			}
		}
	}
	buildSides.mu.Lock()
	buildSides.m = nil
	buildSides.mu.Unlock()
}
