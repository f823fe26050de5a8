package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sr"
)

// kcat returns the path of Debian's kcat. Without it the test is skipped,
// except in CI (CI=true), where .ci/run installs it and its absence fails.
func kcat(t *testing.T) string {
	p, err := exec.LookPath("kcat")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("kcat is not installed (.ci/run installs Debian's kcat)")
		}
		t.Skip("kcat is not installed: apt-get install kcat")
	}
	return p
}

func runKcat(t *testing.T, stdin string, args ...string) string {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kcat(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "kcat %v: %s", args, stderr.String())
	return string(out)
}

// TestKcat checks interoperability with librdkafka through Debian's kcat:
// records kcat produces are read by Eddy, and Eddy's exactly-once output,
// JSON and Avro (Confluent wire format), is read back by kcat with
// read_committed.
func TestKcat(t *testing.T) {
	kcat(t)
	k := newKafkaHarness(t)
	b := k.kc.Bootstrap()
	exec := func(sql string) string {
		var out strings.Builder
		for _, st := range splitSQL(k.subst(sql)) {
			res, err := k.execute(t, st)
			require.NoError(t, err, "%s", st.Text)
			out.WriteString(res.Message + "\n")
			closeResult(res)
		}
		return out.String()
	}
	exec(`CREATE TABLE people (name STRING, id INT, city STRING, hs MAP<STRING, BYTES> METADATA FROM 'headers' VIRTUAL) WITH (
    'connector' = 'kafka', 'topic' = 'people', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
    'key.format' = 'raw', 'key.fields' = 'name', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
CREATE TABLE people_out (name STRING, id INT, city STRING) WITH (
    'connector' = 'kafka', 'topic' = 'people-out', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
    'key.format' = 'raw', 'key.fields' = 'name', 'value.format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');
CREATE TABLE people_avro (name STRING, id INT, city STRING) WITH (
    'connector' = 'kafka', 'topic' = 'people-avro', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
    'value.format' = 'avro-confluent', 'value.avro-confluent.url' = '${REGISTRY}');`)

	// kcat produces, with a key and a header per record.
	runKcat(t, "ada:{\"id\":1,\"city\":\"London\"}\ngrace:{\"id\":2,\"city\":\"New York\"}\n",
		"-P", "-b", b, "-t", "people", "-K:", "-H", "via=kcat")
	rows := queryRows(t, k, "SELECT * FROM people")
	require.Equal(t, []string{"+I[ada, 1, London, {via=x'6b636174'}]", "+I[grace, 2, New York, {via=x'6b636174'}]"}, rows)

	// Eddy writes (in a Kafka transaction) and kcat reads read_committed.
	exec("INSERT INTO people_out SELECT name, id * 10, UPPER(city) FROM people;\nINSERT INTO people_avro SELECT name, id, city FROM people;")
	require.Len(t, queryRows(t, k, "SELECT * FROM people_out"), 2) // syncs the jobs first
	require.Len(t, queryRows(t, k, "SELECT * FROM people_avro"), 2)
	out := runKcat(t, "", "-C", "-b", b, "-t", "people-out", "-e", "-q", "-X", "isolation.level=read_committed", "-f", "%k|%s\n")
	require.Equal(t, "ada|{\"name\":\"ada\",\"id\":10,\"city\":\"LONDON\"}\ngrace|{\"name\":\"grace\",\"id\":20,\"city\":\"NEW YORK\"}\n", out)

	// Debian's kcat has no Avro support (no libserdes): check the
	// Confluent framing and that the schema id is the subject's.
	raw := runKcat(t, "", "-C", "-b", b, "-t", "people-avro", "-e", "-q", "-c", "1", "-X", "isolation.level=read_committed", "-f", "%s")
	require.Greater(t, len(raw), 5)
	require.Equal(t, byte(0), raw[0], "magic byte")
	rc, err := sr.NewClient(sr.URLs(k.kc.RegistryURL()))
	require.NoError(t, err)
	ss, err := rc.SchemaByVersion(t.Context(), "people-avro-value", -1)
	require.NoError(t, err)
	require.Equal(t, uint32(ss.ID), binary.BigEndian.Uint32([]byte(raw[1:5])), "schema id")
	require.Contains(t, raw[5:], "ada")
}

func splitSQL(s string) []cli.Statement { return cli.Split(s) }

// queryRows runs a query and returns its rows in changelog form.
func queryRows(t *testing.T, k *kafkaHarness, sql string) []string {
	res, err := k.execute(t, cli.Statement{Text: sql})
	require.NoError(t, err, sql)
	require.NotNil(t, res.Rows, sql)
	defer closeStream(res.Rows)
	ctx, cancel := context.WithTimeout(t.Context(), statementTimeout)
	defer cancel()
	var out []string
	for {
		r, ok, err := res.Rows.Next(ctx)
		require.NoError(t, err)
		if !ok {
			return out
		}
		out = append(out, r.Kind.String()+formatValues(res.Rows.Schema, r.Values))
	}
}
