package tests

// The event-time operators a main query ends with (SPEC 2.9) over Kafka,
// surviving SIGKILL exactly-once (issue 24 item 5; executor/rankreplay.go):
// deduplication keeping each key's first row and an OVER aggregation read a
// 4-partition topic keyed by their PARTITION BY key in a consumer group and
// write an exactly-once Kafka sink, while the crash harness
// (kafka_scale_test.go) SIGKILLs and restarts processes, adds one and
// removes one. A read_committed reader of the output gets exactly one
// uninterrupted run's rows, each once: their state (the keys already seen,
// the rows a later frame holds) is read again after a crash from the
// oldest row still in it, and what a replayed row emitted before is not
// written again. A watermark that fires nothing still moves a partition's
// mark, which commits at the next checkpoint (executor/replay.go's
// through), so that a crash reads again from the newest commit.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/tests/kafkatest"
)

// TestKafkaDedupCrashesExactlyOnce: the first row by event time of each
// key (ROW_NUMBER() … ORDER BY ts ASC … rn = 1): each key's row once, the
// reference's.
func TestKafkaDedupCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	rows := rankRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	scaleOutCrashes(t, "exactly-once", rankJob(t, rows, "k VARCHAR, id BIGINT, ts BIGINT",
		"INSERT INTO results SELECT k, id, ts FROM (\n"+
			"  SELECT k, id, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM readings)\n"+
			"WHERE rn = 1;\n",
		func(byKey map[string][]rankRow) map[string]int {
			want := map[string]int{}
			for k, rs := range byKey {
				want[fmt.Sprintf("%s,%d,%d", k, rs[0].id, rs[0].ts)]++
			}
			return want
		}))
}

// TestKafkaDedupOverViewCrashesExactlyOnce (issue 24 item 5): the first
// row by event time of each lower-cased key over a view that filters and
// projects the topic's stream, planned as one job over the stream (the
// planner's ruleInlineView, its late rows the view's) while processes are
// SIGKILLed: each key's row once, the reference's (each key's first row
// the view keeps).
func TestKafkaDedupOverViewCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders)
	rows := rankRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	scaleOutCrashes(t, "exactly-once", rankJob(t, rows, "u VARCHAR, id BIGINT, ts BIGINT",
		"CREATE VIEW kept AS SELECT LOWER(k) AS u, id, ts FROM readings WHERE v % 5 <> 0;\n"+
			"INSERT INTO results SELECT u, id, ts FROM (\n"+
			"  SELECT u, id, ts, ROW_NUMBER() OVER (PARTITION BY u ORDER BY ts ASC) AS rn FROM kept)\n"+
			"WHERE rn = 1;\n",
		func(byKey map[string][]rankRow) map[string]int {
			want := map[string]int{}
			for k, rs := range byKey {
				for _, r := range rs {
					if r.v%5 != 0 { // the view's WHERE
						want[fmt.Sprintf("%s,%d,%d", strings.ToLower(k), r.id, r.ts)]++
						break
					}
				}
			}
			return want
		}))
}

// TestKafkaOverCrashesExactlyOnce: a running sum over each key's last three
// rows by event time (OVER … ROWS BETWEEN 2 PRECEDING AND CURRENT ROW):
// every input row once, with the reference's sum.
func TestKafkaOverCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	// (a quarter of the rows: each is an output row the check holds, and the
	// test process's peak resident set is what TestStateLimitBoundsRSS's
	// processes start from)
	rows := rankRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000) / 4)
	scaleOutCrashes(t, "exactly-once", rankJob(t, rows, "k VARCHAR, id BIGINT, s BIGINT",
		"INSERT INTO results SELECT k, id, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM readings;\n",
		func(byKey map[string][]rankRow) map[string]int {
			want := map[string]int{}
			for k, rs := range byKey {
				for j, r := range rs {
					s := int64(0)
					for _, x := range rs[max(0, j-2) : j+1] {
						s += x.v
					}
					want[fmt.Sprintf("%s,%d,%d", k, r.id, s)]++
				}
			}
			return want
		}))
}

// TestKafkaDedupLastCrashesExactlyOnce: each key's last row by event time
// (ROW_NUMBER() … ORDER BY ts DESC … rn = 1, an updating Top-N of one row)
// into upsert-kafka keyed by the key: the final table is the reference's,
// and each key's upserts are those of one uninterrupted run, each once.
func TestKafkaDedupLastCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	rows := rankRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	j := rankJobOf(t, rows, true, "k VARCHAR, id BIGINT, ts BIGINT, PRIMARY KEY (k) NOT ENFORCED",
		"INSERT INTO results SELECT k, id, ts FROM (\n"+
			"  SELECT k, id, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM readings)\n"+
			"WHERE rn = 1;\n")
	j.check = func(t *testing.T, outs map[string]string, guarantee string) {
		// one run: a key's row changes at each row whose time is at least
		// the last one's (equal times: the newer row is the last)
		want, changes := map[string]string{}, map[string][]string{}
		last := map[string]int64{}
		for _, r := range rows {
			if l, ok := last[r.k]; ok && r.ts < l {
				continue
			}
			last[r.k] = r.ts
			v := fmt.Sprintf("%s,%d,%d", r.k, r.id, r.ts)
			want[r.k], changes[r.k] = v, append(changes[r.k], v)
		}
		table, seq := applyUpserts(t, kafkatest.ReadAll(t, outs["out"], kafkatest.ReadOptions{ReadCommitted: true}))
		compareTables(t, table, want)
		bad := 0
		for k, c := range changes {
			if !slices.Equal(seq[k], c) {
				if bad++; bad <= 5 {
					t.Errorf("key %s: upserts %q, want one run's %q (a change lost or written twice)", k, seq[k][:min(len(seq[k]), 6)], c[:min(len(c), 6)])
				}
			}
		}
		t.Logf("%d keys, %d keys' upserts differ", len(want), bad)
	}
	scaleOutCrashes(t, "exactly-once", j)
}

// TestKafkaWindowTopNCrashesExactlyOnce: the two rows of largest v per key
// and 1-second TUMBLE window (ROW_NUMBER() OVER (PARTITION BY window_start,
// window_end, k ORDER BY v DESC) over the TVF's rows, rn <= 2): each
// window's top rows once, the reference's (a batch sort of each window's
// rows). The rows of the open windows are read again after a crash from
// the oldest row they rank, and a window that fired before is not written
// again.
func TestKafkaWindowTopNCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	rows := rankRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	scaleOutCrashes(t, "exactly-once", rankJob(t, rows, "ws BIGINT, k VARCHAR, id BIGINT, v BIGINT",
		"INSERT INTO results SELECT window_start, k, id, v FROM (\n"+
			"  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) AS rn\n"+
			"  FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '1' SECOND)))\n"+
			"WHERE rn <= 2;\n",
		func(byKey map[string][]rankRow) map[string]int {
			want := map[string]int{}
			for k, rs := range byKey {
				wins := map[int64][]rankRow{}
				for _, r := range rs {
					ws := r.ts - (r.ts%1000+1000)%1000
					wins[ws] = append(wins[ws], r)
				}
				for ws, w := range wins {
					slices.SortFunc(w, func(a, b rankRow) int { return int(b.v - a.v) }) // (v is distinct: id*7919 mod a prime)
					for _, r := range w[:min(2, len(w))] {
						want[fmt.Sprintf("%d,%s,%d,%d", ws, k, r.id, r.v)]++
					}
				}
			}
			return want
		}))
}

// TestKafkaWindowOverViewCrashesExactlyOnce (issue 24 item 5, issue 23
// item 6): a 1-second TUMBLE count and sum of doubled values per
// lower-cased key over a view that filters and projects the topic's
// stream, keeping its event time, planned as one job over the stream (the
// planner's ruleInlineView; the view's own job would read the topic whole
// and commit no offsets) while processes are SIGKILLed: each window's row
// once, the batch reference's (each key's rows the view keeps, by
// window).
func TestKafkaWindowOverViewCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders)
	rows := rankRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	scaleOutCrashes(t, "exactly-once", rankJob(t, rows, "ws BIGINT, u VARCHAR, n BIGINT, s BIGINT",
		"CREATE VIEW kept AS SELECT LOWER(k) AS u, v * 2 AS v2, ts FROM readings WHERE v % 5 <> 0;\n"+
			"INSERT INTO results SELECT window_start, u, COUNT(*) AS n, SUM(v2) AS s\n"+
			"  FROM TABLE(TUMBLE(TABLE kept, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, u;\n",
		func(byKey map[string][]rankRow) map[string]int {
			type win struct {
				ws int64
				u  string
			}
			n, sum := map[win]int64{}, map[win]int64{}
			for k, rs := range byKey {
				for _, r := range rs {
					if r.v%5 == 0 { // the view's WHERE
						continue
					}
					w := win{r.ts - (r.ts%1000+1000)%1000, strings.ToLower(k)}
					n[w]++
					sum[w] += 2 * r.v
				}
			}
			want := map[string]int{}
			for w, c := range n {
				want[fmt.Sprintf("%d,%s,%d,%d", w.ws, w.u, c, sum[w])]++
			}
			return want
		}))
}

// TestKafkaWindowOverViewWithSidesCrashesExactlyOnce (issue 24 item 5,
// issue 23 item 6): TestKafkaWindowOverViewCrashesExactlyOnce's TUMBLE
// over the view kept, with a side branch over the view that writes the
// view's rows with a doubled value that is a multiple of 3 to another
// topic (SPEC 2.1: the window gets the others), planned as one job over
// the stream (the planner's ruleInlineView and inlineSides) while
// processes are SIGKILLed: each side row and each window's row once, the
// batch reference's.
func TestKafkaWindowOverViewWithSidesCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders)
	rows, j := sideOutputRankJob(t, "ws BIGINT, u VARCHAR, n BIGINT, s BIGINT",
		"CREATE VIEW kept AS SELECT id, LOWER(k) AS u, v * 2 AS v2, ts FROM readings WHERE v % 5 <> 0;\n"+
			"SELECT id, u, v2 INTO STREAM thirds FROM kept WHERE v2 % 3 = 0;\n"+
			"INSERT INTO results SELECT window_start, u, COUNT(*) AS n, SUM(v2) AS s\n"+
			"  FROM TABLE(TUMBLE(TABLE kept, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, u;\n", "thirds", "id BIGINT, u VARCHAR, v2 BIGINT", "CREATE VIEW kept")
	j.check = func(t *testing.T, outs map[string]string, guarantee string) {
		type win struct {
			ws int64
			u  string
		}
		n, sum := map[win]int64{}, map[win]int64{}
		thirds := map[string]int{}
		for _, r := range rows { // (the closing rows too: a side row is written when it is read)
			switch {
			case r.v%5 == 0: // the view's WHERE
			case 2*r.v%3 == 0: // the side branch's (SPEC 2.1: it takes the row)
				thirds[fmt.Sprintf("%d,%s,%d", r.id, strings.ToLower(r.k), 2*r.v)]++
			case !r.closing:
				w := win{r.ts - (r.ts%1000+1000)%1000, strings.ToLower(r.k)}
				n[w]++
				sum[w] += 2 * r.v
			}
		}
		want := map[string]int{}
		for w, c := range n {
			want[fmt.Sprintf("%d,%s,%d,%d", w.ws, w.u, c, sum[w])]++
		}
		compareCounts(t, "windows", readRows(t, outs["out"], true), want, true)
		compareCounts(t, "side rows", readRows(t, outs["thirds"], true), thirds, true)
		t.Logf("%d windows, %d side rows", len(want), len(thirds))
	}
	scaleOutCrashes(t, "exactly-once", j)
}

// TestKafkaWindowTopNBesideSideWindowCrashesExactlyOnce (issue 24 item
// 5.3): a job whose side branch counts the rows with id % 5 = 0 per key and
// 1-second TUMBLE window into one topic, and whose main query keeps the two
// rows of largest v per key and window of the others (a window Top-N) in
// another, both replayed (the TVF's Aggregate passes the rows read again
// into the window Top-N's state, the side's holds them back; the smaller
// hold frontier commits) while processes are SIGKILLed: each window's
// count and top rows once, the batch reference's.
func TestKafkaWindowTopNBesideSideWindowCrashesExactlyOnce(t *testing.T) {
	rows, j := sideOutputRankJob(t, "ws BIGINT, k VARCHAR, id BIGINT, v BIGINT",
		"SELECT window_start, k, COUNT(*) AS n INTO STREAM wins FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE id % 5 = 0 GROUP BY window_start, window_end, k;\n"+
			"INSERT INTO results SELECT window_start, k, id, v FROM (\n"+
			"  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) AS rn\n"+
			"  FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '1' SECOND)))\n"+
			"WHERE rn <= 2;\n", "wins", "ws BIGINT, k VARCHAR, n BIGINT", "SELECT window_start, k, COUNT(*)")
	j.check = func(t *testing.T, outs map[string]string, guarantee string) {
		top, wins := map[string]int{}, map[string]int{}
		for k, rs := range rankByKey(rows) {
			byWin, count := map[int64][]rankRow{}, map[int64]int{}
			for _, r := range rs {
				ws := r.ts - (r.ts%1000+1000)%1000
				if r.id%5 == 0 { // (SPEC 2.1: the side branch takes the rows its WHERE keeps)
					count[ws]++
				} else {
					byWin[ws] = append(byWin[ws], r)
				}
			}
			for ws, n := range count {
				wins[fmt.Sprintf("%d,%s,%d", ws, k, n)]++
			}
			for ws, w := range byWin {
				slices.SortFunc(w, func(a, b rankRow) int { return int(b.v - a.v) })
				for _, r := range w[:min(2, len(w))] {
					top[fmt.Sprintf("%d,%s,%d,%d", ws, k, r.id, r.v)]++
				}
			}
		}
		compareCounts(t, "top rows", readRows(t, outs["out"], true), top, true)
		compareCounts(t, "window counts", readRows(t, outs["wins"], true), wins, true)
		t.Logf("%d top rows, %d window counts", len(top), len(wins))
	}
	scaleOutCrashes(t, "exactly-once", j)
}

// TestKafkaSideBranchDedupCrashesExactlyOnce (issue 23 item 6): a side
// branch keeping the first row by event time of each key among the rows
// with id % 5 = 0 (SPEC 2.1 with 2.9: a deduplication over the rows it
// takes by first match) into one topic, and a main query keeping the first
// of the others into another, both replayed (plan.Job.SideRankReplayed:
// each operator takes the rows read again into its own state; the smaller
// hold frontier commits) while processes are SIGKILLed: each key's two
// rows once, the reference's. Before, the side branch's operator was not
// replayed and the job was refused with an exactly-once sink.
func TestKafkaSideBranchDedupCrashesExactlyOnce(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders)
	rows, j := sideOutputRankJob(t, "k VARCHAR, id BIGINT, ts BIGINT",
		"SELECT k, id, ts INTO STREAM firsts FROM (\n"+
			"  SELECT k, id, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM readings WHERE id % 5 = 0)\n"+
			"WHERE rn = 1;\n"+
			"INSERT INTO results SELECT k, id, ts FROM (\n"+
			"  SELECT k, id, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM readings)\n"+
			"WHERE rn = 1;\n", "firsts", "k VARCHAR, id BIGINT, ts BIGINT", "SELECT k, id, ts INTO STREAM firsts")
	j.check = func(t *testing.T, outs map[string]string, guarantee string) {
		firsts, rest := map[string]int{}, map[string]int{}
		for k, rs := range rankByKey(rows) {
			side, main := false, false
			for _, r := range rs {
				row := fmt.Sprintf("%s,%d,%d", k, r.id, r.ts)
				switch {
				case r.id%5 == 0 && !side: // (SPEC 2.1: the side branch takes the rows its WHERE keeps)
					firsts[row]++
					side = true
				case r.id%5 != 0 && !main:
					rest[row]++
					main = true
				}
			}
		}
		compareCounts(t, "side rows", readRows(t, outs["firsts"], true), firsts, true)
		compareCounts(t, "rows", readRows(t, outs["out"], true), rest, true)
		t.Logf("%d side rows, %d main rows", len(firsts), len(rest))
	}
	scaleOutCrashes(t, "exactly-once", j)
}

// sideOutputRankJob is rankJobOf over STREAMQL_SCALE_ROWS rows (rankRows)
// of the script query with results' columns cols, and a second output, the
// csv Kafka stream name of columns nameCols, declared before the statement
// that starts with before (withKafkaOutput); it returns the rows too.
func sideOutputRankJob(t *testing.T, cols, query, name, nameCols, before string) ([]rankRow, scaleJob) {
	rows := rankRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	j := rankJobOf(t, rows, false, cols, query)
	withKafkaOutput(&j, name, nameCols, before)
	return rows, j
}

// withKafkaOutput gives job a second output, the csv Kafka stream name
// (columns cols, its topic outs[name], the job's sink options), declared
// in its script before the statement that starts with before (as
// withUpsertOutput does an upsert-kafka one).
func withKafkaOutput(job *scaleJob, name, cols, before string) {
	script := job.script
	job.outs = append(job.outs, name)
	job.script = func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
		return rewriteScript(t, script(t, dir, in, outs, group, slot, sink), func(sql string) string {
			at := strings.Index(sql, before)
			return sql[:at] + kafkaStream(t, name, cols, outs[name], ", 'format'='csv'"+sink) + sql[at:]
		})
	}
}

// rankRow is input row id of the event-time rank jobs, on partition id%4.
// Its key k is, for a third of the rows, one of 400 long-lived keys (L…),
// else a short-lived one of 50 rows over 200 ids (S…); every key's rows are
// on one partition (the topic partitioned by the key, SPEC 2.5). Its time
// ts is out of order by up to 490 ms, under the watermark's 1 s delay (no
// row is late); the last row of each partition (closing) is far ahead: it
// moves the watermark past every other row, and stays held.
type rankRow struct {
	id      int
	k       string
	ts, v   int64
	part    int32
	closing bool
}

func rankRows(n int) []rankRow {
	rows := make([]rankRow, n+4)
	for id := range rows {
		r := rankRow{id: id, part: int32(id % 4), v: int64(id) * 7919 % 1_000_003}
		r.ts = int64(10*(id-id*7919%50)) + int64(id%10)
		if id%3 == 0 {
			r.k = fmt.Sprintf("L%d", id%400)
		} else {
			r.k = fmt.Sprintf("S%d", id/200*4+id%4)
		}
		if id >= n {
			r.k, r.ts, r.closing = fmt.Sprintf("C%d", id), 1<<40, true
		}
		rows[id] = r
	}
	return rows
}

// rankJob is the harness's job over rows: the query into stream results
// (cols), done when every partition's replay mark says the outputs of its
// rows are committed up to its end (e) and the watermark fired past every
// row but the closing ones (f); the check compares the output's rows, each
// with its count, to want's over each key's rows in (ts, id) order, the
// closing rows left out.
func rankJob(t *testing.T, rows []rankRow, cols, query string, want func(byKey map[string][]rankRow) map[string]int) scaleJob {
	j := rankJobOf(t, rows, false, cols, query)
	j.check = func(t *testing.T, outs map[string]string, guarantee string) {
		byKey := rankByKey(rows)
		w := want(byKey)
		_, over := compareCounts(t, "rows", readRows(t, outs["out"], true), w, true)
		if len(over) > 0 {
			t.Logf("rows written more than once, where (partition@offset, producer id/epoch):%s", recordsOf(t, outs["out"], true, over))
		}
		t.Logf("%d keys, %d rows expected", len(byKey), len(w))
	}
	return j
}

// rankByKey is each key's rows in (ts, id) order, the closing rows left
// out.
func rankByKey(rows []rankRow) map[string][]rankRow {
	byKey := map[string][]rankRow{}
	for _, r := range rows {
		if !r.closing {
			byKey[r.k] = append(byKey[r.k], r)
		}
	}
	for _, rs := range byKey {
		slices.SortStableFunc(rs, func(a, b rankRow) int {
			if a.ts != b.ts {
				return int(a.ts - b.ts)
			}
			return a.id - b.id
		})
	}
	return byKey
}

// rankJobOf is rankJob without its check; upsert makes results an
// upsert-kafka stream (cols with its PRIMARY KEY), whose job is done once
// the marks' e reach the ends (an updating Top-N has no fire frontier).
func rankJobOf(t *testing.T, rows []rankRow, upsert bool, cols, query string) scaleJob {
	last := int64(0)
	for _, r := range rows {
		if !r.closing {
			last = max(last, r.ts)
		}
	}
	return scaleJob{
		outs: []string{"out"},
		script: func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
			sql := kafkaStream(t, "readings", "id BIGINT, k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", in,
				groupMember(group, slot)) +
				resultsStream(t, upsert, cols, outs["out"], sink) +
				query
			return writeScript(t, dir, slot, sql)
		},
		chunk: func(in string, c, chunks int) []*kgo.Record {
			var rs []*kgo.Record
			for _, r := range rows[c*len(rows)/chunks : (c+1)*len(rows)/chunks] {
				rs = append(rs, &kgo.Record{Topic: in, Partition: r.part, Value: []byte(fmt.Sprintf("%d,%s,%d,%d", r.id, r.k, r.ts, r.v))})
			}
			return rs
		},
		done: func(adm *kadm.Client, group, in string) (bool, error) {
			return marksReach(adm, group, in, !upsert, last+1)
		},
	}
}

// resultsStream is the DDL of the jobs' output stream results over topic:
// Kafka csv, or upsert-kafka with csv key and value; sink holds its
// delivery options.
func resultsStream(t *testing.T, upsert bool, cols, topic, sink string) string {
	if !upsert {
		return kafkaStream(t, "results", cols, topic, ", 'format'='csv'"+sink)
	}
	return fmt.Sprintf("CREATE STREAM results (%s) WITH ('connector'='upsert-kafka', 'topic'='%s', 'properties.bootstrap.servers'='%s', 'key.format'='csv', 'value.format'='csv'%s);\n",
		cols, topic, kafkatest.Brokers(t), sink)
}

// TestKafkaWindowTopNMarkCommitsWithoutFiring: a window Top-N over hour-long
// TUMBLE windows reads rows of the first seconds of the hour: its watermark
// moves with each batch and fires nothing. Before a kill, each partition's
// committed mark reaches its end (e) with the stream's watermark after its
// rows as f (the mark committed although no output was written since), and
// its offset stays at the oldest row the open window ranks. The process is
// SIGKILLed; closing rows far ahead fire the hour; a restarted process reads
// from the committed offsets, and a read_committed reader gets each key's
// two largest values once, the reference's.
func TestKafkaWindowTopNMarkCommitsWithoutFiring(t *testing.T) {
	kafkatest.Brokers(t)
	if testing.Short() {
		t.Skip("runs streamql processes against the broker: not with -short")
	}
	var rows []mrow
	for id := range 800 {
		p := int32(id % 4)
		rows = append(rows, mrow{id, fmt.Sprintf("k%d_%d", p, id/4%10), int64(id) * 10, int64(id) * 7919 % 1_000_003, p})
	}
	closing := []mrow{}
	for p := range int32(4) {
		closing = append(closing, mrow{1000 + int(p), fmt.Sprintf("C%d", p), 1 << 40, 0, p})
	}
	in := kafkatest.CreateTopic(t, 4, nil)
	out := kafkatest.CreateTopic(t, 2, nil)
	group := kafkatest.Name(t, "group")
	dir := t.TempDir()
	q := writeScript(t, dir, "a", kafkaStream(t, "readings", "id BIGINT, k VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", in, groupMember(group, "a"))+
		kafkaStream(t, "results", "ws BIGINT, k VARCHAR, id BIGINT, v BIGINT", out, ", 'format'='csv'"+sinkGuarantee(t, "exactly-once"))+
		"INSERT INTO results SELECT window_start, k, id, v FROM (\n"+
		"  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) AS rn\n"+
		"  FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '1' HOUR)))\n"+
		"WHERE rn <= 2;\n")
	cl := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	adm := kafkatest.Admin(t)
	produce := func(rs []mrow) {
		var recs []*kgo.Record
		for _, r := range rs {
			recs = append(recs, &kgo.Record{Topic: in, Partition: r.p, Value: []byte(fmt.Sprintf("%d,%s,%d,%d", r.id, r.k, r.ts, r.v))})
		}
		ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
		defer cancel()
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	// the stream's watermark after every row: the smallest of the
	// partitions' last times, less the delay
	wm := int64(1 << 62)
	for p := range int32(4) {
		last := int64(0)
		for _, r := range rows {
			if r.p == p {
				last = max(last, r.ts)
			}
		}
		wm = min(wm, last-1000)
	}
	produce(rows)
	c, stderr := startScript(t, q)
	waitMarks(t, adm, group, in, wm, 20*time.Second, stderr.String)
	or, err := adm.FetchOffsetsForTopics(kadm.RequireStable(context.Background()), group, in)
	if err != nil {
		t.Fatal(err)
	}
	top := topTwo(rows)
	or.Each(func(o kadm.OffsetResponse) {
		hold := int64(1 << 62) // (the hour is open: the oldest row of the partition its keys' top two hold, at offset id/4)
		for _, r := range top {
			if r.p == o.Partition {
				hold = min(hold, int64(r.id/4))
			}
		}
		if o.At != hold {
			t.Errorf("partition %d: committed offset %d, want %d, the oldest row the open window ranks", o.Partition, o.At, hold)
		}
	})
	if got := readRows(t, out, true); len(got) != 0 {
		t.Fatalf("the hour fired before its end: %v", got)
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()

	produce(closing)
	c, stderr = startScript(t, q)
	waitMarks(t, adm, group, in, 3_600_000, 20*time.Second, stderr.String)
	stopByTerm(t, c, stderr)
	want := map[string]int{}
	for _, r := range top {
		want[fmt.Sprintf("0,%s,%d,%d", r.k, r.id, r.v)]++
	}
	compareCounts(t, "rows", readRows(t, out, true), want, true)
}

// mrow is a row of TestKafkaWindowTopNMarkCommitsWithoutFiring: id, key,
// time, value and partition (its offset there is id/4).
type mrow struct {
	id    int
	k     string
	ts, v int64
	p     int32
}

// topTwo is the reference: each key's two rows of largest v, by a batch
// sort of its rows.
func topTwo(rows []mrow) []mrow {
	byKey := map[string][]mrow{}
	for _, r := range rows {
		byKey[r.k] = append(byKey[r.k], r)
	}
	var top []mrow
	for _, rs := range byKey {
		slices.SortFunc(rs, func(a, b mrow) int { return int(b.v - a.v) })
		top = append(top, rs[:min(2, len(rs))]...)
	}
	return top
}

// waitMarks waits (at most limit, polling) until the group's committed
// marks of every partition of in say its rows up to its end offset had
// their outputs committed (e) and the stream's watermark reached f at a
// firing while it counted (f >= f).
func waitMarks(t *testing.T, adm *kadm.Client, group, in string, f int64, limit time.Duration, why func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ok, err := marksReach(adm, group, in, true, f)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			fs, _ := markField(adm, group, in, "f=")
			es, _ := emittedTo(adm, group, in)
			t.Fatalf("the group's marks (e %v, f %v) did not reach the input's ends and f=%d within %v (last error %v): %s", es, fs, f, limit, err, why())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
