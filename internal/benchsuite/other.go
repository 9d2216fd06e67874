//go:build !unix

// Command benchsuite is the benchmark suite of issue 15 (main.go); it
// measures peak RSS through getrusage and so runs on unix only.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "benchsuite: runs on unix only (it reads peak RSS with getrusage)")
	os.Exit(2)
}
