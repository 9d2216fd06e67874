// Package state is the state budget of a job (SPEC 1, 'state.max-bytes'):
// the Budget its stateful operators charge through their own Accounts, the
// LimitError that stops a job whose state passed it, the Go heap's limit and
// collector headroom set from it for a program that owns its process, and
// the rules that word an amount of bytes (FormatBytes, FormatSize).
//
// It owns the accounting only: what an operator holds is the operator's to
// measure. It imports the standard library only, and must never import an
// executor package, the planner or a connector (layering_test.go): every
// operator package may import it.
package state

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// DefaultMaxBytes is the default of the session setting 'state.max-bytes'
// (SPEC 1, Bad input): 2 GiB.
const DefaultMaxBytes int64 = 2 << 30

// HeapLimit is the Go heap's soft limit (runtime/debug.SetMemoryLimit) for a
// job whose 'state.max-bytes' is max bytes: the state, an eighth more, and
// 32 MiB for what is not state (batches, buffers, the runtime). With the state
// counted as the live heap holds it (TestStateAccountingMatchesHeap), a job
// stopped at its limit has used about 1.2 times its state, not up to twice
// (the collector's default lets the heap double between collections).
func HeapLimit(max int64) int64 { return max + max/8 + 32<<20 }

// SetHeapLimit applies HeapLimit(max) (bytes) to the Go runtime, unless the
// user set GOMEMLIMIT, and bounds the heap's growth between collections
// (Headroom, retuned after each collection) unless the user set GOGC. Only a
// program that owns its process calls it (the executor's Env.OwnsProcess).
func SetHeapLimit(max int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(HeapLimit(max))
	}
	if os.Getenv("GOGC") == "" {
		headroomOnce.Do(func() { runtime.SetFinalizer(&gcMark{}, retune) })
	}
}

// Headroom returns the GOGC (the percent of the live heap the heap may grow
// by before the next collection) for a live heap of live bytes: room for a
// quarter of the live heap, and at least 32 MiB up to 32 MiB live, a floor
// that falls to 16 MiB at 48 MiB live: so GOGC's default 100 up to 32 MiB
// live (a job without much state collects as before), 25 from 64 MiB on. A
// job holding state (a Top-N's rows, a join's) thus peaks at about 1.25
// times its live heap instead of twice, and one of 50-90 MiB (Nexmark's
// q18, q19 at a million events) not 32 MiB above it; the state is mostly
// pointer-free columns (op.Rows), so a collection costs little more.
func Headroom(live uint64) int {
	if live == 0 {
		return 100
	}
	floor := min(32<<20, max(16<<20, int64(64<<20)-int64(live)))
	return int(min(100, max(25, 100*max(uint64(floor), live/4)/live)))
}

var (
	headroomOnce sync.Once
	headroomSet  atomic.Int32 // the GOGC retune set last (0: none yet)
	headroomStop atomic.Bool  // retune stops (tests)
)

// gcMark is an object no one holds whose finalizer (retune) runs after each
// collection and sets it again.
type gcMark struct{ _ [16]byte } // (16 bytes: not the tiny allocator's, whose blocks free late)

// retune sets GOGC to Headroom of the live heap after a collection.
func retune(m *gcMark) {
	if headroomStop.Load() {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		if pct := Headroom(sample[0].Value.Uint64()); headroomSet.Swap(int32(pct)) != int32(pct) {
			debug.SetGCPercent(pct)
		}
	}
	runtime.SetFinalizer(m, retune)
}

// Budget bounds the memory of a job's stateful operators (SPEC 1: join build
// keys, held rows, window state count against 'state.max-bytes'). Operators
// charge it through their own Account; it is safe for concurrent use (a build
// side's reader goroutine charges it while the job routes).
type Budget struct {
	max  int64 // bytes; <= 0: no limit
	used atomic.Int64
}

// NewBudget returns a budget of max bytes (<= 0: unlimited).
func NewBudget(max int64) *Budget { return &Budget{max: max} }

// Used returns the bytes charged so far.
func (b *Budget) Used() int64 { return b.used.Load() }

// Max returns the budget's bound in bytes (<= 0: no limit).
func (b *Budget) Max() int64 { return b.max }

// Account opens an account of operator (as EXPLAIN names it, e.g. "Semi hash join
// l SEMI JOIN r") for the state what (e.g. "distinct build keys of stream r").
func (b *Budget) Account(operator, what string) *Account {
	return &Account{budget: b, Operator: operator, What: what}
}

// Account is one operator's share of a Budget: the bytes one kind of its
// state holds. A future window operator opens one for its open windows × groups.
type Account struct {
	budget   *Budget
	Operator string
	What     string
	// Detail, when set by the operator, says what the state holds when a
	// charge passes the limit (a join's rows and keys per side: issue 23
	// item 5); it is called on the charging goroutine, only then.
	Detail func() string
	bytes  atomic.Int64
}

// Grow charges n bytes (n may be negative: a release). It returns a
// *LimitError once the job's state passes the budget; the charge stays, and
// the caller stops the job.
func (a *Account) Grow(n int64) error {
	if a == nil || n == 0 {
		return nil
	}
	a.bytes.Add(n)
	used := a.budget.used.Add(n)
	if n > 0 && a.budget.max > 0 && used > a.budget.max {
		e := &LimitError{Operator: a.Operator, What: a.What, Bytes: a.bytes.Load(), Used: used, Max: a.budget.max}
		if a.Detail != nil {
			e.Detail = a.Detail()
		}
		return e
	}
	return nil
}

// Budget returns the budget a charges (the job's).
func (a *Account) Budget() *Budget { return a.budget }

// Bytes returns the bytes the account holds.
func (a *Account) Bytes() int64 { return a.bytes.Load() }

// LimitError stops a job whose state passed 'state.max-bytes' (SPEC 1): the
// operator, what grew and by how much, and, for rows held by an event-time join,
// the stream whose watermark did not advance (Stalled, with its watermark
// WatermarkText: "unset" before its first row).
type LimitError struct {
	Operator      string
	What          string
	Bytes, Used   int64 // this account's bytes, the job's state bytes
	Max           int64
	Stalled       string // stream name, "" when not a held-rows limit
	WatermarkText string
	Rows          int64 // held rows, with Stalled
	// Detail is the operator's account of its state (Account.Detail; ""
	// when none), shown in parentheses after the bytes
	Detail string
}

// Error renders the failure with what to do.
func (e *LimitError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "the job's state passed 'state.max-bytes' (%s): %s holds %s of %s", FormatSize(e.Max), e.Operator, FormatBytes(e.Bytes), e.What)
	if e.Detail != "" {
		fmt.Fprintf(&sb, " (%s)", e.Detail)
	}
	if e.Stalled != "" {
		fmt.Fprintf(&sb, " (%d rows) waiting for the watermark of stream %s, which did not advance (it is %s)", e.Rows, e.Stalled, e.WatermarkText)
		fmt.Fprintf(&sb, "; make %s's event time advance (or end it), read a bounded build side, or raise the limit with SET 'state.max-bytes' = '%s'", e.Stalled, FormatSize(e.suggest()))
	} else {
		fmt.Fprintf(&sb, "; filter the stream it reads, or raise the limit with SET 'state.max-bytes' = '%s'", FormatSize(e.suggest()))
	}
	return sb.String()
}

// suggest returns the limit the message suggests: twice the limit, doubled
// again until the job's state at the failure (Used) fits in it, as one
// charge (a join's whole batch of kept rows) can pass the limit by far.
func (e *LimitError) suggest() int64 {
	s := 2 * max(e.Max, 1)
	for s <= e.Used && s < 1<<62 {
		s *= 2
	}
	return s
}

// CountText is n with its noun for a LimitError's Detail ("1 key", "310
// keys"): the noun in the plural unless n is 1.
func CountText(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// FormatBytes renders an amount of n bytes for messages, always with its unit:
// in the largest of KiB, MiB, GiB, TiB that divides it ("2GiB", "1536KiB"),
// else from 1 MiB up in MiB and from 1 KiB up in KiB with one decimal ("1.2MiB",
// "64.3KiB"), else in bytes ("1000 bytes", "1 byte"). It is not an option value: see
// FormatSize.
func FormatBytes(n int64) string {
	if s := exactSize(n); s != "" {
		return s
	}
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	case n == 1:
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// FormatSize renders n bytes as a value a size option such as 'state.max-bytes'
// accepts (SPEC 1: bytes, KiB, MiB, GiB, TiB), exactly: in the largest unit that
// divides it ("128KiB"), else as a bare number of bytes ("200000").
func FormatSize(n int64) string {
	if s := exactSize(n); s != "" {
		return s
	}
	return strconv.FormatInt(n, 10)
}

// exactSize renders n (> 0) in the largest of KiB, MiB, GiB, TiB that divides it,
// or returns "".
func exactSize(n int64) string {
	for _, u := range []struct {
		name string
		m    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.name
		}
	}
	return ""
}
