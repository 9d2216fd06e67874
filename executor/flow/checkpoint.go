package flow

// LateRows counts the late rows of one windowed query of a job (SPEC 2.4: stderr
// gets a line per query with late rows).
type LateRows struct {
	Query  string // the query's text
	Output string // the late output's name
	Rows   int64
	// Script, Line and Column are the query's statement position
	// (plan.Branch's; Line 0 when unknown)
	Script       string
	Line, Column int
}

// Frontier is what a replay needs of the rows of one Kafka partition p that
// one stateful operator holds (the connector package doc, "Scale-out over
// Kafka partitions, and replay"; SPEC 2.5), offsets being Kafka's
// (connector.KafkaPartitionOf).
type Frontier struct {
	// Off is p's hold frontier in the operator: the smallest offset of a row
	// of p still in its state (good or malformed).
	Off int64
	// Timed says that WM and WMSet are p's watermark before the row at Off
	// (WMSet false: p had none yet); false when the operator keeps no time
	// for its rows (p's watermark now stands for it).
	Timed bool
	WM    int64 // epoch ms, valid when WMSet
	WMSet bool
	// Emitted says that no row of p from Off on has had its outputs handed
	// to the sinks (an operator that holds rows back and releases them in
	// order, as the event-time semi join): Off is then also p's emitted
	// frontier e_p. False for an operator whose held rows' direct outputs
	// were written when they came (an aggregate's groups).
	Emitted bool
}

// Checkpoint is a stateful operator's side of a Kafka group job's replay
// (DESIGN, "Operator context at build time"): the operators that hold rows
// of a partition in state give their frontiers per partition, and drop a
// partition's state when it is revoked or assigned again (its rows are then
// read again, by its next owner or by this process from its committed
// offset). The replay (the executor's replay.go) asks each of the job's Checkpoints and
// commits the smallest frontier. Methods run on the job's goroutine, between
// pushes.
type Checkpoint interface {
	// Frontiers sets dst[p], for each partition p of which the operator
	// holds rows, to its Frontier there; it leaves the other keys alone.
	// It may walk the whole state: a checkpoint's cost, not the hot path's.
	Frontiers(dst map[int32]Frontier)
	// Drop removes the operator's state of partition p, returning its bytes
	// to the state budget; none of it is emitted.
	Drop(p int32)
}

// HandBack is the side of an operator that holds a source's rows back (the
// event-time join's held rows) that a source which hands back what a job
// did not use reads when it closes (stdin, SPEC 1: the session's next job
// reading it starts after the last row used; the connector's HandsBack
// handle, given it by the executor). It is read from the rows the
// operator still holds: after a LIMIT's cut they are the rows after the
// LIMIT's last row, after a stop the rows not yet routed.
type HandBack interface {
	// Used returns how much of the source's last batch the job used: its
	// first rows good rows and its first bad malformed rows (the
	// connector's Unreader.UnreadAfter), and ok false when it used all of
	// it.
	Used() (rows, bad int, ok bool)
}
