// Command streamql is an embedded SQL tool for event streams: side outputs, semi
// and anti joins, watermarks and late rows, at a prompt, in scripts and in pipes
// (see SPEC.md). main only wires the process to run.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"streamql/cmd/streamql/cli"
)

func main() {
	// Receiving SIGPIPE turns a write to a closed stdout into EPIPE, which the
	// CLI treats as a clean end (`streamql ... | head`).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// SIGINT, SIGTERM and SIGHUP cancel the running job, which flushes what was
	// routed; the exit status then says which signal came (SPEC 4).
	// The signals stay caught until the process exits: released before
	// os.Exit, a signal coming just after the run ended would kill the process
	// by its default action instead of leaving the exit status as it is.
	ctx, _ := cli.NotifyContext(context.Background())
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program: args without the program name, the standard streams,
// and the exit status it returns (SPEC 4: 130, 143 or 129 after a signal).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.ExitStatus(ctx, cli.Run(ctx, args, stdin, stdout, stderr))
}
