package kafka

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/catalog"
	"streamql/executor/connector"
)

// TestReplayMarkRoundTrip: the commit metadata a group source writes (the
// package doc's "sq1 e=U_p w=w_p f=f_p", w and f only when set) parses back
// to the same mark; metadata of another writer is no mark, and a malformed
// "sq1" one is an error naming the field.
func TestReplayMarkRoundTrip(t *testing.T) {
	for _, m := range []connector.ReplayMark{
		{Emitted: 42},
		{Emitted: 7, WM: -5, WMSet: true},
		{Emitted: 1 << 40, WM: 1_700_000_000_000, WMSet: true, Fired: 1_700_000_010_000, FiredSet: true},
		{Emitted: 3, Fired: 0, FiredSet: true},
	} {
		s := m.String()
		got, ok, err := connector.ParseReplayMark(s)
		if err != nil || !ok || got != m {
			t.Errorf("%q parses to %+v %v %v, want %+v", s, got, ok, err, m)
		}
	}
	if s := (connector.ReplayMark{Emitted: 9, WM: 4, WMSet: true, Fired: 2, FiredSet: true}).String(); s != "sq1 e=9 w=4 f=2" {
		t.Errorf("mark renders as %q, want \"sq1 e=9 w=4 f=2\"", s)
	}
	for _, s := range []string{"", "some tool's note", "sq10 e=1"} {
		if _, ok, err := connector.ParseReplayMark(s); ok || err != nil {
			t.Errorf("%q: ok %v, error %v; want no mark and no error", s, ok, err)
		}
	}
	for s, field := range map[string]string{"sq1 e=x": "e=x", "sq1 e=1 q=2": "q", "sq1 w=3": "no e=", "sq1 e=1 w": "w"} {
		if _, ok, err := connector.ParseReplayMark(s); ok || err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%q: ok %v, error %v; want an error naming %s", s, ok, err, field)
		}
	}
}

// tornReplay is a job's state that a cut batch left ahead of the outputs
// (Replay.Torn), holding rows of partition 0 from offset 3.
type tornReplay struct{ torn bool }

func (r *tornReplay) Hold(p int32, used int64) (int64, int64, bool)   { return min(used, 3), 1_000, true }
func (r *tornReplay) Emitted(p int32, used int64) int64               { return used }
func (r *tornReplay) Fired(p int32) (int64, bool)                     { return 90_000, true }
func (r *tornReplay) Assign(int32, int64, connector.ReplayMark, bool) {}
func (r *tornReplay) Revoke(int32)                                    {}
func (r *tornReplay) Torn() bool                                      { return r.torn }

// TestKafkaTornCommitsNothing: while the job's state is torn (a batch cut
// after it moved the watermarks or fired windows, before its outputs were
// written), a group source commits no offset and no mark, so the fire
// frontier f=90000 of windows never written does not reach the next owner
// (I4); the job's last checkpoint ends without committing. Untorn, the same
// state commits H=3 with its mark.
func TestKafkaTornCommitsNothing(t *testing.T) {
	j := &kafkaJob{}
	s := &kafkaSource{group: "g", job: j, replay: &tornReplay{torn: true},
		assigned: map[int32]bool{0: true}, used: map[int32]int64{0: 10}, committed: map[int32]int64{0: 2}, marks: map[int32]connector.ReplayMark{}}
	j.sources = []*kafkaSource{s}
	if offs, torn := s.toCommit(); !torn || len(offs) != 0 {
		t.Fatalf("a torn state gave toCommit %v (torn %v), want nothing, torn", offs, torn)
	}
	// (s has no client: a commit attempted would panic)
	if err := j.checkpoint(context.Background(), jobEnd); err != nil {
		t.Fatalf("the last checkpoint of a torn job: %v", err)
	}
	if s.committed[0] != 2 || len(s.marks) != 0 {
		t.Errorf("a torn checkpoint noted a commit: offset %d, marks %v", s.committed[0], s.marks)
	}
	s.replay = &tornReplay{}
	offs, torn := s.toCommit()
	if want := (pendingCommit{off: 3, mark: connector.ReplayMark{Emitted: 10, WM: 1_000, WMSet: true, Fired: 90_000, FiredSet: true}, meta: true}); torn || offs[0] != want {
		t.Errorf("untorn, toCommit gave %v (torn %v), want partition 0: %v", offs, torn, want)
	}
}

// TestKafkaCommitErrorKeepsCode: an offset commit's error keeps Kafka's
// code, so a commit the group refused is told apart (rebalanced) and an
// at-least-once job goes on with the offsets uncommitted instead of ending.
func TestKafkaCommitErrorKeepsCode(t *testing.T) {
	s := &kafkaSource{st: &catalog.Stream{Name: "sensors"}, group: "g", topic: "in"}
	err := s.commitError(kerr.RebalanceInProgress)
	if !rebalanced(err) {
		t.Errorf("rebalanced(%v) = false: the refused commit would end the job", err)
	}
	if !strings.Contains(err.Error(), "stream sensors") || !strings.Contains(err.Error(), "group 'g'") || !strings.Contains(err.Error(), "topic 'in'") {
		t.Errorf("the commit error %q does not name the stream, group and topic", err)
	}
}

// TestKafkaCloseUsesTheLastBatch: a job that ends (cancelled) after its last
// batch went through its state and reached the sinks commits that batch as
// used. Its watermark w and f include the batch: with U_p before it, the
// next owner would read the batch again from a watermark past its rows and
// drop them as late, losing their windows. A torn state (the batch cut)
// keeps U_p, and so does a stateless job.
func TestKafkaCloseUsesTheLastBatch(t *testing.T) {
	for _, c := range []struct {
		name   string
		replay connector.Replay
		want   int64
	}{
		{"state took the batch", &tornReplay{}, 10},
		{"torn", &tornReplay{torn: true}, 5},
		{"stateless", nil, 5},
	} {
		s := &kafkaSource{group: "g", replay: c.replay, given: map[int32]int64{0: 10}, used: map[int32]int64{0: 5}}
		s.closeUsed()
		if s.used[0] != c.want {
			t.Errorf("%s: U_0 = %d at the end, want %d", c.name, s.used[0], c.want)
		}
	}
}

// heldReplay is an event-time join's state holding probe rows of partition
// 0 from offset held on (Replay.Emitted), the first stamped with
// watermark 4,000.
type heldReplay struct{ held int64 }

func (r *heldReplay) Hold(p int32, used int64) (int64, int64, bool) {
	return min(used, r.held), 4_000, true
}
func (r *heldReplay) Emitted(p int32, used int64) int64               { return min(used, r.held) }
func (r *heldReplay) Fired(int32) (int64, bool)                       { return 0, false }
func (r *heldReplay) Assign(int32, int64, connector.ReplayMark, bool) {}
func (r *heldReplay) Revoke(int32)                                    {}
func (r *heldReplay) Torn() bool                                      { return false }

// TestKafkaCommitsTheFirstHeldProbeRow (the package doc's I1 and I3 for an
// event-time join): a partition whose rows from offset 6 on are held by the
// join commits offset 6 with e=6 (those rows have no output yet: they are
// read again as new), not U_p=10; e and the offset never go back below what
// was committed or read with the assignment (I7).
func TestKafkaCommitsTheFirstHeldProbeRow(t *testing.T) {
	s := &kafkaSource{group: "g", replay: &heldReplay{held: 6},
		assigned: map[int32]bool{0: true}, used: map[int32]int64{0: 10}, committed: map[int32]int64{0: 2}, marks: map[int32]connector.ReplayMark{}}
	offs, torn := s.toCommit()
	if want := (pendingCommit{off: 6, mark: connector.ReplayMark{Emitted: 6, WM: 4_000, WMSet: true}, meta: true}); torn || offs[0] != want {
		t.Errorf("toCommit gave %v (torn %v), want partition 0: %v", offs, torn, want)
	}
	s.marks[0] = connector.ReplayMark{Emitted: 8}
	s.committed[0] = 8
	offs, _ = s.toCommit()
	if got := offs[0]; got.off != 8 || got.mark.Emitted != 8 {
		t.Errorf("after a commit at 8 (e=8), toCommit gave offset %d e=%d, want 8 and 8", got.off, got.mark.Emitted)
	}
}

// tornJob returns a job with one group source of stream readings whose
// state is torn (tornReplay) and one exactly-once producer with an open
// transaction, over a client that reaches no broker (an abort with nothing
// buffered needs none; a commit would fail).
func tornJob(t *testing.T) (*kafkaJob, *kafkaSource, *kafkaTxn) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"), kgo.TransactionalID("torn-test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	j := &kafkaJob{}
	s := &kafkaSource{st: &catalog.Stream{Name: "readings", Options: map[string]string{}}, group: "g", job: j, replay: &tornReplay{torn: true},
		assigned: map[int32]bool{0: true}, used: map[int32]int64{0: 10}, committed: map[int32]int64{0: 2}, marks: map[int32]connector.ReplayMark{}}
	tx := &kafkaTxn{cl: cl, inTxn: true, txnStart: time.Now()}
	j.sources, j.txns = []*kafkaSource{s}, []*kafkaTxn{tx}
	return j, s, tx
}

// TestKafkaTornMidJobFailsLoudly (issue 24 item 5, issue 23 item 6): a
// torn state (connector.Replay.Torn) is seen by a job's last checkpoint
// only. A checkpoint the job goes on after that finds one (midJob: the
// group source's periodic commit in Next, kafkaSource.commit, or the
// checkpoint itself) would, by aborting, drop rows that no later
// transaction writes while a later commit moves the offsets past them. It
// fails the job instead: errTornMidJob, naming the stream and group and
// saying what to do, with no offset or mark committed and the transaction
// left to the runner's abort (not aborted here, nor committed); the job's
// failure is noted so that its sources' Close commits nothing more. The
// job's last checkpoint (jobEnd) over the same torn state still aborts the
// open transaction and commits nothing, without an error.
func TestKafkaTornMidJobFailsLoudly(t *testing.T) {
	for _, via := range []string{"checkpoint", "source commit"} {
		j, s, tx := tornJob(t)
		var err error
		if via == "checkpoint" {
			err = j.checkpoint(context.Background(), midJob)
		} else {
			err = s.commit(context.Background())
		}
		if !errors.Is(err, errTornMidJob) {
			t.Fatalf("%s: a torn state mid-job gave %v, want errTornMidJob", via, err)
		}
		for _, want := range []string{"stream readings (group 'g')", "torn", "restart", "report"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the error %q does not say %q", via, err, want)
			}
		}
		if s.committed[0] != 2 || len(s.marks) != 0 {
			t.Errorf("%s: a torn mid-job checkpoint noted a commit: offset %d, marks %v", via, s.committed[0], s.marks)
		}
		if !tx.inTxn || tx.aborted {
			t.Errorf("%s: the checkpoint ended the transaction itself (open %v, aborted %v): the runner's abort does", via, tx.inTxn, tx.aborted)
		}
		if !errors.Is(j.failure(), errTornMidJob) {
			t.Errorf("%s: the job's failure is %v: its sources' Close would commit", via, j.failure())
		}
	}
	j, s, tx := tornJob(t)
	if err := j.checkpoint(context.Background(), jobEnd); err != nil {
		t.Fatalf("the last checkpoint of a torn job: %v", err)
	}
	if tx.inTxn || !tx.aborted {
		t.Errorf("the last checkpoint of a torn job left the transaction open %v, aborted %v: want aborted", tx.inTxn, tx.aborted)
	}
	if s.committed[0] != 2 || len(s.marks) != 0 || j.failure() != nil {
		t.Errorf("the last checkpoint of a torn job committed offset %d, marks %v, or failed the job (%v)", s.committed[0], s.marks, j.failure())
	}
}
