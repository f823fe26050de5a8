package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// EnsureTopic makes sure the table's topic exists when CREATE TABLE runs:
// it creates a missing topic with the table's bucket count as partitions
// (1 without DISTRIBUTED INTO) when 'eddy.topic.create' allows, and checks
// an existing topic's partition count against DISTRIBUTED INTO n. It
// returns whether it created the topic.
func EnsureTopic(ctx context.Context, c *Config) (bool, error) {
	cl, err := c.newClient()
	if err != nil {
		return false, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	td, err := adm.ListTopics(ctx, c.Topic)
	if err != nil {
		return false, fmt.Errorf("cannot reach Kafka at %v to look up topic %s: %w", c.Bootstrap, c.Topic, err)
	}
	if d, ok := td[c.Topic]; ok && d.Err == nil {
		if c.Partitions > 0 && len(d.Partitions) != c.Partitions {
			return false, optionError("topic", "Topic '%s' has %d partitions but the table is DISTRIBUTED INTO %d BUCKETS", c.Topic, len(d.Partitions), c.Partitions).
				WithHint("drop INTO %d BUCKETS to adopt the topic as it is, or use another topic", c.Partitions)
		}
		return false, nil
	}
	if !c.CreateTopic {
		return false, optionError("topic", "Topic '%s' does not exist and 'eddy.topic.create' = 'false'", c.Topic).
			WithHint("create it first (kafka-topics --create --topic %s --partitions 1), or remove 'eddy.topic.create'", c.Topic)
	}
	parts := int32(c.Partitions)
	if parts <= 0 {
		parts = 1
	}
	configs := map[string]*string{"cleanup.policy": &c.CleanupPolicy}
	if c.RetentionMs != "" {
		configs["retention.ms"] = &c.RetentionMs
	}
	resp, err := adm.CreateTopic(ctx, parts, -1, configs, c.Topic)
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("creating topic %s: %w (create it yourself with %d partitions, or check the broker's permissions)", c.Topic, err, parts)
	}
	return true, nil
}

// Register registers the table's key and value schemas with the schema
// registry (registry formats only), as CREATE TABLE does.
func Register(ctx context.Context, c *Config) error {
	_, _, err := c.codecs(ctx, true)
	return err
}
