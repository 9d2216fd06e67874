package tests

// An interval join of two Kafka topics in a consumer group across SIGKILLs
// (issue 23 item 6; the connector package doc's replay protocol, SPEC 2.5):
// the crash harness (kafka_scale_test.go) kills and restarts the process at
// random moments; each input's partitions commit the oldest row still in the
// join's state, a restarted process reads those rows again into state, and
// the read_committed output holds every joined row exactly once. So with an
// updating aggregate after the join, whose partitions commit the first row
// the job read (TestKafkaJoinAggregateCrashesExactlyOnce), and with a
// window over the join beside side branches, one that aggregates too
// (TestKafkaJoinWindowSidesCrashesExactlyOnce).

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/tests/kafkatest"
)

// TestKafkaIntervalJoinCrashesExactlyOnce: orders and payments, two topics
// of 4 partitions keyed alike, joined when a payment comes within 2 s of
// its order; the process is SIGKILLed and restarted at random moments while
// the input is written. The read_committed output equals the join computed
// over the whole input (each order's own payment, when it came in time):
// no row lost or doubled (STREAMQL_SCALE_SEED replays a schedule).
func TestKafkaIntervalJoinCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaleIntervalJoinJob)
}

// TestKafkaIntervalJoinScalesOutCrashesExactlyOnce (issue 23 item 6):
// scaleIntervalJoinJob's interval join run by two processes of one group
// (slots a and b; c joins after half the kills, a leaves after three
// quarters), each reading partition i of both co-partitioned topics
// together (the kafka connector's CoPartitionBalancer), SIGKILLed and
// restarted at random moments: the read_committed union of their outputs
// equals the join over the whole input, no row lost or doubled. Before
// the executor's joinSource.rewind a process that gained a partition
// joined its rows, below the join's watermark, at once, without the other
// topic's rows of it, and committed them as written (833 of 80,040 rows
// lost in one run).
func TestKafkaIntervalJoinScalesOutCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaledOut(scaleIntervalJoinJob))
}

// TestKafkaLeftIntervalJoinScalesOutCrashesExactlyOnce (issue 23 item 6):
// TestKafkaLeftIntervalJoinCrashesExactlyOnce's padded payments over
// processes of one group as TestKafkaIntervalJoinScalesOutCrashesExactlyOnce
// runs them: a padding is written once, and only for a payment whose
// order did not come in time, also when partition i of one topic leaves
// (or comes to) a process before the other's.
func TestKafkaLeftIntervalJoinScalesOutCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaledOut(func(t *testing.T) scaleJob {
		return paddedPaymentsJob(t, "payments p LEFT JOIN orders o ON p.k = o.k AND p.ts BETWEEN o.ts + INTERVAL '1' SECOND AND o.ts + INTERVAL '2' SECOND")
	}))
}

// TestKafkaJoinAggregateScalesOutCrashesExactlyOnce and
// TestKafkaJoinTopNScalesOutCrashesExactlyOnce (issue 23 item 6): the
// updating aggregate and the Top-N after the interval join
// (scaleJoinAggJob, scaleJoinTopNJob) over processes of one group as
// TestKafkaIntervalJoinScalesOutCrashesExactlyOnce runs them: each key's
// upsert records are one uninterrupted run's.
func TestKafkaJoinAggregateScalesOutCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaledOut(scaleJoinAggJob))
}

// TestKafkaJoinWindowScalesOutCrashesExactlyOnce (issue 23 item 6): the
// window aggregate after the interval join (scaleJoinWindowJob) over
// processes of one group as TestKafkaIntervalJoinScalesOutCrashesExactlyOnce
// runs them: each window once, with every pair of it (the windows computed
// from the rows alone). Before the window's watermark followed the join's
// down when a partition came (the executor's joinwincap.go), a partition
// coming to a process stopped the job (errWindowMoved); without that stop
// its windows were lost in 2 of 3 runs.
func TestKafkaJoinWindowScalesOutCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaledOut(scaleJoinWindowJob))
}

// TestKafkaJoinWindowSidesScalesOutCrashesExactlyOnce (issue 23 item 6):
// the window aggregate beside side branches after the RIGHT interval join
// (scaleJoinWindowSidesJob: a side branch of the padded payments and a
// side HOP aggregate) over processes of one group as
// TestKafkaIntervalJoinScalesOutCrashesExactlyOnce runs them: each
// window, side window and padded payment once. The commits carry the
// join's watermark as f (which pairs the side branches wrote) and the
// window's as g (which windows fired: connector.ReplayMark.Windows), so
// a partition moving between processes is read again into the open
// windows only; before, a partition coming to a process once its window
// had a watermark stopped the job (exit 1: the executor's
// errWindowMoved), in every run.
func TestKafkaJoinWindowSidesScalesOutCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaledOut(scaleJoinWindowSidesJob))
}

func TestKafkaJoinTopNScalesOutCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaledOut(scaleJoinTopNJob))
}

// scaledOut is job run by several processes of its group (scaleJob's
// oneProcess false: two, a third added, the first removed).
func scaledOut(job func(*testing.T) scaleJob) func(*testing.T) scaleJob {
	return func(t *testing.T) scaleJob {
		j := job(t)
		j.oneProcess = false
		return j
	}
}

// TestKafkaRightIntervalJoinCrashesExactlyOnce (issue 23 item 6): orders
// RIGHT JOIN payments, an order joining when it came 1 to 2 s before its
// payment (the interval's upper bound below 0: a payment's interval ends
// before its own time, so it is padded when it is handled, op.Join.padAt),
// in the crash harness as TestKafkaIntervalJoinCrashesExactlyOnce. The
// read_committed output is each payment once, with its order or padded:
// before padAt a restart lost paddings (346 of 100,000 in one run).
func TestKafkaRightIntervalJoinCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, func(t *testing.T) scaleJob {
		return paddedPaymentsJob(t, "orders o RIGHT JOIN payments p ON o.k = p.k AND o.ts BETWEEN p.ts - INTERVAL '2' SECOND AND p.ts - INTERVAL '1' SECOND")
	})
}

// TestKafkaLeftIntervalJoinCrashesExactlyOnce: the mirror of
// TestKafkaRightIntervalJoinCrashesExactlyOnce, payments LEFT JOIN orders
// with the interval's lower bound above 0 (a payment's interval ends
// before its own time).
func TestKafkaLeftIntervalJoinCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, func(t *testing.T) scaleJob {
		return paddedPaymentsJob(t, "payments p LEFT JOIN orders o ON p.k = o.k AND p.ts BETWEEN o.ts + INTERVAL '1' SECOND AND o.ts + INTERVAL '2' SECOND")
	})
}

// paddedPaymentsJob is ordersPaymentsJob over STREAMQL_SCALE_ROWS/10 orders
// and payments, joined by from (a FROM clause of orders o and payments p
// that keeps every payment, joining its order when the payment came 1 to
// 2 s after it): each payment once, with its order's id or NULL.
func paddedPaymentsJob(t *testing.T, from string) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 10
	want := map[string]int{}
	for id := range rows {
		o := "" // (NULL: padded)
		if d := payDelay(id); d >= 1000 && d <= 2000 {
			o = fmt.Sprint(id)
		}
		want[fmt.Sprintf("%s,%d", o, id)]++
	}
	return ordersPaymentsJob(t, rows, 0, want, "INSERT INTO joined SELECT o.id, p.pid FROM "+from+";\n")
}

// scaleIntervalJoinJob is the interval join over STREAMQL_SCALE_ROWS/10
// orders and as many payments (ordersPaymentsJob): payment id joins order
// id only, when it came within 2 s.
func scaleIntervalJoinJob(t *testing.T) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 10
	want := map[string]int{}
	for id := range rows {
		if payDelay(id) <= 2000 {
			want[fmt.Sprintf("%d,%d", id, id)]++
		}
	}
	return ordersPaymentsJob(t, rows, 0, want,
		"INSERT INTO joined SELECT o.id, p.pid FROM orders o JOIN payments p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '2' SECOND;\n")
}

// payDelay is the time from order id to its payment in ordersPaymentsJob
// (ms, 0..2499).
func payDelay(id int) int { return 7 * id % 2500 }

// ordersPaymentsJob is a join of rows orders (id, key k<id%1000>, ts =
// 10*id ms) on partition key%4, and as many payments (pid = id, the order's
// key, ts = the order's + payDelay(id)) in the payments topic's same
// partition (orders of one key are 10 s apart), by query (the script's
// statements after the streams: orders, payments and the sink joined (id,
// pid)), with kills kills (0: the harness's default), its output checked
// against want. Each topic ends with a row per partition far in the
// future that joins nothing and moves the watermark past every other row.
// Done when the group's committed offsets of both topics reach those last
// rows (held in state for good).
func ordersPaymentsJob(t *testing.T, rows, kills int, want map[string]int, query string) scaleJob {
	job := ordersPaymentsOf(t, rows, kills, "joined", "id BIGINT, pid BIGINT", "", query, heldAtEnd) // (the last row stays in state)
	job.check = func(t *testing.T, outs map[string]string, guarantee string) {
		checkJoined(t, outs["joined"], guarantee, want)
	}
	return job
}

// ordersPaymentsOf is ordersPaymentsJob's orders and payments with the
// sink out (a Kafka stream with columns cols, and connector options opts,
// "" for a 'kafka' csv one), and the 'kafka' csv sinks more (each its name
// and columns), done when done holds for both input topics, and no check.
func ordersPaymentsOf(t *testing.T, rows, kills int, out, cols, opts, query string, done func(adm *kadm.Client, group, topic string) (bool, error), more ...[2]string) scaleJob {
	payments := kafkatest.CreateTopic(t, 4, nil)
	part := func(id int) int32 { return int32(id % 1000 % 4) }
	names := []string{out}
	for _, m := range more {
		names = append(names, m[0])
	}
	return scaleJob{
		outs:       names,
		oneProcess: true,
		kills:      kills,
		script: func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
			member := func(s string) string {
				return groupMember(group, slot+"-"+s)
			}
			sql := kafkaStream(t, "orders", "id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", in, member("o")) +
				kafkaStream(t, "payments", "pid BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '3' SECOND", payments, member("p"))
			if opts == "" {
				sql += kafkaStream(t, out, cols, outs[out], sink)
			} else {
				sql += fmt.Sprintf("CREATE STREAM %s (%s) WITH ('topic'='%s', 'properties.bootstrap.servers'='%s', %s%s);\n", out, cols, outs[out], kafkatest.Brokers(t), opts, sink)
			}
			for _, m := range more {
				sql += kafkaStream(t, m[0], m[1], outs[m[0]], sink)
			}
			return writeScript(t, dir, slot, sql+query)
		},
		chunk: func(in string, c, chunks int) []*kgo.Record {
			var rs []*kgo.Record
			for id := c * rows / chunks; id < (c+1)*rows/chunks; id++ {
				rs = append(rs, &kgo.Record{Topic: in, Partition: part(id), Value: []byte(fmt.Sprintf("%d,k%d,%d", id, id%1000, 10*id))},
					&kgo.Record{Topic: payments, Partition: part(id), Value: []byte(fmt.Sprintf("%d,k%d,%d", id, id%1000, 10*id+payDelay(id)))})
			}
			if c == chunks-1 {
				rs = append(rs, joinEnds(in, payments, "-1,end-o,%d", "-1,end-p,%d")...)
			}
			return rs
		},
		done: func(adm *kadm.Client, group, in string) (bool, error) {
			return bothDone(adm, group, in, payments, done)
		},
	}
}

// TestKafkaJoinAggregateCrashesExactlyOnce (issue 23 item 6; the connector
// package doc, "A join followed by an aggregate"): a running count and sum
// per key of the interval join of orders and payments
// (scaleIntervalJoinJob's join), written to an upsert-kafka topic, the
// process SIGKILLed and restarted at random moments while the input is
// written. Each restart reads both topics again from the first rows the
// job read (the groups never close), the pairs written before going into
// the aggregate only. The read_committed records of each key are one
// uninterrupted run's changes, 1, 2, ... up to its count, each once, the
// last with the reference's count and sum: no pair lost or doubled
// (STREAMQL_SCALE_SEED replays a schedule).
func TestKafkaJoinAggregateCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaleJoinAggJob)
}

// scaleJoinAggJob is the aggregate over the interval join of
// STREAMQL_SCALE_ROWS/50 orders and as many payments (ordersPaymentsOf),
// done when each input partition's replay mark says its rows' outputs are
// committed (e at its end) and the join's watermark passed every row but
// the closing ones (f): the committed offsets stay at the first rows.
func scaleJoinAggJob(t *testing.T) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 50
	n, sum := map[string]int{}, map[string]int{}
	for id := range rows {
		if payDelay(id) <= 2000 {
			k := fmt.Sprintf("k%d", id%1000)
			n[k]++
			sum[k] += id
		}
	}
	job := upsertOrdersPayments(t, rows, "counts", "k VARCHAR, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED",
		"INSERT INTO counts SELECT o.k, COUNT(*) AS n, SUM(p.pid) AS s FROM orders o JOIN payments p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '2' SECOND GROUP BY o.k;\n")
	job.check = func(t *testing.T, outs map[string]string, guarantee string) {
		got, recs := upsertRecords(t, outs["counts"], guarantee == "exactly-once")
		for k, c := range n {
			var want []string
			for i := 1; i <= c; i++ {
				want = append(want, fmt.Sprintf("%s,%d,", k, i))
			}
			vals := got[k]
			ok := len(vals) == len(want)
			for i := 0; ok && i < len(want); i++ {
				ok = strings.HasPrefix(vals[i], want[i])
			}
			if ok {
				ok = vals[len(vals)-1] == fmt.Sprintf("%s,%d,%d", k, c, sum[k])
			}
			if !ok {
				t.Errorf("key %s: records %q, want the counts 1 to %d once each, in order, the last %s,%d,%d", k, vals[:min(len(vals), 12)], c, k, c, sum[k])
			}
		}
		if len(got) != len(n) {
			t.Errorf("%d keys written, want %d", len(got), len(n))
		}
		t.Logf("%s: %d keys, %d upsert records", guarantee, len(n), recs)
	}
	return job
}

// upsertOrdersPayments is the crash harness's job of query over
// ordersPaymentsOf's rows into the upsert-kafka stream out (cols), done
// when each input partition's replay mark says its rows' outputs are
// committed and the join's watermark passed every row but the closing ones.
func upsertOrdersPayments(t *testing.T, rows int, out, cols, query string) scaleJob {
	return ordersPaymentsOf(t, rows, 6, out, cols, "'connector'='upsert-kafka', 'key.format'='csv', 'value.format'='csv'", query,
		func(adm *kadm.Client, group, topic string) (bool, error) {
			return marksReach(adm, group, topic, true, 1<<39)
		})
}

// upsertRecords reads topic (read_committed with rc) and returns each
// key's record values in offset order ("" a tombstone), and the count of
// records.
func upsertRecords(t *testing.T, topic string, rc bool) (map[string][]string, int) {
	t.Helper()
	got := map[string][]string{}
	recs := kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{ReadCommitted: rc})
	for _, r := range recs {
		got[string(r.Key)] = append(got[string(r.Key)], string(r.Value))
	}
	return got, len(recs)
}

// compareKeyRecords checks that each key of want with records has got's
// records, those in order (what is wanted), and that no other key has
// any; it returns the keys wanted.
func compareKeyRecords(t *testing.T, got, want map[string][]string, what string) int {
	t.Helper()
	n := 0
	for k, w := range want {
		if len(w) == 0 {
			continue
		}
		n++
		if g := got[k]; strings.Join(g, " ") != strings.Join(w, " ") {
			t.Errorf("key %s: records %q, want %s: %q", k, g[:min(len(g), 8)], what, w[:min(len(w), 8)])
		}
	}
	if len(got) != n {
		t.Errorf("%d keys written, want %d", len(got), n)
	}
	return n
}

// TestKafkaJoinTopNCrashesExactlyOnce (issue 23 item 6, issue 24 item 5;
// the connector package doc, "A Top-N after a join"): each key's latest
// paid order (ROW_NUMBER() <= 1 per key by the order's time, descending)
// of the interval join of orders and payments, written to an upsert-kafka
// topic, the process SIGKILLed and restarted at random moments while the
// input is written. Each restart reads both topics again from the first
// rows the job read, the pairs written before going into the Top-N's state
// only. A key's orders come in time order, so each of its paid orders
// replaces the one before (a -D of it, a tombstone, then the new row):
// the read_committed records of each key are those orders' ids, in order,
// each once, a tombstone between two (STREAMQL_SCALE_SEED replays a
// schedule).
func TestKafkaJoinTopNCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaleJoinTopNJob)
}

// scaleJoinTopNJob is the Top-N after the interval join of
// STREAMQL_SCALE_ROWS/50 orders and as many payments (ordersPaymentsOf),
// done as scaleJoinAggJob is.
func scaleJoinTopNJob(t *testing.T) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 50
	want := map[string][]string{} // (the reference: each key's paid orders, in time order)
	for id := range rows {
		if payDelay(id) <= 2000 {
			k := fmt.Sprintf("k%d", id%1000)
			if len(want[k]) > 0 {
				want[k] = append(want[k], "") // (the row it replaces: -D, a tombstone)
			}
			want[k] = append(want[k], fmt.Sprintf("%s,%d", k, id))
		}
	}
	return latestJob(t, rows, "WHERE rn <= 1", want, "each paid order once, in order, a tombstone between two")
}

// latestJob is the job of the Top-1 order by time per key after the
// interval join of rows orders and payments (upsertOrdersPayments), the
// query over it ending with where, into the upsert-kafka stream latest
// (k, id), whose read records per key must be want's (what says what
// they are).
func latestJob(t *testing.T, rows int, where string, want map[string][]string, what string) scaleJob {
	job := upsertOrdersPayments(t, rows, "latest", "k VARCHAR, id BIGINT, PRIMARY KEY (k) NOT ENFORCED",
		"INSERT INTO latest SELECT k, id FROM (SELECT o.k, o.id, ROW_NUMBER() OVER (PARTITION BY o.k ORDER BY o.ts DESC) AS rn FROM orders o JOIN payments p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '2' SECOND) "+where+";\n")
	job.check = func(t *testing.T, outs map[string]string, guarantee string) {
		got, recs := upsertRecords(t, outs["latest"], guarantee == "exactly-once")
		n := compareKeyRecords(t, got, want, what)
		t.Logf("%s: %d keys, %d upsert records", guarantee, n, recs)
	}
	return job
}

// TestKafkaJoinTopNCalcCrashesExactlyOnce (issue 23 item 6, issue 24
// item 5; the planner's ruleFuseRankCalc over a join's Top-N):
// TestKafkaJoinTopNCrashesExactlyOnce's latest paid order per key with a
// condition beside the rank's bound (WHERE rn <= 1 AND id % 3 <> 0, which
// filters the Top-N's changes, each row's kind kept: SPEC 2.8; no rank
// column selected, so they are -D and +I), fused into
// the join's job and replayed with it while processes are SIGKILLed:
// each key's read_committed upsert records are the reference's, once.
func TestKafkaJoinTopNCalcCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, func(t *testing.T) scaleJob {
		rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 50
		// the reference: each key's paid orders in time order; the Top-1
		// without its rank column (the outer query selects no rn) changes
		// by -D old, +I new (fx21: as the plain Top-N without rank, Flink's
		// no-rank-number Top-N), and the condition keeps the changes of the
		// orders with id % 3 <> 0; the upsert sink writes a kept -D as a
		// tombstone and a kept +I as the key's value
		want := map[string][]string{}
		prev := map[string]int{}
		for id := range rows {
			if payDelay(id) > 2000 {
				continue
			}
			k := fmt.Sprintf("k%d", id%1000)
			if p, had := prev[k]; had && p%3 != 0 {
				want[k] = append(want[k], "") // (the old order's -D)
			}
			if id%3 != 0 {
				want[k] = append(want[k], fmt.Sprintf("%s,%d", k, id))
			}
			prev[k] = id
		}
		return latestJob(t, rows, "WHERE rn <= 1 AND id % 3 <> 0", want, "each kept change once, in order")
	})
}

// TestKafkaJoinWindowCrashesExactlyOnce (issue 23 item 6, issue 24 item
// 5; the connector package doc, "A window aggregate over a join"): a
// TUMBLE count and sum per key over a view that is the interval join of
// orders and payments (Nexmark q7's and q8's shape of a window over joined
// rows), planned as one job with the join (planner's ruleFuseJoinWindow),
// written to a 'kafka' topic, the process SIGKILLed and restarted at
// random moments while the input is written. Each restart reads both
// topics again from the first rows the job read, the pairs going into the
// open windows only, and writes no window that fired before. The
// read_committed records are the reference's windows, computed from the
// rows alone, each once: no window lost, doubled or short of a pair
// (STREAMQL_SCALE_SEED replays a schedule).
func TestKafkaJoinWindowCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaleJoinWindowJob)
}

// scaleJoinWindowJob is the window aggregate over the interval join of
// STREAMQL_SCALE_ROWS/50 orders and as many payments (ordersPaymentsOf;
// 20 s windows: each key's two orders of a window), with a row in each
// partition of both topics before its end row (joinEnds) that joins the
// other topic's, far in the future: the joined rows' watermark then passes
// every other window, which fire. Done when
// each input partition's replay mark says its rows' outputs are committed
// (e at its end) and the aggregate's watermark at the commit passed every
// window but the end rows' (f).
func scaleJoinWindowJob(t *testing.T) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 50
	type win struct {
		ws int
		k  string
	}
	n, sum := map[win]int{}, map[win]int{}
	for id := range rows {
		if payDelay(id) <= 2000 { // (the reference: the pairs within 2 s, by the order's 20 s window)
			w := win{10 * id / 20000 * 20000, fmt.Sprintf("k%d", id%1000)}
			n[w]++
			sum[w] += id
		}
	}
	want := map[string]int{}
	for w, c := range n {
		want[fmt.Sprintf("%d,%s,%d,%d", w.ws, w.k, c, sum[w])] = 1
	}
	job := ordersPaymentsOf(t, rows, 6, "wins", "ws BIGINT, k VARCHAR, n BIGINT, s BIGINT", "",
		"CREATE VIEW paid AS SELECT o.id, o.k, o.ts, p.pid FROM orders o JOIN payments p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '2' SECOND;\n"+
			"INSERT INTO wins SELECT window_start, k, COUNT(*) AS n, SUM(pid) AS s FROM TABLE(TUMBLE(TABLE paid, DESCRIPTOR(ts), INTERVAL '20' SECOND)) GROUP BY window_start, window_end, k;\n",
		func(adm *kadm.Client, group, topic string) (bool, error) {
			return marksReach(adm, group, topic, true, 1<<39)
		})
	chunk := job.chunk
	job.chunk = func(in string, c, chunks int) []*kgo.Record {
		var rs []*kgo.Record
		for _, r := range chunk(in, c, chunks) {
			if strings.HasPrefix(string(r.Value), "-1,end-") { // (before each end row, one that joins the other topic's)
				rs = append(rs, &kgo.Record{Topic: r.Topic, Partition: r.Partition, Value: []byte(fmt.Sprintf("-2,end,%d", int64(1)<<39+10_000))})
			}
			rs = append(rs, r)
		}
		return rs
	}
	job.check = func(t *testing.T, outs map[string]string, guarantee string) {
		checkJoined(t, outs["wins"], guarantee, want)
	}
	return job
}

// TestKafkaJoinWindowSidesCrashesExactlyOnce (issue 23 item 6; the
// connector package doc, "A window aggregate over a join"): a TUMBLE count
// and sum per key over a view that is orders RIGHT JOIN payments (an order
// joining when it came 1 to 2 s before its payment: the interval's upper
// bound below 0, so a payment is padded when it is handled, op.Join.padAt),
// beside two side branches over the view: one that filters and projects
// (the padded payments) and one that aggregates (a HOP count and sum per
// key of the paired payments whose id is a multiple of 5), all planned as
// one job with the join (planner's ruleFuseJoinWindow, fuseSideAgg),
// written to three 'kafka' topics, the process SIGKILLed and restarted at
// random moments while the input is written. The commits carry the join's
// watermark (f) and the windows' (g): a restart joins the rows again into
// the open windows of both aggregates only, and writes no padded row or
// window that it wrote before. The read_committed records of each topic are the reference's,
// computed from the rows alone, each once (STREAMQL_SCALE_SEED replays a
// schedule).
func TestKafkaJoinWindowSidesCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaleJoinWindowSidesJob)
}

// scaleJoinWindowSidesJob is TestKafkaJoinWindowSidesCrashesExactlyOnce's
// job over STREAMQL_SCALE_ROWS/50 orders and as many payments
// (ordersPaymentsOf), with a pair of rows far in the future in each
// partition of both topics before its end row (an order 1.5 s before a
// payment, key "end": they join, and the joined rows' watermark passes
// every other window, which fire). Done when each input partition's replay
// mark says its rows' outputs are committed (e at its end) and the join's
// watermark at the commit (f) passed those rows.
func scaleJoinWindowSidesJob(t *testing.T) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 50
	const far = int64(1)<<39 + 10_000 // (the end pairs' payments' time)
	type win struct {
		ws int
		k  string
	}
	n, sum, hn, hsum := map[win]int{}, map[win]int{}, map[win]int{}, map[win]int{}
	unpaid := map[string]int{}
	for id := range rows { // (the reference: by the payment's time, 10*id + payDelay(id))
		d, k := payDelay(id), fmt.Sprintf("k%d", id%1000)
		ts := 10*id + d
		switch {
		case d < 1000 || d > 2000: // (padded: to the first side branch)
			unpaid[fmt.Sprintf("%d,%d", id, ts)]++
		case id%5 == 0: // (HOP(10 s, 30 s): the three windows holding ts)
			for ws := ts/10000*10000 - 20000; ws <= ts; ws += 10000 {
				hn[win{ws, k}]++
				hsum[win{ws, k}] += id
			}
		default: // (the main query's TUMBLE(20 s))
			w := win{ts / 20000 * 20000, k}
			n[w]++
			sum[w] += id
		}
	}
	wins, hops := map[string]int{}, map[string]int{}
	for w, c := range n {
		wins[fmt.Sprintf("%d,%s,%d,%d", w.ws, w.k, c, sum[w])] = 1
	}
	for w, c := range hn {
		hops[fmt.Sprintf("%d,%s,%d,%d", w.ws, w.k, c, hsum[w])] = 1
	}
	job := ordersPaymentsOf(t, rows, 6, "wins", "ws BIGINT, k VARCHAR, n BIGINT, s BIGINT", "",
		"CREATE VIEW paid AS SELECT p.pid, p.k, p.ts, o.id FROM orders o RIGHT JOIN payments p ON o.k = p.k AND o.ts BETWEEN p.ts - INTERVAL '2' SECOND AND p.ts - INTERVAL '1' SECOND;\n"+
			"SELECT pid, ts INTO STREAM unpaid FROM paid WHERE id IS NULL;\n"+
			"SELECT window_start, k, COUNT(*) AS n, SUM(id) AS s INTO STREAM hops FROM TABLE(HOP(TABLE paid, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND)) WHERE pid % 5 = 0 GROUP BY window_start, window_end, k;\n"+
			"INSERT INTO wins SELECT window_start, k, COUNT(*) AS n, SUM(id) AS s FROM TABLE(TUMBLE(TABLE paid, DESCRIPTOR(ts), INTERVAL '20' SECOND)) GROUP BY window_start, window_end, k;\n",
		func(adm *kadm.Client, group, topic string) (bool, error) {
			return marksReach(adm, group, topic, true, far+1)
		}, [2]string{"unpaid", "pid BIGINT, ts BIGINT"}, [2]string{"hops", "ws BIGINT, k VARCHAR, n BIGINT, s BIGINT"})
	chunk := job.chunk
	job.chunk = func(in string, c, chunks int) []*kgo.Record {
		var rs []*kgo.Record
		for _, r := range chunk(in, c, chunks) {
			if strings.HasPrefix(string(r.Value), "-1,end-") { // (before each end row, an end pair's row)
				at := far
				if r.Topic == in {
					at -= 1500 // (the order 1.5 s before the payments)
				}
				rs = append(rs, &kgo.Record{Topic: r.Topic, Partition: r.Partition, Value: []byte(fmt.Sprintf("-2,end,%d", at))})
			}
			rs = append(rs, r)
		}
		return rs
	}
	job.check = func(t *testing.T, outs map[string]string, guarantee string) {
		checkJoined(t, outs["wins"], guarantee, wins)
		checkJoined(t, outs["unpaid"], guarantee, unpaid)
		checkJoined(t, outs["hops"], guarantee, hops)
	}
	return job
}

// TestKafkaTemporalJoinCrashesExactlyOnce: orders LEFT JOIN rates FOR
// SYSTEM_TIME AS OF the order's time (SPEC 2.7's temporal join), two topics
// of 4 partitions keyed by the key, the process SIGKILLed and restarted at
// random moments while the input is written (issue 23 item 6). Some keys
// get one version at the start and never another: those versions keep the
// rates partitions' committed offsets at their first rows, so every restart
// reads them again and the orders after it still join them. The
// read_committed output equals the temporal join computed over the whole
// input: no row lost or doubled (STREAMQL_SCALE_SEED replays a schedule).
func TestKafkaTemporalJoinCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaleTemporalJoinJob)
}

// scaleTemporalJoinJob is the temporal join over STREAMQL_SCALE_ROWS/50
// orders (id, key k<id%500>, ts = 10*id ms) on partition key%4, and in the
// rates topic's same partition a version (k, rate = id, ts = 10*id ms
// -700..+699) of the order's key for each id below 500 and, but for keys
// j%10 = 7, each third id. Each topic ends with a row per partition far in
// the future, which moves the watermark past every other row. Done when the
// group's replay marks of both topics say every row is used (e at the end)
// and the join's watermark passed every order (f): the rates offsets stay
// at the old versions.
func scaleTemporalJoinJob(t *testing.T) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 50
	rates := kafkatest.CreateTopic(t, 4, nil)
	key := func(id int) int { return id % 500 }
	part := func(id int) int32 { return int32(key(id) % 4) }
	versioned := func(id int) bool { return id < 500 || key(id)%10 != 7 && id%3 == 0 }
	rateTS := func(id int) int { return 10*id - 700 + 13*id%1400 }
	return scaleJob{
		outs:       []string{"joined"},
		oneProcess: true,
		kills:      6,
		script: func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
			opts := func(s string) string { return groupMember(group, slot+"-"+s) }
			sql := kafkaStream(t, "orders", "id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", in, opts("o")) +
				kafkaStream(t, "rates", "k VARCHAR, rate BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND, PRIMARY KEY (k) NOT ENFORCED", rates, opts("r")) +
				kafkaStream(t, "joined", "id BIGINT, rate BIGINT", outs["joined"], sink) +
				"INSERT INTO joined SELECT o.id, r.rate FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k;\n"
			return writeScript(t, dir, slot, sql)
		},
		chunk: func(in string, c, chunks int) []*kgo.Record {
			var rs []*kgo.Record
			for id := c * rows / chunks; id < (c+1)*rows/chunks; id++ {
				if versioned(id) {
					rs = append(rs, &kgo.Record{Topic: rates, Partition: part(id), Value: []byte(fmt.Sprintf("k%d,%d,%d", key(id), id, rateTS(id)))})
				}
				rs = append(rs, &kgo.Record{Topic: in, Partition: part(id), Value: []byte(fmt.Sprintf("%d,k%d,%d", id, key(id), 10*id))})
			}
			if c == chunks-1 {
				rs = append(rs, joinEnds(in, rates, "-1,end-o,%d", "end-r,0,%d")...)
			}
			return rs
		},
		done: func(adm *kadm.Client, group, in string) (bool, error) {
			return bothDone(adm, group, in, rates, func(adm *kadm.Client, group, topic string) (bool, error) {
				return marksReach(adm, group, topic, true, int64(10*rows))
			})
		},
		check: func(t *testing.T, outs map[string]string, guarantee string) {
			// the reference: each order joins the version of its key with
			// the largest time not above the order's, or none (LEFT: NULL)
			versions := map[int][]int{} // key -> the ids of its versions
			for id := range rows {
				if versioned(id) {
					versions[key(id)] = append(versions[key(id)], id)
				}
			}
			want := map[string]int{}
			for id := range rows {
				rate, at := "", math.MinInt
				for _, v := range versions[key(id)] {
					if ts := rateTS(v); ts <= 10*id && ts > at {
						rate, at = fmt.Sprint(v), ts
					}
				}
				want[fmt.Sprintf("%d,%s", id, rate)]++
			}
			checkJoined(t, outs["joined"], guarantee, want)
		},
	}
}

// TestKafkaRegularJoinCrashesExactlyOnce: orders JOIN payments ON the key
// alone (SPEC 2.7's regular join), its state bounded by
// 'table.exec.state.ttl' = '5 s', two topics of 4 partitions keyed alike,
// the process SIGKILLed and restarted at random moments (issue 23 item 6).
// The TTL bounds the replay: each partition's committed offset follows the
// watermark (the job is done only when the offsets reach the rows held at
// the end), and the read_committed output equals the join computed over the
// whole input, each order with the payments of its key within 5 s of it:
// no row lost or doubled.
func TestKafkaRegularJoinCrashesExactlyOnce(t *testing.T) {
	joinCrashes(t, scaleRegularJoinJob)
}

// scaleRegularJoinJob is the regular join with a 5 s TTL over
// STREAMQL_SCALE_ROWS/50 orders and as many payments (ordersPaymentsJob: a
// key's orders 10 s apart, each payment 0..2.5 s after its order), so a
// pair joins within the TTL exactly when its order and payment have one
// id; the reference pairs every order and payment of one key less than the
// TTL apart. Done when the group's committed offsets of both topics reach
// the last rows: the TTL let the frontier go past every other row.
func scaleRegularJoinJob(t *testing.T) scaleJob {
	rows := envInt(t, "STREAMQL_SCALE_ROWS", 1_000_000) / 50
	byKey := map[int][]int{}
	for id := range rows {
		byKey[id%1000] = append(byKey[id%1000], id)
	}
	want := map[string]int{}
	for id := range rows {
		for _, pid := range byKey[id%1000] {
			if d := 10*id - (10*pid + payDelay(pid)); d < 5000 && d > -5000 {
				want[fmt.Sprintf("%d,%d", id, pid)]++
			}
		}
	}
	return ordersPaymentsJob(t, rows, 6, want,
		"SET 'table.exec.state.ttl' = '5 s';\nINSERT INTO joined SELECT o.id, p.pid FROM orders o JOIN payments p ON o.k = p.k;\n")
}

// joinCrashes runs the crash harness, exactly-once, with the join job made
// by job (which creates its topics), when a broker is given and not with
// -short (20-40 s).
func joinCrashes(t *testing.T, job func(*testing.T) scaleJob) {
	t.Parallel() // (each job its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	kafkatest.Brokers(t)
	if testing.Short() {
		t.Skip("runs streamql processes against the broker for 20-40 s: not with -short")
	}
	scaleOutCrashes(t, "exactly-once", job(t))
}

// joinEnds returns the records that end a join job's two input topics of 4
// partitions, in and other: in each partition a row far in the future
// (fmt's values with %d for its time, 2^40 ms), which joins nothing and
// moves the input's watermark past every other row.
func joinEnds(in, other, value, otherValue string) []*kgo.Record {
	var rs []*kgo.Record
	for p := range int32(4) {
		rs = append(rs, &kgo.Record{Topic: in, Partition: p, Value: []byte(fmt.Sprintf(value, int64(1)<<40))},
			&kgo.Record{Topic: other, Partition: p, Value: []byte(fmt.Sprintf(otherValue, int64(1)<<40))})
	}
	return rs
}

// bothDone reports whether done holds for the group's commits of both input
// topics of a join job, in and other.
func bothDone(adm *kadm.Client, group, in, other string, done func(adm *kadm.Client, group, topic string) (bool, error)) (bool, error) {
	for _, topic := range []string{in, other} {
		if ok, err := done(adm, group, topic); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

// checkJoined compares a join job's output topic with want (each row with
// the times the reference makes it): read_committed and exactly with
// 'exactly-once', none lost with 'at-least-once' (the duplicates counted).
func checkJoined(t *testing.T, topic, guarantee string, want map[string]int) {
	t.Helper()
	rc := guarantee == "exactly-once"
	dups, over := compareCounts(t, "joined rows", readRows(t, topic, rc), want, rc)
	if rc && len(over) > 0 {
		t.Logf("rows written more than once, where (partition@offset, producer id/epoch):%s", recordsOf(t, topic, rc, over))
	}
	t.Logf("%s: %d joined rows, %d duplicate records", guarantee, len(want), dups)
}

// TestKafkaTemporalJoinChecksCoPartitioning: a temporal join read in its
// consumer group (replayed) needs co-partitioned topics as the other joins
// do, its right topic keyed by its PRIMARY KEY: topics of 2 and 3
// partitions are refused when the job starts, naming both.
func TestKafkaTemporalJoinChecksCoPartitioning(t *testing.T) {
	kafkatest.Brokers(t)
	orders, rates := kafkatest.CreateTopic(t, 2, nil), kafkatest.CreateTopic(t, 3, nil)
	opts := ", 'properties.group.id'='" + kafkatest.Name(t, "group") + "', 'scan.bounded.mode'='latest-offset'"
	sql := kafkaStream(t, "o", "id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts", orders, opts) +
		kafkaStream(t, "r", "k VARCHAR, rate BIGINT, ts BIGINT, WATERMARK FOR ts AS ts, PRIMARY KEY (k) NOT ENFORCED", rates, opts) +
		"SELECT o.id, r.rate FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts ON o.k = r.k;\n"
	_, stderr, code := runSQL(t, nil, sql, "--format", "csv")
	for _, w := range []string{"temporal join of o and r in consumer group", "topic '" + orders + "' (stream o) has 2 partition(s)", "topic '" + rates + "' (stream r) has 3", "must be co-partitioned"} {
		if code == 0 || !strings.Contains(stderr, w) {
			t.Errorf("a temporal join of topics of 2 and 3 partitions: exit %d, stderr %q: want an error with %q", code, stderr, w)
		}
	}
}
