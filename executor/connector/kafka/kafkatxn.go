package kafka

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaTxn is the one transactional producer a job's exactly-once Kafka
// sinks on the same brokers share (SPEC 2.5): every output of the job and
// the group sources' offsets commit in one Kafka transaction, so a crash
// between two sinks' commits cannot leave one output committed and another
// aborted. The first exactly-once sink opened creates it (its
// 'sink.transactional-id-prefix' and 'properties.*' producer options apply to
// all); the last one closed closes it. Its fields
// are used on the job's goroutine only.
type kafkaTxn struct {
	cl       *kgo.Client
	id       string // the transactional id
	servers  string // 'properties.bootstrap.servers'
	users    int    // open sinks sharing it
	inTxn    bool
	txnStart time.Time
	// aborted: the engine aborted the last transaction (abort) and none
	// began since, so a sink's Close commits nothing (after the runner's
	// Abort of a failed job); begin clears it, so that a job going on
	// after an abandoned checkpoint commits its next transaction at Close.
	aborted bool
	// abortErr is the error of the last abort whose EndTransaction failed,
	// until the next begin, commit or a sink's Close reports it
	// (abortFailed).
	abortErr error
	sinks    []*kafkaSink
	// abandoning counts the engine's own aborts (abort) whose buffered
	// records franz-go is failing with kgo.ErrAborting: read by the sinks'
	// promises on franz-go's goroutine (kafkaSink.abandoned).
	abandoning atomic.Int32
}

// kafkaTxnID returns the transactional id of a job's exactly-once producer:
// 'sink.transactional-id-prefix'-<stream>-<suffix>, the suffix being, with a
// Kafka source in a consumer group and its 'properties.group.instance.id',
// that static instance id, and otherwise a random one, unique to the job.
// Processes of one script (or library jobs of one process) thus never fence
// each other, with a consumer group or without one (Kafka fences zombies by
// the group generation in TxnOffsetCommit, KIP-447; without a group no
// restart resumes a predecessor's work, so there is none to fence); with a
// static instance id a restarted process aborts its crashed predecessor's
// open transaction at once, with a random one that transaction holds
// read_committed readers back until the broker aborts it after
// 'properties.transaction.timeout.ms'.
func (j *kafkaJob) kafkaTxnID(prefix, stream string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	id := prefix + "-" + stream
	if len(j.sources) > 0 {
		if inst := j.sources[0].st.Options["properties.group.instance.id"]; inst != "" {
			return id + "-" + inst
		}
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return id + "-" + hex.EncodeToString(b[:])
}

// sharedTxn returns the job's transactional producer on servers, counting s
// as one more user, or nil when there is none yet.
func (j *kafkaJob) sharedTxn(servers string, s *kafkaSink) *kafkaTxn {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, tx := range j.txns {
		if tx.servers == strings.TrimSpace(servers) {
			tx.users++
			tx.sinks = append(tx.sinks, s)
			return tx
		}
	}
	return nil
}

// addTxn registers the new transactional producer tx (its first user s).
func (j *kafkaJob) addTxn(tx *kafkaTxn, s *kafkaSink) {
	j.mu.Lock()
	defer j.mu.Unlock()
	tx.servers = strings.TrimSpace(tx.servers)
	tx.users = 1
	tx.sinks = []*kafkaSink{s}
	j.txns = append(j.txns, tx)
}

// transactional reports whether the job has exactly-once sinks (their
// checkpoints end transactions, which a commit failure aborts).
func (j *kafkaJob) transactional() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.txns) > 0
}

// releaseTxn drops s as a user of tx and closes tx's client after its last.
func (j *kafkaJob) releaseTxn(tx *kafkaTxn, s *kafkaSink) {
	j.mu.Lock()
	tx.users--
	for k, x := range tx.sinks {
		if x == s {
			tx.sinks = append(tx.sinks[:k], tx.sinks[k+1:]...)
			break
		}
	}
	last := tx.users == 0
	if last {
		for k, x := range j.txns {
			if x == tx {
				j.txns = append(j.txns[:k], j.txns[k+1:]...)
				break
			}
		}
	}
	j.mu.Unlock()
	if last {
		tx.cl.Close()
	}
}

// begin starts a transaction when none is open. An earlier abort that failed
// is returned instead (abortFailed): no row goes into a producer whose last
// transaction's end is unknown.
func (tx *kafkaTxn) begin() error {
	if tx.inTxn {
		return nil
	}
	if err := tx.abortFailed(); err != nil {
		return err
	}
	if err := tx.cl.BeginTransaction(); err != nil {
		return err
	}
	tx.inTxn, tx.txnStart, tx.aborted = true, time.Now(), false
	return nil
}

// commit flushes tx's records and commits its open transaction with the
// group offsets in with (none open: nothing to do). A delivery error of a
// sink sharing it, or a failed offset commit, aborts the transaction and is
// returned.
func (tx *kafkaTxn) commit(ctx context.Context, with []groupOffsets) error {
	first := tx.sinks[0]
	if err := tx.abortFailed(); err != nil {
		return first.fail(err)
	}
	if err := tx.cl.Flush(ctx); err != nil {
		return first.fail(err)
	}
	for _, s := range tx.sinks {
		if err := s.failed(); err != nil {
			if tx.inTxn {
				tx.inTxn = false
				tx.endAbort(ctx)
			}
			return err
		}
	}
	if !tx.inTxn {
		return nil
	}
	tx.inTxn = false
	for _, g := range with {
		if err := first.txnOffsets(ctx, g); err != nil {
			tx.endAbort(ctx)
			if rebalanced(err) {
				return fmt.Errorf("%w: %v", errRebalanced, first.fail(err))
			}
			return first.fail(err)
		}
	}
	if err := tx.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return first.fail(err)
	}
	return nil
}

// abort aborts tx's open transaction: read_committed readers never see its
// records. Records still buffered are dropped (franz-go's
// AbortBufferedRecords, which fails them with kgo.ErrAborting and returns once
// every one was promised); those promises are not a delivery failure of the
// sinks (kafkaSink.abandoned), as the engine gave the records up itself (a torn
// checkpoint replays them, a failed or stopped job ends). When ctx ends before
// every buffered record was promised, abandoning stays counted, so the late
// promises of this abort are not taken for failures either. The abort holds
// until the next transaction begins (aborted). A failed EndTransaction is
// kept for the next begin, commit or Close to report (abortFailed).
func (tx *kafkaTxn) abort(ctx context.Context) {
	if !tx.inTxn {
		return
	}
	tx.inTxn, tx.aborted = false, true
	tx.abandoning.Add(1)
	if tx.cl.AbortBufferedRecords(ctx) == nil {
		tx.abandoning.Add(-1)
	}
	tx.endAbort(ctx)
}

// endAbort ends tx's transaction with an abort (Kafka's EndTxn), keeping its
// error for abortFailed.
func (tx *kafkaTxn) endAbort(ctx context.Context) {
	if err := tx.cl.EndTransaction(ctx, kgo.TryAbort); err != nil && tx.abortErr == nil {
		tx.abortErr = err
	}
}

// abortFailed returns, once, the error of an abort of tx that failed (nil if
// none did), saying what it means and what to do. Such a transaction is never
// seen by read_committed readers, but it may stay open on the broker, holding
// them back, until 'properties.transaction.timeout.ms' aborts it; its rows'
// offsets were not committed. The job stops rather than write on into a
// producer whose last transaction's end is unknown.
func (tx *kafkaTxn) abortFailed() error {
	err := tx.abortErr
	if err == nil {
		return nil
	}
	tx.abortErr = nil
	return fmt.Errorf("aborting transaction '%s' failed: %v; its records are never seen by read_committed readers, which may wait until the broker aborts it after 'properties.transaction.timeout.ms'; the job stops without committing its offsets: restart it, and it reads those rows again from the last commit", tx.id, err)
}

// errRebalanced marks a transaction aborted because the group moved on while
// it was open (its offset commit was refused: the generation changed, the
// member was removed, or a rebalance began): its records are never seen by
// read_committed readers, and its rows must be read again.
var errRebalanced = errors.New("the consumer group rebalanced during the transaction")

// rebalanced reports whether err, an offset commit's, says the group moved on
// without this member's commit: Kafka's ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID
// and REBALANCE_IN_PROGRESS. A process is not broken by it (Kafka's
// consume-transform-produce loop aborts and goes on from the committed
// offsets, as GroupTransactSession does).
func rebalanced(err error) bool {
	return errors.Is(err, kerr.IllegalGeneration) || errors.Is(err, kerr.UnknownMemberID) || errors.Is(err, kerr.RebalanceInProgress)
}
