package expr

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/planner/plan"
)

// The function table's declarations (names, signatures, NULL rules, docs)
// live in catalog/functions, below the planner; this package keeps the
// kernels and binds them to the declarations by name (kernels), and a user
// function's through its Impl (UserFunc).

// Function is a declaration of the function table (catalog/functions).
type Function = functions.Function

// Sig is a signature of a declaration (catalog/functions).
type Sig = functions.Sig

// ArgError is a constant argument a kernel cannot work with
// (catalog/functions.ArgError): the planner reports it with a caret.
type ArgError = functions.ArgError

// Arg is an argument of a call as its kernel is prepared: its type and, when
// constant, its value (planner/plan.Arg).
type Arg = plan.Arg

// PrepareFunc returns the row function of a call with args giving result
// (the Sig's result type), compiling its constant arguments once; an
// *ArgError names a constant argument that cannot work.
type PrepareFunc func(args []Arg, result catalog.Type) (RowFunc, error)

// UserFunc is a user function's implementation (SPEC 2.10), held by its
// declaration's Impl (GoFunction, WasmFunction).
type UserFunc struct {
	// Prepare returns the row function of a call (PrepareFunc), whose
	// failed calls go to fails (the job's record; nil drops them).
	Prepare func(args []Arg, result catalog.Type, fails *Context) (RowFunc, error)
	// PrepareBatch, when set, is used instead of Prepare: it returns a
	// function computing the selected rows of a batch at once (a WASM
	// function's batch export, wasmbatch.go).
	PrepareBatch func(args []Arg, result catalog.Type, fails *Context) (BatchFunc, error)
}

// failingKernels binds the built-in functions that can fail the job (Flink's
// behaviour, Failure.FailsJob) to their kernels, which note it in the job's
// record.
var failingKernels = map[string]func(args []Arg, result catalog.Type, fails *Context) (RowFunc, error){
	"ELEMENT": prepElement}

// nullsAny is the NULL rule of most functions, in words.
const nullsAny = "NULL if any argument is NULL"

// kernels binds the built-in declarations (catalog/functions.Functions) to
// their kernels (func_*.go), by name. A Rule function the planner rewrites
// into an operator of its own (CASE, CAST, UPPER, ...) has none.
var kernels = map[string]PrepareFunc{
	"NULLIF":                  prepNullIf,
	"GREATEST":                prepGreatest,
	"LEAST":                   prepLeast,
	"CONCAT_WS":               prepConcatWS,
	"REGEXP_EXTRACT":          prepRegexpExtract,
	"REGEXP_REPLACE":          prepRegexpReplace,
	"REGEXP":                  prepRegexp,
	"SIMILAR TO":              prepSimilarTo,
	"SPLIT_INDEX":             prepSplitIndex,
	"REPLACE":                 prepReplace,
	"POSITION":                prepPosition,
	"LOCATE":                  prepLocate,
	"INSTR":                   prepInstr,
	"LEFT":                    prepLeft,
	"RIGHT":                   prepRight,
	"LPAD":                    prepLPad,
	"RPAD":                    prepRPad,
	"REPEAT":                  prepRepeat,
	"REVERSE":                 prepReverse,
	"INITCAP":                 prepInitCap,
	"ASCII":                   prepASCII,
	"CHR":                     prepChr,
	"MD5":                     prepHash("md5"),
	"SHA1":                    prepHash("sha1"),
	"SHA224":                  prepHash("sha224"),
	"SHA256":                  prepHash("sha256"),
	"SHA384":                  prepHash("sha384"),
	"SHA512":                  prepHash("sha512"),
	"SHA2":                    prepSHA2,
	"TO_BASE64":               prepToBase64,
	"FROM_BASE64":             prepFromBase64,
	"PARSE_URL":               prepParseURL,
	"FLOOR":                   prepFloorTo,
	"CEIL":                    prepCeilTo,
	"POWER":                   prepF2(powJava),
	"SQRT":                    prepF1(sqrt),
	"EXP":                     prepF1(exp),
	"LN":                      prepF1(ln),
	"LOG":                     prepLog,
	"LOG10":                   prepF1(log10),
	"LOG2":                    prepF1(log2),
	"SIGN":                    prepSign,
	"TRUNCATE":                prepTruncate,
	"PI":                      prepConstF(3.141592653589793),
	"E":                       prepConstF(2.718281828459045),
	"RAND":                    prepRand,
	"RAND_INTEGER":            prepRandInteger,
	"BIN":                     prepBin,
	"HEX":                     prepHex,
	"SIN":                     prepF1(sin),
	"COS":                     prepF1(cos),
	"TAN":                     prepF1(tan),
	"DEGREES":                 prepF1(degrees),
	"RADIANS":                 prepF1(radians),
	"ASIN":                    prepF1(asin),
	"ACOS":                    prepF1(acos),
	"ATAN":                    prepF1(atan),
	"ATAN2":                   prepF2(atan2),
	"COT":                     prepF1(cot),
	"SINH":                    prepF1(sinh),
	"COSH":                    prepF1(cosh),
	"TANH":                    prepF1(tanh),
	"UUID":                    prepUUID,
	"CURRENT_DATE":            prepCurrentDate,
	"CURRENT_TIME":            prepCurrentTime,
	"TO_DATE":                 prepToDate,
	"CONVERT_TZ":              prepConvertTZ,
	"TRANSLATE":               prepTranslate,
	"STARTSWITH":              prepAffix(bytes.HasPrefix),
	"ENDSWITH":                prepAffix(bytes.HasSuffix),
	"ELT":                     prepElt,
	"REGEXP_COUNT":            prepRegexpCount,
	"REGEXP_EXTRACT_ALL":      prepRegexpExtractAll,
	"REGEXP_INSTR":            prepRegexpInstr,
	"REGEXP_SUBSTR":           prepRegexpSubstr,
	"URL_ENCODE":              prepURLEncode,
	"URL_DECODE":              prepURLDecode,
	"SPLIT":                   prepSplit,
	"OVERLAY":                 prepOverlay,
	"IS_ALPHA":                prepIsAlpha,
	"IS_DIGIT":                prepIsDigit,
	"IS_DECIMAL":              prepIsDecimal,
	"ARRAY_CONTAINS":          prepArrayContains,
	"ARRAY_POSITION":          prepArrayPosition,
	"ARRAY_DISTINCT":          prepArrayDistinct,
	"ARRAY_REMOVE":            prepArrayRemove,
	"ARRAY_REVERSE":           prepArrayReverse,
	"ARRAY_SLICE":             prepArraySlice,
	"ARRAY_APPEND":            prepArrayAppend,
	"ARRAY_PREPEND":           prepArrayPrepend,
	"ARRAY_CONCAT":            prepArrayConcat,
	"ARRAY_UNION":             prepArraySet(setUnion),
	"ARRAY_INTERSECT":         prepArraySet(setIntersect),
	"ARRAY_EXCEPT":            prepArraySet(setExcept),
	"ARRAY_MAX":               prepArrayExtreme(1),
	"ARRAY_MIN":               prepArrayExtreme(-1),
	"ARRAY_SORT":              prepArraySort,
	"ARRAY_JOIN":              prepArrayJoin,
	"MAP_KEYS":                prepMapPart(0),
	"MAP_VALUES":              prepMapPart(1),
	"MAP_ENTRIES":             prepMapEntries,
	"MAP_FROM_ARRAYS":         prepMapFromArrays,
	"MAP_UNION":               prepMapUnion,
	"DATE_FORMAT":             prepDateFormat,
	"TO_TIMESTAMP":            prepToTimestamp,
	"TO_TIMESTAMP_LTZ":        prepToTimestampLTZ,
	"UNIX_TIMESTAMP":          prepUnixTimestamp,
	"FROM_UNIXTIME":           prepFromUnixtime,
	"EXTRACT":                 prepExtract,
	"YEAR":                    prepField("YEAR"),
	"QUARTER":                 prepField("QUARTER"),
	"MONTH":                   prepField("MONTH"),
	"WEEK":                    prepField("WEEK"),
	"DAYOFYEAR":               prepField("DOY"),
	"DAYOFMONTH":              prepField("DAY"),
	"DAYOFWEEK":               prepField("DOW"),
	"HOUR":                    prepField("HOUR"),
	"MINUTE":                  prepField("MINUTE"),
	"SECOND":                  prepField("SECOND"),
	"TIMESTAMPADD":            prepTimestampAdd,
	"TIMESTAMPDIFF":           prepTimestampDiff,
	"CURRENT_TIMESTAMP":       prepNow,
	"NOW":                     prepNow,
	"PROCTIME":                prepNow,
	"JSON_VALUE":              prepJSONValue,
	"JSON_QUERY":              prepJSONQuery,
	"JSON_EXISTS":             prepJSONExists,
	"IS_JSON":                 prepIsJSON,
	"JSON_ARRAY":              prepJSONArray,
	"JSON_OBJECT":             prepJSONObject,
	"ITEM":                    prepItem,
	"CARDINALITY":             prepCardinality,
	"ARRAY_VALUE_CONSTRUCTOR": prepArrayCtor,
	"MAP_VALUE_CONSTRUCTOR":   prepMapCtor,
	"ROW_VALUE_CONSTRUCTOR":   prepRowCtor,
	"STR_TO_MAP":              prepStrToMap,
	"JSON_STRING":             prepJSONString}

// prepareOf returns the kernel preparers of f: a user function's Impl, else
// the built-in kernel of its name; nil when f has none.
func prepareOf(f *Function) (*UserFunc, error) {
	if u, ok := f.Impl.(*UserFunc); ok {
		return u, nil
	}
	if p := kernels[f.Name]; p != nil {
		return &UserFunc{Prepare: func(args []Arg, result catalog.Type, _ *Context) (RowFunc, error) { return p(args, result) }}, nil
	}
	if p := failingKernels[f.Name]; p != nil {
		return &UserFunc{Prepare: p}, nil
	}
	return nil, fmt.Errorf("%s is bound by a planner rule, not by the table", f.Name)
}

func init() {
	names := slices.Collect(maps.Keys(kernels))
	for name := range failingKernels {
		if _, dup := kernels[name]; dup {
			panic("expr: two kernels of " + name)
		}
		names = append(names, name)
	}
	for _, name := range names {
		if f := functions.Lookup(name); f == nil || f.Name != name {
			panic("expr: kernel of " + name + ", which the function table does not declare")
		}
	}
	plan.SetEvaluator(Constants{})
}

// Constants is the evaluator of constant expressions the planner uses
// (planner/plan.Evaluator): the kernels, run once. The package installs it
// when it is linked.
type Constants struct{}

// Fold evaluates a constant expression (e.Const) once and returns its value.
func (Constants) Fold(e *plan.Expr) plan.Value { return Fold(e) }

// CheckCall prepares a call of the function fn (a table key) over args giving
// result, and returns the preparer's error: a *ArgError for a constant
// argument that cannot work.
func (Constants) CheckCall(fn string, args []Arg, result catalog.Type) error {
	f := functions.Lookup(fn)
	if f == nil {
		return fmt.Errorf("unknown function %s", fn)
	}
	_, err := PrepareCall(f, args, result)
	return err
}
