// Command kafka-topic creates a Kafka topic with a given number of partitions
// (the project's broker creates a sink's missing topic with one; scaling out
// over a consumer group needs more, README "Scale out"):
//
//	go run ./scripts/kafka-topic [-brokers HOST:PORT] TOPIC PARTITIONS
//
// The brokers default to $STREAMQL_KAFKA_BROKERS (scripts/kafka-broker start
// prints it). A topic that exists already with as many partitions is fine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers := flag.String("brokers", os.Getenv("STREAMQL_KAFKA_BROKERS"), "the brokers, host:port[,host:port...]")
	flag.Parse()
	if err := run(*brokers, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "kafka-topic:", err)
		os.Exit(1)
	}
}

func run(brokers string, args []string) error {
	if len(args) != 2 {
		return errors.New("usage: go run ./scripts/kafka-topic [-brokers HOST:PORT] TOPIC PARTITIONS")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 1 {
		return fmt.Errorf("PARTITIONS %q is not a positive number", args[1])
	}
	if brokers == "" {
		return errors.New("no brokers: give -brokers or set STREAMQL_KAFKA_BROKERS (export \"$(scripts/kafka-broker start DIR)\")")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = adm.CreateTopic(ctx, int32(n), 1, nil, args[0])
	if errors.Is(err, kerr.TopicAlreadyExists) {
		td, derr := adm.ListTopics(ctx, args[0])
		if derr != nil {
			return derr
		}
		if got := len(td[args[0]].Partitions); got != n {
			return fmt.Errorf("topic %s exists with %d partitions, not %d", args[0], got, n)
		}
		err = nil
	}
	if err != nil {
		return fmt.Errorf("creating topic %s with %d partitions on %s: %v", args[0], n, brokers, err)
	}
	fmt.Printf("topic %s: %d partitions\n", args[0], n)
	return nil
}
