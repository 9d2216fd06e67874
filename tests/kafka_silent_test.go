package tests

import (
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestKafkaSilentBrokerInterrupted (issue 30 item 16): while a job waits for
// a bootstrap server that accepts connections but never answers (as a
// source, group or not, and as a sink), SIGINT and SIGTERM end it at once
// with 130 / 143 and "interrupted", not with the 30 s no-answer error. No
// broker is needed.
func TestKafkaSilentBrokerInterrupted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex // conns: appended by the accepting goroutine, closed at the end
	var conns []net.Conn
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	accepted := make(chan net.Conn)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	go func() {
		for c := range accepted {
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	addr := ln.Addr().String()
	src := "CREATE STREAM k (n BIGINT) WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='" + addr + "', 'format'='csv'%s);\n"
	cases := map[string]string{
		"source":       strings.Replace(src, "%s", "", 1) + "SELECT * FROM k;",
		"group source": strings.Replace(src, "%s", ", 'properties.group.id'='g'", 1) + "SELECT * FROM k;",
		"sink": "CREATE STREAM s (n BIGINT) WITH ('connector'='file', 'path'='/dev/null');\n" +
			strings.Replace(src, "%s", "", 1) + "INSERT INTO k SELECT * FROM s;",
	}
	for name, sql := range cases {
		for sig, code := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
			mu.Lock()
			before := len(conns)
			mu.Unlock()
			p := start(t, t.TempDir(), nil, "-e", sql)
			p.waitFor(t, "a connection to the silent broker", func() bool { // waiting for the silent broker
				mu.Lock()
				defer mu.Unlock()
				return len(conns) > before
			})
			select {
			case <-p.done:
				t.Fatalf("%s: ended before the signal: exit %d %s", name, p.code, p.stderr.String())
			default:
			}
			if took := p.stop(t, sig); took > 2*time.Second {
				t.Errorf("%s, %v: took %v to exit", name, sig, took)
			}
			if p.code != code || !strings.Contains(p.stderr.String(), "interrupted") || strings.Contains(p.stderr.String(), "no answer") {
				t.Errorf("%s, %v: exit %d, stderr %q; want %d and interrupted", name, sig, p.code, p.stderr.String(), code)
			}
		}
	}
}
