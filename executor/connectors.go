package executor

// The connectors that live in packages of their own register themselves
// from their init (connector.Register); the executor, which opens every
// stream's source and sink, links them, so that every program that runs
// jobs knows them.
import _ "streamql/executor/connector/kafka" // kafka and upsert-kafka (SPEC 2.5, 2.8)
