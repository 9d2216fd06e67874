//go:build !unix

package pipewrite

import "errors"

// setNonblock is not supported here: Stdout leaves stdout as it is.
func setNonblock(uintptr) error { return errors.New("pipewrite: no non-blocking mode here") }
