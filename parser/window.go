package parser

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"streamql/internal/termtext"
)

// WindowTVF is a window table-valued function in FROM (SPEC 2.4):
// TABLE(TUMBLE(TABLE s, DESCRIPTOR(t), size [, offset])), HOP(…, slide, size
// [, offset]), CUMULATE(…, step, size [, offset]) and SESSION(TABLE s PARTITION
// BY k [, k2 …], DESCRIPTOR(t), gap). The front-end replaces it by the stream's
// name for TiDB, so an alias and joins after it parse as usual.
type WindowTVF struct {
	Func         string // TUMBLE, HOP, CUMULATE or SESSION (upper case)
	Pos          int    // offset of the function's name
	Stream       string // the stream after TABLE
	StreamPos    int
	Partition    []string // SESSION's PARTITION BY columns, as written
	PartitionPos []int
	TimeCol      string // the DESCRIPTOR's column
	TimeColPos   int
	Args         []Interval // the INTERVAL arguments in order
	End          int        // offset just past the TVF's closing parenthesis
	// InSubquery: the TVF stands in the FROM of a subquery, which only the
	// Top-N shape reads (SPEC 2.9: a window Top-N); the planner refuses it
	// elsewhere.
	InSubquery bool
}

// Interval is one INTERVAL 'v' UNIT argument of a window function, in whole
// milliseconds (SPEC 2.4), with the offset of its INTERVAL word.
type Interval struct {
	Ms   int64
	Pos  int
	Text string // as written, e.g. INTERVAL '1' MINUTE
}

// IntervalOverflow is the message for an INTERVAL (text as written) whose
// milliseconds do not fit in int64, the type of every time and interval
// (SPEC 2.3): it says so and gives the largest interval allowed.
func IntervalOverflow(text string) string {
	return fmt.Sprintf("%s overflows: an interval is at most %d milliseconds (INTERVAL '%d' DAY, about 292 million years, either sign)", termtext.Shorten(text, 60), int64(math.MaxInt64), int64(math.MaxInt64)/86_400_000)
}

var intervalUnits = map[string]int64{
	"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 7 * 86_400_000,
}

// windowFuncs lists the window TVFs and the names of their INTERVAL arguments.
var windowFuncs = map[string][]string{
	"TUMBLE":   {"size", "offset"},
	"HOP":      {"slide", "size", "offset"},
	"CUMULATE": {"step", "size", "offset"},
	"SESSION":  {"gap"},
}

// windowTVF parses the window TVF whose TABLE word is toks[i] (followed by '(')
// and returns it with the index of its closing parenthesis.
func windowTVF(src string, r *region, i int) (*WindowTVF, int, *Error) {
	toks := r.toks
	d := r.depth[i]
	closeAt := -1
	for j := i + 2; j < len(toks); j++ {
		if r.depth[j] == d && toks[j].isOp(")") {
			closeAt = j
			break
		}
	}
	usage := "write FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' MINUTE)); also HOP(TABLE s, DESCRIPTOR(ts), slide, size), CUMULATE(TABLE s, DESCRIPTOR(ts), step, size), SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), gap)"
	if closeAt < 0 {
		return nil, 0, Errorf(toks[i].Offset, "TABLE( is never closed: %s", usage)
	}
	body := toks[i+2 : closeAt]
	at := func(k int) int {
		if k < len(body) {
			return body[k].Offset
		}
		return toks[closeAt].Offset
	}
	if len(body) == 0 || body[0].Kind != TokIdent || windowFuncs[strings.ToUpper(body[0].Text)] == nil {
		return nil, 0, Errorf(at(0), "FROM TABLE(...) takes a window function (TUMBLE, HOP, CUMULATE or SESSION): %s", usage)
	}
	w := &WindowTVF{Func: strings.ToUpper(body[0].Text), Pos: body[0].Offset, End: toks[closeAt].End()}
	if len(body) < 2 || !body[1].isOp("(") || !body[len(body)-1].isOp(")") {
		return nil, 0, Errorf(at(1), "%s needs its arguments in parentheses: %s", w.Func, usage)
	}
	args := body[2 : len(body)-1]
	k := 0
	tok := func() Token {
		if k < len(args) {
			return args[k]
		}
		return body[len(body)-1]
	}
	first := fmt.Sprintf("%s's first argument is TABLE name (a stream, view or WITH name), TABLE (SELECT …) or (SELECT …)", w.Func)
	if t := tok(); t.Kind == TokQuotedIdent && IsPlaceholder(t.Value()) {
		// TUMBLE((SELECT …), …): a subquery, as Flink's (derivedTables
		// made it a placeholder: windowTableArg)
	} else if !t.is("TABLE") {
		return nil, 0, Errorf(t.Offset, "%s", first)
	} else {
		k++
	}
	if t := tok(); k >= len(args) || t.Kind != TokIdent && t.Kind != TokQuotedIdent {
		return nil, 0, Errorf(t.Offset, "%s", first)
	}
	w.Stream, w.StreamPos = tok().Value(), tok().Offset
	k++
	if tok().is("PARTITION") {
		if w.Func != "SESSION" {
			return nil, 0, Errorf(tok().Offset, "PARTITION BY is SESSION's: %s groups by GROUP BY keys instead", w.Func)
		}
		k++
		if !tok().is("BY") {
			return nil, 0, Errorf(tok().Offset, "write PARTITION BY k [, k2 ...]")
		}
		k++
		for {
			t := tok()
			if k >= len(args) || t.Kind != TokIdent && t.Kind != TokQuotedIdent {
				return nil, 0, Errorf(t.Offset, "PARTITION BY takes column names: PARTITION BY k [, k2 ...]")
			}
			w.Partition, w.PartitionPos = append(w.Partition, t.Value()), append(w.PartitionPos, t.Offset)
			k++
			// another key follows a comma unless DESCRIPTOR does
			if tok().isOp(",") && k+1 < len(args) && !args[k+1].is("DESCRIPTOR") {
				k++
				continue
			}
			break
		}
	} else if w.Func == "SESSION" {
		return nil, 0, Errorf(tok().Offset, "SESSION needs its partition keys: SESSION(TABLE %s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' MINUTE)", w.Stream)
	}
	if !tok().isOp(",") || k+1 >= len(args) || !args[k+1].is("DESCRIPTOR") {
		return nil, 0, Errorf(tok().Offset, "%s's second argument is DESCRIPTOR(time_column)", w.Func)
	}
	k += 2
	if k+2 >= len(args) || !args[k].isOp("(") || args[k+1].Kind != TokIdent && args[k+1].Kind != TokQuotedIdent || !args[k+2].isOp(")") {
		return nil, 0, Errorf(tok().Offset, "DESCRIPTOR takes one column name: DESCRIPTOR(ts)")
	}
	w.TimeCol, w.TimeColPos = args[k+1].Value(), args[k+1].Offset
	k += 3
	names := windowFuncs[w.Func]
	for k < len(args) {
		if !tok().isOp(",") {
			return nil, 0, Errorf(tok().Offset, "expected ',' and the next INTERVAL of %s", w.Func)
		}
		k++
		if len(w.Args) == len(names) {
			return nil, 0, Errorf(tok().Offset, "%s takes at most %d INTERVAL arguments (%s)", w.Func, len(names), strings.Join(names, ", "))
		}
		iv, n, err := intervalArg(src, args[k:], tok().Offset, names[len(w.Args)])
		if err != nil {
			return nil, 0, err
		}
		w.Args = append(w.Args, iv)
		k += n
	}
	need := len(names)
	if w.Func != "SESSION" {
		need-- // the offset is optional
	}
	if len(w.Args) < need {
		return nil, 0, Errorf(body[len(body)-1].Offset, "%s needs its %s as INTERVAL arguments after DESCRIPTOR, e.g. INTERVAL '1' MINUTE", w.Func, strings.Join(names[:need], " and "))
	}
	return w, closeAt, nil
}

// intervalArg parses INTERVAL 'v' UNIT (or INTERVAL v UNIT, v possibly signed)
// at the start of toks, for the argument named what.
func intervalArg(src string, toks []Token, at int, what string) (Interval, int, *Error) {
	if len(toks) == 0 || !toks[0].is("INTERVAL") {
		return Interval{}, 0, Errorf(at, "the %s is an INTERVAL, e.g. INTERVAL '1' MINUTE", what)
	}
	k := 1
	neg := false
	if k < len(toks) && (toks[k].isOp("-") || toks[k].isOp("+")) {
		neg = toks[k].isOp("-")
		k++
	}
	if k >= len(toks) || toks[k].Kind != TokString && toks[k].Kind != TokNumber {
		return Interval{}, 0, Errorf(toks[0].Offset, "the %s needs an amount: INTERVAL '1' MINUTE", what)
	}
	amount := strings.TrimSpace(toks[k].Value())
	amtPos := toks[k].Offset
	k++
	unitText := ""
	if k < len(toks) {
		unitText = strings.ToUpper(toks[k].Text)
	}
	if pluralUnits[unitText] { // (Flink's INTERVAL '10' MINUTES)
		unitText = unitText[:len(unitText)-1]
	}
	if k >= len(toks) || toks[k].Kind != TokIdent || intervalUnits[unitText] == 0 {
		p := at
		if k < len(toks) {
			p = toks[k].Offset
		}
		return Interval{}, 0, Errorf(p, "the %s's INTERVAL needs a unit: MILLISECOND, SECOND, MINUTE, HOUR, DAY or WEEK", what)
	}
	unit := intervalUnits[unitText]
	r, ok := new(big.Rat).SetString(amount)
	if !ok || strings.ContainsAny(amount, "/eE") {
		return Interval{}, 0, Errorf(amtPos, "INTERVAL amount '%s' is not a number", termtext.Shorten(amount, 30))
	}
	r.Mul(r, new(big.Rat).SetInt64(unit))
	if neg {
		r.Neg(r)
	}
	end := toks[k].End()
	if !r.IsInt() {
		return Interval{}, 0, Errorf(amtPos, "the %s must be a whole number of milliseconds", what)
	}
	if !r.Num().IsInt64() {
		return Interval{}, 0, Errorf(amtPos, "%s", IntervalOverflow(src[toks[0].Offset:end]))
	}
	return Interval{Ms: r.Num().Int64(), Pos: toks[0].Offset, Text: src[toks[0].Offset:end]}, k + 1, nil
}

// lateClause finds LATE INTO SIDE 'name' among toks (SPEC 2.4: the query's last
// clause) and returns the index of its LATE word, or -1.
func lateClause(r *region) (int, *Error) {
	toks := r.toks
	for i, t := range toks {
		if !t.is("LATE") || r.depth[i] != 0 || i+1 >= len(toks) || !toks[i+1].is("INTO") {
			continue
		}
		if i+3 >= len(toks) || !toks[i+2].is("SIDE") || toks[i+3].Kind != TokString {
			return -1, Errorf(t.Offset, "write LATE INTO SIDE 'name' to name the late side output")
		}
		if err := checkSideName(toks[i+3]); err != nil {
			return -1, err
		}
		if i+6 == len(toks) && toks[i+4].isOp(",") && toks[i+5].Kind == TokString {
			// LATE INTO SIDE 'x', 'y': a join's two late outputs (SPEC 2.7)
			if err := checkSideName(toks[i+5]); err != nil {
				return -1, err
			}
			return i, nil
		}
		if i+4 != len(toks) {
			if toks[i+4].isOp(",") && i+6 <= len(toks) && toks[i+5].Kind == TokString {
				// (LATE INTO SIDE 'x', 'y', 'z', or 'x', 'y' before another clause)
				if i+6 < len(toks) && toks[i+6].isOp(",") {
					return -1, Errorf(toks[i+6].Offset, "LATE INTO SIDE names at most two late outputs, one per input of a join in FROM order (SPEC 2.7): remove the third name")
				}
			} else if toks[i+4].isOp(",") {
				return -1, Errorf(toks[i+4].Offset, "LATE INTO SIDE 'x', 'y' names a join's two late outputs with two quoted names (SPEC 2.7)")
			}
			return -1, Errorf(t.Offset, "LATE INTO SIDE '%s' is the query's last clause: move it to the end (after LIMIT and a side branch's INTO SIDE)", termtext.Shorten(toks[i+3].Value(), 30))
		}
		return i, nil
	}
	return -1, nil
}

// overFollows reports whether the call whose '(' is toks[open] is followed by
// OVER (a window function call, which TiDB parses itself).
func overFollows(r *region, open int) bool {
	d := r.depth[open]
	for j := open + 1; j < len(r.toks); j++ {
		if r.depth[j] == d && r.toks[j].isOp(")") {
			return j+1 < len(r.toks) && r.toks[j+1].is("OVER")
		}
	}
	return false
}
