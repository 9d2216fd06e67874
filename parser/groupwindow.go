package parser

import (
	"strings"
)

// Flink's legacy group windows (issue 29; Flink still accepts them and
// Nexmark q11 is written so):
//
//	SELECT k, TUMBLE_START(ts, INTERVAL '1' MINUTE), COUNT(*)
//	FROM s GROUP BY k, TUMBLE(ts, INTERVAL '1' MINUTE)
//
// are the window TVF aggregation of SPEC 2.4: the GROUP BY call becomes the
// query's WindowTVF over its FROM stream (SESSION partitioned by the other
// GROUP BY columns) and window_start, window_end in TiDB's text; the
// auxiliary functions become window columns: *_START window_start, *_END
// window_end, *_ROWTIME window_time (Flink's rowtime of a window is its end
// minus 1 ms, as window_time).

// legacyWindowArgs names the INTERVAL arguments of each legacy group window,
// in Flink's order (after the time column).
var legacyWindowArgs = map[string][]string{
	"TUMBLE":  {"size"},
	"HOP":     {"slide", "size"},
	"SESSION": {"gap"},
}

// legacyAux maps the suffix of an auxiliary function to its window column.
var legacyAux = map[string]string{"_START": "window_start", "_END": "window_end", "_ROWTIME": "window_time"}

// isLegacyGroupWindow reports whether toks[i] is TUMBLE, HOP or SESSION called
// as an item of the query's own GROUP BY.
func isLegacyGroupWindow(r *region, toks []Token, i int) bool {
	if i+1 >= len(toks) || !toks[i+1].isOp("(") || r.depth[i] != 0 || r.ctx[i] != clTail ||
		legacyWindowArgs[strings.ToUpper(toks[i].Text)] == nil || toks[i].Kind != TokIdent {
		return false
	}
	p := toks[i-1]
	return p.is("BY") && i >= 2 && toks[i-2].is("GROUP") || p.isOp(",") && inGroupBy(r, toks, i)
}

// inGroupBy reports whether depth-0 token i stands in the GROUP BY list.
func inGroupBy(r *region, toks []Token, i int) bool {
	for j := i - 1; j > 0; j-- {
		if r.depth[j] != 0 {
			continue
		}
		t := toks[j]
		if t.is("BY") && toks[j-1].is("GROUP") {
			return true
		}
		if t.is("WHERE") || t.is("HAVING") || t.is("FROM") || t.is("ORDER") || t.is("SELECT") {
			return false
		}
	}
	return false
}

// legacyGroupWindow parses the legacy group window call at toks[i] into a
// WindowTVF over the query's FROM stream, with the index of its closing
// parenthesis.
func legacyGroupWindow(src string, r *region, toks []Token, i int) (*WindowTVF, int, *Error) {
	fn := strings.ToUpper(toks[i].Text)
	names := legacyWindowArgs[fn]
	usage := fn + "(ts, " + strings.Join(names, ", ") + ") with INTERVALs, e.g. " + fn + "(ts, INTERVAL '1' MINUTE" + strings.Repeat(", INTERVAL '5' MINUTE", len(names)-1) + ")"
	closeAt := -1
	for j := i + 2; j < len(toks); j++ {
		if r.depth[j] == r.depth[i] && toks[j].isOp(")") {
			closeAt = j
			break
		}
	}
	if closeAt < 0 {
		return nil, 0, Errorf(toks[i+1].Offset, "this ( is never closed: write %s", usage)
	}
	args := toks[i+2 : closeAt]
	if len(args) < 2 || args[0].Kind != TokIdent && args[0].Kind != TokQuotedIdent || !args[1].isOp(",") {
		return nil, 0, Errorf(toks[i].Offset, "%s's first argument is the time column: %s", fn, usage)
	}
	w := &WindowTVF{Func: fn, Pos: toks[i].Offset, TimeCol: args[0].Value(), TimeColPos: args[0].Offset, End: toks[closeAt].End()}
	k := 2
	for len(w.Args) < len(names) {
		if k >= len(args) {
			return nil, 0, Errorf(toks[closeAt].Offset, "%s needs its %s: %s", fn, strings.Join(names, " and "), usage)
		}
		iv, n, err := intervalArg(src, args[k:], args[k].Offset, names[len(w.Args)])
		if err != nil {
			return nil, 0, err
		}
		w.Args = append(w.Args, iv)
		k += n
		if len(w.Args) < len(names) {
			if k >= len(args) || !args[k].isOp(",") {
				return nil, 0, Errorf(toks[closeAt].Offset, "%s needs its %s: %s", fn, strings.Join(names, " and "), usage)
			}
			k++
		}
	}
	if k < len(args) {
		return nil, 0, Errorf(args[k].Offset, "%s takes the time column and %s: %s", fn, strings.Join(names, " and "), usage)
	}
	// the FROM stream: one name after the query's own FROM
	for j := 0; j < len(toks); j++ {
		if toks[j].is("FROM") && r.depth[j] == 0 {
			if j+1 < len(toks) && (toks[j+1].Kind == TokIdent || toks[j+1].Kind == TokQuotedIdent) && !toks[j+1].is("TABLE") {
				w.Stream, w.StreamPos = toks[j+1].Value(), toks[j+1].Offset
			}
			break
		}
	}
	if w.Stream == "" {
		return nil, 0, Errorf(toks[i].Offset, "GROUP BY %s(...) groups the rows of one stream: write FROM stream_name", fn)
	}
	if fn == "SESSION" {
		// SESSION is partitioned by the other GROUP BY columns
		for j := i - 1; j > 0 && !(toks[j].is("BY") && toks[j-1].is("GROUP")); j-- {
			if r.depth[j] == 0 && (toks[j].Kind == TokIdent || toks[j].Kind == TokQuotedIdent) && (toks[j-1].isOp(",") || toks[j-1].is("BY")) {
				w.Partition = append([]string{toks[j].Value()}, w.Partition...)
				w.PartitionPos = append([]int{toks[j].Offset}, w.PartitionPos...)
			}
		}
		for j := closeAt + 1; j+1 < len(toks) && r.depth[j] == 0 && toks[j].isOp(","); j += 2 {
			if t := toks[j+1]; t.Kind == TokIdent || t.Kind == TokQuotedIdent {
				w.Partition, w.PartitionPos = append(w.Partition, t.Value()), append(w.PartitionPos, t.Offset)
			}
		}
		if len(w.Partition) == 0 {
			return nil, 0, Errorf(toks[i].Offset, "a SESSION window needs a grouping key besides it: GROUP BY k, SESSION(%s, %s)", w.TimeCol, w.Args[0].Text)
		}
	}
	return w, closeAt, nil
}

// legacyAuxCall returns the window column of an auxiliary function call at
// toks[i] (TUMBLE_START(...), HOP_END(...), SESSION_ROWTIME(...)) and the
// index of its closing parenthesis, or "" when toks[i] is none.
func legacyAuxCall(r *region, toks []Token, i int) (string, int) {
	if toks[i].Kind != TokIdent || i+1 >= len(toks) || !toks[i+1].isOp("(") {
		return "", 0
	}
	u := strings.ToUpper(toks[i].Text)
	for fn := range legacyWindowArgs {
		if !strings.HasPrefix(u, fn+"_") {
			continue
		}
		col := legacyAux[u[len(fn):]]
		if col == "" {
			return "", 0
		}
		for j := i + 2; j < len(toks); j++ {
			if r.depth[j] == r.depth[i+1] && toks[j].isOp(")") {
				return col, j
			}
		}
	}
	return "", 0
}

// isLegacyAux reports whether t, followed by next, starts the call of an
// auxiliary function of a legacy group window (TUMBLE_START( and the like).
func isLegacyAux(t, next Token) bool {
	if t.Kind != TokIdent || !next.isOp("(") {
		return false
	}
	u := strings.ToUpper(t.Text)
	for fn := range legacyWindowArgs {
		if strings.HasPrefix(u, fn+"_") && legacyAux[u[len(fn):]] != "" {
			return true
		}
	}
	return false
}
