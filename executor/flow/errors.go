package flow

import "fmt"

// RowError is the failure of a job whose stream has 'errors'='fail' (SPEC 1): the
// position, and the reason.
type RowError struct {
	Stream   string
	Position string
	Reason   string
}

// Error renders the failure: position, stream, reason, and what to do instead.
func (e *RowError) Error() string {
	return fmt.Sprintf("%s: malformed row in stream %s: %s (the stream has 'errors'='fail'; use 'errors'='side' to send such rows to the errors side output)", e.Position, e.Stream, e.Reason)
}
