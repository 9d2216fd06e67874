// Package catalog owns stream definitions: their names, typed columns, event-time
// column and watermark expression, connector and options, and the connector
// registry (SPEC 1). It also owns the SQL types of SPEC 1.
//
// The connector registry: each connector's file under executor/connector
// registers one ConnectorSpec (RegisterConnector, from its init, the way
// database/sql drivers register): its name, its options (OptionSpec, checked by
// ValidateOptions), its Bounded rule, its own checks (Validate, returning an
// *OptionError the CLI positions at the option's value), the capabilities the
// engine asks instead of its name (KnownSize, TakesInsert, ReadsStdin,
// Upserts, Writes..., and the declared capability set Caps, caps.go:
// partitioned, record metadata, hand back, sink kinds, dead letters, abort;
// a stream's own with Stream.Caps), the parser of its options into the
// stream's typed Config (Configure, config.go: SharedConfig, FileConfig,
// KafkaConfig, which the engine reads instead of option strings), and in
// Source the executor's side (connector.Driver: the source opener, later the
// sink opener), which catalog holds without looking inside, so catalog imports
// no executor package. Nothing outside executor/connector names a connector
// or reads an option's string (executor/connector's registry tests).
//
// The table of formats (formats.go) declares every format once: the record
// formats a stream's 'format' takes and the output formats the command line
// prints, with their capabilities (changelog, writes, tabular, extensions).
package catalog

import (
	"fmt"
	"strings"
)

// Type is one of the SQL types of SPEC 1, or a nested type of SPEC 2.10
// (ARRAY<T>, MAP<K, V>, ROW<name T, ...>). The zero value is Unknown, the type
// of the NULL literal before coercion. A nested type is interned: one value per
// distinct type in the process (ArrayOf, MapOf, RowOf), so Types compare with
// == and stay usable as map keys.
type Type uint16

// The SQL types of SPEC 1.
const (
	Unknown   Type = iota // type of a bare NULL literal
	BigInt                // int64
	Double                // float64, IEEE 754
	Varchar               // UTF-8 text, compared byte for byte
	Boolean               // true/false
	Timestamp             // milliseconds since the epoch, UTC, no time zone

	firstNested Type = 16 // the interned nested types start here (nested.go)
)

// String returns the SQL name of t as SHOW and DESCRIBE print it (BIGINT, DOUBLE,
// VARCHAR, BOOLEAN, TIMESTAMP(3); NULL for Unknown).
func (t Type) String() string {
	switch t {
	case BigInt:
		return "BIGINT"
	case Double:
		return "DOUBLE"
	case Varchar:
		return "VARCHAR"
	case Boolean:
		return "BOOLEAN"
	case Timestamp:
		return "TIMESTAMP(3)"
	}
	if t >= firstNested {
		return nestedName(t)
	}
	return "NULL"
}

// IsNumeric reports whether t is BIGINT or DOUBLE.
func (t Type) IsNumeric() bool { return t == BigInt || t == Double }

// IsFlat reports whether t is one of SPEC 1's scalar types (BIGINT,
// TIMESTAMP, DOUBLE, BOOLEAN, VARCHAR): a column of values that can be
// copied value by value into a batch of its own, which the command line's
// changelog encoder does (cmd/streamql/render/changeenc.go, chosen by the
// planner's rule_encode_ahead.go); false for the nested types of SPEC 2.10
// and NULL's.
func (t Type) IsFlat() bool {
	switch t {
	case BigInt, Timestamp, Double, Boolean, Varchar:
		return true
	}
	return false
}

// ParseType reads a type name as written in CREATE STREAM or CAST (SPEC 1):
// BIGINT (INT, INTEGER, SMALLINT, TINYINT, SIGNED), DOUBLE (FLOAT, REAL,
// DECIMAL(p,s), NUMERIC), VARCHAR[(n)] (STRING, TEXT, CHAR[(n)]), BOOLEAN (BOOL),
// TIMESTAMP[(3)] (DATETIME), and the nested types of SPEC 2.10: ARRAY<T>,
// MAP<K, V>, ROW<name T, ...> (also ROW(name T, ...), as Flink accepts).
// Case and spaces do not matter (a ROW field's name keeps its case). It returns an error
// that lists the valid names for anything else.
func ParseType(name string) (Type, error) {
	if isNestedName(name) {
		return parseNested(name)
	}
	s := strings.ToUpper(strings.Join(strings.Fields(name), ""))
	if strings.HasPrefix(s, "TIMESTAMP_LTZ") || strings.Contains(s, "WITHLOCALTIMEZONE") {
		// Flink's instant type: SPEC 1's TIMESTAMP has no time zone
		return Unknown, fmt.Errorf("unknown type %q: streamql's TIMESTAMP(3) has no time zone (an input offset is converted to UTC); declare TIMESTAMP(3), and TO_TIMESTAMP_LTZ(ms, 3) reads epoch milliseconds", name)
	}
	base, args := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Unknown, fmt.Errorf("unknown type %q: a type argument needs a closing ')'", name)
		}
		base, args = s[:i], s[i+1:len(s)-1]
	}
	bad := func() (Type, error) {
		return Unknown, fmt.Errorf("unknown type %q: use BIGINT, DOUBLE, VARCHAR, BOOLEAN, TIMESTAMP, ARRAY<T>, MAP<K, V> or ROW<name T, …>", name)
	}
	switch base {
	case "BIGINT", "INT", "INTEGER", "SMALLINT", "TINYINT", "SIGNED":
		if args != "" {
			return bad()
		}
		return BigInt, nil
	case "DOUBLE", "FLOAT", "REAL", "DECIMAL", "NUMERIC":
		return Double, nil
	case "VARCHAR", "STRING", "TEXT", "CHAR":
		return Varchar, nil
	case "BOOLEAN", "BOOL":
		if args != "" {
			return bad()
		}
		return Boolean, nil
	case "TIMESTAMP", "DATETIME":
		if args != "" && args != "3" {
			return Unknown, fmt.Errorf("unsupported type %q: TIMESTAMP has millisecond precision, write TIMESTAMP or TIMESTAMP(3)", name)
		}
		return Timestamp, nil
	}
	return bad()
}
