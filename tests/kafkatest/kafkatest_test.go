package kafkatest

import (
	"errors"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// fakeTB records Skip and Fatal calls of Brokers; both end the goroutine as
// the real ones do.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skip(args ...any) {
	f.skipped = args[0].(string)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = format
	runtime.Goexit()
}

func runBrokers(f *fakeTB) (got string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = Brokers(f)
	}()
	<-done
	return got
}

func TestBrokersSkipsWithoutBrokerButFailsInCI(t *testing.T) {
	t.Setenv(EnvBrokers, "")
	t.Setenv("CI", "")
	f := &fakeTB{TB: t}
	runBrokers(f)
	if f.failed != "" || !strings.Contains(f.skipped, "scripts/kafka-broker start") {
		t.Errorf("without %s and CI: skipped %q, failed %q; want a skip saying how to start the broker", EnvBrokers, f.skipped, f.failed)
	}

	t.Setenv("CI", "true")
	f = &fakeTB{TB: t}
	runBrokers(f)
	if f.skipped != "" || !strings.Contains(f.failed, "CI=true") {
		t.Errorf("without %s under CI=true: skipped %q, failed %q; want a failure", EnvBrokers, f.skipped, f.failed)
	}

	t.Setenv(EnvBrokers, " 127.0.0.1:9092 ")
	f = &fakeTB{TB: t}
	if got := runBrokers(f); got != "127.0.0.1:9092" || f.skipped != "" || f.failed != "" {
		t.Errorf("with %s set: got %q, skipped %q, failed %q", EnvBrokers, got, f.skipped, f.failed)
	}
}

func TestMissingBrokerMessageNamesMissingTools(t *testing.T) {
	none := func(string) (string, error) { return "", errors.New("not found") }
	all := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	msg := missingBrokerMessage(none)
	for _, want := range []string{EnvBrokers, "java is not on PATH", "mvn is not on PATH"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message without java and mvn lacks %q:\n%s", want, msg)
		}
	}
	if msg := missingBrokerMessage(all); strings.Contains(msg, "not on PATH") {
		t.Errorf("message with java and mvn present names a missing tool:\n%s", msg)
	}
}

func TestNameIsUniqueAndValidForKafka(t *testing.T) {
	valid := regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)
	t.Run("sub test/with spaces é "+strings.Repeat("x", 300), func(t *testing.T) {
		a, b := Name(t, "topic"), Name(t, "topic")
		if a == b {
			t.Errorf("two calls gave the same name %q", a)
		}
		for _, n := range []string{a, b} {
			if !valid.MatchString(n) || len(n) > 200 {
				t.Errorf("name %q (%d bytes) is not a valid Kafka topic name of at most 200 bytes", n, len(n))
			}
		}
	})
}
