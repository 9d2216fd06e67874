package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/tests/kafkatest"
)

// TestKafkaAbandonedRecordsAreNoFailure: the promise of a record that the
// engine's own abort of a transaction dropped (kgo.ErrAborting while
// kafkaTxn.abort runs AbortBufferedRecords: a torn checkpoint that replays, a
// failed job) is not a delivery failure of the sink; every other delivery
// error is, during such an abort as well, and so is kgo.ErrAborting outside
// one or on an at-least-once sink (which the engine never aborts). Before,
// the abandoned records' ErrAborting failed the job ("client is aborting
// buffered records") after a torn checkpoint (TestKafkaDedupCrashesExactlyOnce).
func TestKafkaAbandonedRecordsAreNoFailure(t *testing.T) {
	real := errors.New("MESSAGE_TOO_LARGE")
	for _, c := range []struct {
		name     string
		eos      bool
		aborting bool
		err      error
		fails    bool
	}{
		{"exactly-once, engine abort, ErrAborting", true, true, kgo.ErrAborting, false},
		{"exactly-once, engine abort, wrapped ErrAborting", true, true, fmt.Errorf("batch: %w", kgo.ErrAborting), false},
		{"exactly-once, engine abort, a real error", true, true, real, true},
		{"exactly-once, no abort, ErrAborting", true, false, kgo.ErrAborting, true},
		{"exactly-once, no abort, a real error", true, false, real, true},
		{"at-least-once, ErrAborting", false, false, kgo.ErrAborting, true},
		{"at-least-once, a real error", false, false, real, true},
	} {
		s := &kafkaSink{st: &catalog.Stream{Name: "out"}, topic: "t"}
		if c.eos {
			s.tx = &kafkaTxn{}
			if c.aborting {
				s.tx.abandoning.Add(1)
			}
		}
		s.promise = s.delivered
		r := s.record(1)
		s.chunk.seal()
		s.promise(r, c.err)
		err := s.failed()
		if c.fails != (err != nil) {
			t.Errorf("%s: the sink's error after the promise is %v, want a failure: %v", c.name, err, c.fails)
		}
		if err != nil && (!strings.Contains(err.Error(), "sink stream out") || !strings.Contains(err.Error(), c.err.Error())) {
			t.Errorf("%s: the failure %q does not name the stream and the error", c.name, err)
		}
	}
}

// TestKafkaTornCheckpointWithBufferedRecords (a real broker): an exactly-once
// sink whose records are still buffered in the producer (linger.ms) when a
// torn checkpoint aborts the transaction goes on writing, and what it writes
// after commits: at its next checkpoint, or at Close without one (the abort
// holds for the aborted transaction only: before, kafkaTxn.aborted stayed set
// for good and Close committed nothing, so the rows written after were lost);
// read_committed readers see only the rows written after the abort.
func TestKafkaTornCheckpointWithBufferedRecords(t *testing.T) {
	for _, then := range []string{"checkpoint, then Close", "Close"} {
		t.Run(then, func(t *testing.T) {
			topic := kafkatest.CreateTopic(t, 1, nil)
			ctx, s := openTxnSink(t, topic, "properties.linger.ms", "60000") // (the records stay buffered until the abort)
			writeRows(t, s, "dropped", 100)
			// A group source whose job's state is torn: the job's last
			// checkpoint (jobEnd: only it can see a torn state) aborts the
			// open transaction with the records buffered; the sink then
			// goes on writing, to check that the producer stays usable
			// after such an abort.
			j := s.job
			j.mu.Lock()
			j.sources = append(j.sources, &kafkaSource{group: "g", job: j, replay: &tornReplay{torn: true},
				assigned: map[int32]bool{0: true}, used: map[int32]int64{0: 10}, committed: map[int32]int64{0: 2}, marks: map[int32]connector.ReplayMark{}})
			j.mu.Unlock()
			if err := j.checkpoint(ctx, jobEnd); err != nil {
				t.Fatalf("a torn checkpoint: %v", err)
			}
			j.mu.Lock()
			j.sources = nil
			j.mu.Unlock()
			writeRows(t, s, "kept", 100)
			if then != "Close" { // the job's next checkpoint (untorn) commits what was written since
				if err := j.checkpoint(ctx, jobEnd); err != nil {
					t.Fatalf("the checkpoint after a torn one aborted buffered records: %v", err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close after a torn checkpoint aborted buffered records: %v", err)
			}
			// (the commit markers reach the partition after EndTransaction returns)
			var recs []*kgo.Record
			for end := time.Now().Add(kafkatest.Timeout); ; time.Sleep(100 * time.Millisecond) {
				if recs = kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{ReadCommitted: true}); len(recs) >= 100 || time.Now().After(end) {
					break
				}
			}
			if len(recs) != 100 {
				t.Fatalf("read_committed: %d records, want the 100 written after the abort", len(recs))
			}
			for i, r := range recs {
				if want := fmt.Sprintf("kept%d", i); string(r.Value) != want {
					t.Fatalf("read_committed record %d is %q, want %q", i, r.Value, want)
				}
			}
		})
	}
}

// writeRows writes n rows prefix0, prefix1, … to s and flushes it.
func writeRows(t *testing.T, s *kafkaSink, prefix string, n int) {
	t.Helper()
	v := vector.NewVec(catalog.Varchar)
	for i := range n {
		v.ResetArena()
		v.SetString(0, fmt.Appendf(nil, "%s%d", prefix, i))
		if err := s.Write([]*vector.Vec{v}, 0); err != nil {
			t.Fatalf("writing %s%d: %v", prefix, i, err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatalf("flushing the %s rows: %v", prefix, err)
	}
}

// TestKafkaFailedAbortIsReported (a real broker): an abort of an exactly-once
// sink's transaction whose EndTransaction fails (here its context has ended:
// the request is never sent, and the transaction stays open on the broker)
// is never dropped silently: the torn checkpoint that aborted returns it, and
// an abort with no return (the runner's Abort, a failed commit's) is returned
// by whatever comes next: the next row written (which would begin a
// transaction), the job's next checkpoint, or the sink's Close. Each names
// the stream, the topic and the transaction and says what to do. Before,
// EndTransaction's error was ignored and the job went on.
func TestKafkaFailedAbortIsReported(t *testing.T) {
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	for _, next := range []string{"the torn checkpoint", "a write", "a checkpoint", "Close"} {
		t.Run(next, func(t *testing.T) {
			topic := kafkatest.CreateTopic(t, 1, nil)
			ctx, s := openTxnSink(t, topic)
			writeRows(t, s, "open", 10)
			if err := s.checkpoint(ctx); err != nil { // (the records reach the broker, in the open transaction)
				t.Fatal(err)
			}
			j := s.job
			var err error
			switch next {
			case "the torn checkpoint":
				j.mu.Lock()
				j.sources = append(j.sources, &kafkaSource{group: "g", job: j, replay: &tornReplay{torn: true},
					assigned: map[int32]bool{0: true}, used: map[int32]int64{0: 10}, committed: map[int32]int64{0: 2}, marks: map[int32]connector.ReplayMark{}})
				j.mu.Unlock()
				err = j.checkpoint(dead, jobEnd)
			case "a write":
				s.tx.abort(dead)
				v := vector.NewVec(catalog.Varchar)
				v.SetString(0, []byte("next"))
				err = s.Write([]*vector.Vec{v}, 0)
			case "a checkpoint":
				s.tx.abort(dead)
				err = j.checkpoint(ctx, jobEnd)
			case "Close":
				s.tx.abort(dead)
				err = s.Close()
			}
			if err == nil {
				t.Fatalf("%s after an abort that failed gave no error", next)
			}
			for _, want := range []string{"sink stream out", "topic '" + topic + "'", "aborting transaction '" + s.tx.id + "' failed", "context canceled", "restart"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s: the error %q does not say %q", next, err, want)
				}
			}
			if next != "Close" {
				_ = s.Close() // (the job failed: its Close)
			}
		})
	}
}

// brokerStream declares the kafka stream name (one VARCHAR column v, csv) of
// topic on the test broker (kafkatest.Brokers: skipped without one), with the
// options kv (key, value pairs), as CREATE STREAM does.
func brokerStream(t *testing.T, name, topic string, kv ...string) *catalog.Stream {
	t.Helper()
	o := []catalog.Option{{Key: "connector", Value: "kafka"}, {Key: "topic", Value: topic},
		{Key: "properties.bootstrap.servers", Value: kafkatest.Brokers(t)}, {Key: "format", Value: "csv"}}
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, catalog.Option{Key: kv[i], Value: kv[i+1]})
	}
	cols := []catalog.Column{{Name: "v", Type: catalog.Varchar}}
	spec, vals, err := catalog.ValidateOptions(o, cols, 0)
	if err != nil {
		t.Fatal(err)
	}
	st := &catalog.Stream{Name: name, Columns: cols, Options: vals, Connector: spec}
	if err := spec.Validate(st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestKafkaTornMidJobCommitsNoRow (a real broker; TestKafkaTornMidJobFailsLoudly
// without one): the rows of an exactly-once sink's open transaction when a
// checkpoint the job goes on after finds the state torn (a broken
// invariant: errTornMidJob) are never seen by a read_committed reader: the
// checkpoint commits nothing, the job fails, the runner's abort
// (sinkstream.Abort: kafkaSink.Abort) aborts the transaction and Close
// commits nothing more; the abort's marker leaves no open transaction
// holding readers back (the last stable offset reaches the end).
func TestKafkaTornMidJobCommitsNoRow(t *testing.T) {
	topic := kafkatest.CreateTopic(t, 1, nil)
	ctx, s := openTxnSink(t, topic)
	j := s.job
	j.mu.Lock() // (before the rows: a sink's Flush commits by itself without a group source)
	j.sources = append(j.sources, &kafkaSource{st: &catalog.Stream{Name: "readings"}, group: "g", job: j, replay: &tornReplay{torn: true},
		assigned: map[int32]bool{0: true}, used: map[int32]int64{0: 10}, committed: map[int32]int64{0: 2}, marks: map[int32]connector.ReplayMark{}})
	j.mu.Unlock()
	v := vector.NewVec(catalog.Varchar)
	for i := range 100 {
		v.ResetArena()
		v.SetString(0, fmt.Appendf(nil, "torn%d", i))
		if err := s.Write([]*vector.Vec{v}, 0); err != nil {
			t.Fatalf("writing torn%d: %v", i, err)
		}
	}
	if err := s.checkpoint(ctx); err != nil { // (the records reach the broker, in the open transaction)
		t.Fatal(err)
	}
	if err := j.checkpoint(ctx, midJob); !errors.Is(err, errTornMidJob) {
		t.Fatalf("a torn checkpoint mid-job gave %v, want errTornMidJob", err)
	}
	s.Abort() // (the runner, as the job failed)
	if err := s.Close(); err != nil {
		t.Fatalf("Close after the abort: %v", err)
	}
	adm := kafkatest.Admin(t)
	for end := time.Now().Add(kafkatest.Timeout); ; time.Sleep(100 * time.Millisecond) {
		lso, err1 := adm.ListCommittedOffsets(ctx, topic)
		hwm, err2 := adm.ListEndOffsets(ctx, topic)
		l, _ := lso.Lookup(topic, 0)
		h, _ := hwm.Lookup(topic, 0)
		if err1 == nil && err2 == nil && l.Err == nil && h.Err == nil && h.Offset > 0 && l.Offset == h.Offset {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the transaction is still open after the abort: last stable offset %+v, end %+v (%v, %v)", l, h, err1, err2)
		}
	}
	if recs := kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{ReadCommitted: true}); len(recs) != 0 {
		t.Fatalf("read_committed: %d records of the torn transaction, want none", len(recs))
	}
	if recs := kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{}); len(recs) != 100 {
		t.Fatalf("read_uncommitted: %d records, want the 100 the aborted transaction wrote", len(recs))
	}
}

// openTxnSink opens an exactly-once Kafka sink stream "out" writing to
// topic on the test's broker, with its own transactional id prefix and the
// extra options (name, value pairs), in a connector.Env of its own; it
// returns the sink and a context that ends with the test (at most
// kafkatest.Timeout).
func openTxnSink(t *testing.T, topic string, extra ...string) (context.Context, *kafkaSink) {
	t.Helper()
	opts := append([]string{"sink.delivery-guarantee", "exactly-once", "sink.transactional-id-prefix", kafkatest.Name(t, "txn")}, extra...)
	st := brokerStream(t, "out", topic, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	t.Cleanup(cancel)
	w, err := OpenKafkaSink(ctx, st, &connector.Env{State: &connector.State{}})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, w.(*kafkaSink)
}
