package tests

// Updating jobs over Kafka that survive SIGKILL (issue 24 item 5; the
// connector package doc's "Updating operators"): an unbounded GROUP BY and
// a Top-N read a 4-partition topic keyed by their grouping (PARTITION BY)
// key in a consumer group and write an upsert-kafka sink exactly-once,
// while the crash harness (kafka_scale_test.go) SIGKILLs and restarts
// processes, adds one and removes one. A read_committed reader of the upsert
// topic, applying upserts and tombstones in offset order, gets the final
// table of a batch reference over the whole input, and every change of one
// uninterrupted run exactly once: none lost, none written twice.

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/tests/kafkatest"
)

// TestKafkaUpdatingGroupByCrashesExactlyOnce: a running COUNT and SUM per
// device (unbounded GROUP BY, SPEC 2.8) into upsert-kafka: the final table
// equals the batch reference, and each device's counts in the topic are
// 1, 2, …, n, each once (every row's change exactly once).
func TestKafkaUpdatingGroupByCrashesExactlyOnce(t *testing.T) {
	t.Parallel()                                         // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	scaleOutCrashes(t, "exactly-once", updGroupByJob(t)) // (it skips without a broker and with -short)
}

// TestKafkaUpdatingTopNCrashesExactlyOnce: the top 3 values per device
// (Top-N without the rank column, SPEC 2.9) into upsert-kafka keyed by
// (device, value): the final table equals the batch reference's top 3, and
// each row that entered the top 3 in one uninterrupted run is written once,
// and deleted (a tombstone) once when it left.
func TestKafkaUpdatingTopNCrashesExactlyOnce(t *testing.T) {
	t.Parallel()                                      // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	scaleOutCrashes(t, "exactly-once", updTopNJob(t)) // (it skips without a broker and with -short)
}

// TestKafkaTopNOverGroupByCrashesExactlyOnce: the two devices of largest
// SUM(v) per region (the device's number mod 4, so each region's devices
// are on one partition: the topic partitioned by the Top-N's PARTITION BY
// key, SPEC 2.5), a Top-N over a subquery's unbounded GROUP BY (one job,
// the planner's ruleFuseRankAgg; both operators replayed from each
// partition's first row that made a group) into upsert-kafka keyed by
// device: the final table equals the batch reference's (sum each device's
// values over the whole input, rank each region's devices).
func TestKafkaTopNOverGroupByCrashesExactlyOnce(t *testing.T) {
	rows := updRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	const query = "INSERT INTO upserts SELECT dev, s FROM (SELECT dev, s, ROW_NUMBER() OVER (PARTITION BY CAST(SUBSTRING(dev, 2) AS BIGINT) % 4 ORDER BY s DESC) AS rn FROM (SELECT dev, SUM(v) AS s FROM readings GROUP BY dev)) WHERE rn <= 2;\n"
	scaleOutCrashes(t, "exactly-once", updJob(t, rows, "dev VARCHAR, s BIGINT, PRIMARY KEY (dev) NOT ENFORCED", query,
		func(t *testing.T, recs []*kgo.Record) {
			sum := map[string]int64{}
			for _, r := range rows {
				sum[r.dev] += r.v
			}
			byRegion := map[int][]string{}
			for d := range sum {
				n, _ := strconv.Atoi(d[1:])
				byRegion[n%4] = append(byRegion[n%4], d)
			}
			want := map[string]string{}
			for _, ds := range byRegion {
				slices.SortFunc(ds, func(a, b string) int { return cmp.Compare(sum[b], sum[a]) })
				for _, d := range ds[:min(2, len(ds))] {
					want[d] = fmt.Sprintf("%s,%d", d, sum[d])
				}
			}
			table, _ := applyUpserts(t, recs)
			compareTables(t, table, want)
			// one uninterrupted run's changes, key by key: each region (one
			// partition) in offset order, each row's -U and +U of its device
			// through the top 2 (a device leaving: its tombstone; entering:
			// its row), as a separately written simulation
			changes := map[string][]string{}
			live := map[int]map[string]int64{}
			top := func(reg int) []string {
				var ds []string
				for d := range live[reg] {
					ds = append(ds, d)
				}
				slices.SortFunc(ds, func(a, b string) int { return cmp.Compare(live[reg][b], live[reg][a]) })
				return ds[:min(2, len(ds))]
			}
			diff := func(before, after []string) {
				for _, d := range before {
					if !slices.Contains(after, d) {
						changes[d] = append(changes[d], "tombstone")
					}
				}
				for _, d := range after {
					if !slices.Contains(before, d) {
						changes[d] = append(changes[d], fmt.Sprintf("%s,%d", d, live[d2reg(d)][d]))
					}
				}
			}
			run := map[string]int64{}
			for _, r := range rows {
				reg := d2reg(r.dev)
				if live[reg] == nil {
					live[reg] = map[string]int64{}
				}
				if _, ok := run[r.dev]; ok { // -U: the old row leaves
					before := top(reg)
					delete(live[reg], r.dev)
					diff(before, top(reg))
				}
				run[r.dev] += r.v
				before := top(reg)
				live[reg][r.dev] = run[r.dev]
				diff(before, top(reg))
			}
			got := map[string][]string{}
			for _, r := range recs {
				v := "tombstone"
				if r.Value != nil {
					v = string(r.Value)
				}
				got[string(r.Key)] = append(got[string(r.Key)], v)
			}
			for d, c := range changes {
				if !slices.Equal(got[d], c) {
					k := 0
					for k < min(len(c), len(got[d])) && c[k] == got[d][k] {
						k++
					}
					t.Errorf("device %s: %d records, one run writes %d; first difference at %d: %q, want %q", d, len(got[d]), len(c), k, got[d][k:min(k+3, len(got[d]))], c[k:min(k+3, len(c))])
				}
			}
			t.Logf("%d devices in the top 2 of their regions, %d upsert records", len(want), len(recs))
		}))
}

// TestKafkaTopNOverGroupByCalcCrashesExactlyOnce (issue 24 item 5.1): the
// query over a Top-N of a subquery's GROUP BY with a HAVING, a condition
// beside the rank's bound and an expression in its select list, fused into
// one job (the planner's ruleFuseRankCalc: a Filter and a Project after
// the Rank, over the groups' Top-N), into upsert-kafka keyed by device
// while processes are SIGKILLed: the final table equals the batch
// reference's (each device's final sum and max, the devices HAVING keeps
// ranked per region, the top 2 kept when the condition holds, the sum
// doubled). A change whose new row fails the condition is a -U alone,
// which the upsert sink writes as its key's tombstone.
func TestKafkaTopNOverGroupByCalcCrashesExactlyOnce(t *testing.T) {
	rows := updRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	const query = "INSERT INTO upserts SELECT dev, s * 2 AS s2 FROM (SELECT dev, s, ROW_NUMBER() OVER (PARTITION BY CAST(SUBSTRING(dev, 2) AS BIGINT) % 4 ORDER BY s DESC) AS rn FROM (SELECT dev, SUM(v) AS s FROM readings GROUP BY dev HAVING MAX(v) % 2 = 0)) WHERE rn <= 2 AND s % 3 <> 0;\n"
	scaleOutCrashes(t, "exactly-once", updJob(t, rows, "dev VARCHAR, s2 BIGINT, PRIMARY KEY (dev) NOT ENFORCED", query,
		func(t *testing.T, recs []*kgo.Record) {
			sum, top := map[string]int64{}, map[string]int64{}
			for _, r := range rows {
				sum[r.dev] += r.v
				top[r.dev] = max(top[r.dev], r.v)
			}
			byRegion := map[int][]string{}
			for d := range sum {
				if top[d]%2 == 0 { // HAVING
					byRegion[d2reg(d)] = append(byRegion[d2reg(d)], d)
				}
			}
			want := map[string]string{}
			for _, ds := range byRegion {
				slices.SortFunc(ds, func(a, b string) int { return cmp.Compare(sum[b], sum[a]) })
				for _, d := range ds[:min(2, len(ds))] {
					if sum[d]%3 != 0 { // the condition beside the rank
						want[d] = fmt.Sprintf("%s,%d", d, sum[d]*2)
					}
				}
			}
			if len(want) == 0 {
				t.Fatal("the reference's table is empty: the test checks nothing")
			}
			table, _ := applyUpserts(t, recs)
			compareTables(t, table, want)
			t.Logf("%d devices in the final table, %d upsert records", len(want), len(recs))
		}))
}

// TestKafkaTopNOverViewCrashesExactlyOnce (issue 24 item 5.2): the top 3
// doubled values per device of a view that filters and projects the
// topic's stream, planned as one job over the stream (the planner's
// ruleInlineView; a view's own jobs read the topic whole and commit no
// offsets), into upsert-kafka keyed by (device, value) while processes are
// SIGKILLed: the final table equals the batch reference's (each device's
// rows the view keeps, sorted, the top 3).
func TestKafkaTopNOverViewCrashesExactlyOnce(t *testing.T) {
	rows := updRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	const query = "CREATE VIEW kept AS SELECT id, dev, v * 2 AS v2 FROM readings WHERE v % 5 <> 0;\n" +
		"INSERT INTO upserts SELECT dev, v2, id FROM (SELECT id, dev, v2, ROW_NUMBER() OVER (PARTITION BY dev ORDER BY v2 DESC) AS rn FROM kept) WHERE rn <= 3;\n"
	scaleOutCrashes(t, "exactly-once", updJob(t, rows, "dev VARCHAR, v2 BIGINT, id BIGINT, PRIMARY KEY (dev, v2) NOT ENFORCED", query,
		func(t *testing.T, recs []*kgo.Record) {
			byDev := map[string][]updRow{}
			for _, r := range rows {
				if r.v%5 != 0 { // the view's WHERE
					byDev[r.dev] = append(byDev[r.dev], r)
				}
			}
			want := map[string]string{}
			for d, rs := range byDev {
				slices.SortFunc(rs, func(a, b updRow) int { return cmp.Compare(b.v, a.v) })
				for _, r := range rs[:min(3, len(rs))] {
					want[fmt.Sprintf("%s,%d", d, 2*r.v)] = fmt.Sprintf("%s,%d,%d", d, 2*r.v, r.id)
				}
			}
			table, _ := applyUpserts(t, recs)
			compareTables(t, table, want)
			t.Logf("%d rows in the final table, %d upsert records", len(want), len(recs))
		}))
}

// TestKafkaGroupByOverViewCrashesExactlyOnce (issue 24 item 5): the running
// count and sum of doubled values per device of a view that filters and
// projects the topic's stream, planned as one job over the stream (the
// planner's ruleInlineView), into upsert-kafka keyed by device while
// processes are SIGKILLed: the final table equals the batch reference's
// (each device's rows the view keeps, counted and summed).
func TestKafkaGroupByOverViewCrashesExactlyOnce(t *testing.T) {
	scaleOutCrashes(t, "exactly-once", keptGroupByJob(t))
}

// TestKafkaGroupByOverTimelessViewCrashesExactlyOnce (issue 24 item 5.3):
// TestKafkaGroupByOverViewCrashesExactlyOnce with a WATERMARK on the
// topic's stream, which the view drops: the aggregate is still one job over
// the stream (ruleInlineView; its groups' TTL would keep processing time,
// plan.Aggregate.ProcTimeTTL), its groups stamped with the stream's
// watermark for the replay's frontiers, and the final table equals the
// batch reference's while processes are SIGKILLed.
func TestKafkaGroupByOverTimelessViewCrashesExactlyOnce(t *testing.T) {
	job := keptGroupByJob(t)
	script := job.script
	job.script = func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
		return rewriteScript(t, script(t, dir, in, outs, group, slot, sink), func(sql string) string {
			return strings.Replace(sql, "id BIGINT, dev VARCHAR, v BIGINT)", "id BIGINT, dev VARCHAR, v BIGINT, WATERMARK FOR id AS id - 1000)", 1)
		})
	}
	scaleOutCrashes(t, "exactly-once", job)
}

// keptGroupByJob is the running count and sum of doubled values per device
// of the view kept (it filters and projects readings, dropping id) and its
// batch reference.
func keptGroupByJob(t *testing.T) scaleJob {
	rows := updRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	const query = "CREATE VIEW kept AS SELECT UPPER(dev) AS d, v * 2 AS v2 FROM readings WHERE v % 5 <> 0;\n" +
		"INSERT INTO upserts SELECT d, COUNT(*) AS n, SUM(v2) AS s FROM kept WHERE v2 % 3 <> 1 GROUP BY d;\n"
	return updJob(t, rows, "d VARCHAR, n BIGINT, s BIGINT, PRIMARY KEY (d) NOT ENFORCED", query,
		func(t *testing.T, recs []*kgo.Record) {
			n, sum := map[string]int64{}, map[string]int64{}
			for _, r := range rows {
				if v2 := 2 * r.v; r.v%5 != 0 && v2%3 != 1 { // the view's WHERE, the query's
					d := strings.ToUpper(r.dev)
					n[d]++
					sum[d] += v2
				}
			}
			want := map[string]string{}
			for d := range n {
				want[d] = fmt.Sprintf("%s,%d,%d", d, n[d], sum[d])
			}
			if len(want) == 0 {
				t.Fatal("the reference's table is empty: the test checks nothing")
			}
			table, _ := applyUpserts(t, recs)
			compareTables(t, table, want)
			t.Logf("%d devices in the final table, %d upsert records", len(want), len(recs))
		})
}

// TestKafkaTopNBesideSideGroupByCrashesExactlyOnce (issue 24 item 5.3): a
// job whose side branch counts each device's rows with v % 3 = 0 (an
// unbounded GROUP BY) into one upsert-kafka topic and whose main query
// keeps the top 3 values per device of the other rows (a Top-N) into
// another, both replayed (plan.Job.RankBesideAggs: the commit is the
// smaller hold frontier, each operator takes the rows read again into its
// own state) while processes are SIGKILLed: each topic's final table
// equals its batch reference's.
func TestKafkaTopNBesideSideGroupByCrashesExactlyOnce(t *testing.T) {
	rows := updRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	job := updJob(t, rows, "dev VARCHAR, v BIGINT, id BIGINT, PRIMARY KEY (dev, v) NOT ENFORCED",
		"SELECT dev, COUNT(*) AS n INTO STREAM counts FROM readings WHERE v % 3 = 0 GROUP BY dev;\n"+
			"INSERT INTO upserts SELECT dev, v, id FROM (SELECT id, dev, v, ROW_NUMBER() OVER (PARTITION BY dev ORDER BY v DESC) AS rn FROM readings) WHERE rn <= 3;\n",
		nil)
	withUpsertOutput(&job, "counts", "dev VARCHAR, n BIGINT, PRIMARY KEY (dev) NOT ENFORCED", "SELECT dev, COUNT(*)")
	job.check = func(t *testing.T, outs map[string]string, guarantee string) {
		n := map[string]int64{}
		byDev := map[string][]updRow{}
		for _, r := range rows {
			if r.v%3 == 0 { // the side branch's rows (SPEC 2.1: the first branch whose WHERE holds takes the row)
				n[r.dev]++
			} else {
				byDev[r.dev] = append(byDev[r.dev], r)
			}
		}
		wantCounts := map[string]string{}
		for d, c := range n {
			wantCounts[d] = fmt.Sprintf("%s,%d", d, c)
		}
		wantTop := map[string]string{}
		for d, rs := range byDev {
			slices.SortFunc(rs, func(a, b updRow) int { return cmp.Compare(b.v, a.v) })
			for _, r := range rs[:min(3, len(rs))] {
				wantTop[fmt.Sprintf("%s,%d", d, r.v)] = fmt.Sprintf("%s,%d,%d", d, r.v, r.id)
			}
		}
		compareUpsertTables(t, outs, map[string]map[string]string{"counts": wantCounts, "upserts": wantTop})
		t.Logf("%d devices counted, %d rows in the top 3s", len(wantCounts), len(wantTop))
	}
	scaleOutCrashes(t, "exactly-once", job)
}

// TestKafkaTopNOverGroupByWithSideCrashesExactlyOnce (issue 24 item 5.1): a
// view sums each device's values; a side branch over it writes the groups
// whose sum is a multiple of 3 to one upsert-kafka topic, and the main
// query keeps the two devices of largest sum per region among the others
// (a Top-N over the view's unbounded GROUP BY) in another. One job over
// the stream in which each branch computes the GROUP BY and routes its
// changes by first match (plan.Job.Fanout, the planner's
// ruleFuseRankAggSides), replayed while processes are SIGKILLed: a
// change that moves a device from one branch to the other is a -U (a
// tombstone) in one topic and a +U in the other, and each topic's final
// table equals its batch reference's (sum each device's values over the
// whole input; the side's devices, and each region's top 2 of the rest).
func TestKafkaTopNOverGroupByWithSideCrashesExactlyOnce(t *testing.T) {
	sumsWithThirdsCrashes(t, "INSERT INTO upserts SELECT dev, s FROM (SELECT dev, s, ROW_NUMBER() OVER (PARTITION BY CAST(SUBSTRING(dev, 2) AS BIGINT) % 4 ORDER BY s DESC) AS rn FROM sums) WHERE rn <= 2;\n",
		func(sum map[string]int64, rest []string) map[string]string {
			byRegion := map[int][]string{}
			for _, d := range rest {
				byRegion[d2reg(d)] = append(byRegion[d2reg(d)], d)
			}
			want := map[string]string{}
			for _, ds := range byRegion {
				slices.SortFunc(ds, func(a, b string) int { return cmp.Compare(sum[b], sum[a]) })
				for _, d := range ds[:min(2, len(ds))] {
					want[d] = fmt.Sprintf("%s,%d", d, sum[d])
				}
			}
			return want
		})
}

// TestKafkaViewGroupByWithSideCrashesExactlyOnce (issue 24 item 5.1):
// TestKafkaTopNOverGroupByWithSideCrashesExactlyOnce with a main query that
// writes the view's other rows as they are (no Top-N): its final table
// holds each device whose sum is not a multiple of 3, with that sum.
func TestKafkaViewGroupByWithSideCrashesExactlyOnce(t *testing.T) {
	sumsWithThirdsCrashes(t, "INSERT INTO upserts SELECT dev, s FROM sums;\n",
		func(sum map[string]int64, rest []string) map[string]string {
			want := map[string]string{}
			for _, d := range rest {
				want[d] = fmt.Sprintf("%s,%d", d, sum[d])
			}
			return want
		})
}

// sumsWithThirdsCrashes runs the crash harness over a job whose view sums
// each device's values, whose side branch writes the devices with a sum
// that is a multiple of 3 to the upsert topic thirds, and whose main query
// (main, over the view sums) writes upserts, and compares each topic's
// final table with its batch reference's: for upserts, wantMain's of the
// whole input's sums and the devices the side does not take (rest).
func sumsWithThirdsCrashes(t *testing.T, main string, wantMain func(sum map[string]int64, rest []string) map[string]string) {
	rows := updRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	job := updJob(t, rows, "dev VARCHAR, s BIGINT, PRIMARY KEY (dev) NOT ENFORCED",
		"CREATE VIEW sums AS SELECT dev, SUM(v) AS s, COUNT(*) AS n FROM readings GROUP BY dev;\n"+
			"SELECT dev, s, n INTO STREAM thirds FROM sums WHERE s % 3 = 0;\n"+main, nil)
	withUpsertOutput(&job, "thirds", "dev VARCHAR, s BIGINT, n BIGINT, PRIMARY KEY (dev) NOT ENFORCED", "CREATE VIEW sums")
	job.check = func(t *testing.T, outs map[string]string, guarantee string) {
		sum, n := map[string]int64{}, map[string]int64{}
		for _, r := range rows {
			sum[r.dev] += r.v
			n[r.dev]++
		}
		wantThirds := map[string]string{}
		var rest []string
		for d, s := range sum {
			if s%3 == 0 { // the side branch's rows (SPEC 2.1: the first branch whose WHERE holds takes the row)
				wantThirds[d] = fmt.Sprintf("%s,%d,%d", d, s, n[d])
				continue
			}
			rest = append(rest, d)
		}
		want := wantMain(sum, rest)
		if len(want) == 0 {
			t.Fatal("the reference's main table is empty: the test checks nothing")
		}
		compareUpsertTables(t, outs, map[string]map[string]string{"thirds": wantThirds, "upserts": want})
		t.Logf("%d devices with a sum that is a multiple of 3, %d in the main table", len(wantThirds), len(want))
	}
	scaleOutCrashes(t, "exactly-once", job)
}

// withUpsertOutput gives job a second output, the upsert-kafka stream name
// (columns cols, its topic outs[name], the job's sink options), declared in
// its script before the statement that starts with before.
func withUpsertOutput(job *scaleJob, name, cols, before string) {
	script := job.script
	job.outs = append(job.outs, name)
	job.script = func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
		ddl := fmt.Sprintf("CREATE STREAM %s (%s) WITH ('connector'='upsert-kafka', 'topic'='%s', 'properties.bootstrap.servers'='%s', 'key.format'='csv', 'value.format'='csv'%s);\n",
			name, cols, outs[name], kafkatest.Brokers(t), sink)
		return rewriteScript(t, script(t, dir, in, outs, group, slot, sink), func(sql string) string {
			at := strings.Index(sql, before)
			return sql[:at] + ddl + sql[at:]
		})
	}
}

// compareUpsertTables reads each output named in want read_committed
// (its topic outs[name]), applies its upserts and tombstones in offset
// order and compares the final table with want[name].
func compareUpsertTables(t *testing.T, outs map[string]string, want map[string]map[string]string) {
	t.Helper()
	for name, w := range want {
		table, _ := applyUpserts(t, kafkatest.ReadAll(t, outs[name], kafkatest.ReadOptions{ReadCommitted: true}))
		compareTables(t, table, w)
	}
}

// rewriteScript rewrites the script at path with edit and returns path.
func rewriteScript(t *testing.T, path string, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// d2reg is device d's region: its number mod 4 (TestKafkaTopNOverGroupByCrashesExactlyOnce).
func d2reg(d string) int {
	n, _ := strconv.Atoi(d[1:])
	return n % 4
}

// updRow is input row id of the updating jobs: device d<id%16> on partition
// id%4 (so each device is on one partition: the topic partitioned by the
// key, SPEC 2.5), and a value unique per row, in no order.
type updRow struct {
	id   int
	dev  string
	v    int64
	part int32
}

func updRows(n int) []updRow {
	rows := make([]updRow, n)
	for id := range rows {
		rows[id] = updRow{id: id, dev: fmt.Sprintf("d%d", id%16), v: int64(id) * 7919 % 1_000_003, part: int32(id % 4)}
	}
	return rows
}

// updJob is the harness's job over updRows: chunks of the input in id order,
// done when every partition's replay mark says the outputs of its rows up to
// its end are committed (the committed offsets stay at each partition's
// first row: the updating state is rebuilt by reading from there).
func updJob(t *testing.T, rows []updRow, sinkCols, query string, check func(t *testing.T, recs []*kgo.Record)) scaleJob {
	return scaleJob{
		outs: []string{"upserts"},
		script: func(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
			sql := kafkaStream(t, "readings", "id BIGINT, dev VARCHAR, v BIGINT", in,
				groupMember(group, slot)) +
				fmt.Sprintf("CREATE STREAM upserts (%s) WITH ('connector'='upsert-kafka', 'topic'='%s', 'properties.bootstrap.servers'='%s', 'key.format'='csv', 'value.format'='csv'%s);\n",
					sinkCols, outs["upserts"], kafkatest.Brokers(t), sink) +
				query
			return writeScript(t, dir, slot, sql)
		},
		chunk: func(in string, c, chunks int) []*kgo.Record {
			var rs []*kgo.Record
			for _, r := range rows[c*len(rows)/chunks : (c+1)*len(rows)/chunks] {
				rs = append(rs, &kgo.Record{Topic: in, Partition: r.part, Value: []byte(fmt.Sprintf("%d,%s,%d", r.id, r.dev, r.v))})
			}
			return rs
		},
		done: func(adm *kadm.Client, group, in string) (bool, error) {
			return marksReach(adm, group, in, false, 0)
		},
		check: func(t *testing.T, outs map[string]string, guarantee string) {
			check(t, kafkatest.ReadAll(t, outs["upserts"], kafkatest.ReadOptions{ReadCommitted: true}))
		},
	}
}

// updGroupByJob is the running count and sum per device.
func updGroupByJob(t *testing.T) scaleJob {
	rows := updRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	return updJob(t, rows, "dev VARCHAR, n BIGINT, s BIGINT, PRIMARY KEY (dev) NOT ENFORCED",
		"INSERT INTO upserts SELECT dev, COUNT(*) AS n, SUM(v) AS s FROM readings GROUP BY dev;\n",
		func(t *testing.T, recs []*kgo.Record) {
			// the reference: a batch group-by over the whole input
			n, s := map[string]int64{}, map[string]int64{}
			for _, r := range rows {
				n[r.dev]++
				s[r.dev] += r.v
			}
			want := map[string]string{}
			for d := range n {
				want[d] = fmt.Sprintf("%s,%d,%d", d, n[d], s[d])
			}
			table, seq := applyUpserts(t, recs)
			compareTables(t, table, want)
			// every row's change once, in order: each device's counts 1..n
			for d, vals := range seq {
				for k, v := range vals {
					f := strings.Split(v, ",")
					if len(f) != 3 || f[1] != strconv.Itoa(k+1) {
						t.Errorf("device %s: change %d of the topic is %q, want count %d (a change lost or written twice; first changes %q)", d, k+1, v, k+1, vals[:min(len(vals), k+2)])
						break
					}
				}
			}
			t.Logf("%d devices, %d upsert records", len(want), len(recs))
		})
}

// updTopNJob is the top 3 values per device.
func updTopNJob(t *testing.T) scaleJob {
	rows := updRows(envInt(t, "STREAMQL_SCALE_ROWS", 200_000))
	return updJob(t, rows, "dev VARCHAR, v BIGINT, id BIGINT, PRIMARY KEY (dev, v) NOT ENFORCED",
		"INSERT INTO upserts SELECT dev, v, id FROM (\n"+
			"  SELECT id, dev, v, ROW_NUMBER() OVER (PARTITION BY dev ORDER BY v DESC) AS rn FROM readings)\n"+
			"WHERE rn <= 3;\n",
		func(t *testing.T, recs []*kgo.Record) {
			// the reference's final table: a batch sort of each device's values
			byDev := map[string][]updRow{}
			for _, r := range rows {
				byDev[r.dev] = append(byDev[r.dev], r)
			}
			want := map[string]string{}
			for d, rs := range byDev {
				slices.SortFunc(rs, func(a, b updRow) int { return int(b.v - a.v) })
				for _, r := range rs[:min(3, len(rs))] {
					want[fmt.Sprintf("%s,%d", d, r.v)] = fmt.Sprintf("%s,%d,%d", d, r.v, r.id)
				}
			}
			table, seq := applyUpserts(t, recs)
			compareTables(t, table, want)
			// the changes of one run: a row enters the top 3 when its value
			// beats its device's third best before it, and leaves when
			// three better ones came after it
			entered := map[string]bool{}
			best := map[string][]int64{}
			for _, r := range rows {
				b := best[r.dev]
				if len(b) < 3 || r.v > b[len(b)-1] {
					entered[fmt.Sprintf("%s,%d", r.dev, r.v)] = true
					b = append(b, r.v)
					slices.SortFunc(b, func(x, y int64) int { return int(y - x) })
					best[r.dev] = b[:min(3, len(b))]
				}
			}
			tomb := map[string]int{}
			for _, r := range recs {
				if r.Value == nil {
					tomb[string(r.Key)]++
				}
			}
			for k := range entered {
				if n := len(seq[k]); n != 1 {
					t.Errorf("row %s entered the top 3 once in one run: written %d times", k, n)
				}
				_, kept := want[k]
				if left := tomb[k]; kept && left != 0 || !kept && left != 1 {
					t.Errorf("row %s: %d tombstones (in the final top 3: %v)", k, left, kept)
				}
			}
			for k := range seq {
				if !entered[k] {
					t.Errorf("row %s written, but it never entered the top 3", k)
				}
			}
			t.Logf("%d rows entered the top 3, %d upsert records", len(entered), len(recs))
		})
}

// applyUpserts applies an upsert topic's records (sorted by partition and
// offset, so each key's in order) as a reader of the table does: a value
// sets its key's row, a tombstone (null value) deletes it. It returns the
// table and, per key, the values written in order.
func applyUpserts(t *testing.T, recs []*kgo.Record) (table map[string]string, seq map[string][]string) {
	t.Helper()
	table, seq = map[string]string{}, map[string][]string{}
	for _, r := range recs {
		k := string(r.Key)
		if r.Value == nil {
			delete(table, k)
			continue
		}
		table[k] = string(r.Value)
		seq[k] = append(seq[k], string(r.Value))
	}
	return table, seq
}

// compareTables reports the keys whose rows differ between the table read
// and the reference's.
func compareTables(t *testing.T, got, want map[string]string) {
	t.Helper()
	var diff []string
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			diff = append(diff, fmt.Sprintf("%s: got %q, want %q", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: got %q, not in the reference", k, g))
		}
	}
	slices.Sort(diff)
	if len(diff) > 0 {
		t.Errorf("the upsert topic's final table differs from the batch reference in %d keys:\n%s", len(diff), strings.Join(diff[:min(10, len(diff))], "\n"))
	}
}
