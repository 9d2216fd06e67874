package connector

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"streamql/catalog"
)

func init() {
	Register(&catalog.ConnectorSpec{
		Name: "socket", Doc: "connects to hostname:port as a client and reads lines (Flink socketTextStream)",
		Options: catalog.WithFormat(
			catalog.OptionSpec{Name: "hostname", Kind: catalog.OptString, Default: "localhost", Doc: "host to connect to"},
			catalog.OptionSpec{Name: "port", Kind: catalog.OptInt, Required: true, Doc: "TCP port to connect to"},
		),
		Bounded:  never,
		Validate: checkSocket,
	}, &Driver{Open: func(ctx context.Context, st *catalog.Stream, env *Env) (Source, error) {
		return OpenSocket(ctx, st, env.decoder(st))
	}})
}

// checkSocket checks the range of a socket stream's 'port' (SPEC 1).
func checkSocket(st *catalog.Stream) error {
	if p, err := strconv.Atoi(st.Options["port"]); err != nil || p < 1 || p > 65535 {
		return &OptionError{Key: "port", Msg: "'" + st.Options["port"] + "' is not a TCP port (1 to 65535)"}
	}
	return nil
}

// OpenSocket opens the 'socket' connector's source, like Flink's
// socketTextStream: it connects to 'hostname':'port' as a TCP client and decodes
// the lines it receives (positions host:port:line). The peer closing the
// connection ends the stream. A refused or failed connection is an error that
// says what to do.
func OpenSocket(ctx context.Context, st *catalog.Stream, newDec NewDecoder) (Source, error) {
	host, port := st.Options["hostname"], st.Options["port"]
	addr := net.JoinHostPort(host, port)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("stream %s: cannot connect to %s: connection refused; nothing listens there: start the server first (for a test: nc -lk %s)", st.Name, addr, port)
		}
		return nil, fmt.Errorf("stream %s: cannot connect to %s ('hostname' = '%s', 'port' = '%s'): %w", st.Name, addr, host, port, unwrapOp(err))
	}
	pos := func(line int64) string { return addr + ":" + strconv.FormatInt(line, 10) }
	p := newPump()
	return startLive(ctx, "stream "+st.Name+": socket "+addr, p, newDec, pos,
		func(ctx context.Context) { p.run(ctx, conn) },
		func() { conn.Close() }, nil)
}

// unwrapOp drops the "dial tcp ...:" prefix of a net.OpError.
func unwrapOp(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}
