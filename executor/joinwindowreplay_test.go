package executor

import (
	"testing"
)

// TestJoinWindowReplayAfterKills (issue 23 item 6, issue 24 item 5): a
// window aggregate (TUMBLE, HOP, CUMULATE) over a WITH relation, subquery or
// view that is an interval (INNER, LEFT) or temporal join of two Kafka
// streams in a consumer group is planned as one job (planner's
// ruleFuseJoinWindow) and gives, over processes killed at random points
// (each restarted from the group's commits: jaGroup, jaRun), the windows of
// one uninterrupted run, each once: the killed process's pairs are joined
// again into the open windows only (op.Join.SetRewrite), and a window whose
// end is at or below the aggregate's watermark at the commit (the mark's f,
// joinSource.aggFired) gets none of them (joinOldReplay.FiredBy, I4). It
// fails without FiredBy (windows written twice) and without the rewrite
// (windows missing the pairs written before the kill). 40 seeds per query
// (10 with -short), random batches, interleavings, kills and checkpoints.
func TestJoinWindowReplayAfterKills(t *testing.T) {
	const interval = "FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND"
	queries := []string{
		"WITH j AS (SELECT l.k, l.ts, r.ts AS rts " + interval + ") " +
			"SELECT window_start, window_end, k, COUNT(*) AS n, SUM(rts) AS s FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, k",
		"WITH j AS (SELECT l.k, l.ts, r.ts AS rts " + interval + ") " +
			"SELECT window_end, COUNT(*) AS n, MAX(rts) AS m FROM TABLE(HOP(TABLE j, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) WHERE rts > 0 GROUP BY window_start, window_end",
		"WITH j AS (SELECT l.k AS lk, l.ts AS t, r.ts AS rts FROM l LEFT JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts + INTERVAL '1' SECOND) " +
			"SELECT window_start, window_end, lk, COUNT(*) AS n, COUNT(rts) AS m FROM TABLE(CUMULATE(TABLE j, DESCRIPTOR(t), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) GROUP BY window_start, window_end, lk",
		"WITH j AS (SELECT l.k, l.ts, r.ts AS rts FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k) " +
			"SELECT window_start, window_end, k, COUNT(*) AS n, SUM(rts) AS s FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY window_start, window_end, k",
	}
	seeds := int64(40)
	if testing.Short() {
		seeds = 10
	}
	for _, q := range queries {
		_, job := jaPlan(t, q)
		if !job.JoinWindowReplayed() || job.Both == nil {
			t.Fatalf("%s: not planned as one replayed job of the join and the window aggregate", q)
		}
		kills, rows := 0, 0
		for seed := int64(1); seed <= seeds; seed++ {
			k, n := joinAggReplayOnce(t, q, seed)
			kills, rows = kills+k, rows+n
			if t.Failed() {
				return
			}
		}
		if kills == 0 || rows == 0 {
			t.Errorf("%s: %d kills, %d windows written: the test checks nothing", q, kills, rows)
		}
	}
}
