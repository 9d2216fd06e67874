package expr

import (
	"sort"
	"strings"

	"streamql/catalog"
	"streamql/internal/editdist"
)

// Function is one scalar function of SPEC 2.10, as Flink SQL names it: the one
// place that declares it. The planner binds calls from Sigs (or, for Rule
// functions, with a rule of its own), and REPL completion, `.help functions`,
// SHOW FUNCTIONS and the README's function list are generated from Functions.
type Function struct {
	// Name is the function's name, upper case, as Flink spells it.
	Name string
	// Aliases are other spellings of it (upper case).
	Aliases []string
	// Group is the key of one of Groups: "time", "text", "number",
	// "condition", "json", "collection" or "other".
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
	// Doc says what it returns, in one line; Example is a call and its result.
	Doc, Example string
	// Syntax is set for the planner's spelling of syntax (arr[i] is ITEM,
	// ARRAY[...] is ARRAY_VALUE_CONSTRUCTOR: Calcite's names): completion
	// does not offer it as a call.
	Syntax bool
	// Rule is set when the planner binds the function with a rule of its own
	// (syntax TiDB rewrites, raw arguments such as a time unit, CAST's type):
	// Sigs then only document it and Prepare is nil.
	Rule bool
	// TakesNulls is set when NULL arguments reach the row function (Nulls says
	// how it treats them); otherwise any NULL argument gives NULL.
	TakesNulls bool
	// Prepare returns the row function of a call with args giving result
	// (the Sig's result type), compiling its constant arguments once; an
	// *ArgError names a constant argument that cannot work.
	Prepare func(args []Arg, result catalog.Type) (RowFunc, error)
	// PrepareBatch, when set, is used instead of Prepare by the executor: it
	// returns a function computing the selected rows of a batch at once (a
	// WASM function's batch export, wasmudf.go).
	PrepareBatch func(args []Arg, result catalog.Type) (BatchFunc, error)
	// key is a user function's process-wide key (Registry.Add, udf.go).
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

// Lookup returns the function of a name or alias (any case), or nil.
// A user function's key (NAME#n, Function.Key) finds it too (udf.go).
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

var byName = map[string]*Function{}

func init() {
	for k := range Functions {
		f := &Functions[k]
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if byName[n] != nil {
				panic("expr: function " + n + " declared twice")
			}
			byName[n] = f
		}
	}
}

// The SQL types, short, for the table.
const (
	tAny  = catalog.Unknown
	tBig  = catalog.BigInt
	tDbl  = catalog.Double
	tStr  = catalog.Varchar
	tBool = catalog.Boolean
	tTs   = catalog.Timestamp
)

// sig is a signature of args giving res; vsig one whose last argument repeats.
func sig(res catalog.Type, args ...catalog.Type) Sig { return Sig{Args: args, Result: res} }
func vsig(res catalog.Type, args ...catalog.Type) Sig {
	return Sig{Args: args, Result: res, Variadic: true}
}

// Null rules and failure behaviours shared by many entries.
const (
	nullsAny  = "NULL if any argument is NULL"
	failNone  = "none"
	failParse = "NULL (Flink's TRY semantics)"
)

// Functions is the function table of SPEC 2.10 (Flink SQL's built-in scalar
// functions under SPEC 2's value rules: DOUBLE, BIGINT, VARCHAR, BOOLEAN and
// TIMESTAMP(3) in milliseconds without a time zone). Group by group; the
// kernels are in func_*.go.
var Functions = []Function{
	// ---- conditions and types (bound by the planner's rules) ----
	{Name: "CASE", Group: "condition", Rule: true, TakesNulls: true, Sigs: []Sig{sig(tAny, tBool, tAny)},
		Nulls: "a NULL condition is not true", Failure: failNone,
		Doc:     "CASE WHEN c THEN r ... [ELSE e] END, CASE x WHEN v THEN r ... END: the first true branch's result",
		Example: "CASE WHEN 1 > 0 THEN 'a' ELSE 'b' END = 'a'"},
	{Name: "COALESCE", Aliases: []string{"IFNULL"}, Group: "condition", Rule: true, TakesNulls: true,
		Sigs: []Sig{vsig(tAny, tAny)}, Nulls: "the first argument that is not NULL; NULL if all are", Failure: failNone,
		Doc: "the first argument that is not NULL", Example: "COALESCE(NULL, 5) = 5"},
	{Name: "IF", Group: "condition", Rule: true, TakesNulls: true, Sigs: []Sig{sig(tAny, tBool, tAny, tAny)},
		Nulls: "a NULL condition takes the else branch", Failure: failNone,
		Doc: "IF(cond, a, b): a when cond is true, else b", Example: "IF(1 > 2, 'x', 'y') = 'y'"},
	{Name: "IS DISTINCT FROM", Aliases: []string{"IS NOT DISTINCT FROM"}, Group: "condition", Rule: true, TakesNulls: true, Sigs: []Sig{sig(tBool, tAny, tAny)},
		Nulls: "never NULL: two NULLs are not distinct, NULL and a value are", Failure: failNone,
		Doc: "a IS [NOT] DISTINCT FROM b: whether a and b differ, NULLs treated as equal (the parser writes it with <=>)", Example: "1 IS DISTINCT FROM NULL = TRUE"},
	{Name: "NULLIF", Group: "condition", TakesNulls: true, Sigs: []Sig{sig(tAny, tAny, tAny)},
		Nulls: "NULL when a is NULL or a = b", Failure: failNone, Prepare: prepNullIf,
		Doc: "NULLIF(a, b): NULL when a = b, else a", Example: "NULLIF(5, 5) = NULL"},
	{Name: "CAST", Group: "other", Rule: true, Sigs: []Sig{sig(tAny, tAny)}, Nulls: nullsAny,
		Failure: "NULL (Flink's TRY_CAST, SPEC 2)",
		Doc:     "CAST(x AS BIGINT|DOUBLE|VARCHAR|BOOLEAN|TIMESTAMP)", Example: "CAST('42' AS BIGINT) = 42"},
	{Name: "TRY_CAST", Group: "other", Rule: true, Sigs: []Sig{sig(tAny, tAny)}, Nulls: nullsAny,
		Failure: "NULL (as CAST: SPEC 2)",
		Doc:     "TRY_CAST(x AS type): Flink's spelling of CAST that gives NULL on failure, which CAST already does here (SPEC 2)", Example: "TRY_CAST('x' AS BIGINT) IS NULL"},
	{Name: "CURRENT_WATERMARK", Group: "time", Rule: true, TakesNulls: true, Sigs: []Sig{sig(tTs, tTs), sig(tBig, tBig)},
		Nulls: "NULL before the first watermark", Failure: failNone,
		Doc: "the watermark of the stream of an event-time column, before the row (SPEC 2.3)"},
	{Name: "GREATEST", Group: "condition", Sigs: []Sig{vsig(tAny, tAny)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepGreatest, Doc: "the greatest argument (BIGINT with DOUBLE as DOUBLE)", Example: "GREATEST(1, 5, 3) = 5"},
	{Name: "LEAST", Group: "condition", Sigs: []Sig{vsig(tAny, tAny)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepLeast, Doc: "the least argument", Example: "LEAST(1, 5, 3) = 1"},

	// ---- text ----
	{Name: "CONCAT", Group: "text", Rule: true, Sigs: []Sig{vsig(tStr, tAny)}, Nulls: nullsAny, Failure: failNone,
		Doc: "the arguments joined, numbers as they print (also x || y)", Example: "CONCAT('AA', 'BB', 'CC') = 'AABBCC'"},
	{Name: "CONCAT_WS", Group: "text", TakesNulls: true, Sigs: []Sig{vsig(tStr, tStr, tAny)},
		Nulls: "NULL if the separator is NULL; NULL strings are skipped", Failure: failNone, Prepare: prepConcatWS,
		Doc: "CONCAT_WS(sep, s1, s2, ...): the strings joined by sep", Example: "CONCAT_WS('~', 'AA', NULL, 'BB', '', 'CC') = 'AA~BB~~CC'"},
	{Name: "UPPER", Aliases: []string{"UCASE"}, Group: "text", Rule: true, Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Doc: "upper case (simple case mapping per code point)", Example: "UPPER('hi') = 'HI'"},
	{Name: "LOWER", Aliases: []string{"LCASE"}, Group: "text", Rule: true, Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Doc: "lower case", Example: "LOWER('Hi') = 'hi'"},
	{Name: "TRIM", Group: "text", Rule: true, Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Doc: "the string without leading and trailing spaces", Example: "TRIM(' hi ') = 'hi'"},
	{Name: "LTRIM", Group: "text", Rule: true, Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Doc: "the string without leading spaces", Example: "LTRIM(' This is a test String.') = 'This is a test String.'"},
	{Name: "RTRIM", Group: "text", Rule: true, Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Doc: "the string without trailing spaces", Example: "RTRIM('This is a test String. ') = 'This is a test String.'"},
	{Name: "SUBSTRING", Aliases: []string{"SUBSTR"}, Group: "text", Rule: true, Sigs: []Sig{sig(tStr, tStr, tBig), sig(tStr, tStr, tBig, tBig)},
		Nulls: nullsAny, Failure: failNone,
		Doc: "SUBSTRING(s, start[, len]) on code points; a negative start counts from the end", Example: "SUBSTR('Hello', 2, 3) = 'ell'"},
	{Name: "CHAR_LENGTH", Aliases: []string{"CHARACTER_LENGTH"}, Group: "text", Rule: true, Sigs: []Sig{sig(tBig, tStr)}, Nulls: nullsAny, Failure: failNone,
		Doc: "the number of code points", Example: "CHAR_LENGTH('héllo') = 5"},
	{Name: "REGEXP_EXTRACT", Group: "text", Sigs: []Sig{sig(tStr, tStr, tStr), sig(tStr, tStr, tStr, tBig)}, Nulls: nullsAny,
		Failure: "NULL when nothing matches, the group does not exist or a pattern that is not constant is invalid; a constant pattern RE2 cannot run is a planning error",
		Prepare: prepRegexpExtract,
		Doc:     "REGEXP_EXTRACT(s, regex[, group]): group (0 = the whole match, the default) of the first match (RE2 syntax)", Example: "REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 2) = 'bar'"},
	{Name: "REGEXP_REPLACE", Group: "text", Sigs: []Sig{sig(tStr, tStr, tStr, tStr)}, Nulls: nullsAny,
		Failure: "NULL for a pattern (not constant) that is invalid; a constant one RE2 cannot run is a planning error",
		Prepare: prepRegexpReplace,
		Doc:     "REGEXP_REPLACE(s, regex, replacement): every match replaced by the replacement, taken literally as Flink does ($1 is the text $1)", Example: "REGEXP_REPLACE('foobar', 'oo|ar', '') = 'fb'"},
	{Name: "REGEXP", Group: "text", Sigs: []Sig{sig(tBool, tStr, tStr)}, Nulls: nullsAny,
		Failure: "NULL for an invalid pattern that is not constant", Prepare: prepRegexp,
		Doc: "s REGEXP regex: whether regex matches a part of s (FALSE for an empty regex, as Flink)", Example: "'foothebar' REGEXP 'the' = TRUE"},
	{Name: "SIMILAR TO", Aliases: []string{"SIMILAR_TO"}, Group: "text", Sigs: []Sig{sig(tBool, tStr, tStr)}, Nulls: nullsAny,
		Failure: "NULL for an invalid pattern that is not constant", Prepare: prepSimilarTo,
		Doc: "s [NOT] SIMILAR TO p: whether all of s matches the SQL regular expression p (% any text, _ one character, | * + ? {} () [] as in regular expressions)", Example: "'abc' SIMILAR TO 'a%' = TRUE"},
	{Name: "SPLIT_INDEX", Group: "text", Sigs: []Sig{sig(tStr, tStr, tStr, tBig)}, Nulls: nullsAny,
		Failure: "NULL when the index is negative or past the last field", Prepare: prepSplitIndex,
		Doc: "SPLIT_INDEX(s, sep, i): field i (from 0) of s split at sep", Example: "SPLIT_INDEX('Jack,John,Mary', ',', 2) = 'Mary'"},
	{Name: "REPLACE", Group: "text", Sigs: []Sig{sig(tStr, tStr, tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepReplace,
		Doc:     "REPLACE(s, from, to): every from replaced by to", Example: "REPLACE('hello world', 'world', 'flink') = 'hello flink'"},
	{Name: "POSITION", Group: "text", Sigs: []Sig{sig(tBig, tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepPosition, Doc: "POSITION(sub IN s): where sub first starts in s, from 1 (code points); 0 if absent",
		Example: "POSITION('or' IN 'hello world') = 8"},
	{Name: "LOCATE", Group: "text", Sigs: []Sig{sig(tBig, tStr, tStr), sig(tBig, tStr, tStr, tBig)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepLocate, Doc: "LOCATE(sub, s[, from]): where sub first starts in s at or after from; 0 if absent",
		Example: "LOCATE('o', 'hello world', 6) = 8"},
	{Name: "INSTR", Group: "text", Sigs: []Sig{sig(tBig, tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepInstr, Doc: "INSTR(s, sub): where sub first starts in s, from 1; 0 if absent", Example: "INSTR('hello world', 'or') = 8"},
	{Name: "LEFT", Group: "text", Sigs: []Sig{sig(tStr, tStr, tBig)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepLeft, Doc: "LEFT(s, n): the first n code points ('' when n < 0)", Example: "LEFT('Hi, Flink', 2) = 'Hi'"},
	{Name: "RIGHT", Group: "text", Sigs: []Sig{sig(tStr, tStr, tBig)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepRight, Doc: "RIGHT(s, n): the last n code points ('' when n < 0)", Example: "RIGHT('Hi, Flink', 5) = 'Flink'"},
	{Name: "LPAD", Group: "text", Sigs: []Sig{sig(tStr, tStr, tBig, tStr)}, Nulls: nullsAny,
		Failure: "NULL when the length is negative or the pad is empty", Prepare: prepLPad,
		Doc: "LPAD(s, len, pad): s left-padded with pad (or cut) to len code points", Example: "LPAD('hi', 4, '??') = '??hi'"},
	{Name: "RPAD", Group: "text", Sigs: []Sig{sig(tStr, tStr, tBig, tStr)}, Nulls: nullsAny,
		Failure: "NULL when the length is negative or the pad is empty", Prepare: prepRPad,
		Doc: "RPAD(s, len, pad): s right-padded with pad (or cut) to len code points", Example: "RPAD('hi', 4, '??') = 'hi??'"},
	{Name: "REPEAT", Group: "text", Sigs: []Sig{sig(tStr, tStr, tBig)}, Nulls: nullsAny,
		Failure: "NULL when the result would pass 16 MiB", Prepare: prepRepeat,
		Doc: "REPEAT(s, n): s n times ('' when n <= 0)", Example: "REPEAT('This is a test String.', 2) = 'This is a test String.This is a test String.'"},
	{Name: "REVERSE", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepReverse, Doc: "the code points in reverse order", Example: "REVERSE('Flink') = 'knilF'"},
	{Name: "INITCAP", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepInitCap, Doc: "each word's first character upper case, the others lower case (a word is a run of letters and digits)",
		Example: "INITCAP('hello world') = 'Hello World'"},
	{Name: "ASCII", Group: "text", Sigs: []Sig{sig(tBig, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepASCII, Doc: "the numeric value of the first character (0 for '')", Example: "ASCII('abc') = 97"},
	{Name: "CHR", Group: "text", Sigs: []Sig{sig(tStr, tBig)}, Nulls: nullsAny, Failure: "'' for a negative code (Flink)",
		Prepare: prepChr, Doc: "the character of code n & 255 (Latin-1)", Example: "CHR(97) = 'a'"},
	{Name: "MD5", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepHash("md5"), Doc: "the MD5 of the UTF-8 bytes, 32 hex digits", Example: "MD5('') = 'd41d8cd98f00b204e9800998ecf8427e'"},
	{Name: "SHA1", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepHash("sha1"), Doc: "the SHA-1, 40 hex digits", Example: "SHA1('') = 'da39a3ee5e6b4b0d3255bfef95601890afd80709'"},
	{Name: "SHA224", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepHash("sha224"), Doc: "the SHA-224, 56 hex digits"},
	{Name: "SHA256", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepHash("sha256"), Doc: "the SHA-256, 64 hex digits"},
	{Name: "SHA384", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepHash("sha384"), Doc: "the SHA-384, 96 hex digits"},
	{Name: "SHA512", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepHash("sha512"), Doc: "the SHA-512, 128 hex digits"},
	{Name: "SHA2", Group: "text", Sigs: []Sig{sig(tStr, tStr, tBig)}, Nulls: nullsAny,
		Failure: "NULL for a length other than 224, 256, 384 or 512", Prepare: prepSHA2,
		Doc: "SHA2(s, bits): the SHA-2 of 224, 256, 384 or 512 bits"},
	{Name: "TO_BASE64", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepToBase64, Doc: "the base64 of the UTF-8 bytes", Example: "TO_BASE64('hello world') = 'aGVsbG8gd29ybGQ='"},
	{Name: "FROM_BASE64", Group: "text", Sigs: []Sig{sig(tStr, tStr)}, Nulls: nullsAny, Failure: "NULL for text that is not base64",
		Prepare: prepFromBase64, Doc: "the text of base64", Example: "FROM_BASE64('aGVsbG8gd29ybGQ=') = 'hello world'"},
	{Name: "PARSE_URL", Group: "text", Sigs: []Sig{sig(tStr, tStr, tStr), sig(tStr, tStr, tStr, tStr)}, Nulls: nullsAny,
		Failure: "NULL for a URL that does not parse, an unknown part (upper case only, as Flink) or a missing key", Prepare: prepParseURL,
		Doc:     "PARSE_URL(url, part[, key]): HOST, PATH, QUERY (or one key of it), REF, PROTOCOL, AUTHORITY, FILE or USERINFO",
		Example: "PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'HOST') = 'facebook.com'"},

	// ---- numbers ----
	{Name: "ABS", Group: "number", Rule: true, Sigs: []Sig{sig(tBig, tBig), sig(tDbl, tDbl)}, Nulls: nullsAny,
		Failure: "NULL when a BIGINT overflows", Doc: "the absolute value", Example: "ABS(-5) = 5"},
	{Name: "ROUND", Group: "number", Rule: true, Sigs: []Sig{sig(tBig, tBig), sig(tBig, tBig, tBig), sig(tDbl, tDbl), sig(tDbl, tDbl, tBig)},
		Nulls: nullsAny, Failure: "NULL when a BIGINT overflows",
		Doc: "ROUND(x[, d]): half-up on the shortest decimal form (d a literal)", Example: "ROUND(2.675, 2) = 2.68"},
	{Name: "FLOOR", Group: "number", Rule: true, Sigs: []Sig{sig(tBig, tBig), sig(tDbl, tDbl), sig(tTs, tTs, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepFloorTo,
		Doc:     "the largest integer not above x; FLOOR(ts TO unit): ts rounded down to a SECOND, MINUTE, HOUR, DAY, MONTH, QUARTER or YEAR", Example: "FLOOR(1.5) = 1.0"},
	{Name: "CEIL", Aliases: []string{"CEILING"}, Group: "number", Rule: true, Sigs: []Sig{sig(tBig, tBig), sig(tDbl, tDbl), sig(tTs, tTs, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepCeilTo,
		Doc:     "the smallest integer not below x; CEIL(ts TO unit): ts rounded up to a whole unit", Example: "CEIL(1.5) = 2.0"},
	{Name: "MOD", Group: "number", Rule: true, Sigs: []Sig{sig(tBig, tBig, tBig), sig(tDbl, tDbl, tDbl)}, Nulls: nullsAny,
		Failure: "NULL when dividing by zero (SPEC 2)", Doc: "MOD(a, b): the remainder, as a % b (TiDB parses it so)", Example: "MOD(7, 3) = 1"},
	{Name: "POWER", Aliases: []string{"POW"}, Group: "number", Sigs: []Sig{sig(tDbl, tDbl, tDbl)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepF2(powJava), Doc: "POWER(x, y): x to the power y", Example: "POWER(2, 10) = 1024.0"},
	{Name: "SQRT", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: "NaN for a negative x (IEEE 754, SPEC 2)",
		Prepare: prepF1(sqrt), Doc: "the square root", Example: "SQRT(4) = 2.0"},
	{Name: "EXP", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepF1(exp), Doc: "e to the power x", Example: "EXP(0) = 1.0"},
	{Name: "LN", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: "NaN for x < 0, -Infinity for 0 (IEEE 754)",
		Prepare: prepF1(ln), Doc: "the natural logarithm", Example: "LN(1) = 0.0"},
	{Name: "LOG", Group: "number", Sigs: []Sig{sig(tDbl, tDbl), sig(tDbl, tDbl, tDbl)}, Nulls: nullsAny,
		Failure: "NULL for a base or x that is not positive, or base 1 (Flink throws)", Prepare: prepLog,
		Doc: "LOG(x): the natural logarithm; LOG(base, x)", Example: "LOG(2, 8) = 3.0"},
	{Name: "LOG10", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: "NaN for x < 0 (IEEE 754)",
		Prepare: prepF1(log10), Doc: "the base 10 logarithm", Example: "LOG10(1000) = 3.0"},
	{Name: "LOG2", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: "NaN for x < 0 (IEEE 754)",
		Prepare: prepF1(log2), Doc: "the base 2 logarithm", Example: "LOG2(8) = 3.0"},
	{Name: "SIGN", Group: "number", Sigs: []Sig{sig(tBig, tBig), sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepSign, Doc: "-1, 0 or 1 by the sign of x", Example: "SIGN(-5) = -1"},
	{Name: "TRUNCATE", Group: "number", Sigs: []Sig{sig(tBig, tBig), sig(tBig, tBig, tBig), sig(tDbl, tDbl), sig(tDbl, tDbl, tBig)}, Nulls: nullsAny,
		Failure: failNone, Prepare: prepTruncate,
		Doc: "TRUNCATE(x[, d]): x cut (toward zero) to d decimal places (0 by default)", Example: "TRUNCATE(42.345, 2) = 42.34"},
	{Name: "PI", Group: "number", Sigs: []Sig{sig(tDbl)}, Nulls: "never NULL", Failure: failNone, Prepare: prepConstF(3.141592653589793),
		Doc: "π", Example: "PI() = 3.141592653589793"},
	{Name: "E", Group: "number", Sigs: []Sig{sig(tDbl)}, Nulls: "never NULL", Failure: failNone, Prepare: prepConstF(2.718281828459045),
		Doc: "e", Example: "E() = 2.718281828459045"},
	{Name: "RAND", Group: "number", Sigs: []Sig{sig(tDbl), sig(tDbl, tBig)}, Nulls: "NULL seed: as RAND()", TakesNulls: true,
		Failure: failNone, Volatile: true, Prepare: prepRand,
		Doc: "a random DOUBLE in [0, 1); RAND(seed) gives the same sequence for the same seed"},
	{Name: "RAND_INTEGER", Group: "number", Sigs: []Sig{sig(tBig, tBig), sig(tBig, tBig, tBig)}, Nulls: nullsAny,
		Failure: "NULL for a bound that is not positive", Volatile: true, Prepare: prepRandInteger,
		Doc: "RAND_INTEGER([seed, ]n): a random BIGINT in [0, n)"},
	{Name: "BIN", Group: "number", Sigs: []Sig{sig(tStr, tBig)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepBin, Doc: "the binary digits of x (two's complement for a negative x, as Java)", Example: "BIN(12) = '1100'"},
	{Name: "HEX", Group: "number", Sigs: []Sig{sig(tStr, tBig), sig(tStr, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepHex, Doc: "the hexadecimal digits (upper case) of a BIGINT, or of a string's UTF-8 bytes", Example: "HEX(100) = '64'"},
	{Name: "SIN", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: failNone, Prepare: prepF1(sin), Doc: "the sine (radians)"},
	{Name: "COS", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: failNone, Prepare: prepF1(cos), Doc: "the cosine (radians)"},
	{Name: "TAN", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: failNone, Prepare: prepF1(tan), Doc: "the tangent (radians)"},
	{Name: "DEGREES", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: failNone, Prepare: prepF1(degrees), Doc: "radians as degrees"},
	{Name: "RADIANS", Group: "number", Sigs: []Sig{sig(tDbl, tDbl)}, Nulls: nullsAny, Failure: failNone, Prepare: prepF1(radians), Doc: "degrees as radians"},

	// ---- time ----
	{Name: "DATE_FORMAT", Group: "time", Sigs: []Sig{sig(tStr, tTs, tStr), sig(tStr, tStr, tStr)}, Nulls: nullsAny,
		Failure: "NULL for text that is not a timestamp; an unknown pattern letter is a planning error (or NULL when the format is not constant)",
		Prepare: prepDateFormat,
		Doc:     "DATE_FORMAT(ts, fmt): ts formatted with Java SimpleDateFormat letters (yyyy MM dd HH mm ss SSS E a ...)",
		Example: "DATE_FORMAT(TIMESTAMP '2021-01-18 13:08:29', 'yyyy-MM-dd HH:mm') = '2021-01-18 13:08'"},
	{Name: "TO_TIMESTAMP", Group: "time", Sigs: []Sig{sig(tTs, tStr), sig(tTs, tStr, tStr)}, Nulls: nullsAny,
		Failure: failParse + " for text that does not match the format", Prepare: prepToTimestamp,
		Doc: "TO_TIMESTAMP(s[, fmt]): text read as a timestamp (format 'yyyy-MM-dd HH:mm:ss' by default)", Example: "TO_TIMESTAMP('2021-01-18 13:08:29') = 2021-01-18 13:08:29"},
	{Name: "TO_TIMESTAMP_LTZ", Group: "time", Sigs: []Sig{sig(tTs, tBig, tBig), sig(tTs, tDbl, tBig)}, Nulls: nullsAny,
		Failure: "NULL past the TIMESTAMP range; a precision other than 0 or 3 is a planning error", Prepare: prepToTimestampLTZ,
		Doc: "TO_TIMESTAMP_LTZ(n, p): epoch seconds (p = 0) or milliseconds (p = 3) as a TIMESTAMP (no time zone: UTC)", Example: "TO_TIMESTAMP_LTZ(1610975309, 0) = 2021-01-18 13:08:29"},
	{Name: "UNIX_TIMESTAMP", Group: "time", Sigs: []Sig{sig(tBig), sig(tBig, tStr), sig(tBig, tStr, tStr)}, Nulls: nullsAny,
		Failure: failParse, Volatile: true, Prepare: prepUnixTimestamp,
		Doc: "UNIX_TIMESTAMP(): now in epoch seconds (reads the clock); UNIX_TIMESTAMP(s[, fmt]): the text's epoch seconds (UTC)", Example: "UNIX_TIMESTAMP('2021-01-18 13:08:29') = 1610975309"},
	{Name: "FROM_UNIXTIME", Group: "time", Sigs: []Sig{sig(tStr, tBig), sig(tStr, tBig, tStr)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepFromUnixtime, Doc: "FROM_UNIXTIME(sec[, fmt]): epoch seconds formatted ('yyyy-MM-dd HH:mm:ss' by default, UTC)", Example: "FROM_UNIXTIME(1610975309) = '2021-01-18 13:08:29'"},
	{Name: "EXTRACT", Group: "time", Rule: true, Sigs: []Sig{sig(tBig, tStr, tTs)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepExtract, Doc: "EXTRACT(unit FROM ts): YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND or MICROSECOND of ts", Example: "EXTRACT(HOUR FROM TIMESTAMP '2021-01-18 13:08:29') = 13"},
	{Name: "YEAR", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("YEAR"), Doc: "the year", Example: "YEAR(TIMESTAMP '1994-09-27 13:14:15') = 1994"},
	{Name: "QUARTER", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("QUARTER"), Doc: "the quarter, 1 to 4", Example: "QUARTER(TIMESTAMP '1994-09-27 13:14:15') = 3"},
	{Name: "MONTH", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("MONTH"), Doc: "the month, 1 to 12", Example: "MONTH(TIMESTAMP '1994-09-27 13:14:15') = 9"},
	{Name: "WEEK", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("WEEK"), Doc: "the ISO 8601 week, 1 to 53", Example: "WEEK(TIMESTAMP '1994-09-27 13:14:15') = 39"},
	{Name: "DAYOFYEAR", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("DOY"), Doc: "the day of the year, 1 to 366", Example: "DAYOFYEAR(TIMESTAMP '1994-09-27 13:14:15') = 270"},
	{Name: "DAYOFMONTH", Aliases: []string{"DAY"}, Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("DAY"), Doc: "the day of the month, 1 to 31", Example: "DAYOFMONTH(TIMESTAMP '1994-09-27 13:14:15') = 27"},
	{Name: "DAYOFWEEK", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("DOW"), Doc: "the day of the week, 1 (Sunday) to 7", Example: "DAYOFWEEK(TIMESTAMP '1994-09-27 13:14:15') = 3"},
	{Name: "HOUR", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("HOUR"), Doc: "the hour, 0 to 23", Example: "HOUR(TIMESTAMP '1994-09-27 13:14:15') = 13"},
	{Name: "MINUTE", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("MINUTE"), Doc: "the minute, 0 to 59", Example: "MINUTE(TIMESTAMP '1994-09-27 13:14:15') = 14"},
	{Name: "SECOND", Group: "time", Sigs: []Sig{sig(tBig, tTs)}, Nulls: nullsAny, Failure: failNone, Prepare: prepField("SECOND"), Doc: "the second, 0 to 59", Example: "SECOND(TIMESTAMP '1994-09-27 13:14:15') = 15"},
	{Name: "TIMESTAMPADD", Group: "time", Rule: true, Sigs: []Sig{sig(tTs, tStr, tBig, tTs)}, Nulls: nullsAny,
		Failure: "NULL past the TIMESTAMP range", Prepare: prepTimestampAdd,
		Doc: "TIMESTAMPADD(unit, n, ts): ts plus n units (SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR)", Example: "TIMESTAMPADD(WEEK, 1, TIMESTAMP '2003-01-02 10:00:00') = 2003-01-09 10:00:00"},
	{Name: "TIMESTAMPDIFF", Group: "time", Rule: true, Sigs: []Sig{sig(tBig, tStr, tTs, tTs)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepTimestampDiff, Doc: "TIMESTAMPDIFF(unit, t1, t2): whole units from t1 to t2", Example: "TIMESTAMPDIFF(DAY, TIMESTAMP '2003-01-02 10:00:00', TIMESTAMP '2003-01-03 10:00:00') = 1"},
	{Name: "CURRENT_TIMESTAMP", Aliases: []string{"LOCALTIMESTAMP"}, Group: "time", Sigs: []Sig{sig(tTs)}, Nulls: "never NULL", Failure: failNone,
		Volatile: true, Prepare: prepNow, Doc: "the wall clock (UTC, no time zone) when the row is processed"},
	{Name: "NOW", Group: "time", Sigs: []Sig{sig(tTs)}, Nulls: "never NULL", Failure: failNone,
		Volatile: true, Prepare: prepNow, Doc: "as CURRENT_TIMESTAMP"},
	{Name: "PROCTIME", Group: "time", Sigs: []Sig{sig(tTs)}, Nulls: "never NULL", Failure: failNone,
		Volatile: true, Prepare: prepNow, Doc: "processing time: the wall clock when the row is processed"},
	{Name: "DATE", Group: "time", Rule: true, Sigs: []Sig{sig(tTs, tStr)}, Nulls: "never NULL", Failure: "a planning error for text that is not a date",
		Doc: "DATE 'yyyy-MM-dd' literal: a TIMESTAMP at midnight (SPEC 1 has no DATE type)", Example: "DATE '2021-01-18' = 2021-01-18 00:00:00"},
	{Name: "TIME", Group: "time", Rule: true, Sigs: []Sig{sig(tTs, tStr)}, Nulls: "never NULL", Failure: "a planning error for text that is not a time",
		Doc: "TIME 'HH:mm:ss' literal: a TIMESTAMP on 1970-01-01 (SPEC 1 has no TIME type)", Example: "TIME '13:08:29' = 1970-01-01 13:08:29"},
	{Name: "TIMESTAMP", Group: "time", Rule: true, Sigs: []Sig{sig(tTs, tStr)}, Nulls: "never NULL", Failure: "a planning error for text that is not a timestamp",
		Doc: "TIMESTAMP 'yyyy-MM-dd HH:mm:ss[.SSS]' literal", Example: "TIMESTAMP '2021-01-18 13:08:29'"},

	// ---- JSON over VARCHAR ----
	{Name: "JSON_VALUE", Group: "json", Rule: true, Sigs: []Sig{sig(tStr, tStr, tStr), sig(tAny, tStr, tStr, tStr)}, Nulls: nullsAny,
		Failure: "NULL for invalid JSON, a path that finds nothing or finds an object or array (Flink's NULL ON ERROR / ON EMPTY); an invalid constant path is a planning error",
		Prepare: prepJSONValue,
		Doc:     "JSON_VALUE(json, path [RETURNING BIGINT|DOUBLE|BOOLEAN|VARCHAR]): the scalar at a path ($.a.b, $.a[0], $['k']), as text or the type (a value that does not convert gives NULL)",
		Example: `JSON_VALUE('{"a": true}', '$.a') = 'true'`},
	{Name: "JSON_QUERY", Group: "json", Sigs: []Sig{sig(tStr, tStr, tStr)}, Nulls: nullsAny,
		Failure: "NULL for invalid JSON, a path that finds nothing or a scalar (Flink's WITHOUT WRAPPER, NULL ON EMPTY / ERROR)", Prepare: prepJSONQuery,
		Doc:     "JSON_QUERY(json, path): the object or array at a path, as JSON text",
		Example: `JSON_QUERY('{"a": {"b": 1}}', '$.a') = '{"b":1}'`},
	{Name: "JSON_EXISTS", Group: "json", Sigs: []Sig{sig(tBool, tStr, tStr)}, Nulls: nullsAny,
		Failure: "FALSE for invalid JSON (Flink's FALSE ON ERROR)", Prepare: prepJSONExists,
		Doc: "JSON_EXISTS(json, path): whether the path finds a value", Example: `JSON_EXISTS('{"a": true}', '$.a') = TRUE`},
	{Name: "IS_JSON", Group: "json", Sigs: []Sig{sig(tBool, tStr), sig(tBool, tStr, tStr)}, Nulls: "FALSE for NULL", TakesNulls: true, Failure: failNone,
		Prepare: prepIsJSON, Doc: "s IS JSON [VALUE|SCALAR|ARRAY|OBJECT] (also IS_JSON(s[, kind])): whether s is valid JSON of that kind", Example: `'[1, 2]' IS JSON ARRAY = TRUE`},
	{Name: "JSON_ARRAY", Group: "json", Sigs: []Sig{sig(tStr), vsig(tStr, tAny)}, Nulls: "NULL elements are left out (Flink's ABSENT ON NULL)",
		TakesNulls: true, Failure: failNone, Prepare: prepJSONArray,
		Doc: "JSON_ARRAY(v, ...): a JSON array of the values", Example: `JSON_ARRAY(1, 'two', TRUE) = '[1,"two",true]'`},
	{Name: "JSON_OBJECT", Group: "json", Sigs: []Sig{sig(tStr), vsig(tStr, tStr, tAny)}, Nulls: "a NULL value is written as null (Flink's NULL ON NULL); a NULL key gives NULL",
		TakesNulls: true, Failure: failNone, Prepare: prepJSONObject,
		Doc: "JSON_OBJECT(k1, v1, ...): a JSON object (TiDB's spelling; Flink's KEY k VALUE v is not parsed yet)", Example: `JSON_OBJECT('K1', 'V1') = '{"K1":"V1"}'`},
	// ---- ARRAY, MAP and ROW (SPEC 2.10; the planner's rules type them, rule_func_nested.go) ----
	{Name: "ITEM", Group: "collection", Rule: true, Syntax: true, Sigs: []Sig{sig(tAny, tAny, tAny)}, Nulls: nullsAny,
		Failure: "NULL for an index out of range or a key that is absent", Prepare: prepItem,
		Doc:     "arr[i] (from 1), map[key], row.field (also arr[i].field): the element, value or field (Calcite's name for the operator)",
		Example: "ARRAY[10, 20][2] = 20"},
	{Name: "CARDINALITY", Group: "collection", Rule: true, Sigs: []Sig{sig(tBig, tAny)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepCardinality, Doc: "the number of elements of an ARRAY or entries of a MAP", Example: "CARDINALITY(ARRAY[1, 2, 3]) = 3"},
	{Name: "ELEMENT", Group: "collection", Rule: true, Sigs: []Sig{sig(tAny, tAny)}, Nulls: nullsAny,
		Failure: "NULL for an ARRAY of more than one element (Flink fails the job)", Prepare: prepElement,
		Doc: "the one element of an ARRAY (NULL when it is empty)", Example: "ELEMENT(ARRAY['x']) = 'x'"},
	{Name: "ARRAY_VALUE_CONSTRUCTOR", Group: "collection", Rule: true, Syntax: true, TakesNulls: true, Sigs: []Sig{vsig(tAny, tAny)},
		Nulls: "NULL arguments are NULL elements", Failure: failNone, Prepare: prepArrayCtor,
		Doc: "ARRAY[a, b, ...]: an ARRAY of the values (their common type)", Example: "ARRAY[1, 2] = [1, 2]"},
	{Name: "MAP_VALUE_CONSTRUCTOR", Group: "collection", Rule: true, Syntax: true, TakesNulls: true, Sigs: []Sig{vsig(tAny, tAny, tAny)},
		Nulls: "NULL arguments are NULL keys or values", Failure: failNone, Prepare: prepMapCtor,
		Doc: "MAP[k1, v1, k2, v2, ...]: a MAP (a key given twice keeps its last value)", Example: "MAP['a', 1, 'b', 2] = {a=1, b=2}"},
	{Name: "ROW_VALUE_CONSTRUCTOR", Group: "collection", Rule: true, Syntax: true, TakesNulls: true, Sigs: []Sig{vsig(tAny, tAny)},
		Nulls: "NULL arguments are NULL fields", Failure: failNone, Prepare: prepRowCtor,
		Doc: "ROW(a, b, ...): a ROW of the values, fields named EXPR$0, EXPR$1, ... as Flink names them", Example: "ROW(1, 'x') = (1, x)"},
	{Name: "STR_TO_MAP", Group: "collection", Sigs: []Sig{sig(catalog.MapOf(tStr, tStr), tStr), sig(catalog.MapOf(tStr, tStr), tStr, tStr, tStr)},
		Nulls: nullsAny, Failure: "NULL for a delimiter (not constant) that is not a valid pattern; a constant one RE2 cannot run is a planning error",
		Prepare: prepStrToMap,
		Doc:     "STR_TO_MAP(s[, listDelim, kvDelim]): s split into pairs at listDelim (default ','), each into key and value at kvDelim (default '='); both are regular expressions (RE2)",
		Example: "STR_TO_MAP('k1=v1,k2=v2')['k1'] = 'v1'"},

	{Name: "JSON_STRING", Group: "json", Sigs: []Sig{sig(tStr, tAny)}, Nulls: nullsAny, Failure: failNone,
		Prepare: prepJSONString, Doc: "the value as JSON text", Example: `JSON_STRING('Hello, World!') = '"Hello, World!"'`},
}
