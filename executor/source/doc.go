// Package source owns what a job's sources do between a connector and the
// job's chain (issue 22 item 6): the decoding of a stream's bytes by its
// 'format' (decode.go: NewDecoder over a reader, with 'encoding' transcoded
// and stdin's hand-back, catalog.CapHandBack; NewValueDecoder and
// NewChangeDecoder for a record given on its own, a Kafka value, as the
// format table declares it a row or a changelog), which the executor gives
// the connectors through connector.Env; the source of a stream with computed
// or METADATA columns (computed.go: NewComputed, over the connector's source
// of the stream's physical columns, its record metadata bound from the
// stream's declared capabilities; Handles finds the connector's source
// inside a source hook's wrappers and binds them); and the rows a source's wrapper takes out
// of a batch, replaced by malformed rows in their places (rows.go: DropRows,
// which the executor's 'watermark.max-future' wrapper shares).
//
// It imports catalog, planner/plan (a computed column's expression), the
// connector contract, the format registry (executor/codec), the decoders'
// leaves (inbuf, records, textenc), the kernels (executor/expr) and
// executor/format; it must never import the executor that opens the
// sources, an operator package, a strategy or the planner
// (layering_test.go).
package source
