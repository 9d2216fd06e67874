package connector

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listen starts a TCP listener on 127.0.0.1 and returns its port and a channel
// that yields the accepted connection.
func listen(t *testing.T) (string, <-chan net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			conns <- c
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), conns
}

func TestSocketRowsShowBeforeThePeerCloses(t *testing.T) {
	port, conns := listen(t)
	st := newStream(t, kv, "socket", "hostname", "127.0.0.1", "port", port)
	src, err := OpenSocket(context.Background(), st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	peer := <-conns
	r := newReader(t, src, st)

	peer.Write([]byte("a,1\nb,"))
	rows, err := r.rows()
	if err != nil || !slices.Equal(rows, []string{"a,1"}) {
		t.Fatalf("first rows: %q, %v", rows, err)
	}
	// no complete line is left: the source says it waits, so the job flushes
	if _, err := r.next(); !errors.Is(err, ErrWaiting) {
		t.Fatalf("want ErrWaiting while the peer is silent, got %v", err)
	}
	peer.Write([]byte("2\nc,x\n"))
	rows, err = r.rowsN(2)
	if err != nil || !slices.Equal(rows, []string{"b,2", "bad:c,x"}) {
		t.Fatalf("second rows: %q, %v", rows, err)
	}
	if got := src.Position(3); got != "127.0.0.1:"+port+":3" {
		t.Errorf("position %q", got)
	}
	peer.Close() // the peer closing ends the stream
	if rows, err := r.rows(); err != io.EOF {
		t.Fatalf("after close: %q, %v; want io.EOF", rows, err)
	}
	if read, _ := src.Progress(); read != int64(len("a,1\nb,2\nc,x\n")) {
		t.Errorf("progress %d", read)
	}
}

func TestSocketRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close() // nothing listens there now
	st := newStream(t, kv, "socket", "hostname", "127.0.0.1", "port", port)
	_, err = OpenSocket(context.Background(), st, csvDec(st))
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "stream s") {
		t.Fatalf("got %v", err)
	}
}

func TestSocketStopsOnCancel(t *testing.T) {
	port, conns := listen(t)
	st := newStream(t, kv, "socket", "hostname", "127.0.0.1", "port", port)
	ctx, cancel := context.WithCancel(context.Background())
	src, err := OpenSocket(ctx, st, csvDec(st))
	if err != nil {
		t.Fatal(err)
	}
	peer := <-conns
	defer peer.Close()
	r := newReader(t, src, st)
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	err = waitErr(t, 5*time.Second, func() error {
		for {
			if _, err := r.next(); !errors.Is(err, ErrWaiting) {
				return err
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if err := waitErr(t, 5*time.Second, src.Close); err != nil {
		t.Fatal(err)
	}
}
