package kafka_test

import (
	"errors"
	"sort"
	"testing"

	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/sr"
)

func topicInfo(t *testing.T, kc *devkafka.Cluster, topic string) (partitions int, configs map[string]string) {
	t.Helper()
	adm := kadm.NewClient(plainClient(t, kc))
	td, err := adm.ListTopics(t.Context(), topic)
	require.NoError(t, err)
	d, ok := td[topic]
	require.True(t, ok)
	require.NoError(t, d.Err)
	rcs, err := adm.DescribeTopicConfigs(t.Context(), topic)
	require.NoError(t, err)
	rc, err := rcs.On(topic, nil)
	require.NoError(t, err)
	configs = map[string]string{}
	for _, c := range rc.Configs {
		if c.Value != nil && c.Source == 1 { // DYNAMIC_TOPIC_CONFIG: set at creation
			configs[c.Key] = *c.Value
		}
	}
	return len(d.Partitions), configs
}

func TestEnsureTopic(t *testing.T) {
	kc := startKafka(t)
	ctx := t.Context()
	parse := func(topic string, buckets int, connector string, opts map[string]string) *kafka.Config {
		spec := tableSpec{connector: connector, options: opts}
		if connector == kafka.UpsertKafka {
			spec.pk = []int{0}
			spec.options["key.format"] = "raw"
		}
		cfg := parseTable(t, kc, topic, spec)
		cfg.Partitions = buckets // as Parse sets it from Table.Buckets
		return cfg
	}

	// Created with the bucket count and the cleanup policy of the connector.
	created, err := kafka.EnsureTopic(ctx, parse("three", 3, kafka.Kafka, map[string]string{"kafka.retention.time": "1 h"}))
	require.NoError(t, err)
	require.True(t, created)
	n, configs := topicInfo(t, kc, "three")
	require.Equal(t, 3, n)
	require.Equal(t, map[string]string{"cleanup.policy": "delete", "retention.ms": "3600000"}, configs)

	created, err = kafka.EnsureTopic(ctx, parse("compacted", 0, kafka.UpsertKafka, map[string]string{}))
	require.NoError(t, err)
	require.True(t, created)
	n, configs = topicInfo(t, kc, "compacted")
	require.Equal(t, 1, n, "1 partition without DISTRIBUTED INTO")
	require.Equal(t, map[string]string{"cleanup.policy": "compact"}, configs)

	// An existing topic is adopted, with the same count or without one.
	for _, buckets := range []int{0, 3} {
		created, err = kafka.EnsureTopic(ctx, parse("three", buckets, kafka.Kafka, map[string]string{}))
		require.NoError(t, err)
		require.False(t, created)
	}
	// ... also when topic creation is off.
	created, err = kafka.EnsureTopic(ctx, parse("three", 0, kafka.Kafka, map[string]string{"eddy.topic.create": "false"}))
	require.NoError(t, err)
	require.False(t, created)

	// A different count is an error naming both.
	_, err = kafka.EnsureTopic(ctx, parse("three", 4, kafka.Kafka, map[string]string{}))
	var oe *kafka.OptionError
	require.True(t, errors.As(err, &oe), "%v", err)
	require.Equal(t, "topic", oe.Key)
	require.ErrorContains(t, err, "Topic 'three' has 3 partitions but the table is DISTRIBUTED INTO 4 BUCKETS")

	// A missing topic with 'eddy.topic.create' = 'false'.
	_, err = kafka.EnsureTopic(ctx, parse("missing", 0, kafka.Kafka, map[string]string{"eddy.topic.create": "false"}))
	require.True(t, errors.As(err, &oe), "%v", err)
	require.ErrorContains(t, err, "Topic 'missing' does not exist and 'eddy.topic.create' = 'false'")
	td, err := kadm.NewClient(plainClient(t, kc)).ListTopics(ctx, "missing")
	require.NoError(t, err)
	require.Error(t, td["missing"].Err, "not created")
}

func TestRegister(t *testing.T) {
	kc := startKafka(t)
	ctx := t.Context()
	reg, err := sr.NewClient(sr.URLs(kc.RegistryURL()))
	require.NoError(t, err)
	subjects := func() []string {
		ss, err := reg.Subjects(ctx)
		require.NoError(t, err)
		sort.Strings(ss)
		return ss
	}

	// Formats without a registry register nothing.
	require.NoError(t, kafka.Register(ctx, parseTable(t, kc, "plain", tableSpec{dist: []int{0}, options: map[string]string{"key.format": "raw"}})))
	require.Empty(t, subjects())

	cfg := parseTable(t, kc, "orders", tableSpec{dist: []int{0}, options: map[string]string{
		"key.format": "avro-confluent", "key.avro-confluent.url": kc.RegistryURL(),
		"value.format": "avro-confluent", "value.avro-confluent.url": kc.RegistryURL(),
	}})
	require.NoError(t, kafka.Register(ctx, cfg))
	require.Equal(t, []string{"orders-key", "orders-value"}, subjects())
	ss, err := reg.SchemaByVersion(ctx, "orders-value", -1)
	require.NoError(t, err)
	require.Equal(t, sr.TypeAvro, ss.Type)
	require.Contains(t, ss.Schema.Schema, `"id"`)
	// Registering again is idempotent.
	require.NoError(t, kafka.Register(ctx, cfg))
	vs, err := reg.SubjectVersions(ctx, "orders-value")
	require.NoError(t, err)
	require.Len(t, vs, 1)

	// json-registry, an explicit subject, and the engine's default URL.
	tbl := kafka.Table{
		Name:     "cat.db.events",
		Columns:  []types.Field{{Name: "id", Type: types.MustParseType("INT")}},
		Defaults: map[string]string{"eddy.schema-registry.url": kc.RegistryURL()},
		Options: map[string]string{
			"connector": "kafka", "topic": "events", "properties.bootstrap.servers": kc.Bootstrap(),
			"value.format": "json-registry", "value.json-registry.subject": "events-custom",
		},
	}
	cfg, err = kafka.Parse(tbl)
	require.NoError(t, err)
	require.NoError(t, kafka.Register(ctx, cfg))
	require.Equal(t, []string{"events-custom", "orders-key", "orders-value"}, subjects())
	ss, err = reg.SchemaByVersion(ctx, "events-custom", -1)
	require.NoError(t, err)
	require.Equal(t, sr.TypeJSON, ss.Type)
}

func TestRegisterUnreachable(t *testing.T) {
	kc := startKafka(t)
	cfg := parseTable(t, kc, "orders", tableSpec{options: map[string]string{
		"value.format": "avro-confluent", "value.avro-confluent.url": "http://127.0.0.1:1",
	}})
	err := kafka.Register(t.Context(), cfg)
	require.ErrorContains(t, err, "value format of cat.db.orders")
}
