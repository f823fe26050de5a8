package kafka_test

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
)

// TestSecurityEndToEnd connects with the kgo options Parse builds from
// properties.* to kfake brokers that require SASL, TLS, or both (devkafka
// has neither, so these clusters are started with kfake directly).
func TestSecurityEndToEnd(t *testing.T) {
	dir := t.TempDir()
	pool, server, otherHost := writeCerts(t, dir)
	users := []kfake.Opt{
		kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "alice", "s3cret"),
		kfake.Superuser("SCRAM-SHA-256", "carol", "pw256"),
		kfake.Superuser("SCRAM-SHA-512", "dave", "pw512"),
	}
	start := func(opts ...kfake.Opt) string {
		c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
		require.NoError(t, err)
		t.Cleanup(c.Close)
		return c.ListenAddrs()[0]
	}
	saslPlaintext := start(users...)
	saslSSL := start(append(users, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{server}, MinVersion: tls.VersionTLS12}))...)
	wrongHost := start(kfake.TLS(&tls.Config{Certificates: []tls.Certificate{otherHost}, MinVersion: tls.VersionTLS12}))
	mutualTLS := start(kfake.TLS(&tls.Config{
		Certificates: []tls.Certificate{server}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
	}))

	n := 0
	check := func(t *testing.T, bootstrap string, props map[string]string, ok bool) {
		t.Helper()
		n++
		opts := map[string]string{
			"connector": "kafka", "topic": "t" + string(rune('a'+n)), "properties.bootstrap.servers": bootstrap, "value.format": "json",
		}
		for k, v := range props {
			opts["properties."+k] = v
		}
		cfg, err := kafka.Parse(kafka.Table{Name: "cat.db.t", Columns: []types.Field{{Name: "id", Type: types.MustParseType("INT")}}, Options: opts})
		require.NoError(t, err)
		// A refused login closes the connection and kgo retries for a
		// while: give failures half a second.
		timeout := 10 * time.Second
		if !ok {
			timeout = 500 * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		defer cancel()
		created, err := kafka.EnsureTopic(ctx, cfg)
		if ok {
			require.NoError(t, err)
			require.True(t, created)
		} else {
			require.Error(t, err)
		}
	}
	jaas := func(module, user, pass string) string {
		return "org.apache.kafka.common.security." + module + " required username=\"" + user + "\" password=\"" + pass + "\";"
	}

	t.Run("sasl-plain", func(t *testing.T) {
		check(t, saslPlaintext, map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": jaas("plain.PlainLoginModule", "alice", "s3cret")}, true)
		check(t, saslPlaintext, map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.username": "alice", "sasl.password": "s3cret"}, true)
		check(t, saslPlaintext, map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.username": "alice", "sasl.password": "wrong"}, false)
		check(t, saslPlaintext, nil, false)
	})
	t.Run("sasl-scram", func(t *testing.T) {
		check(t, saslPlaintext, map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
			"sasl.jaas.config": jaas("scram.ScramLoginModule", "carol", "pw256")}, true)
		check(t, saslPlaintext, map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512",
			"sasl.username": "dave", "sasl.password": "pw512"}, true)
		check(t, saslPlaintext, map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
			"sasl.username": "carol", "sasl.password": "wrong"}, false)
	})
	t.Run("sasl-ssl", func(t *testing.T) {
		check(t, saslSSL, map[string]string{"security.protocol": "SASL_SSL", "ssl.ca.location": dir + "/ca.pem",
			"sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "dave", "sasl.password": "pw512"}, true)
		// The broker's certificate is not signed by a system CA.
		check(t, saslSSL, map[string]string{"security.protocol": "SASL_SSL",
			"sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "dave", "sasl.password": "pw512"}, false)
	})
	t.Run("hostname-verification", func(t *testing.T) {
		// The broker's certificate names broker.example, not 127.0.0.1.
		ssl := map[string]string{"security.protocol": "SSL", "ssl.ca.location": dir + "/ca.pem"}
		check(t, wrongHost, ssl, false)
		ssl["ssl.endpoint.identification.algorithm"] = "https"
		check(t, wrongHost, ssl, false)
		// Empty turns hostname verification off, as in Kafka's Java client...
		ssl["ssl.endpoint.identification.algorithm"] = ""
		check(t, wrongHost, ssl, true)
		// ...but the chain is still verified.
		check(t, wrongHost, map[string]string{"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": ""}, false)
	})
	t.Run("mutual-tls", func(t *testing.T) {
		check(t, mutualTLS, map[string]string{"security.protocol": "SSL", "ssl.ca.location": dir + "/ca.pem",
			"ssl.certificate.location": dir + "/cert.pem", "ssl.key.location": dir + "/key.pem"}, true)
		check(t, mutualTLS, map[string]string{"security.protocol": "SSL", "ssl.ca.location": dir + "/ca.pem"}, false)
	})
}
