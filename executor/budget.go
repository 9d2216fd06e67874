package executor

import "streamql/executor/state"

// The state budget lives in executor/state (issue 22 item 6); these names
// are its, kept for the executor's code and its clients (internal/session).
type (
	// StateBudget is state.Budget: the bound of a job's state (SPEC 1).
	StateBudget = state.Budget
	// StateAccount is state.Account: one operator's share of a StateBudget.
	StateAccount = state.Account
	// StateLimitError is state.LimitError: a job's state passed 'state.max-bytes'.
	StateLimitError = state.LimitError
)

// DefaultStateMaxBytes is state.DefaultMaxBytes, the default of the session
// setting 'state.max-bytes' (SPEC 1): 2 GiB.
const DefaultStateMaxBytes = state.DefaultMaxBytes

// NewStateBudget returns a budget of max bytes (<= 0: unlimited): state.NewBudget.
func NewStateBudget(max int64) *StateBudget { return state.NewBudget(max) }

// HeapLimit is state.HeapLimit: the Go heap's soft limit for a job whose
// 'state.max-bytes' is max bytes.
func HeapLimit(max int64) int64 { return state.HeapLimit(max) }

// FormatBytes is state.FormatBytes: n bytes for messages, with its unit.
func FormatBytes(n int64) string { return state.FormatBytes(n) }

// FormatSize is state.FormatSize: n bytes as a size option's value.
func FormatSize(n int64) string { return state.FormatSize(n) }

// setHeapLimit applies state.SetHeapLimit(max) for a program that owns its
// process (env.OwnsProcess), and nothing otherwise (a library's host owns the
// runtime's settings).
func setHeapLimit(env *Env, max int64) {
	if env.OwnsProcess {
		state.SetHeapLimit(max)
	}
}
