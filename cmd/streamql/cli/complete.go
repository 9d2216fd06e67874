package cli

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/cmd/streamql/render"
	"streamql/parser"
)

// completer is the REPL's Tab completion (SPEC 4): keywords, function names
// (the function table's, as NAME( ), stream names,
// column names of the streams the statement names so far and of the
// subqueries and WITH names it defines (complete_derived.go), the names of pending
// side branches inside SIDE '...', and the meta commands with their arguments.
// It implements readline.AutoCompleter.
type completer struct {
	sess *Session
	// before returns the lines of the entry typed before the current line ("" at
	// the prompt), joined with newlines and ending with one.
	before func() string
	// offered holds the lines (up to the cursor) that the last Do's candidates
	// would make; onKey uses it to drop a completion's space before ','.
	offered map[string]bool
}

// onKey is the REPL's readline Listener: when ',', ')', ';' or '.' is typed
// right after the space that a completion added (`deviceNo ` + `,`), the space
// goes, so the line reads `deviceNo,`. It returns the new line and cursor, and
// whether it changed them.
func (c *completer) onKey(line []rune, pos int, key rune) ([]rune, int, bool) {
	switch key {
	case ',', ')', ';', '.':
	default:
		return nil, 0, false
	}
	if pos < 2 || pos > len(line) || line[pos-1] != key || line[pos-2] != ' ' || !c.offered[string(line[:pos-1])] {
		return nil, 0, false
	}
	c.offered = nil
	out := append(append(make([]rune, 0, len(line)-1), line[:pos-2]...), line[pos-1:]...)
	return out, pos - 1, true
}

// Do implements readline.AutoCompleter: the suffixes that complete the word
// before pos, and the length of that word in runes.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	prev := ""
	if c.before != nil {
		prev = c.before()
	}
	word, cands := c.candidates(prev, string(line[:pos]))
	n := utf8.RuneCountInString(word)
	out := make([][]rune, 0, len(cands))
	c.offered = make(map[string]bool, len(cands))
	for _, x := range cands {
		out = append(out, []rune(x)[n:])
		if strings.HasSuffix(x, " ") {
			c.offered[string(line[:pos-n])+x] = true
		}
	}
	return out, n
}

// candidates returns the word being completed at the end of cur (the current
// line up to the cursor; prev holds the entry's earlier lines) and the full
// texts that complete it, each starting with word and ending with a space (or
// the closing quote of a side name). Keywords follow the word's case.
func (c *completer) candidates(prev, cur string) (word string, cands []string) {
	if prev == "" && strings.HasPrefix(strings.TrimLeft(cur, " \t"), ".") {
		return c.meta(strings.TrimLeft(cur, " \t"))
	}
	src := prev + cur
	toks := parser.Tokens(src)
	// only the statement being typed counts
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i].Kind == parser.TokSemicolon {
			toks = toks[i+1:]
			break
		}
	}
	var last *parser.Token
	if len(toks) > 0 && toks[len(toks)-1].End() == len(src) {
		last = &toks[len(toks)-1]
	}
	before := toks // the tokens before the word
	switch {
	case last == nil:
	case last.Kind == parser.TokIdent:
		word, before = last.Text, toks[:len(toks)-1]
	case last.Kind == parser.TokError && strings.HasPrefix(last.Text, "'"):
		// inside an unterminated string: a side name after SIDE
		word, before = last.Text, toks[:len(toks)-1]
		if p := prevWord(before); p == "SIDE" {
			for _, s := range c.sess.PendingSides() {
				cands = append(cands, "'"+strings.ReplaceAll(s, "'", "''")+"' ")
			}
		}
		return word, filterPrefix(cands, word, false)
	case last.Kind == parser.TokError && strings.HasPrefix(last.Text, "`"):
		// inside an unterminated quoted name: a stream or column name, quoted
		word, before = last.Text, toks[:len(toks)-1]
		var names []string
		switch p := prevWord(before); {
		case p == "FROM" || p == "JOIN" || p == "DESCRIBE" || p == "DESC" || p == "EXISTS" && isDropStream(before) || p == "STREAM" && isDropStream(before):
			for _, st := range c.relations() {
				names = append(names, st.Name)
			}
		case p == "STREAM":
			return word, nil // CREATE STREAM takes a new name
		default:
			named := c.namedStreams(before)
			if len(named) == 0 {
				named = c.relations()
			}
			for _, st := range named {
				for _, col := range st.Columns {
					names = append(names, col.Name)
				}
			}
		}
		for _, n := range names {
			cands = append(cands, "`"+strings.ReplaceAll(n, "`", "``")+"` ")
		}
		return word, dedupe(filterPrefix(cands, word, false))
	case last.Kind == parser.TokOp && last.Text == ".":
	case last.Kind == parser.TokComment || last.Kind == parser.TokError || last.Kind == parser.TokString || last.Kind == parser.TokQuotedIdent:
		return "", nil // nothing to complete inside a comment or right after a quote
	default:
		if !strings.ContainsAny(last.Text, "(),=<>+-*/%|") {
			return "", nil
		}
	}
	derived, with := c.derivedRelations(toks)
	named := append(c.namedStreams(before), derived...)
	if n := len(before); n > 0 && before[n-1].Kind == parser.TokOp && before[n-1].Text == "." {
		// qualified: s.col or alias.col (a subquery's alias or a WITH name: its own columns)
		var streams []*catalog.Stream
		if n >= 2 && isName(before[n-2]) {
			for _, d := range derived {
				if strings.EqualFold(d.Name, before[n-2].Value()) {
					streams = []*catalog.Stream{d}
				}
			}
		}
		if streams == nil && n >= 2 {
			if st := c.resolveQualifier(before[n-2], toks); st != nil {
				streams = []*catalog.Stream{st}
			}
		}
		if streams == nil {
			streams = named
		}
		return word, filterPrefix(columnNames(streams), word, false)
	}
	switch prevWord(before) {
	case "FROM", "JOIN":
		return word, filterPrefix(append(c.streamNames(), withSpace(with)...), word, false)
	case "DESCRIBE", "DESC":
		return word, filterPrefix(c.streamNames(), word, false)
	case "STREAM", "EXISTS": // DROP STREAM [IF EXISTS] name; CREATE STREAM takes a new name
		if isDropStream(before) {
			return word, filterPrefix(c.names(c.sess.Cat.Streams()), word, false)
		}
		if isDrop(before, "VIEW") {
			return word, filterPrefix(c.names(c.views()), word, false)
		}
		if prevWord(before) == "STREAM" {
			return word, nil
		}
	case "VIEW": // DROP VIEW [IF EXISTS] name; CREATE VIEW takes a new name
		if isDrop(before, "VIEW") {
			return word, filterPrefix(c.names(c.views()), word, false)
		}
		return word, nil
	}
	if len(named) == 0 {
		named = c.relations()
	}
	cands = append(columnNames(named), c.streamNames()...)
	cands = filterPrefix(cands, word, false)
	kw := filterPrefix(withSpace(parser.Keywords()), word, true)
	fn := filterPrefix(functionWords(), word, true)
	return word, dedupe(append(append(cands, kw...), fn...))
}

// meta completes a meta command line (it starts with '.').
func (c *completer) meta(line string) (string, []string) {
	cmd, arg, hasArg := strings.Cut(line, " ")
	if !hasArg {
		var names []string
		for _, m := range metaCommands {
			names = append(names, m.name+" ")
		}
		return cmd, filterPrefix(names, cmd, false)
	}
	arg = strings.TrimLeft(arg, " ")
	if strings.Contains(arg, " ") {
		return "", nil
	}
	switch cmd {
	case ".schema":
		return arg, filterPrefix(c.streamNames(), arg, false)
	case ".format":
		return arg, filterPrefix(withSpace(render.Formats), arg, false)
	case ".timer":
		return arg, filterPrefix([]string{"on ", "off "}, arg, false)
	case ".read":
		return arg, completePath(arg)
	case ".help", ".h", ".?":
		return arg, filterPrefix([]string{"functions "}, arg, false)
	}
	return "", nil
}

// completePath returns the files and directories whose path starts with p;
// directories end with a separator, files with a space.
func completePath(p string) []string {
	dir, base := filepath.Split(p)
	lookIn := dir
	if lookIn == "" {
		lookIn = "."
	}
	if strings.HasPrefix(lookIn, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			lookIn = filepath.Join(home, lookIn[2:])
		}
	}
	ents, err := os.ReadDir(lookIn)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if e.IsDir() {
			out = append(out, dir+name+string(filepath.Separator))
		} else {
			out = append(out, dir+name+" ")
		}
	}
	sort.Strings(out)
	return out
}

// namedStreams returns the declared streams that toks name, in order.
func (c *completer) namedStreams(toks []parser.Token) []*catalog.Stream {
	var out []*catalog.Stream
	seen := map[*catalog.Stream]bool{}
	for _, t := range toks {
		if t.Kind != parser.TokIdent && t.Kind != parser.TokQuotedIdent {
			continue
		}
		if st := c.lookup(t.Value()); st != nil && !seen[st] {
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}

// resolveQualifier returns the stream that q (the name before a '.') stands for:
// a stream name, or an alias declared as `stream [AS] q` in toks.
func (c *completer) resolveQualifier(q parser.Token, toks []parser.Token) *catalog.Stream {
	if q.Kind != parser.TokIdent && q.Kind != parser.TokQuotedIdent {
		return nil
	}
	if st := c.lookup(q.Value()); st != nil {
		return st
	}
	for i, t := range toks {
		if (t.Kind != parser.TokIdent && t.Kind != parser.TokQuotedIdent) || !strings.EqualFold(t.Value(), q.Value()) || t.Offset == q.Offset {
			continue
		}
		j := i - 1
		if j >= 0 && toks[j].Kind == parser.TokIdent && strings.EqualFold(toks[j].Text, "AS") {
			j--
		}
		if j >= 0 {
			if st := c.lookup(toks[j].Value()); st != nil {
				return st
			}
		}
	}
	return nil
}

func (c *completer) streamNames() []string {
	return c.names(c.relations())
}

// names returns the names of rels, quoted where needed, each followed by a
// space (completion candidates).
func (c *completer) names(rels []*catalog.Stream) []string {
	var out []string
	for _, st := range rels {
		out = append(out, quoteName(st.Name)+" ")
	}
	return out
}

// views returns the session's views (SPEC 2.6), as relations.
func (c *completer) views() []*catalog.Stream {
	var out []*catalog.Stream
	for _, v := range c.sess.Cat.Views() {
		out = append(out, v.Stream)
	}
	return out
}

func columnNames(streams []*catalog.Stream) []string {
	var out []string
	for _, st := range streams {
		for _, col := range st.Columns {
			out = append(out, quoteName(col.Name)+" ")
		}
	}
	return out
}

// quoteName back-quotes a name that is not a plain identifier.
func quoteName(n string) string {
	for i, r := range n {
		if !(unicode.IsLetter(r) || r == '_' || i > 0 && unicode.IsDigit(r)) {
			return "`" + strings.ReplaceAll(n, "`", "``") + "`"
		}
	}
	return n
}

// prevWord returns the last token of toks in upper case when it is a bare word.
func prevWord(toks []parser.Token) string {
	if len(toks) == 0 || toks[len(toks)-1].Kind != parser.TokIdent {
		return ""
	}
	return strings.ToUpper(toks[len(toks)-1].Text)
}

// isDropStream reports whether toks start with DROP STREAM.
func isDropStream(toks []parser.Token) bool {
	return isDrop(toks, "STREAM")
}

// isDrop reports whether toks start with DROP what (STREAM, VIEW).
func isDrop(toks []parser.Token, what string) bool {
	return len(toks) >= 2 && strings.EqualFold(toks[0].Text, "DROP") && strings.EqualFold(toks[1].Text, what)
}

func withSpace(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w + " "
	}
	return out
}

// filterPrefix keeps the candidates that start with word (case-insensitive) and
// rewrites their first len(word) characters as word was typed; the rest of a
// keyword (kw) is lower case when the last letter typed is (sel, Sel → select,
// Select).
func filterPrefix(cands []string, word string, kw bool) []string {
	lower := false
	for _, r := range word {
		if unicode.IsLetter(r) {
			lower = unicode.IsLower(r)
		}
	}
	var out []string
	for _, x := range cands {
		if !hasPrefixFold(x, word) {
			continue
		}
		if kw && lower {
			x = strings.ToLower(x)
		}
		out = append(out, word+string([]rune(x)[utf8.RuneCountInString(word):]))
	}
	return out
}

func hasPrefixFold(s, prefix string) bool {
	n := utf8.RuneCountInString(prefix)
	r := []rune(s)
	return len(r) >= n && strings.EqualFold(string(r[:n]), prefix)
}

// dedupe sorts cands case-insensitively and drops repeats.
func dedupe(cands []string) []string {
	sort.SliceStable(cands, func(i, j int) bool { return strings.ToLower(cands[i]) < strings.ToLower(cands[j]) })
	out := cands[:0]
	for i, x := range cands {
		if i > 0 && strings.EqualFold(x, cands[i-1]) {
			continue
		}
		out = append(out, x)
	}
	return out
}

// relations returns the session's streams, then its views (SPEC 2.6: a view
// is read by name as a stream is), each by name.
func (c *completer) relations() []*catalog.Stream {
	return append(c.sess.Cat.Streams(), c.views()...)
}

// lookup returns the stream or view named name, nil when none.
func (c *completer) lookup(name string) *catalog.Stream {
	if st := c.sess.Cat.Lookup(name); st != nil {
		return st
	}
	if v := c.sess.Cat.LookupView(name); v != nil {
		return v.Stream
	}
	return nil
}
