// Package functions declares the scalar functions of SPEC 2.10 (Flink SQL's
// built-in functions, as Flink names them) and the session's user-defined
// ones: names, aliases, signatures, result types, NULL rule, determinism,
// failure behaviour and docs. It is the one place that declares a function:
// the planner binds calls from it, the executor binds each declaration to its
// kernel by name (executor/expr), and REPL completion, `.help functions`,
// SHOW FUNCTIONS and the README's function list are generated from it.
//
// It sits below the planner and the executor (DESIGN, "The engine's third
// shape": layering) and must never import either of them, nor the parser:
// it imports catalog (the SQL types) and leaf helpers only.
package functions

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"streamql/catalog"
	"streamql/internal/editdist"
)

// Function is one scalar function of SPEC 2.10, as Flink SQL names it: its
// declaration. The planner binds calls from Sigs (or, for Rule functions,
// with a rule of its own); the executor finds the kernel by Name (built-in)
// or in Impl (user function).
type Function struct {
	// Name is the function's name, upper case, as Flink spells it.
	Name string
	// Aliases are other spellings of it (upper case).
	Aliases []string
	// Group is the key of one of Groups: "time", "text", "number",
	// "condition", "json", "collection" or "other" ("user" for a user
	// function).
	Group string
	// Sigs are the accepted signatures, tried in order (Sig).
	Sigs []Sig
	// Nulls is the NULL rule, in words.
	Nulls string
	// Failure says what a runtime failure gives (bad date text, invalid
	// JSON, ...): NULL, like Flink's TRY semantics, unless it says otherwise.
	Failure string
	// Volatile is set for the functions that are not deterministic: they
	// read the clock (CURRENT_TIMESTAMP, NOW, PROCTIME, UNIX_TIMESTAMP()) or
	// draw random numbers without a seed. They are never folded at planning.
	Volatile bool
	// FailsJob is set for the functions whose call may stop the job, as
	// Flink's fails it (ELEMENT of an ARRAY of more than one element): they
	// are never folded at planning, so the error comes when a row reaches
	// the call.
	FailsJob bool
	// Doc says what it returns, in one line; Example is a call and its result.
	Doc, Example string
	// Syntax is set for the planner's spelling of syntax (arr[i] is ITEM,
	// ARRAY[...] is ARRAY_VALUE_CONSTRUCTOR: Calcite's names): completion
	// does not offer it as a call.
	Syntax bool
	// Rule is set when the planner binds the function with a rule of its own
	// (syntax TiDB rewrites, raw arguments such as a time unit, CAST's type):
	// Sigs then only document it.
	Rule bool
	// TakesNulls is set when NULL arguments reach the row function (Nulls says
	// how it treats them); otherwise any NULL argument gives NULL.
	TakesNulls bool
	// MakesJSON is set for the JSON construction functions (JSON_OBJECT,
	// JSON_ARRAY): a call of one that is a value of another's (an element of
	// JSON_ARRAY, a VALUE of JSON_OBJECT) is inserted as JSON, not as a JSON
	// string (Flink: "values which are created from another JSON construction
	// function call are inserted directly rather than as a string"). Only a
	// call written directly as the value counts, as in Flink: JSON_QUERY's
	// result, or a construction call under another function (CONCAT,
	// COALESCE), is text.
	MakesJSON bool
	// Impl is a user function's implementation, opaque here: the executor
	// (executor/expr.GoFunction, WasmFunction) sets it and reads it back when
	// it compiles a call. Nil for the built-in functions, whose kernels the
	// executor finds by Name.
	Impl any
	// key is a user function's process-wide key (Registry.Add).
	key string
}

// Groups are the function groups, in the order help and the README list
// them: a key (Function.Group) and a title.
var Groups = []struct{ Key, Title string }{{"time", "Time"}, {"text", "Text"}, {"number", "Numbers"},
	{"condition", "Conditions"}, {"json", "JSON (over VARCHAR)"}, {"collection", "ARRAY, MAP and ROW"}, {"other", "Other"}}

// Sig is one signature: the argument types (catalog.Unknown accepts any
// type) and the result type (catalog.Unknown: the arguments' common type,
// SPEC 2's rule for CASE). When Variadic, the last argument repeats (one or
// more times).
type Sig struct {
	Args     []catalog.Type
	Variadic bool
	Result   catalog.Type
}

// String renders s as NAME(ARG, ...) → RESULT for messages and help.
func (s Sig) String(name string) string {
	var sb strings.Builder
	sb.WriteString(name + "(")
	for k, a := range s.Args {
		if k > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(typeName(a))
	}
	if s.Variadic {
		sb.WriteString(", ...")
	}
	sb.WriteString(") → " + typeName(s.Result))
	return sb.String()
}

func typeName(t catalog.Type) string {
	if t == catalog.Unknown {
		return "ANY"
	}
	return t.String()
}

// Signatures renders every signature of f, one per line.
func (f *Function) Signatures() []string {
	out := make([]string, len(f.Sigs))
	for k, s := range f.Sigs {
		out[k] = s.String(f.Name)
	}
	return out
}

// ArgError is a constant argument a function cannot work with (a regular
// expression RE2 lacks, a bad date format): Arg is its index, Offset the
// byte offset inside its text (-1: the whole argument), Msg what is wrong.
// The executor's kernels return it when they prepare a call, and the planner
// reports it with a caret (SPEC 2.10).
type ArgError struct {
	Arg, Offset int
	Msg         string
}

// Error renders the error with its argument's number (from 1).
func (e *ArgError) Error() string { return fmt.Sprintf("argument %d: %s", e.Arg+1, e.Msg) }

// Lookup returns the function of a name or alias (any case), or nil.
// A user function's key (NAME#n, Function.Key) finds it too.
func Lookup(name string) *Function {
	if f := byName[strings.ToUpper(name)]; f != nil {
		return f
	}
	if strings.IndexByte(name, '#') > 0 {
		return lookupUser(name)
	}
	return nil
}

// Names returns every name and alias of the table, upper case, sorted.
func Names() []string {
	out := make([]string, 0, len(byName))
	for n := range byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Closest returns up to three names of the table nearest to name by edit
// distance (at most a third of the longer name's length, and at most 3),
// nearest first, for "unknown function" errors (SPEC 2.10).
func Closest(name string) []string {
	name = strings.ToUpper(name)
	type cand struct {
		n string
		d int
	}
	var cs []cand
	for _, n := range Names() {
		d := editdist.Distance(name, n)
		limit := min(3, max(1, max(len(n), len(name))/3))
		if d <= limit || (len(name) >= 3 && strings.HasPrefix(n, name)) {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := []string{}
	for _, c := range cs {
		if len(out) == 3 {
			break
		}
		out = append(out, c.n)
	}
	return out
}

// Nearest returns the n function names nearest to name by edit distance
// (case-insensitive), however far: the closest ones streamql has when Closest
// finds none near enough (SPEC 2.10: an unknown function's error names them).
func Nearest(name string, n int) []string {
	name = strings.ToUpper(name)
	names := Names()
	sort.SliceStable(names, func(i, j int) bool {
		return editdist.Distance(name, names[i]) < editdist.Distance(name, names[j])
	})
	return names[:min(n, len(names))]
}

var byName = map[string]*Function{}

func init() {
	for k := range Functions {
		f := &Functions[k]
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if byName[n] != nil {
				panic("functions: function " + n + " declared twice")
			}
			byName[n] = f
		}
	}
}

// User-defined functions (SPEC 2.10): a session's Registry holds them as
// Functions of the same shape as the built-in table's, so that the planner
// binds their calls by the same signatures and SHOW FUNCTIONS lists them next
// to the built-in ones. Each registered function also gets a process-wide key
// (NAME#n) that the plan's OpFunc node carries, by which the executor finds
// it (Lookup) even after DROP FUNCTION or in another session.

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
// f needs Sigs (one) and Impl.
func (r *Registry) Add(f *Function, replace bool) error {
	f.Name = strings.ToUpper(f.Name)
	if !validFuncName(f.Name) {
		return fmt.Errorf("%q is not a function name: use letters, digits and _, not starting with a digit", f.Name)
	}
	if byName[f.Name] != nil {
		return fmt.Errorf("%s is a built-in function; choose another name", f.Name)
	}
	if f.Impl == nil || len(f.Sigs) == 0 {
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
