package expr

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"streamql/catalog"
	"streamql/executor/vector"
)

// The kernels of the nested types' functions (SPEC 2.10): access (ITEM, the
// planner's name for arr[i], map['k'] and row.field), CARDINALITY, ELEMENT,
// the constructors ARRAY[...], MAP[...], ROW(...), and STR_TO_MAP. Values
// live in the vectors' child vectors (vector.Vec, Arrow's layout): a result
// is appended to the output's child vectors, nothing is boxed per row.

// prepItem is ITEM(x, i): an ARRAY's element i (from 1; NULL out of range),
// a MAP's value for a key (NULL when absent; the last entry of a key written
// twice), or a ROW's field named by a constant (the planner checked it).
func prepItem(args []Arg, t catalog.Type) (RowFunc, error) {
	switch args[0].Type.Kind() {
	case catalog.KindArray:
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			off, n := a[0].Elems(i)
			k := a[1].I[i]
			if k < 1 || k > int64(n) {
				return false
			}
			return copyElem(a[0].Kids[0], off+int(k-1), out, i)
		}, nil
	case catalog.KindMap:
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			off, n := a[0].Elems(i)
			keys := a[0].Kids[0]
			for e := off + n - 1; e >= off; e-- {
				if !keys.Null[e] && vector.Equal(keys, e, a[1], i) {
					return copyElem(a[0].Kids[1], e, out, i)
				}
			}
			return false
		}, nil
	case catalog.KindRow:
		f := -1
		if args[1].Const && !args[1].Value.Null {
			f = args[0].Type.FieldIndex(string(args[1].Value.S))
		}
		if f < 0 {
			return nil, &ArgError{Arg: 1, Offset: -1, Msg: "not a field of " + args[0].Type.String()}
		}
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			return copyElem(a[0].Kids[f], i, out, i)
		}, nil
	}
	return nil, &ArgError{Arg: 0, Offset: -1, Msg: "[...] needs an ARRAY, MAP or ROW, got " + args[0].Type.String()}
}

// copyElem makes row i of out row e of kid; false when that is NULL.
func copyElem(kid *vector.Vec, e int, out *vector.Vec, i int) bool {
	if kid.Null[e] {
		return false
	}
	out.CopyValue(i, kid, e)
	return true
}

// prepCardinality is CARDINALITY(x): the number of an ARRAY's elements or a
// MAP's entries.
func prepCardinality(args []Arg, t catalog.Type) (RowFunc, error) {
	if k := args[0].Type.Kind(); k != catalog.KindArray && k != catalog.KindMap {
		return nil, &ArgError{Arg: 0, Offset: -1, Msg: "CARDINALITY needs an ARRAY or a MAP, got " + args[0].Type.String()}
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		out.I[i] = int64(a[0].Len[i])
		return true
	}, nil
}

// prepElement is ELEMENT(arr): the one element of an ARRAY; NULL when it is
// empty. An ARRAY of more than one element fails the job, as Flink's
// "Array has more than one element" (Failure.FailsJob; SPEC 2 gives NULL only
// for a CAST that fails and BIGINT overflow, and is silent on ELEMENT, so
// Flink's behaviour holds): the call gives NULL until the executor stops.
// The reason (elementReason) keeps Flink's words, then says how many
// elements the array has and what to write instead.
func prepElement(args []Arg, t catalog.Type, fails *Context) (RowFunc, error) {
	if args[0].Type.Kind() != catalog.KindArray {
		return nil, &ArgError{Arg: 0, Offset: -1, Msg: "ELEMENT needs an ARRAY, got " + args[0].Type.String()}
	}
	arg := args[0].Text
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		off, n := a[0].Elems(i)
		if n > 1 && fails.takesJobFailure() {
			fails.fail("ELEMENT", i, elementReason(arg, n), true)
		}
		if n != 1 {
			return false
		}
		return copyElem(a[0].Kids[0], off, out, i)
	}, nil
}

// elementReason is the reason ELEMENT(arg) fails the job when arg has n > 1
// elements: Flink's "Array has more than one element", the count, and the
// two ways to write the query (the first element, arg[1]; or only the rows
// whose array has at most one, CARDINALITY in WHERE). arg is the argument
// as written; one not known, or longer than 60 bytes, is called arr.
func elementReason(arg string, n int) string {
	what, where := arg, ""
	if arg == "" || len(arg) > 60 || strings.ContainsAny(arg, "\n\r") {
		what, arg, where = "the ARRAY", "arr", " (arr: ELEMENT's argument)"
	}
	return fmt.Sprintf("Array has more than one element (%s has %d; ELEMENT takes an ARRAY of one element, or an empty one for NULL): "+
		"write %s[1] for its first element%s, or keep only the rows where it has at most one with WHERE CARDINALITY(%s) <= 1", what, n, arg, where, arg)
}

// prepArrayCtor is ARRAY[a, b, ...]: the arguments (of the array's element
// type; NULL elements kept) as a new ARRAY.
func prepArrayCtor(args []Arg, t catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		kid := out.Kids[0]
		out.Off[i], out.Len[i] = int32(kid.Used), int32(len(a))
		for _, x := range a {
			e := kid.AddElem()
			if x.Null[i] {
				kid.Null[e] = true
				continue
			}
			kid.CopyValue(e, x, i)
		}
		return true
	}, nil
}

// prepMapCtor is MAP[k1, v1, k2, v2, ...]: a new MAP; a key given twice
// keeps its first place and its last value (Flink's LinkedHashMap).
func prepMapCtor(args []Arg, t catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		keys, vals := out.Kids[0], out.Kids[1]
		start := keys.Used
		out.Off[i] = int32(start)
		for p := 0; p+1 < len(a); p += 2 {
			k, v := a[p], a[p+1]
			e := -1
			for x := start; x < keys.Used; x++ {
				if keys.Null[x] == k.Null[i] && (k.Null[i] || vector.Equal(keys, x, k, i)) {
					e = x
					break
				}
			}
			if e < 0 {
				e = keys.AddElem()
				vals.AddElem()
				if k.Null[i] {
					keys.Null[e] = true
				} else {
					keys.CopyValue(e, k, i)
				}
			}
			if v.Null[i] {
				vals.Null[e] = true
			} else {
				vals.CopyValue(e, v, i)
			}
		}
		out.Len[i] = int32(keys.Used - start)
		return true
	}, nil
}

// prepRowCtor is ROW(a, b, ...): a new ROW of the arguments (fields EXPR$0,
// EXPR$1, ... as Flink names them).
func prepRowCtor(args []Arg, t catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		for k, x := range a {
			if x.Null[i] {
				out.Kids[k].Null[i] = true
				continue
			}
			out.Kids[k].CopyValue(i, x, i)
		}
		return true
	}, nil
}

// prepStrToMap is STR_TO_MAP(s[, listDelim, kvDelim]) (Flink's
// SqlFunctionUtils.strToMap): s split at the regular expression listDelim
// (',' by default) into pairs as Java's String.split splits (trailing empty
// pairs dropped), each pair split at the first match of kvDelim ('=' by
// default) into key and value; a pair without one is the key with a NULL
// value. The delimiters are RE2 patterns (SPEC 2.10: a constant one RE2
// cannot run is a planning error, one that is not constant and invalid gives
// NULL). ” gives an empty MAP. A key given twice keeps its first place and
// its last value (Flink builds a map).
func prepStrToMap(args []Arg, t catalog.Type) (RowFunc, error) {
	listOf := func([]*vector.Vec, int) *regexp.Regexp { return defaultList }
	kvOf := func([]*vector.Vec, int) *regexp.Regexp { return defaultKV }
	if len(args) == 3 {
		var err error
		if listOf, err = regexArg(args, 1); err != nil {
			return nil, err
		}
		if kvOf, err = regexArg(args, 2); err != nil {
			return nil, err
		}
	}
	var pairs [][]int
	var find javaFinder
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		list, kv := listOf(a, i), kvOf(a, i)
		if list == nil || kv == nil {
			return false
		}
		keys, vals := out.Kids[0], out.Kids[1]
		start := keys.Used
		out.Off[i], out.Len[i] = int32(start), 0
		s := a[0].S[i]
		if len(s) == 0 {
			return true
		}
		pairs = javaSplit(pairs[:0], &find, list, s)
		for _, p := range pairs {
			pair := s[p[0]:p[1]]
			k, v, hasV := pair, []byte(nil), false
			if m := kv.FindIndex(pair); m != nil && !(m[0] == 0 && m[1] == 0) {
				k, v, hasV = pair[:m[0]], pair[m[1]:], true
			}
			e := -1
			for x := start; x < keys.Used; x++ {
				if bytes.Equal(keys.S[x], k) {
					e = x
					break
				}
			}
			if e < 0 {
				e = keys.AddElem()
				vals.AddElem()
				keys.SetString(e, k)
			}
			if hasV {
				vals.SetString(e, v)
			} else {
				vals.Null[e] = true
			}
		}
		out.Len[i] = int32(keys.Used - start)
		return true
	}, nil
}

var defaultList, defaultKV = regexp.MustCompile(","), regexp.MustCompile("=")

// javaSplit appends to dst the [start, end) of each part of s split at re as
// Java's String.split(regex) splits: at the matches of Java's find loop
// (javaFinder: "a,b" split at ",*" is a, "" and b), a zero-width match at the
// start makes no empty first part, and trailing empty parts are dropped.
func javaSplit(dst [][]int, find *javaFinder, re *regexp.Regexp, s []byte) [][]int {
	prev := 0
	for _, m := range find.all(re, s, false) {
		if m[1] == 0 { // a zero-width match at the start
			continue
		}
		dst = append(dst, []int{prev, m[0]})
		prev = m[1]
	}
	dst = append(dst, []int{prev, len(s)})
	for len(dst) > 0 && dst[len(dst)-1][0] == dst[len(dst)-1][1] {
		dst = dst[:len(dst)-1]
	}
	return dst
}
