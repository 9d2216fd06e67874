// Package kafka holds the Kafka connectors (SPEC 2.5, 2.8): 'kafka', a
// topic's source (kafkasource.go: consumer groups, per-partition
// positions, record metadata) and sink (kafkasink.go: keyed records,
// at-least-once or exactly-once in transactions, kafkatxn.go), the replay
// of a group source's partitions (kafkareplay.go), the group balancer
// that gives partition i of every topic of a job's group sources to one
// process, so that a join's co-partitioned inputs scale out together
// (copartition.go: CoPartitionBalancer; SPEC 2.5), and 'upsert-kafka'
// (upsertkafka.go: a topic read and written as upserts keyed by the PRIMARY
// KEY). It registers both from its init (connector.Register), with their
// option specs, checks, capabilities (Partitioned, Upserts) and the parser
// of their options into a *catalog.KafkaConfig; the executor links it
// (executor/connectors.go).
//
// The contract it implements lives in executor/connector: Source,
// SinkWriter and the other interfaces, the positions of Kafka rows
// (KafkaPosition), PartitionedSource, TopicSource, MetaSource, and the
// replay protocol (Replay, Replayer, ReplayMark), which connector's package
// doc describes ("Scale-out over Kafka partitions, and replay").
//
// It must never import the executor proper (streamql/executor), the
// planner, the parser, internal/session or cmd/ (layering_test.go): it
// sees a stream through catalog and the job through connector.Env.
package kafka
