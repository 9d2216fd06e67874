package planner

import (
	"slices"
	"strings"
)

// strictFuncs is the table of strict functions for the outer-join
// simplification (rule_simplify_outer_join.go): a call of one is NULL
// whenever any of its arguments is NULL, so a WHERE or ON term over it
// rejects the rows a join pads when an argument does (Calcite's Strong
// analysis, which Flink's FlinkFilterJoinRule asks of its built-ins). The
// names are the ones a call reaches the planner by (ast.FuncCallExpr.FnName,
// lower case; aliases each listed), all of them built-ins whose catalog
// entry (catalog/functions) says "NULL if any argument is NULL" and takes
// no NULLs, as Flink's do: arithmetic-like number functions, the text
// functions (CONCAT is NULL when any argument is, as Flink's; CONCAT_WS is
// not), the time functions and JSON_VALUE/JSON_QUERY. Not here, so taken
// as ones that may give a value for NULL: COALESCE, IFNULL, NVL, CASE, IF,
// NULLIF, CONCAT_WS, IS_ALPHA and the other IS_ functions, the collection
// functions and constructors, CURRENT_WATERMARK, the volatile functions,
// and every user function. TestStrictFunctionsGiveNullForNull (root
// package) evaluates each entry through the engine with a NULL in each
// argument in turn and asserts NULL, so the table cannot disagree with the
// kernels.
var strictFuncs = map[string]bool{}

func init() {
	for _, names := range []string{
		// text
		"concat upper ucase lower lcase trim btrim ltrim rtrim substring substr char_length character_length",
		"regexp_extract regexp_replace split_index replace locate instr left right lpad rpad repeat reverse",
		"initcap ascii chr md5 sha1 to_base64 from_base64 startswith endswith translate regexp_count",
		"regexp_instr regexp_substr url_encode url_decode parse_url",
		// numbers
		"abs round floor ceil ceiling mod power sqrt exp ln log log10 log2 sign truncate bin hex",
		"asin acos atan atan2 cot sinh cosh tanh greatest least",
		// time
		"date_format to_timestamp from_unixtime to_date extract year quarter month week dayofyear",
		"dayofmonth dayofweek hour minute second timestampadd timestampdiff",
		// JSON
		"json_value json_query",
	} {
		for _, n := range strings.Fields(names) {
			strictFuncs[n] = true
		}
	}
}

// StrictFunctions returns the names of strictFuncs, lower case and sorted:
// the functions the outer-join simplification takes as NULL whenever an
// argument is NULL (for the test that checks each against the engine).
func StrictFunctions() []string {
	out := make([]string, 0, len(strictFuncs))
	for n := range strictFuncs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
