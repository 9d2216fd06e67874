package tests

// The stateful query shapes over Kafka in a consumer group whose state no
// replay rebuilds after a crash or a partition move (plan.Job.Unreplayed;
// the connector package doc's replay protocol, SPEC 2.5): with an
// 'exactly-once' sink the job is refused before it starts (exit 2), naming
// the operator and saying what to do, since its result after a restart
// would not be one uninterrupted run's; with an 'at-least-once' sink it
// runs, saying so on stderr when it starts, and EXPLAIN's strategy says
// "not replayed" (SPEC 4). The shapes
// that are replayed plan with an exactly-once sink and say "replayed".
// Planning only: no broker is reached.

import (
	"fmt"
	"strings"
	"testing"

	"streamql/tests/kafkatest"
)

// TestUnreplayedStateRefusedExactlyOnce: each kind of state a crash loses,
// refused with an exactly-once sink, explained with an at-least-once one.
func TestUnreplayedStateRefusedExactlyOnce(t *testing.T) {
	kafka := func(name, cols, extra string) string {
		return fmt.Sprintf("CREATE STREAM %s (%s) WITH ('connector'='kafka', 'topic'='%s', 'properties.bootstrap.servers'='127.0.0.1:9', 'format'='csv'%s);\n", name, cols, name, extra)
	}
	group := ", 'properties.group.id'='g'"
	ddl := func(guarantee string) string {
		sink := ", 'sink.delivery-guarantee'='" + guarantee + "'"
		if guarantee == "exactly-once" {
			sink += ", 'sink.transactional-id-prefix'='t'"
		}
		upsert := func(name, cols string) string {
			return fmt.Sprintf("CREATE STREAM %s (%s) WITH ('connector'='upsert-kafka', 'topic'='%s', 'properties.bootstrap.servers'='127.0.0.1:9', 'key.format'='json', 'value.format'='json'%s);\n", name, cols, name, sink)
		}
		return kafka("sensors", "deviceNo VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", group) +
			kafka("events", "deviceNo VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND", group) +
			kafka("plain", "deviceNo VARCHAR, v BIGINT", group) +
			strings.Replace(kafka("tagged", "deviceNo VARCHAR, tags ARRAY<VARCHAR>", group), "'csv'", "'json'", 1) +
			kafka("rates", "deviceNo VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts, PRIMARY KEY (deviceNo) NOT ENFORCED", group) +
			"CREATE STREAM allowed (deviceNo VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='1', 'format'='csv');\n" +
			"CREATE STREAM devices (deviceNo VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='devices.csv', 'format'='csv');\n" +
			"CREATE VIEW recent AS SELECT deviceNo, v FROM sensors WHERE v > 0;\n" +
			"CREATE VIEW recent_ts AS SELECT UPPER(deviceNo) AS d, v * 2 AS v2, ts FROM sensors WHERE v > 0;\n" +
			"CREATE VIEW versioned AS SELECT s.deviceNo, s.ts, r.v FROM sensors s JOIN rates FOR SYSTEM_TIME AS OF s.ts AS r ON s.deviceNo = r.deviceNo;\n" +
			"CREATE VIEW rjoined AS SELECT e.deviceNo, e.ts, s.v FROM sensors s RIGHT JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND;\n" +
			"CREATE VIEW joined AS SELECT s.deviceNo, s.ts, e.v FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND;\n" +
			"CREATE VIEW joined_w AS SELECT window_start, window_end, deviceNo, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;\n" +
			strings.Replace(upsert("rates_cdc", "deviceNo VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts, PRIMARY KEY (deviceNo) NOT ENFORCED"), sink, group, 1) +
			kafka("rows_out", "deviceNo VARCHAR, v BIGINT", sink) +
			upsert("counts_out", "deviceNo VARCHAR, n BIGINT, PRIMARY KEY (deviceNo) NOT ENFORCED") +
			upsert("top_out", "deviceNo VARCHAR, n BIGINT, PRIMARY KEY (deviceNo) NOT ENFORCED") +
			"CREATE VIEW dev_counts AS SELECT deviceNo, COUNT(*) AS n FROM sensors GROUP BY deviceNo;\n"
	}
	windowTopN := "INSERT INTO rows_out SELECT deviceNo, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, deviceNo ORDER BY v DESC) AS rn FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 2;"
	refused := []struct{ name, pre, query, op, why string }{
		{"temporal join over an upsert-kafka stream", "", "INSERT INTO rows_out SELECT s.deviceNo, r.v FROM sensors s JOIN rates_cdc FOR SYSTEM_TIME AS OF s.ts AS r ON s.deviceNo = r.deviceNo;",
			"the temporal join", "input r is not a Kafka stream in a consumer group"},
		{"regular join without event time", "", "INSERT INTO rows_out SELECT s.deviceNo, p.v FROM sensors s JOIN plain p ON s.deviceNo = p.deviceNo;",
			"the regular join", "input p has no event time (WATERMARK)"},
		{"aggregate after a LEFT regular join", "", "INSERT INTO counts_out SELECT s.deviceNo, COUNT(*) AS n FROM sensors s LEFT JOIN events e ON s.deviceNo = e.deviceNo GROUP BY s.deviceNo;",
			"the regular join", "only an updating GROUP BY or global aggregate"},
		{"aggregate after a lookup join", "", "INSERT INTO counts_out SELECT s.deviceNo, COUNT(*) AS n FROM sensors s JOIN devices d ON s.deviceNo = d.deviceNo GROUP BY s.deviceNo;",
			"the lookup join", "an aggregate or Top-N follows the join"},
		{"aggregate over CROSS JOIN UNNEST", "", "INSERT INTO counts_out SELECT deviceNo, COUNT(*) AS n FROM tagged CROSS JOIN UNNEST(tags) AS t (tag) GROUP BY deviceNo;",
			"the state over CROSS JOIN UNNEST of tagged", "not replayed yet"},
		{"UNION ALL", "", "INSERT INTO rows_out SELECT deviceNo, v FROM sensors WHERE v > 0 UNION ALL SELECT deviceNo, v FROM events;",
			"the subquery, view or WITH relation", "its streams are read whole, committing no offsets"},
		// a relation over a join of two streams of the group, read by a
		// query planned apart from it (not ruleFuseJoinWindow's shape): its
		// part reads the streams whole (plan.Derived.Group) and commits
		// nothing, so the state over it is lost
		// a window over a join view beside side branches, and a cascaded
		// window over a window of a join: not fused, said why (issue 23
		// item 6, plan.Derived.joinWindowWhy)
		// (a side branch's GROUP BY is replayed with the window: below;
		// a mini-batch one, whose changes depend on the batches, is not)
		{"window over a join view beside a side branch's mini-batch GROUP BY", "SET 'table.exec.mini-batch.enabled' = 'true';\nSELECT deviceNo, COUNT(*) AS n INTO STREAM counts_out FROM joined GROUP BY deviceNo;\n",
			"INSERT INTO rows_out SELECT deviceNo, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;",
			"the Aggregate, Aggregate over joined", "replayed beside side branches only when each filters and projects the joined rows or aggregates them"},
		{"window over a join view beside a side branch's event-time semi join", "SELECT j.deviceNo, j.v AS n INTO STREAM counts_out FROM joined j SEMI JOIN allowed a ON j.deviceNo = a.deviceNo;\n",
			"INSERT INTO rows_out SELECT deviceNo, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;",
			"the Join, Aggregate over joined", "a side branch's own join"},
		{"cascaded window over a window of a join", "", "INSERT INTO rows_out SELECT deviceNo, SUM(n) AS v FROM joined_w GROUP BY window_start, window_end, deviceNo;",
			"the Aggregate over joined_w", "a cascaded window over it is not replayed"},
		{"aggregate over a join view", "", "INSERT INTO counts_out SELECT deviceNo, COUNT(*) AS n FROM joined GROUP BY deviceNo;",
			"the Aggregate over joined", "subquery, view or WITH relation"},
		{"Top-N over a join subquery", "", "INSERT INTO counts_out SELECT deviceNo, v AS n FROM (SELECT deviceNo, v, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY v DESC) AS rn FROM (SELECT s.deviceNo, e.v FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND)) WHERE rn <= 1;",
			"the Rank over subquery", "subquery, view or WITH relation"},
		// a join input routed through the side branches pending on its
		// stream (SPEC 2.1) is a relation whose part reads the stream
		// whole: not replayed yet, and said so (not "not a Kafka stream in
		// a consumer group", which it is)
		{"join of a stream with pending side branches", "SELECT deviceNo, v AS n INTO STREAM counts_out FROM sensors WHERE v > 100;\n",
			"INSERT INTO rows_out SELECT s.deviceNo, e.v FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND;",
			"the interval join", "input s is read through the side branches pending on sensors (SPEC 2.1), by a part that reads sensors whole in every process and commits nothing: a join input routed through side branches is not replayed yet; run the side branches"},
		// a window join's inputs are windowed relations of their own
		// (issue 23 item 6): not replayed, and so neither is a window over
		// its rows
		{"window join", "", "INSERT INTO rows_out SELECT l.deviceNo, l.v FROM (SELECT * FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND))) l JOIN (SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))) r ON l.deviceNo = r.deviceNo AND l.window_start = r.window_start AND l.window_end = r.window_end;",
			"the window join", "a window join is not replayed yet: its inputs l and r are windowed relations of their own"},
		{"join view read as it is", "", "INSERT INTO rows_out SELECT deviceNo, v FROM joined;",
			"the subquery, view or WITH relation joined", "its streams are read whole"},
		{"event-time semi join and a window aggregate", "", "INSERT INTO rows_out SELECT s.deviceNo, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND)) s SEMI JOIN allowed a ON s.deviceNo = a.deviceNo GROUP BY window_start, window_end, s.deviceNo;",
			"the event-time join of main", "the job aggregates too"},
	}
	for _, c := range refused {
		_, stderr, code := runSQL(t, nil, ddl("exactly-once")+c.pre+c.query)
		flat := strings.Join(strings.Fields(stderr), " ")
		if code != 2 || !strings.Contains(flat, c.op) || !strings.Contains(flat, c.why) ||
			!strings.Contains(flat, "'at-least-once'") || !strings.Contains(flat, "remove 'properties.group.id'") || !strings.Contains(flat, "^") {
			t.Errorf("%s with an exactly-once sink: exit %d, stderr\n%s\nwant exit 2 naming %q and why (%q), saying what to do, with a caret", c.name, code, stderr, c.op, c.why)
		}
		post := ""
		if c.pre != "" {
			post = "\nDROP SIDE 'counts_out';" // (the side branch would run at the script's end)
		}
		out, stderr, code := runSQL(t, nil, ddl("at-least-once")+c.pre+"EXPLAIN "+c.query+post, "--format", "plain")
		if code != 0 || !strings.Contains(out, "not replayed") {
			t.Errorf("%s with an at-least-once sink: exit %d, stderr %s; EXPLAIN gives\n%s\nwant a plan whose strategy says \"not replayed\"", c.name, code, stderr, out)
		}
		// run (no broker listens: the job fails once it opens the topic),
		// it says first what a restart loses
		_, stderr, _ = runSQL(t, nil, ddl("at-least-once")+c.pre+c.query+post)
		if flat := strings.Join(strings.Fields(stderr), " "); !strings.Contains(flat, "notice: "+c.op) || !strings.Contains(flat, "is not rebuilt after a crash") {
			t.Errorf("%s with an at-least-once sink: stderr\n%s\nwant a notice naming %q before the job runs", c.name, stderr, c.op)
		}
	}
	replayed := []struct{ name, query string }{
		{"updating aggregate", "INSERT INTO counts_out SELECT deviceNo, COUNT(*) AS n FROM sensors GROUP BY deviceNo;"},
		// (issue 24 item 5.2: no unbounded Top-N is append-only, SPEC 2.9;
		// the first N rows by event time and a Top-N with the rank column
		// are updating Top-Ns, replayed)
		{"first 3 rows by event time", "INSERT INTO counts_out SELECT deviceNo, v AS n FROM (SELECT deviceNo, v, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts) AS rn FROM sensors) WHERE rn <= 3;"},
		{"Top-N with the rank column", "INSERT INTO top_out SELECT deviceNo, rn AS n FROM (SELECT deviceNo, v, RANK() OVER (PARTITION BY deviceNo ORDER BY v) AS rn FROM sensors) WHERE rn <= 2;"},
		{"deduplication", "INSERT INTO rows_out SELECT deviceNo, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts) AS rn FROM sensors) WHERE rn = 1;"},
		{"interval join", "INSERT INTO rows_out SELECT s.deviceNo, e.v FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND;"},
		{"regular join", "INSERT INTO rows_out SELECT s.deviceNo, e.v FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo;"},
		{"temporal join", "INSERT INTO rows_out SELECT s.deviceNo, r.v FROM sensors s JOIN rates FOR SYSTEM_TIME AS OF s.ts AS r ON s.deviceNo = r.deviceNo;"},
		{"window Top-N over a window TVF", windowTopN},
		{"lookup join with event time", "INSERT INTO rows_out SELECT s.deviceNo, s.v FROM sensors s LEFT JOIN devices d ON s.deviceNo = d.deviceNo;"},
		// a query over a Top-N of a subquery's GROUP BY, fused into its job
		// (issue 24 item 5.1: ruleFuseRankCalc, ruleFuseRankAgg)
		{"Top-N over a GROUP BY with a condition beside the rank", "INSERT INTO counts_out SELECT deviceNo, n FROM (SELECT deviceNo, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn FROM (SELECT deviceNo, COUNT(*) AS n FROM sensors GROUP BY deviceNo HAVING SUM(v) > 0)) WHERE rn <= 3 AND n > 5;"},
		{"Top-N over a GROUP BY with an expression in the select list", "INSERT INTO counts_out SELECT UPPER(deviceNo), n * 2 FROM (SELECT deviceNo, n, RANK() OVER (ORDER BY n DESC) AS rn FROM (SELECT deviceNo, COUNT(*) AS n FROM sensors GROUP BY deviceNo)) WHERE rn <= 3;"},
		// a Top-N or deduplication directly over a view that filters and
		// projects the stream, one job over the stream (issue 24 item 5.2:
		// ruleInlineView)
		{"Top-N over a filtering view", "INSERT INTO counts_out SELECT deviceNo, v FROM (SELECT deviceNo, v, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY v DESC) AS rn FROM recent) WHERE rn <= 1;"},
		{"deduplication over a filtering subquery", "INSERT INTO rows_out SELECT deviceNo, v FROM (SELECT deviceNo, v, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts) AS rn FROM (SELECT deviceNo, v, ts FROM sensors WHERE v > 0)) WHERE rn = 1;"},
		// an updating aggregate directly over a view or subquery that
		// filters and projects the stream (keeping its event time, or of a
		// stream without one), one job over the stream (issue 24 item 5:
		// ruleInlineView)
		{"aggregate over a filtering view", "INSERT INTO counts_out SELECT d, COUNT(*) AS n FROM recent_ts WHERE v2 < 100 GROUP BY d HAVING SUM(v2) > 2;"},
		// (also over a view that drops the stream's event time: the
		// groups' TTL keeps its processing-time clock, issue 24 item 5.3)
		{"aggregate over a view that drops the event time", "INSERT INTO counts_out SELECT deviceNo, COUNT(*) AS n FROM recent GROUP BY deviceNo;"},
		{"Top-N over an aggregate of a view that drops the event time", "INSERT INTO counts_out SELECT deviceNo, n FROM (SELECT deviceNo, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn FROM (SELECT deviceNo, COUNT(*) AS n FROM recent GROUP BY deviceNo)) WHERE rn <= 2;"},
		{"aggregate over a filtering subquery of a stream without event time", "INSERT INTO counts_out SELECT deviceNo, SUM(v) AS n FROM (SELECT UPPER(deviceNo) AS deviceNo, v FROM plain WHERE v > 0) GROUP BY deviceNo;"},
		// a rank operator beside a side branch's aggregate (issue 24 item 5.3:
		// Job.RankBesideAggs)
		{"window Top-N beside a side branch's GROUP BY", "SELECT deviceNo, COUNT(*) AS n INTO STREAM counts_out FROM sensors GROUP BY deviceNo;\nEXPLAIN " + windowTopN},
		{"deduplication beside a side branch's GROUP BY", "SELECT deviceNo, COUNT(*) AS n INTO STREAM counts_out FROM sensors WHERE v > 10 GROUP BY deviceNo;\nEXPLAIN INSERT INTO rows_out SELECT deviceNo, v FROM (SELECT deviceNo, v, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts) AS rn FROM sensors) WHERE rn = 1;"},
		// a Top-N over a view's GROUP BY with a side branch over the view
		// (issue 24 item 5.1: ruleFuseRankAggSides, Job.Fanout)
		{"Top-N over a view's GROUP BY beside a side branch over the view", "SELECT deviceNo, n INTO STREAM counts_out FROM dev_counts WHERE n > 10;\nEXPLAIN INSERT INTO top_out SELECT deviceNo, n FROM (SELECT deviceNo, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn FROM dev_counts) WHERE rn <= 3;"},
		{"side branch over a view's GROUP BY beside a main query over the view", "SELECT deviceNo, n INTO STREAM counts_out FROM dev_counts WHERE n > 10;\nEXPLAIN INSERT INTO top_out SELECT deviceNo, n * 2 FROM dev_counts WHERE n > 1;"},
		{"Top-N over a GROUP BY with a condition before the rank", "INSERT INTO counts_out SELECT deviceNo, n FROM (SELECT deviceNo, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn FROM (SELECT deviceNo, COUNT(*) AS n FROM sensors GROUP BY deviceNo) WHERE n > 5) WHERE rn <= 3;"},
		// issue 23 item 6: an updating aggregate after an INNER interval or regular join
		{"aggregate after an interval join", "INSERT INTO counts_out SELECT s.deviceNo, COUNT(*) AS n FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND GROUP BY s.deviceNo;"},
		{"aggregate after a regular join", "INSERT INTO counts_out SELECT s.deviceNo, COUNT(*) AS n FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo GROUP BY s.deviceNo;"},
		{"aggregate after a LEFT interval join", "INSERT INTO counts_out SELECT s.deviceNo, COUNT(*) AS n FROM sensors s LEFT JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND GROUP BY s.deviceNo;"},
		{"updating aggregate after an event-time semi join", "INSERT INTO counts_out SELECT s.deviceNo, COUNT(*) AS n FROM sensors s SEMI JOIN allowed a ON s.deviceNo = a.deviceNo GROUP BY s.deviceNo;"},
		{"aggregate after a temporal join", "INSERT INTO counts_out SELECT s.deviceNo, COUNT(*) AS n FROM sensors s JOIN rates FOR SYSTEM_TIME AS OF s.ts AS r ON s.deviceNo = r.deviceNo GROUP BY s.deviceNo;"},
		// an updating Top-N after a join whose output is append-only
		// (JoinRankReplayed)
		{"Top-N after an interval join", "INSERT INTO counts_out SELECT deviceNo, v AS n FROM (SELECT s.deviceNo, e.v, ROW_NUMBER() OVER (PARTITION BY s.deviceNo ORDER BY e.v DESC) AS rn FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND) WHERE rn <= 1;"},
		{"Top-N after a temporal join", "INSERT INTO counts_out SELECT deviceNo, v AS n FROM (SELECT s.deviceNo, r.v, ROW_NUMBER() OVER (PARTITION BY s.deviceNo ORDER BY s.ts DESC) AS rn FROM sensors s JOIN rates FOR SYSTEM_TIME AS OF s.ts AS r ON s.deviceNo = r.deviceNo) WHERE rn <= 1;"},
		// a window aggregate over a relation that is an interval or
		// temporal join, planned as one job with the join (ruleFuseJoinWindow)
		// a TUMBLE, CUMULATE or SESSION aggregate over a view that filters
		// and projects the stream, keeping its event time, one job
		// over the stream (issue 24 item 5: ruleInlineView)
		{"TUMBLE over a filtering view", "INSERT INTO rows_out SELECT d, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE recent_ts, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v2 < 100 GROUP BY window_start, window_end, d;"},
		{"SESSION over a filtering view", "INSERT INTO rows_out SELECT d, COUNT(*) AS v FROM TABLE(SESSION(TABLE recent_ts PARTITION BY d, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, d;"},
		// (and with a side branch that filters and projects the view:
		// inlineSides)
		{"TUMBLE over a filtering view beside a side branch over the view", "SELECT d AS deviceNo, v2 AS n INTO STREAM counts_out FROM recent_ts WHERE v2 > 100;\nEXPLAIN INSERT INTO rows_out SELECT d, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE recent_ts, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, d;"},
		{"CUMULATE over a filtering view", "INSERT INTO rows_out SELECT d, MAX(v2) AS v FROM TABLE(CUMULATE(TABLE recent_ts, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end, d;"},
		// a query over a Top-N after an interval or temporal join, fused
		// into the join's job (ruleFuseRankCalc)
		{"Top-N after an interval join with a condition beside the rank", "INSERT INTO counts_out SELECT deviceNo, v AS n FROM (SELECT s.deviceNo, e.v, ROW_NUMBER() OVER (PARTITION BY s.deviceNo ORDER BY e.v DESC) AS rn FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND) WHERE rn <= 1 AND v > 2;"},
		{"Top-N after a temporal join with an expression", "INSERT INTO counts_out SELECT UPPER(deviceNo) AS deviceNo, v * 2 AS n FROM (SELECT s.deviceNo, r.v, ROW_NUMBER() OVER (PARTITION BY s.deviceNo ORDER BY s.ts DESC) AS rn FROM sensors s JOIN rates FOR SYSTEM_TIME AS OF s.ts AS r ON s.deviceNo = r.deviceNo) WHERE rn <= 1;"},
		{"TUMBLE over a join view", "INSERT INTO rows_out SELECT deviceNo, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;"},
		// (beside side branches that aggregate the joined rows: an
		// updating GROUP BY, a window of its own; fuseSideAgg)
		{"window over a join view beside a side branch's GROUP BY", "SELECT deviceNo, COUNT(*) AS n INTO STREAM counts_out FROM joined WHERE v > 10 GROUP BY deviceNo;\nEXPLAIN INSERT INTO rows_out SELECT deviceNo, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;"},
		{"window over a join view beside a side branch's HOP", "SELECT deviceNo, COUNT(*) AS n INTO STREAM counts_out FROM TABLE(HOP(TABLE joined, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) WHERE v > 10 GROUP BY window_start, window_end, deviceNo;\nEXPLAIN INSERT INTO rows_out SELECT deviceNo, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;"},
		{"window over a join view beside a side branch over it", "SELECT deviceNo, v AS n INTO STREAM counts_out FROM joined WHERE v > 10;\nEXPLAIN INSERT INTO rows_out SELECT deviceNo, COUNT(*) AS v FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;"},
		{"SESSION window over a join view", "INSERT INTO rows_out SELECT deviceNo, COUNT(*) AS v FROM TABLE(SESSION(TABLE joined PARTITION BY deviceNo, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, deviceNo;"},
		{"TUMBLE over a RIGHT interval join", "INSERT INTO rows_out SELECT deviceNo, COUNT(v) AS v FROM TABLE(TUMBLE(TABLE rjoined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;"},
		// (beside a side branch of its padded rows: refused until the
		// replay wrote each padding once, op.Join.padAt)
		{"window over a RIGHT interval join beside a side branch over it", "SELECT deviceNo, ts AS n INTO STREAM counts_out FROM rjoined WHERE v IS NULL;\nEXPLAIN INSERT INTO rows_out SELECT deviceNo, COUNT(v) AS v FROM TABLE(TUMBLE(TABLE rjoined, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;"},
		{"HOP over a temporal join view", "INSERT INTO rows_out SELECT deviceNo, MAX(v) AS v FROM TABLE(HOP(TABLE versioned, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;"},
	}
	for _, c := range replayed {
		q := "EXPLAIN " + c.query
		if pre, main, ok := strings.Cut(c.query, "\nEXPLAIN "); ok { // (a side branch first: dropped after, as it would run at the script's end)
			q = pre + "\nEXPLAIN " + main + "\nDROP SIDE 'counts_out';"
		}
		out, stderr, code := runSQL(t, nil, ddl("exactly-once")+q, "--format", "plain")
		if code != 0 || !strings.Contains(out, ", replayed") || strings.Contains(out, "not replayed") {
			t.Errorf("%s with an exactly-once sink: exit %d, stderr %s; EXPLAIN gives\n%s\nwant a plan whose strategy says \"replayed\"", c.name, code, stderr, out)
		}
	}
}

// TestKafkaDerivedGroupReadsEveryPartition: a UNION ALL whose parts read
// one Kafka stream of a consumer group (a derived relation, SPEC 2.6) reads
// every partition in each part: its parts' jobs are not members of the
// group (each would take some of the partitions, and the relation would
// hold about half the rows), and commit no offsets (EXPLAIN says so).
func TestKafkaDerivedGroupReadsEveryPartition(t *testing.T) {
	topic := kafkatest.CreateTopic(t, 4, nil)
	var vals []string
	var parts []int32
	want := map[string]int{}
	for id := range 1000 {
		vals = append(vals, fmt.Sprintf("%d,%d", id, id*37%100))
		parts = append(parts, int32(id%4))
		want[fmt.Sprint(id)]++
	}
	produceValues(t, topic, vals, parts)
	sql := kafkaStream(t, "k", "id BIGINT, temperature BIGINT", topic,
		", 'format'='csv', 'properties.group.id'='"+kafkatest.Name(t, "group")+"', 'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset'") +
		"SELECT id FROM k WHERE temperature < 50 UNION ALL SELECT id FROM k WHERE temperature >= 50;\n"
	out, stderr, code := runSQL(t, nil, sql, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		got[l]++
	}
	compareCounts(t, "ids", got, want, true)
	explain, _, _ := runSQL(t, nil, strings.Replace(sql, "SELECT id FROM k WHERE temperature < 50", "EXPLAIN SELECT id FROM k WHERE temperature < 50", 1), "--format", "plain")
	if !strings.Contains(strings.Join(strings.Fields(explain), " "), "are read whole, every partition, committing no offsets") {
		t.Errorf("EXPLAIN does not say the relation's streams are read whole:\n%s", explain)
	}
}
