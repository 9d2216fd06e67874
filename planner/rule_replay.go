package planner

import (
	"streamql/parser"
)

// ruleReplayJob refuses a job that reads a Kafka stream in a consumer group,
// keeps state that a crash or a partition move loses (plan.Job.Unreplayed:
// no replay of the connector package doc rebuilds it) and writes an
// 'exactly-once' Kafka sink (SPEC 2.5): after a restart such a job would
// start that state empty and write what one uninterrupted run would not,
// breaking the sink's promise silently. Flink checkpoints its state and
// refuses nothing here; streamql keeps none, so it says so before the job
// starts. The error (a *parser.Error at the sink's name) names the
// operator, says why, and says what to do: an at-least-once sink, or one
// process without the group. An at-least-once job runs, and EXPLAIN notes
// what a crash loses.
func ruleReplayJob(j *Job) error {
	msg, b := j.CheckReplayed()
	if msg == "" {
		return nil
	}
	return parser.Errorf(b.SinkPos, "%s", msg)
}
