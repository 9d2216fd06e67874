package executor

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/parser"
	"streamql/planner"
)

// tornGroupSpec is the connector of TestReplayNeverTornAtNext's streams
// once planned: a Kafka stream's capabilities (partitions, a consumer
// group's replay) over groupFake, a source that needs no broker.
var tornGroupSpec = &catalog.ConnectorSpec{Name: "test-torn-group", Doc: "test",
	Bounded: func(map[string]string) bool { return false }, Caps: catalog.CapPartitioned | catalog.CapGroups}

// tornGroupOpen opens a groupFake for a stream; set by the test.
var tornGroupOpen func(st *catalog.Stream, env *connector.Env) connector.Source

func init() {
	connector.Register(tornGroupSpec, &connector.Driver{Open: func(_ context.Context, st *catalog.Stream, env *connector.Env) (connector.Source, error) {
		return tornGroupOpen(st, env), nil
	}})
}

// tornChecks counts what the group sources of one job saw at their Next
// calls, where a Kafka source in a group makes its periodic checkpoint
// (kafkaSource.commit, kafkaJob.checkpoint midJob).
type tornChecks struct {
	asked int // Next calls with a Replay given (SetReplay)
	torn  int // of them, those that found the Replay torn
}

// groupFake is a Kafka source in a consumer group without a broker: rows
// of two partitions in random batches of 1 to 8, each row's position its
// partition and offset; at each Next it asks its Replay, as the periodic
// checkpoint would, whether the state is torn. cancel, when set, is called
// inside the Next that gives row cancelAt (the job is cut inside that
// batch, as SIGTERM does).
type groupFake struct {
	twoParts // (its positions, partitions of positions, Progress and Close)
	rows     []replayRow
	at       int
	rng      *rand.Rand
	rep      connector.Replay
	checks   *tornChecks
	cancel   context.CancelFunc
	cancelAt int
}

func (s *groupFake) SetReplay(r connector.Replay) { s.rep = r }

func (s *groupFake) Next(b *vector.Batch, _ *[]BadRow) error {
	if s.rep != nil {
		s.checks.asked++
		if s.rep.Torn() {
			s.checks.torn++
		}
	}
	if s.at == len(s.rows) {
		return io.EOF
	}
	b.Reset()
	for n := 1 + s.rng.Intn(8); n > 0 && s.at < len(s.rows); n-- {
		r, i := s.rows[s.at], b.N
		b.Cols[0].SetString(i, []byte(r.k))
		b.Cols[0].Null[i] = false
		b.Cols[1].I[i], b.Cols[1].Null[i] = r.ts, false
		b.Pos[i] = connector.KafkaPosition(r.p, r.off)
		b.N++
		if s.cancel != nil && s.at == s.cancelAt {
			s.cancel()
		}
		s.at++
	}
	return nil
}
func (s *groupFake) Partitions(dst []int32) []int32 {
	var left [2]bool
	for _, r := range s.rows[s.at:] {
		left[r.p] = true
	}
	for p, l := range left {
		if l {
			dst = append(dst, int32(p))
		}
	}
	return dst
}
func (s *groupFake) IdleTimeout() time.Duration     { return 0 }
func (s *groupFake) TopicPartitions() (string, int) { return "t", 2 }

// tornRows returns random rows of two partitions interleaved, keys k0 and k1
// on each, times rising by up to 2.5 s, one in six going back (late).
func tornRows(rng *rand.Rand) []replayRow {
	var rows []replayRow
	ts, off := [2]int64{int64(rng.Intn(5000)), int64(rng.Intn(5000))}, [2]int64{}
	for range 40 + rng.Intn(60) {
		p := rng.Intn(2)
		ts[p] += int64(rng.Intn(2500))
		at := ts[p]
		if rng.Intn(6) == 0 {
			at -= int64(rng.Intn(8000))
		}
		rows = append(rows, replayRow{int32(p), off[p], fmt.Sprintf("k%d", rng.Intn(2)), at})
		off[p]++
	}
	return rows
}

// TestReplayNeverTornAtNext (issue 24 item 5, issue 23 item 6; the
// invariant of connector.Replay.Torn): a job's Replay is never torn when
// the job calls a group source's Next, where a Kafka source makes its
// periodic checkpoint, so the checkpoint that aborts a torn job's
// transaction is only ever the job's last (kafkaJob.checkpoint fails the
// job otherwise). Real jobs (Run) over streams planned as Kafka streams in
// a consumer group, read through groupFake, for every kind of replayed
// state: the aggregate's windows and groups, the updating Top-N, a Top-N
// over GROUP BY, deduplication, OVER, ORDER BY the event time and window
// Top-N (replay.go), an event-time semi and anti join's held rows
// (probeHold.replayBy), and interval and regular joins of two streams
// (joinreplay.go); random rows and batches, and one run in three cancelled
// inside a batch (the state may then be torn at the end, never at a Next).
func TestReplayNeverTornAtNext(t *testing.T) {
	for _, q := range []string{
		"SELECT window_start, k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k",
		"SELECT window_start, window_end, k, COUNT(*) AS n FROM TABLE(SESSION(TABLE l PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY window_start, window_end, k",
		"SELECT k, COUNT(*) AS n FROM l GROUP BY k",
		"SELECT k, ts, rn FROM (SELECT k, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM l) WHERE rn <= 2",
		"SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY SUBSTRING(k, 1, 1) ORDER BY n DESC) AS rn FROM (SELECT k, COUNT(*) AS n FROM l GROUP BY k)) WHERE rn <= 1",
		"SELECT window_start, k, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rn FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 2",
		"SELECT k, ts FROM (SELECT k, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM l) WHERE rn = 1",
		"SELECT k, ts, COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS n FROM l",
		"SELECT k, ts FROM l ORDER BY ts",
		"SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k",
		"SELECT l.k, l.ts FROM l ANTI JOIN r ON l.k = r.k",
		"SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '5' SECOND AND r.ts + INTERVAL '5' SECOND",
		"SELECT l.k, l.ts, r.ts AS rts FROM l LEFT JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '5' SECOND AND r.ts + INTERVAL '5' SECOND",
		"SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k",
	} {
		asked := 0
		for seed := int64(1); seed <= 12; seed++ {
			asked += tornRun(t, q, seed)
		}
		if asked == 0 {
			t.Errorf("%s: no group source was given a Replay: the job is not replayed, and the test checks nothing", q)
		}
	}
}

// tornRun runs q once (seed) and returns how many Next calls asked a
// Replay.
func tornRun(t *testing.T, q string, seed int64) int {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	cat := tornCatalog(t)
	job := planWith(t, cat, q)
	for _, name := range []string{"l", "r"} { // (planned as Kafka streams in group g; read through groupFake)
		st := cat.Lookup(name)
		st.Config = st.Kafka()
		st.Connector = tornGroupSpec
	}
	checks := &tornChecks{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cut := rng.Intn(3) == 0
	tornGroupOpen = func(st *catalog.Stream, env *connector.Env) connector.Source {
		// (each source its own generator: a build side is read on a goroutine of its own)
		s := &groupFake{rows: tornRows(rng), rng: rand.New(rand.NewSource(rng.Int63())), checks: checks}
		if cut && st.Name == "l" && !env.BuildSide {
			s.cancel, s.cancelAt = cancel, rng.Intn(len(s.rows))
		}
		return s
	}
	var names []string
	for _, o := range job.Outputs {
		names = append(names, o.Name)
	}
	_, err := Run(ctx, job, &Env{}, func() (Sink, error) { return &orderSink{names: names}, nil })
	if err != nil && ctx.Err() == nil {
		t.Fatalf("%s, seed %d: %v", q, seed, err)
	}
	if checks.torn > 0 {
		t.Errorf("%s, seed %d (cut: %v): %d of %d Next calls found the job's Replay torn: a checkpoint there would abort rows no later transaction writes", q, seed, cut, checks.torn, checks.asked)
	}
	return checks.asked
}

// tornCatalog declares the streams l and r (k VARCHAR, ts BIGINT, each with
// a watermark) as Kafka streams read in consumer group g.
func tornCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	with := "'connector'='kafka', 'topic'='%s', 'properties.bootstrap.servers'='127.0.0.1:9', 'properties.group.id'='g', 'format'='csv'"
	ddl := `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (` + fmt.Sprintf(with, "lt") + `);
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (` + fmt.Sprintf(with, "rt") + `);`
	return kTsCatalog(t, ddl)
}

// kTsCatalog declares the streams of ddl, each (k VARCHAR, ts BIGINT) with
// the watermark and options ddl gives it, in a catalog of their own.
func kTsCatalog(t *testing.T, ddl string) *catalog.Catalog {
	t.Helper()
	script, err := parser.Parse("test", ddl)
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New()
	for _, st := range script.Stmts {
		cs := st.(*parser.CreateStream)
		s := &catalog.Stream{Name: cs.Name, EventTime: 1, Watermark: planner.Watermark(cs.Watermark),
			Columns: []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}}}
		if s.Connector, s.Options, err = planner.ValidateOptions(cs.Options, s.Columns, 0); err != nil {
			t.Fatal(err)
		}
		cat.Add(s)
	}
	return cat
}
