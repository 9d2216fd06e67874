package expr

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"streamql/executor/vector"
	"streamql/planner/plan"
)

// User-defined functions (SPEC 2.10): a session's Registry holds them as
// Functions of the same shape as the built-in table's, so that the planner
// binds their calls by the same signatures (bindTable) and SHOW FUNCTIONS
// lists them next to the built-in ones. Each registered function also gets a
// process-wide key (NAME#n) that the plan's OpFunc node carries, by which the
// executor finds it (Lookup) even after DROP FUNCTION or in another session.

// Registry is a session's user-defined functions (SPEC 2.10), consulted by
// the planner next to the built-in table. The zero value is not usable: use
// NewRegistry. It is safe for concurrent use.
type Registry struct {
	mu sync.RWMutex
	m  map[string]*Function
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]*Function{}} }

var (
	userSeq   atomic.Int64
	userByKey sync.Map // key (NAME#n) → *Function
)

// Add registers f under f.Name (upper-cased; letters, digits and '_', not
// starting with a digit). It returns an error when the name is a built-in
// function's, is already registered (replace is false) or is not a name.
// f needs Sigs (one) and Prepare.
func (r *Registry) Add(f *Function, replace bool) error {
	f.Name = strings.ToUpper(f.Name)
	if !validFuncName(f.Name) {
		return fmt.Errorf("%q is not a function name: use letters, digits and _, not starting with a digit", f.Name)
	}
	if byName[f.Name] != nil {
		return fmt.Errorf("%s is a built-in function; choose another name", f.Name)
	}
	if f.Prepare == nil || len(f.Sigs) == 0 {
		return fmt.Errorf("function %s has no signature or implementation", f.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[f.Name] != nil && !replace {
		return fmt.Errorf("function %s already exists; DROP FUNCTION %s first", f.Name, f.Name)
	}
	if f.Group == "" {
		f.Group = "user"
	}
	f.key = f.Name + "#" + strconv.FormatInt(userSeq.Add(1), 10)
	userByKey.Store(f.key, f)
	r.m[f.Name] = f
	return nil
}

// Drop removes the function name (any case) and reports whether it existed.
// Jobs already planned keep calling it.
func (r *Registry) Drop(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	name = strings.ToUpper(name)
	_, ok := r.m[name]
	delete(r.m, name)
	return ok
}

// Lookup returns the user function name (any case), or nil; a nil Registry
// has none.
func (r *Registry) Lookup(name string) *Function {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.m[strings.ToUpper(name)]
}

// List returns the registered functions sorted by name.
func (r *Registry) List() []*Function {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Function, 0, len(r.m))
	for _, f := range r.m {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Key is the name a plan's OpFunc node holds for f: its Name for a built-in
// function, its process-wide key (NAME#n) for a user function.
func (f *Function) Key() string {
	if f.key != "" {
		return f.key
	}
	return f.Name
}

// lookupUser returns the user function of a key NAME#n, or nil.
func lookupUser(key string) *Function {
	if f, ok := userByKey.Load(key); ok {
		return f.(*Function)
	}
	return nil
}

func validFuncName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if c != '_' && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// UDFFailure is a call of a user function that failed (a WASM trap, a call
// past its time cap, a Go function's error or panic): the call gives NULL and
// the row goes to the errors output (SPEC 2.10). Row is the row's index in
// its batch.
type UDFFailure struct {
	Func, Reason string
	Row          int
}

var failures struct {
	n    atomic.Int64
	mu   sync.Mutex
	list []UDFFailure
}

// recordFailure notes a failed call of fn on row i of the batch being computed.
func recordFailure(fn string, row int, reason string) {
	failures.mu.Lock()
	failures.list = append(failures.list, UDFFailure{Func: fn, Reason: reason, Row: row})
	failures.n.Add(1)
	failures.mu.Unlock()
}

// TakeUDFFailures appends the failed user function calls noted since the last
// call to dst and forgets them; it costs one atomic load when there are none.
// The executor calls it after each batch, on the goroutine that computed it.
func TakeUDFFailures(dst []UDFFailure) []UDFFailure {
	if failures.n.Load() == 0 {
		return dst
	}
	failures.mu.Lock()
	dst = append(dst, failures.list...)
	failures.list = failures.list[:0]
	failures.n.Store(0)
	failures.mu.Unlock()
	return dst
}

// BatchFunc computes the rows sel of a call at once: a holds the arguments'
// vectors; it sets out's rows (and out.Null) for every row of sel.
type BatchFunc func(a []*vector.Vec, sel []int32, out *vector.Vec)

// batchKernel is the kernel of a call of a function with PrepareBatch, or
// nil when it has none for these arguments.
func (c *compiler) batchKernel(e *plan.Expr, f *Function, args []Arg) evalFunc {
	bf, err := f.PrepareBatch(args, e.Type)
	if err != nil || bf == nil {
		return nil
	}
	fs := c.args(e)
	vs := make([]*vector.Vec, len(fs))
	return derived(e.Type, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range fs {
			vs[k] = a(b, sel)
		}
		bf(vs, sel, out)
	})
}
