package parser

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // literal values for the AST

	"streamql/internal/termtext"
)

// This file hands SELECT, INSERT ... VALUES and WATERMARK expressions to TiDB.
//
// The text TiDB sees is the statement's source with the extension clauses (INTO
// SIDE 'x', the SEMI/ANTI word) and all comments replaced by spaces of the same
// length (newlines kept), and with CAST types TiDB does not know replaced by a
// stand-in (padded with spaces when it is shorter). An offmap maps TiDB's offsets
// back to script offsets; only a stand-in longer than the written type (INT ->
// SIGNED) shifts text, and the map accounts for it.
//
// What the planner sees in TiDB's AST (this TiDB version):
//   - ts - INTERVAL '5' SECOND is *ast.FuncCallExpr{FnName: "DATE_SUB", Args: [ts,
//     '5' (a ValueExpr), *ast.TimeUnitExpr{Unit: SECOND}]}; ts + INTERVAL ... and
//     INTERVAL ... + ts are DATE_ADD with ts first. DATE_ADD(ts, INTERVAL 1 SECOND)
//     written as a call gives the same shape. A bare INTERVAL '5' SECOND as a
//     function argument is a syntax error.
//   - CAST(x AS T) and CONVERT(x, T) are *ast.FuncCastExpr whose Tp may be a
//     stand-in: the type as written is in the statement's Casts map.
//   - a SEMI JOIN b ON c is an *ast.Join (Tp CrossJoin, On c) marked SemiJoin in
//     Select.Joins; ANTI likewise.
//   - x IN (SELECT ...) is *ast.PatternInExpr{Sel: *ast.SubqueryExpr} (Not for NOT
//     IN); EXISTS (SELECT ...) is *ast.ExistsSubqueryExpr{Sel: *ast.SubqueryExpr}
//     (Not for NOT EXISTS).
//   - x LIKE p: TiDB's Escape is '\\' when no ESCAPE clause is written; its
//     EscapeExplicit tells whether one was (SPEC 2: no escape character unless
//     ESCAPE names one). ESCAPE '' gives Escape 0.
//   - a || b is CONCAT(a, b) (PIPES_AS_CONCAT); "x" is an identifier (ANSI_QUOTES);
//     backslashes in strings are ordinary characters (NO_BACKSLASH_ESCAPES).

// rwMode says what kind of text a region is.
type rwMode uint8

const (
	modeSelect   rwMode = iota // SELECT: INTO SIDE and SEMI/ANTI JOIN allowed
	modeInsert                 // INSERT INTO s VALUES
	modeFragment               // an expression parsed as SELECT <expr>
)

// clause is the clause a token stands in, at its parenthesis depth.
type clause uint8

const (
	clExpr   clause = iota // inside an expression's parentheses, or unknown
	clSelect               // a select list
	clFrom                 // a FROM clause (table references, joins, ON conditions)
	clTail                 // after FROM: WHERE, GROUP BY, ..., LIMIT
)

// region is a run of significant tokens handed to TiDB, with the comments between
// them and each token's depth and clause.
type region struct {
	toks       []Token
	comments   []Token
	start, end int
	depth      []int
	ctx        []clause
	// pre are edits made before rewriting: each subquery in FROM replaced
	// by its placeholder name (composition.go)
	pre []edit
}

func newRegion(all []Token, toks []Token, start, end int) *region {
	r := &region{toks: toks, start: start, end: end}
	for _, t := range all {
		if t.Kind == TokComment && t.Offset >= start && t.End() <= end {
			r.comments = append(r.comments, t)
		}
	}
	r.depth = make([]int, len(toks))
	r.ctx = make([]clause, len(toks))
	stack := []clause{clExpr}
	for i, t := range toks {
		top := len(stack) - 1
		switch {
		case t.isOp("("):
			nc := clExpr
			if stack[top] == clFrom && i > 0 {
				p := toks[i-1]
				if p.is("FROM") || p.is("JOIN") || p.is("STRAIGHT_JOIN") || p.isOp(",") || p.isOp("(") {
					nc = clFrom
				}
			}
			r.depth[i], r.ctx[i] = top, stack[top]
			stack = append(stack, nc)
			continue
		case t.isOp(")"):
			if top > 0 {
				stack = stack[:top]
				top--
			}
		case t.is("SELECT"):
			stack[top] = clSelect
		case t.is("FROM"):
			// (not the FROM of a IS [NOT] DISTINCT FROM b, SPEC 2.10)
			if stack[top] == clSelect && !(i > 1 && toks[i-1].is("DISTINCT") && (toks[i-2].is("IS") || toks[i-2].is("NOT"))) {
				stack[top] = clFrom
			}
		case t.is("WHERE") || t.is("GROUP") || t.is("HAVING") || t.is("ORDER") || t.is("LIMIT") ||
			t.is("WINDOW") || t.is("UNION") || t.is("EXCEPT") || t.is("INTERSECT") || t.is("INTO") ||
			t.is("FOR") && !(i+1 < len(toks) && toks[i+1].is("SYSTEM_TIME")) || t.is("LOCK"):
			// (FOR SYSTEM_TIME AS OF belongs to a table reference: SPEC 2.7)
			// INTO SIDE may stand between the select list and FROM.
			if stack[top] == clFrom || stack[top] == clSelect && !t.is("INTO") {
				stack[top] = clTail
			}
		}
		r.depth[i], r.ctx[i] = top, stack[top]
	}
	return r
}

// joinOps returns the indexes of the tokens that make joins: JOIN and STRAIGHT_JOIN,
// and commas between table references, in textual order.
func (r *region) joinOps() []int {
	var out []int
	for i, t := range r.toks {
		if r.ctx[i] == clFrom && (t.is("JOIN") || t.is("STRAIGHT_JOIN") || t.isOp(",")) {
			out = append(out, i)
		}
	}
	return out
}

// tableRefs returns the tokens that start a table name in FROM/JOIN (or the target
// of INSERT INTO), in textual order.
func (r *region) tableRefs(mode rwMode) []Token {
	var out []Token
	for i, t := range r.toks {
		if i == 0 || (t.Kind != TokIdent && t.Kind != TokQuotedIdent) {
			continue
		}
		p := r.toks[i-1]
		if (r.ctx[i] == clFrom && (p.is("FROM") || p.is("JOIN") || p.is("STRAIGHT_JOIN") || p.isOp(",") || p.isOp("("))) ||
			(mode == modeInsert && (p.is("INTO") || i == 1 && p.is("INSERT"))) {
			out = append(out, t)
		}
	}
	return out
}

func (r *region) words(w string) []int {
	var out []int
	for _, t := range r.toks {
		if t.is(w) {
			out = append(out, t.Offset)
		}
	}
	return out
}

// clauseWords returns the offsets of the bare word w followed by BY (GROUP BY,
// ORDER BY), in textual order.
func (r *region) clauseWords(w string) []int {
	var out []int
	for i, t := range r.toks {
		if t.is(w) && i+1 < len(r.toks) && r.toks[i+1].is("BY") {
			out = append(out, t.Offset)
		}
	}
	return out
}

// edit replaces src[start:end] in the text for TiDB.
type edit struct {
	start, end int
	repl       string
}

// blank returns s with every byte but '\n' replaced by a space.
func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// offmap maps offsets in the text given to TiDB back to script offsets.
type offmap struct {
	prefix int // length of a synthetic prefix ("SELECT " for fragments)
	start  int // script offset of the region
	end    int // script offset of the end of the region
	n      int // length of the text
	segs   []seg
}

// seg: from text offset rw on, text maps to script offset src (+ the distance from
// rw when exact; an inexact segment is a stand-in that maps to its start).
type seg struct {
	rw, src int
	exact   bool
}

// src maps a text offset to a script offset in [start, end].
func (m *offmap) src(rw int) int {
	if rw < m.prefix || len(m.segs) == 0 {
		return m.start
	}
	if rw >= m.n {
		return m.end
	}
	k := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].rw > rw }) - 1
	s := m.segs[k]
	p := s.src
	if s.exact {
		p += rw - s.rw
	}
	return min(max(p, m.start), m.end)
}

// buildText returns prefix + src[start:end] with the edits applied (edits sorted,
// not overlapping, inside the range) and its offmap.
func buildText(src string, start, end int, prefix string, edits []edit) (string, *offmap) {
	var b strings.Builder
	b.Grow(len(prefix) + end - start + 8)
	b.WriteString(prefix)
	m := &offmap{prefix: len(prefix), start: start, end: end}
	m.segs = append(m.segs, seg{rw: b.Len(), src: start, exact: true})
	pos := start
	for _, e := range edits {
		b.WriteString(src[pos:e.start])
		if len(e.repl) == e.end-e.start {
			b.WriteString(e.repl)
		} else {
			m.segs = append(m.segs, seg{rw: b.Len(), src: e.start})
			b.WriteString(e.repl)
			m.segs = append(m.segs, seg{rw: b.Len(), src: e.end, exact: true})
		}
		pos = e.end
	}
	b.WriteString(src[pos:end])
	m.n = b.Len()
	return b.String(), m
}

// rewritten is the text for TiDB and what the front-end peeled off it.
type rewritten struct {
	text    string
	om      *offmap
	side    string
	sidePos int
	// stream, streamPos: INTO STREAM name (SPEC 2.5), blanked like INTO SIDE
	stream    string
	streamPos int
	joins     map[int]joinMark // by offset of the JOIN token that a SEMI/ANTI word preceded
	asOf      map[int]AsOf     // FOR SYSTEM_TIME AS OF, by offset of the table name it follows
	casts     map[int]string   // by offset of the CAST/CONVERT token: the type as written
	// millis: INTERVAL 'v' MILLISECOND in an expression, by offset of the
	// amount token: TiDB has no MILLISECOND unit, so it sees MICROSECOND (the
	// same length) and the walker renames the call (MillisecondAdd)
	millis map[int]bool
	// countDistinct: COUNT(DISTINCT x) OVER (…), which TiDB does not parse,
	// written as SUM(DISTINCT x) OVER (…), by the offsets of the stand-in
	// (posWalker makes it COUNT again)
	countDistinct map[int]bool
	// nulls: ORDER BY x [ASC|DESC] NULLS FIRST|LAST (Flink's, which TiDB does
	// not parse), blanked: by the offset of the item's first token, true for
	// NULLS FIRST (orderNulls makes it a sort key of its own)
	nulls map[int]bool
	// window: FROM TABLE(TUMBLE(...)) and the like (SPEC 2.4), replaced by the
	// stream's name; late, latePos: LATE INTO SIDE 'name' at the end, blanked
	window  *WindowTVF
	late    string
	latePos int
	// late2, late2Pos: the second name of LATE INTO SIDE 'x', 'y' (a join's
	// right input, SPEC 2.7)
	late2    string
	late2Pos int
	// files, filePos: FROM 'file' (SPEC 1), replaced by a back-quoted name
	files   []string
	filePos []int
	// filters: the aggregate FILTER (WHERE cond) clauses (SPEC 2.9), blanked
	filters []filterMark
	// unnest: CROSS JOIN UNNEST(x) AS t (c, ...) (SPEC 2.10), blanked
	unnest *Unnest
}

// filterMark is one aggregate FILTER (WHERE cond) clause the front-end
// blanked: the offset of its aggregate call (the function's name), and the
// condition's tokens.
type filterMark struct {
	call int
	cond []Token
}

type joinMark struct {
	kind JoinKind
	pos  int // offset of the SEMI/ANTI word
}

// AsOf is a temporal join's `FOR SYSTEM_TIME AS OF col` after a table name
// (SPEC 2.7; Flink's syntax): Col is the column reference as written
// ("o.order_time"), Pos the offset of FOR and ColPos that of the column.
type AsOf struct {
	Col         string
	Pos, ColPos int
}

// castStandIns maps the first word of a SPEC type TiDB rejects in CAST to an
// accepted stand-in; castPassThrough lists the words TiDB accepts as they are.
var castStandIns = map[string]string{
	"INT": "SIGNED", "INTEGER": "SIGNED", "BIGINT": "SIGNED", "SMALLINT": "SIGNED",
	"TINYINT": "SIGNED", "MEDIUMINT": "SIGNED", "BOOLEAN": "SIGNED", "BOOL": "SIGNED",
	"VARCHAR": "CHAR", "STRING": "CHAR", "TEXT": "CHAR", "TIMESTAMP": "DATETIME",
	"ARRAY": "CHAR", "MAP": "CHAR", "ROW": "CHAR",
}

var castPassThrough = map[string]bool{
	"DOUBLE": true, "FLOAT": true, "REAL": true, "DECIMAL": true, "CHAR": true,
	"SIGNED": true, "UNSIGNED": true, "DATETIME": true, "DATE": true, "TIME": true,
	"BINARY": true, "JSON": true, "NCHAR": true,
}

// rewrite prepares a region for TiDB: it blanks comments and the extension clauses
// the mode allows, replaces CAST types, records what it took out, and reports
// misplaced extensions.
func (ps *parseState) rewrite(r *region, mode rwMode, prefix string) (*rewritten, *Error) {
	rw := &rewritten{joins: map[int]joinMark{}, casts: map[int]string{}, asOf: map[int]AsOf{}, millis: map[int]bool{}, countDistinct: map[int]bool{}, nulls: map[int]bool{}}
	edits := append([]edit(nil), r.pre...)
	toks := r.toks
	if err := optionsHint(r); err != nil {
		return nil, err
	}
	if mode == modeSelect {
		li, err := lateClause(r)
		if err != nil {
			return nil, err
		}
		if li >= 0 {
			nt := toks[li+3]
			rw.late, rw.latePos = nt.Value(), nt.Offset
			if li+5 < len(toks) { // , 'y' (lateClause checked it)
				nt = toks[li+5]
				rw.late2, rw.late2Pos = nt.Value(), nt.Offset
			}
			edits = append(edits, edit{toks[li].Offset, nt.End(), blank(ps.src[toks[li].Offset:nt.End()])})
			toks = toks[:li]
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		next := Token{Kind: TokError, Offset: r.end}
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch {
		case t.Kind == TokNumber && decimalTooLong(t.Text):
			return nil, Errorf(t.Offset, "number %s has too many digits (at most 81)", termtext.Shorten(t.Text, 20))
		case t.is("FILTER") && next.isOp("(") && i > 0 && toks[i-1].isOp(")") && i+2 < len(toks) && toks[i+2].is("WHERE"):
			// agg(...) FILTER (WHERE cond) (SPEC 2.9), which TiDB does not
			// parse: blanked, the condition kept for the planner
			if mode != modeSelect {
				return nil, Errorf(t.Offset, "FILTER (WHERE ...) belongs to an aggregate in a SELECT")
			}
			closeAt, depth := -1, 0
			for k := i + 1; k < len(toks); k++ {
				if toks[k].isOp("(") {
					depth++
				} else if toks[k].isOp(")") {
					if depth--; depth == 0 {
						closeAt = k
						break
					}
				}
			}
			if closeAt < 0 || closeAt == i+3 {
				return nil, Errorf(t.Offset, "FILTER takes a condition in parentheses: COUNT(*) FILTER (WHERE price < 100)")
			}
			call := -1 // the aggregate's name: before the '(' that the ')' before FILTER closes
			depth = 0
			for k := i - 1; k >= 0; k-- {
				if toks[k].isOp(")") {
					depth++
				} else if toks[k].isOp("(") {
					if depth--; depth == 0 {
						if k > 0 && toks[k-1].Kind == TokIdent {
							call = toks[k-1].Offset
						}
						break
					}
				}
			}
			if call < 0 {
				return nil, Errorf(t.Offset, "FILTER (WHERE ...) follows an aggregate call, e.g. COUNT(*) FILTER (WHERE price < 100)")
			}
			rw.filters = append(rw.filters, filterMark{call: call, cond: toks[i+3 : closeAt]})
			end := toks[closeAt].End()
			edits = append(edits, edit{t.Offset, end, blank(ps.src[t.Offset:end])})
			i = closeAt
		case t.is("ESCAPE") && next.Kind == TokString && len(next.Value()) > 1:
			return nil, Errorf(next.Offset, "ESCAPE takes one ASCII character (or '' for none)")
		case t.is("INTO") && mode == modeSelect:
			if r.depth[i] > 0 {
				if next.is("SIDE") {
					return nil, Errorf(t.Offset, "INTO SIDE cannot stand inside parentheses or a subquery")
				}
				continue
			}
			if next.is("STREAM") {
				if i+2 >= len(toks) || toks[i+2].Kind != TokIdent && toks[i+2].Kind != TokQuotedIdent || toks[i+2].is("FROM") {
					p := r.end
					if i+2 < len(toks) {
						p = toks[i+2].Offset
					}
					return nil, Errorf(p, "INTO STREAM takes the name of a sink stream: INTO STREAM name")
				}
				nt := toks[i+2]
				if rw.sidePos != 0 || rw.side != "" || rw.streamPos != 0 {
					return nil, Errorf(t.Offset, "a SELECT has at most one INTO SIDE or INTO STREAM")
				}
				if i+3 < len(toks) && !toks[i+3].is("FROM") {
					return nil, Errorf(t.Offset, "INTO STREAM %s stands right after the select list (before FROM) or at the end of the statement", termtext.Shorten(nt.Value(), 30))
				}
				rw.stream, rw.streamPos = nt.Value(), nt.Offset
				edits = append(edits, edit{t.Offset, nt.End(), blank(ps.src[t.Offset:nt.End()])})
				i += 2
				continue
			}
			if !next.is("SIDE") {
				what := strings.ToUpper(next.Text)
				if next.Kind != TokIdent {
					what = describe(next)
				}
				return nil, Errorf(t.Offset, "SELECT ... INTO %s is not supported: write INTO SIDE 'name' to send rows to a side output, or INTO STREAM name to a sink stream", what)
			}
			if i+2 >= len(toks) || toks[i+2].Kind != TokString {
				p := r.end
				if i+2 < len(toks) {
					p = toks[i+2].Offset
				}
				return nil, Errorf(p, "INTO SIDE takes the side name as a quoted string: INTO SIDE 'name'")
			}
			nt := toks[i+2]
			if err := checkSideName(nt); err != nil {
				return nil, err
			}
			if rw.sidePos != 0 || rw.side != "" || rw.streamPos != 0 {
				return nil, Errorf(t.Offset, "a SELECT has at most one INTO SIDE or INTO STREAM")
			}
			if i+3 < len(toks) && !toks[i+3].is("FROM") {
				return nil, Errorf(t.Offset, "INTO SIDE '%s' stands right after the select list (before FROM) or at the end of the statement", termtext.Shorten(nt.Value(), 30))
			}
			rw.side, rw.sidePos = nt.Value(), nt.Offset
			edits = append(edits, edit{t.Offset, nt.End(), blank(ps.src[t.Offset:nt.End()])})
			i += 2
		case mode == modeSelect && r.ctx[i] == clFrom && (t.is("CROSS") && next.is("JOIN") && i+2 < len(toks) && toks[i+2].is("UNNEST") ||
			t.isOp(",") && next.is("UNNEST") || leftUnnest(toks, i)):
			// CROSS JOIN UNNEST(x) AS t (c, ...) (SPEC 2.10): blanked, and
			// annotated on the statement
			if rw.unnest != nil {
				return nil, Errorf(t.Offset, "a query has one CROSS JOIN UNNEST")
			}
			u, end, err := ps.unnestClause(r, i)
			if err != nil {
				return nil, err
			}
			rw.unnest = u
			stop := toks[end].End()
			edits = append(edits, edit{t.Offset, stop, blank(ps.src[t.Offset:stop])})
			i = end
		case t.is("FULL") && i > 0 && !startsTableRef(toks[i-1]) && (next.is("JOIN") || next.is("OUTER") && i+2 < len(toks) && toks[i+2].is("JOIN")):
			// FULL [OUTER] JOIN right after a table reference (SPEC 2.7): TiDB
			// has no FULL JOIN and would read FULL as an alias, so the words
			// are blanked and the join marked
			if mode != modeSelect {
				return nil, Errorf(t.Offset, "FULL JOIN is allowed in SELECT only")
			}
			joinTok, end := next, t.End()
			if next.is("OUTER") {
				joinTok, end = toks[i+2], next.End()
			}
			rw.joins[joinTok.Offset] = joinMark{kind: FullJoin, pos: t.Offset}
			edits = append(edits, edit{t.Offset, end, blank(ps.src[t.Offset:end])})
		case t.is("FOR") && next.is("SYSTEM_TIME"):
			// FOR SYSTEM_TIME AS OF l.t after a table name (SPEC 2.7's
			// temporal join): TiDB has no such clause, so it is blanked and
			// recorded for the table
			a, end, err := asOfClause(r, i, mode)
			if err != nil {
				return nil, err
			}
			rw.asOf[toks[i-1].Offset] = a
			edits = append(edits, edit{t.Offset, end, blank(ps.src[t.Offset:end])})
		case (t.is("SEMI") || t.is("ANTI")) && next.is("JOIN") && i > 0 && !startsTableRef(toks[i-1]):
			// SEMI/ANTI right after a table reference; after FROM, JOIN, ',', '('
			// or AS it is a table name or an alias (FROM semi JOIN b).
			word := strings.ToUpper(t.Text)
			if mode != modeSelect {
				return nil, Errorf(t.Offset, "%s JOIN is allowed in SELECT only", word)
			}
			p := toks[i-1]
			for _, w := range []string{"LEFT", "RIGHT", "INNER", "OUTER", "CROSS", "NATURAL", "FULL"} {
				if p.is(w) {
					return nil, Errorf(p.Offset, "write %s JOIN alone: it cannot be combined with %s", word, strings.ToUpper(w))
				}
			}
			kind := SemiJoin
			if word == "ANTI" {
				kind = AntiJoin
			}
			rw.joins[next.Offset] = joinMark{kind: kind, pos: t.Offset}
			edits = append(edits, edit{t.Offset, t.End(), blank(t.Text)})
		case t.is("TABLE") && next.isOp("(") && mode == modeSelect && i > 0 && r.ctx[i] == clFrom &&
			(toks[i-1].is("FROM") || toks[i-1].is("JOIN") || toks[i-1].isOp(",")):
			if rw.window != nil {
				return nil, Errorf(t.Offset, "a query reads one window function; to join two windowed relations (a window join, SPEC 2.7), read each in a subquery, as Flink's docs write it: FROM (SELECT * FROM TABLE(TUMBLE(TABLE a, …))) l JOIN (SELECT * FROM TABLE(TUMBLE(TABLE b, …))) r ON … AND l.window_start = r.window_start AND l.window_end = r.window_end")
			}
			w, closeAt, err := windowTVF(ps.src, r, i)
			if err != nil {
				return nil, err
			}
			w.InSubquery = r.depth[i] > 0 // (a window Top-N's, SPEC 2.9; the planner refuses the others)
			rw.window = w
			// TiDB sees the stream's name where TABLE(...) stood
			name := toks[i+5] // TABLE ( fn ( TABLE name
			if toks[i+4].Offset == w.StreamPos {
				name = toks[i+4] // TABLE ( fn ( `$subquery` (windowTableArg)
			}
			repl := name.Text + blank(ps.src[t.Offset+len(name.Text):w.End])
			edits = append(edits, edit{t.Offset, w.End, repl})
			i = closeAt
		case t.Kind == TokString && mode == modeSelect && i > 0 && r.ctx[i] == clFrom && (toks[i-1].is("FROM") || toks[i-1].is("JOIN")):
			// FROM 'sensors.csv' (SPEC 1): a stream named by the file, inferred
			if strings.ContainsAny(t.Value(), "`\n") || t.Value() == "" {
				return nil, Errorf(t.Offset, "a file read in FROM is named by its path in single quotes, without ` or a line break")
			}
			rw.files, rw.filePos = append(rw.files, t.Value()), append(rw.filePos, t.Offset)
			edits = append(edits, edit{t.Offset, t.End(), "`" + t.Value() + "`"})
		case mode == modeSelect && i > 1 && isLegacyGroupWindow(r, toks, i):
			// Flink's legacy GROUP BY TUMBLE(ts, ...) (groupwindow.go)
			if rw.window != nil {
				return nil, Errorf(t.Offset, "a query reads one window: GROUP BY %s(...) and a window function in FROM cannot be combined", strings.ToUpper(t.Text))
			}
			w, closeAt, err := legacyGroupWindow(ps.src, r, toks, i)
			if err != nil {
				return nil, err
			}
			rw.window = w
			edits = append(edits, edit{t.Offset, w.End, "window_start, window_end"})
			i = closeAt
		case mode == modeSelect && isLegacyAux(t, next):
			if col, closeAt := legacyAuxCall(r, toks, i); col != "" {
				// TUMBLE_START(ts, ...) and the like: a window column
				end := toks[closeAt].End()
				repl := col
				if n := end - t.Offset; n > len(col) {
					repl += blank(ps.src[t.Offset+len(col) : end])
				}
				edits = append(edits, edit{t.Offset, end, repl})
				i = closeAt
			}
		case (t.is("FIRST_VALUE") || t.is("LAST_VALUE")) && next.isOp("(") && !overFollows(r, i+1):
			// TiDB knows them only as window functions (OVER): as aggregates (SPEC
			// 2.4) they become calls of a same-length stand-in name
			stand := "SQ_FIRSTVAL"
			if t.is("LAST_VALUE") {
				stand = "SQ_LASTVAL"
			}
			edits = append(edits, edit{t.Offset, t.End(), stand})
		case t.is("EXTRACT") && next.isOp("(") && i+3 < len(toks) && extractAs[strings.ToUpper(toks[i+2].Text)] != "" && toks[i+3].is("FROM"):
			// EXTRACT(DOW FROM ts) and EXTRACT(DOY FROM ts), Flink's units that
			// TiDB's EXTRACT lacks: the functions Flink defines them by
			fn := extractAs[strings.ToUpper(toks[i+2].Text)] + "("
			end := toks[i+3].End()
			edits = append(edits, edit{t.Offset, end, fn + strings.Repeat(" ", max(0, end-t.Offset-len(fn)))})
			i += 3
		case t.is("EXTRACT") && next.isOp("(") && i+3 < len(toks) && extractNamed[strings.ToUpper(toks[i+2].Text)] && toks[i+3].is("FROM"):
			// EXTRACT(EPOCH FROM ts) and Flink's other units TiDB's grammar
			// lacks: SQ_EXTRACT('EPOCH', ts), the planner's EXTRACT with the
			// unit as text
			unit := strings.ToUpper(toks[i+2].Text)
			edits = append(edits, edit{t.Offset, toks[i+3].End(), "SQ_EXTRACT('" + unit + "',"})
			i += 3
		case t.is("LISTAGG") && next.isOp("(") && overFollows(r, i+1):
			// LISTAGG(x [, sep]) OVER (…) (SPEC 2.9: the aggregates of 2.4):
			// TiDB takes a window only on its own aggregates, GROUP_CONCAT
			// among them (the planner reads it as LISTAGG)
			edits = append(edits, edit{t.Offset, t.End(), "GROUP_CONCAT"})
		case t.is("COUNT") && next.isOp("(") && i+2 < len(toks) && toks[i+2].is("DISTINCT") && overFollows(r, i+1):
			// COUNT(DISTINCT x) OVER (…): TiDB's grammar has no window there,
			// but has one on SUM(DISTINCT x); the stand-in is marked
			for k := t.Offset; k < t.End(); k++ {
				rw.countDistinct[k] = true
			}
			edits = append(edits, edit{t.Offset, t.End(), "  SUM"})
		case t.is("NULLS") && (next.is("FIRST") || next.is("LAST")) && i > 0:
			// ORDER BY x [DESC] NULLS LAST: the item starts after the ',' or
			// BY before it at its depth
			k := i - 1
			for k > 0 && !(r.depth[k-1] == r.depth[i] && (toks[k-1].isOp(",") || toks[k-1].is("BY"))) {
				k--
			}
			if k <= 0 || toks[k].Kind == TokNumber && (k+1 == i || toks[k+1].is("ASC") || toks[k+1].is("DESC")) {
				return nil, Errorf(t.Offset, "NULLS FIRST / NULLS LAST follows an ORDER BY expression (not a position)")
			}
			rw.nulls[toks[k].Offset] = next.is("FIRST")
			edits = append(edits, edit{t.Offset, next.End(), blank(ps.src[t.Offset:next.End()])})
			i++
		case t.Kind == TokIdent && i > 1 && toks[i-2].is("INTERVAL") && toks[i-1].Kind == TokString && i+2 < len(toks) && toks[i+1].is("TO") &&
			compoundUnits[strings.ToUpper(t.Text)+"_"+strings.ToUpper(toks[i+2].Text)]:
			// INTERVAL '1 02:03:04.5' DAY TO SECOND (Flink's, SQL's) is TiDB's
			// INTERVAL '…' DAY_SECOND
			unit := strings.ToUpper(t.Text) + "_" + strings.ToUpper(toks[i+2].Text)
			end := toks[i+2].End()
			edits = append(edits, edit{t.Offset, end, unit + strings.Repeat(" ", max(0, end-t.Offset-len(unit)))})
			i += 2
		case t.Kind == TokIdent && pluralUnits[strings.ToUpper(t.Text)] && i > 1 && toks[i-2].is("INTERVAL") && (toks[i-1].Kind == TokString || toks[i-1].Kind == TokNumber):
			// INTERVAL '5' MINUTES: Flink's plural units (its documentation's
			// spelling) are the singular ones
			unit := strings.ToUpper(t.Text)
			unit = unit[:len(unit)-1]
			if unit == "MILLISECOND" {
				rw.millis[toks[i-1].Offset] = true
				unit = "MICROSECOND"
			}
			edits = append(edits, edit{t.Offset, t.End(), unit + " "})
		case t.is("MILLISECOND") && i > 1 && toks[i-2].is("INTERVAL") && (toks[i-1].Kind == TokString || toks[i-1].Kind == TokNumber):
			// INTERVAL '5' MILLISECOND (SPEC 2.3), as in window functions
			rw.millis[toks[i-1].Offset] = true
			edits = append(edits, edit{t.Offset, t.End(), "MICROSECOND"})
		case (t.is("CAST") || t.is("CONVERT") || t.is("TRY_CAST")) && next.isOp("("):
			if t.is("TRY_CAST") {
				// Flink's TRY_CAST is SPEC 2's CAST (a failed conversion
				// gives NULL): TiDB reads "    CAST(", the CAST at t+4
				edits = append(edits, edit{t.Offset, t.Offset + 4, "    "})
			}
			e, err := castType(ps.src, rw, r, i)
			if err != nil {
				return nil, err
			}
			if e != nil {
				edits = append(edits, *e)
			}
		default:
			es, err := funcSyntax(r, i)
			if err != nil {
				return nil, err
			}
			edits = append(edits, es...)
		}
	}
	for _, c := range r.comments {
		edits = append(edits, edit{c.Offset, c.End(), blank(c.Text)})
	}
	// by start; an insertion (ITEM( before a subscripted operand) before a
	// replacement at the same offset; insertions at one offset keep their order
	sort.SliceStable(edits, func(a, b int) bool {
		if edits[a].start != edits[b].start {
			return edits[a].start < edits[b].start
		}
		return edits[a].end-edits[a].start == 0 && edits[b].end-edits[b].start > 0
	})
	kept := edits[:0]
	for _, e := range edits {
		if n := len(kept); n > 0 && e.start < kept[n-1].end {
			continue // a comment inside a replaced CAST type
		}
		kept = append(kept, e)
	}
	rw.text, rw.om = buildText(ps.src, r.start, r.end, prefix, kept)
	return rw, nil
}

// asOfClause reads FOR SYSTEM_TIME AS OF col[.col] at token i, right after a
// table name in FROM, and returns it with the end offset of the clause.
func asOfClause(r *region, i int, mode rwMode) (AsOf, int, *Error) {
	toks := r.toks
	t := toks[i]
	if mode != modeSelect || i == 0 || r.ctx[i] != clFrom || toks[i-1].Kind != TokIdent && toks[i-1].Kind != TokQuotedIdent {
		return AsOf{}, 0, Errorf(t.Offset, "FOR SYSTEM_TIME AS OF stands right after the name of a join's right side: FROM l JOIN r FOR SYSTEM_TIME AS OF l.t [AS x] ON l.k = r.k")
	}
	j := i + 2
	if j+1 >= len(toks) || !toks[j].is("AS") || !toks[j+1].is("OF") {
		return AsOf{}, 0, Errorf(t.Offset, "write FOR SYSTEM_TIME AS OF l.t (the left side's event-time column)")
	}
	j += 2
	col := j
	if j >= len(toks) || toks[j].Kind != TokIdent && toks[j].Kind != TokQuotedIdent {
		return AsOf{}, 0, Errorf(t.Offset, "FOR SYSTEM_TIME AS OF takes the left side's event-time column (l.t), not an expression")
	}
	text := toks[j].Value()
	end := toks[j].End()
	if j+2 < len(toks) && toks[j+1].isOp(".") && (toks[j+2].Kind == TokIdent || toks[j+2].Kind == TokQuotedIdent) {
		text += "." + toks[j+2].Value()
		end = toks[j+2].End()
		j += 2
	}
	if j+1 < len(toks) && (toks[j+1].isOp("(") || toks[j+1].isOp("+") || toks[j+1].isOp("-")) {
		return AsOf{}, 0, Errorf(toks[col].Offset, "FOR SYSTEM_TIME AS OF takes the left side's event-time column (l.t), not an expression")
	}
	return AsOf{Col: text, Pos: t.Offset, ColPos: toks[col].Offset}, end, nil
}

// castType handles CAST( ... AS type) / TRY_CAST( ... AS type) / CONVERT( ... , type) starting at token i:
// it records the type as written and returns the edit for a stand-in, if any.
func castType(src string, rw *rewritten, r *region, i int) (*edit, *Error) {
	toks := r.toks
	d := r.depth[i+1] + 1
	isCast := toks[i].is("CAST") || toks[i].is("TRY_CAST")
	at := toks[i].Offset // where TiDB's CAST node starts
	if toks[i].is("TRY_CAST") {
		at += 4
	}
	sep, closeAt := -1, -1
	for j := i + 2; j < len(toks); j++ {
		if r.depth[j] == d-1 && toks[j].isOp(")") {
			closeAt = j
			break
		}
		if r.depth[j] != d || sep >= 0 {
			continue
		}
		switch {
		case isCast && toks[j].is("AS"):
			sep = j
		case !isCast && toks[j].isOp(","):
			sep = j
		case !isCast && toks[j].is("USING"):
			return nil, nil // CONVERT(x USING charset)
		}
	}
	if sep < 0 || closeAt < 0 || closeAt == sep+1 {
		return nil, nil // TiDB reports the syntax error
	}
	typ := toks[sep+1 : closeAt]
	first := typ[0]
	if first.Kind != TokIdent {
		return nil, nil
	}
	var b strings.Builder
	for k, t := range typ {
		word := t.Kind == TokIdent || t.Kind == TokNumber
		if k > 0 && word && (typ[k-1].Kind == TokIdent || typ[k-1].Kind == TokNumber) {
			b.WriteByte(' ')
		}
		if t.Kind == TokIdent {
			b.WriteString(strings.ToUpper(t.Text))
		} else {
			b.WriteString(t.Text)
		}
	}
	rw.casts[at] = b.String()
	w := strings.ToUpper(first.Text)
	if w == "ARRAY" || w == "MAP" || w == "ROW" {
		// a nested type (SPEC 2.10) as written: a ROW's field names keep their case
		rw.casts[toks[i].Offset] = strings.TrimSpace(src[first.Offset:typ[len(typ)-1].End()])
	}
	if castPassThrough[w] {
		return nil, nil
	}
	stand, ok := castStandIns[w]
	if !ok && w == "TIMESTAMP_LTZ" {
		return nil, Errorf(first.Offset, "unknown type %s in CAST: streamql's TIMESTAMP(3) has no time zone (an input offset is converted to UTC); cast to TIMESTAMP(3), and TO_TIMESTAMP_LTZ(ms, 3) reads epoch milliseconds", first.Text)
	}
	if !ok {
		return nil, Errorf(first.Offset, "unknown type %s in CAST: use BIGINT, DOUBLE, VARCHAR, BOOLEAN, TIMESTAMP, ARRAY<T>, MAP<K, V> or ROW<name T, …>", termtext.Shorten(first.Text, 30))
	}
	start, end := first.Offset, typ[len(typ)-1].End()
	if n := end - start; len(stand) < n {
		stand += strings.Repeat(" ", n-len(stand))
	}
	return &edit{start, end, stand}, nil
}

// tidbParse parses text with this Parse call's TiDB parser and returns its one
// statement.
func (ps *parseState) tidbParse(text string) (ast.StmtNode, error) {
	if ps.tidb == nil {
		ps.tidb = parser.New()
		ps.tidb.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	}
	stmts, _, err := ps.tidb.Parse(text, "", "")
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, errors.New("expected one statement")
	}
	return stmts[0], nil // TiDB reuses its slice, not the nodes
}

// syntaxError turns a TiDB error into an *Error at a script offset, with a short
// excerpt of the source (never of the rewritten text) and a hint when one is easy.
func (ps *parseState) syntaxError(err error, rw *rewritten, r *region) *Error {
	msg := err.Error()
	i := strings.Index(msg, `near "`)
	if i < 0 {
		m := msg
		if strings.HasPrefix(m, "[parser:") {
			if j := strings.IndexByte(m, ']'); j >= 0 {
				m = m[j+1:]
			}
		}
		return Errorf(r.start, "syntax error: %s", m)
	}
	rest := msg[i+len(`near "`):]
	rwOff := -1
	if j := strings.LastIndex(rest, "(total length "); j >= 0 && strings.HasSuffix(rest, ")") {
		if n, e := strconv.Atoi(rest[j+len("(total length ") : len(rest)-1]); e == nil && n <= len(rw.text) {
			rwOff = len(rw.text) - n
		}
	}
	if rwOff < 0 {
		for q := len(rest) - 1; q >= 0; q-- {
			if rest[q] == '"' && strings.HasSuffix(rw.text, rest[:q]) {
				rwOff = len(rw.text) - q
				break
			}
		}
	}
	if rwOff < 0 {
		return Errorf(r.start, "syntax error in this statement")
	}
	off := rw.om.src(rwOff)
	if off >= r.end {
		m := "syntax error: the statement ends too early"
		if h := ps.hint(r, off, true); h != "" {
			m += ": " + h
		}
		return &Error{Offset: r.end, Msg: m}
	}
	m := fmt.Sprintf("syntax error near '%s'", excerpt(ps.src, off, r.end))
	if h := ps.hint(r, off, false); h != "" {
		m += ": " + h
	}
	return &Error{Offset: off, Msg: m}
}

// excerpt returns the source from off to the end of its line (or of the statement),
// at most 40 characters.
func excerpt(src string, off, end int) string {
	s := src[off:end]
	if j := strings.IndexAny(s, "\r\n"); j >= 0 {
		s = s[:j]
	}
	return termtext.Shorten(strings.TrimRight(s, " \t"), 40)
}

var reservedHint = map[string]bool{
	"KEY": true, "WINDOW": true, "RANGE": true, "ROWS": true, "RANK": true, "PARTITION": true,
	"OVER": true, "LEAD": true, "LAG": true, "ORDER": true, "GROUP": true, "INDEX": true,
	"DESC": true, "ASC": true, "TABLE": true, "VALUES": true, "READ": true, "CHECK": true,
	"CONDITION": true, "DIV": true, "MOD": true, "ROW": true, "STATUS": false,
}

// extractAs maps the EXTRACT units that Flink has and TiDB's grammar lacks
// to the function Flink's documentation says each equals (DAYOFWEEK(ts) is
// EXTRACT(DOW FROM ts): 1 for Sunday to 7 for Saturday).
var extractAs = map[string]string{"DOW": "DAYOFWEEK", "DOY": "DAYOFYEAR"}

// extractNamed are the EXTRACT units of Flink that TiDB's grammar lacks and
// no function of their own stands for: the parser writes EXTRACT(u FROM ts)
// as SQ_EXTRACT('u', ts), which the planner binds as EXTRACT.
var extractNamed = map[string]bool{"MILLISECOND": true, "NANOSECOND": true, "EPOCH": true, "ISODOW": true, "ISOYEAR": true,
	"DECADE": true, "CENTURY": true, "MILLENNIUM": true}

// compoundUnits are the INTERVAL qualifiers `A TO B` of Flink SQL, as TiDB's
// A_B units (the planner reads their text, planner/rule_func_watermark.go).
var compoundUnits = map[string]bool{"YEAR_MONTH": true, "DAY_HOUR": true, "DAY_MINUTE": true, "DAY_SECOND": true,
	"HOUR_MINUTE": true, "HOUR_SECOND": true, "MINUTE_SECOND": true}

// pluralUnits are the plural spellings of INTERVAL units that Flink SQL
// accepts (INTERVAL '10' MINUTES), read as the singular ones.
var pluralUnits = map[string]bool{"MILLISECONDS": true, "SECONDS": true, "MINUTES": true, "HOURS": true, "DAYS": true, "WEEKS": true,
	"MONTHS": true, "QUARTERS": true, "YEARS": true}

var hintKeywords = []string{"SELECT", "FROM", "WHERE", "JOIN", "LIMIT", "GROUP", "ORDER", "HAVING",
	"BETWEEN", "LIKE", "CAST", "SEMI", "ANTI", "INTO", "SIDE", "VALUES", "INSERT", "CASE", "WHEN",
	"THEN", "ELSE", "END", "AND", "NOT", "NULL", "EXISTS", "INTERVAL", "SECOND", "MINUTE", "HOUR", "DISTINCT"}

// hint looks at the token at the error offset (and the one before it) for a
// likely cause.
func (ps *parseState) hint(r *region, off int, atEnd bool) string {
	k := -1
	for i, t := range r.toks {
		if t.Offset <= off {
			k = i
		}
	}
	if atEnd {
		depth := 0
		for _, t := range r.toks {
			if t.isOp("(") {
				depth++
			} else if t.isOp(")") {
				depth--
			}
		}
		if depth > 0 {
			return "a ')' is missing"
		}
		if n := len(r.toks); n > 0 && r.toks[n-1].isOp(",") {
			return "a ',' ends the statement with nothing after it: remove it, or add the missing item"
		}
		return ""
	}
	if k < 0 {
		return ""
	}
	for j := k; j >= 0 && j >= k-4; j-- {
		if r.toks[j].is("INTERVAL") && j > 0 && (r.toks[j-1].isOp("(") || r.toks[j-1].isOp(",") || r.toks[j-1].is("SELECT")) {
			return "a bare INTERVAL is not a value: write it in arithmetic, as in ts - INTERVAL '5' SECOND"
		}
	}
	if h := limitHint(r.toks, k, off); h != "" {
		return h
	}
	if h := unitHint(r.toks, k, off); h != "" {
		return h
	}
	t := r.toks[k]
	if h := trailingCommaHint(r.toks, k, off); h != "" {
		return h
	}
	if t.Offset == off && t.Kind == TokIdent {
		u := strings.ToUpper(t.Text)
		if u == "INTERVAL" {
			return "INTERVAL works in arithmetic such as ts - INTERVAL '5' SECOND; as a name write `interval`"
		}
		// any reserved word where a stream or column name stands (FROM select,
		// SELECT from, s.order); the common ones anywhere
		if reservedHint[u] || (IsReserved(u) && k > 0 && namePlace(r.toks[k-1])) {
			return reservedMsg(t)
		}
	}
	for _, j := range []int{k, k - 1} {
		if j >= 0 && r.toks[j].Kind == TokIdent && !pluralUnits[strings.ToUpper(r.toks[j].Text)] { // (INTERVAL '5' MINUTES is Flink's spelling, not a typo)
			if w := didYouMean(r.toks[j].Text, hintKeywords); w != "" {
				return fmt.Sprintf("did you mean %s instead of %s?", w, r.toks[j].Text)
			}
		}
	}
	return ""
}

// listEnders are the words and the ')' that may follow a list (a select
// list, GROUP BY's, ORDER BY's, a column list, call arguments) but never a ','.
var listEnders = map[string]bool{"FROM": true, "WHERE": true, "GROUP": true, "ORDER": true, "HAVING": true,
	"LIMIT": true, "UNION": true, "INTO": true, "WINDOW": true, "LATE": true, "ON": true}

// trailingCommaHint explains a syntax error at toks[k] (offset off) that
// follows a ',' ending a list with nothing (SELECT a, FROM s; GROUP BY k,
// ORDER BY ...; f(a, )): the word after it is not the cause. It returns ""
// when the error is elsewhere.
func trailingCommaHint(toks []Token, k, off int) string {
	if k < 1 || toks[k].Offset != off || !toks[k-1].isOp(",") {
		return ""
	}
	t := toks[k]
	msg := fmt.Sprintf("a ',' stands before %s with nothing after it: remove it, or add the missing item", t.Text)
	if t.isOp(")") {
		return msg
	}
	u := strings.ToUpper(t.Text)
	if t.Kind != TokIdent || !listEnders[u] || toks[0].is("CREATE") {
		return "" // (CREATE STREAM s (a INT, from INT): a reserved word as a column's name)
	}
	// the word starts its clause only when what follows fits it; else it is a
	// reserved word written as a name (SELECT a, order FROM t)
	if k+1 >= len(toks) {
		return ""
	}
	next := toks[k+1]
	if u == "GROUP" || u == "ORDER" {
		if next.is("BY") {
			return msg
		}
		return ""
	}
	if next.isOp(",") || next.isOp(")") || next.isOp(".") || next.is("FROM") || next.is("AS") {
		return ""
	}
	return msg
}

// limitHint explains a syntax error at toks[k] (offset off) in a LIMIT or
// OFFSET count: Flink takes a whole number of rows there, written as an
// unsigned integer literal (LIMIT -1, LIMIT 1.5, LIMIT 'a', LIMIT 1+1 are
// refused). It returns "" when the error is elsewhere.
func limitHint(toks []Token, k, off int) string {
	if toks[k].Offset != off {
		return ""
	}
	kw := -1
	switch {
	case k >= 1 && (toks[k-1].is("LIMIT") || toks[k-1].is("OFFSET")):
		kw = k - 1
	case k >= 2 && (toks[k-2].is("LIMIT") || toks[k-2].is("OFFSET")) && toks[k-1].Kind == TokNumber && toks[k].Kind == TokOp && !toks[k].isOp(","):
		kw = k - 2
	default:
		return ""
	}
	w := strings.ToUpper(toks[kw].Text)
	if t := toks[k]; kw == k-1 && t.Kind == TokNumber && strings.Trim(t.Text, "0123456789") == "" {
		return fmt.Sprintf("%s's count is at most 9223372036854775807", w)
	}
	if w == "OFFSET" {
		return "OFFSET takes a whole number of rows written as digits, 0 or more (OFFSET 5)"
	}
	return "LIMIT takes a whole number of rows written as digits, 0 or more (LIMIT 10); leave LIMIT out for every row"
}

// timeUnits are the units TIMESTAMPADD and TIMESTAMPDIFF take (Flink's list,
// as executor/expr checks them).
const timeUnits = "SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR"

// unitHint explains a syntax error at a time unit (toks[k] at offset off):
// TIMESTAMPADD(FOO, ...), TIMESTAMPDIFF(FOO, ...), EXTRACT(FOO FROM ts) and
// INTERVAL '1' FOO name the units that fit there. It returns "" when the error
// is elsewhere.
func unitHint(toks []Token, k, off int) string {
	t := toks[k]
	if t.Offset != off || t.Kind != TokIdent && t.Kind != TokQuotedIdent && t.Kind != TokString {
		return ""
	}
	if k >= 2 && toks[k-1].isOp("(") {
		switch fn := strings.ToUpper(toks[k-2].Text); fn {
		case "TIMESTAMPADD", "TIMESTAMPDIFF":
			return fmt.Sprintf("%s's first argument is a time unit, one of %s, not %s (as in %s(HOUR, ...))", fn, timeUnits, t.Text, fn)
		case "EXTRACT":
			return fmt.Sprintf("EXTRACT takes a time unit before FROM, such as YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, MILLISECOND, DOW or DOY, not %s (as in EXTRACT(HOUR FROM ts))", t.Text)
		}
	}
	if k >= 2 && toks[k-1].Kind == TokString && toks[k-2].is("INTERVAL") {
		return fmt.Sprintf("an INTERVAL ends with a time unit such as SECOND, MINUTE, HOUR, DAY, MONTH or YEAR (or MINUTES and the like), not %s (as in INTERVAL '10' MINUTE)", t.Text)
	}
	return ""
}

// optionsHint returns an error for a Flink dynamic table options hint in r
// (/*+ OPTIONS('k'='v') */ after a table name): Flink reads the table with
// those options, and taking it as a comment (as other hints are, SPEC 3)
// would read it with its declared ones, silently.
func optionsHint(r *region) *Error {
	for _, c := range r.comments {
		if !strings.HasPrefix(c.Text, "/*+") {
			continue
		}
		body := strings.ToUpper(strings.TrimSpace(strings.TrimSuffix(c.Text[3:], "*/")))
		if strings.HasPrefix(body, "OPTIONS") && strings.HasPrefix(strings.TrimSpace(body[len("OPTIONS"):]), "(") {
			return Errorf(c.Offset, "dynamic table options (/*+ OPTIONS(...) */) are not supported: declare a stream with those options (CREATE STREAM s2 (...) WITH (...)) and read it")
		}
	}
	return nil
}

// namePlace reports whether a name is expected after p.
func namePlace(p Token) bool {
	return startsTableRef(p) || p.is("SELECT") || p.is("INTO") || p.isOp(".")
}

// decimalTooLong reports whether a number literal that TiDB reads as a DECIMAL has
// more digits than TiDB's literal driver holds (9 words of 9 digits; it panics).
func decimalTooLong(s string) bool {
	if strings.ContainsAny(s, "eExXbB") {
		return false
	}
	i, f, _ := strings.Cut(s, ".")
	return (len(i)+8)/9+(len(f)+8)/9 > 9
}

// startsTableRef reports whether a table name or an alias may follow t.
func startsTableRef(t Token) bool {
	return t.is("FROM") || t.is("JOIN") || t.is("STRAIGHT_JOIN") || t.is("AS") || t.isOp(",") || t.isOp("(")
}
