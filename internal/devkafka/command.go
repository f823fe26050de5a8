package devkafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Command returns the `dev` command with `dev kafka` under it, for
// cli.Options.Commands. The banner of `dev kafka` goes to stdout, kfake's
// and the registry's warnings to stderr.
func Command(stdout, stderr io.Writer) *cobra.Command {
	return newDevCommand(stdout, stderr, []os.Signal{os.Interrupt, syscall.SIGTERM})
}

func newDevCommand(stdout, stderr io.Writer, signals []os.Signal) *cobra.Command {
	dev := &cobra.Command{
		Use:   "dev",
		Short: "Run local services for development (never for production)",
		Long: `Commands under 'eddy dev' run throwaway services on this machine, for trying
Eddy and for tests. They keep everything in memory, listen on 127.0.0.1 only,
have no authentication, and lose all their data when they stop. Never use them
in production or make them reachable from other machines.`,
		Example: `  # A local Kafka and schema registry for Kafka tables
  eddy dev kafka`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	dev.AddCommand(newKafkaCommand(stdout, stderr, signals))
	return dev
}

// kafkaCommand holds the flags of `eddy dev kafka`.
type kafkaCommand struct {
	stdout, stderr io.Writer
	signals        []os.Signal
	port           int
	registryPort   int
	partitions     int
}

func newKafkaCommand(stdout, stderr io.Writer, signals []os.Signal) *cobra.Command {
	k := &kafkaCommand{stdout: stdout, stderr: stderr, signals: signals}
	cmd := &cobra.Command{
		Use:   "kafka [--port 9092] [--registry-port 8081] [--partitions 1]",
		Short: "Run an in-memory Kafka and schema registry on 127.0.0.1 (development only)",
		Long: `Run, in this process, a one-broker Kafka cluster (franz-go's kfake) and a
Confluent-compatible schema registry (srfake), both on 127.0.0.1, until
Ctrl-C (SIGINT) or SIGTERM. Point Kafka tables at them with
'properties.bootstrap.servers' and 'value.avro-confluent.url'.

This is for development only: everything is in memory and lost when the
process exits, there is no authentication, and it listens on 127.0.0.1 only
(there is no option for another address). Topics are not auto-created;
Eddy creates a Kafka table's topic at CREATE TABLE. Transactions and
read_committed consumers work. The registry accepts every schema change
as compatible.

The same SQL runs against a real cluster once 'properties.bootstrap.servers',
the registry URL and the 'properties.security.*'/'properties.sasl.*'
options are changed; see docs/kafka.md.`,
		Example: `  # Kafka on 127.0.0.1:9092, the schema registry on http://127.0.0.1:8081
  eddy dev kafka

  # Random free ports (printed at start), 3 partitions per topic by default
  eddy dev kafka --port 0 --registry-port 0 --partitions 3

  # Kafka only, no schema registry
  eddy dev kafka --registry-port -1`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return k.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.IntVar(&k.port, "port", 9092, "Kafka `port` on 127.0.0.1 (0 picks a free one)")
	f.IntVar(&k.registryPort, "registry-port", 8081, "schema registry `port` on 127.0.0.1 (0 picks a free one, -1 runs none)")
	f.IntVar(&k.partitions, "partitions", 1, "partition `count` of topics created without one (CreateTopics with -1 partitions)")
	return cmd
}

func (k *kafkaCommand) run(ctx context.Context) error {
	if k.port < 0 || k.port > 65535 {
		return fmt.Errorf("invalid --port %d: use 0 (a free port) to 65535", k.port)
	}
	if k.registryPort < -1 || k.registryPort > 65535 {
		return fmt.Errorf("invalid --registry-port %d: use -1 (no registry), 0 (a free port) to 65535", k.registryPort)
	}
	if k.partitions < 1 {
		return fmt.Errorf("invalid --partitions %d: use 1 or more", k.partitions)
	}
	ctx, stop := signal.NotifyContext(ctx, k.signals...)
	defer stop()

	logger := slog.New(slog.NewTextHandler(k.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := Start(ctx, Options{Port: k.port, RegistryPort: k.registryPort, Partitions: k.partitions, Logger: logger})
	if err != nil {
		return startError(err)
	}
	k.banner(c)
	<-ctx.Done()
	err = c.Close()
	fmt.Fprintln(k.stdout, "stopped")
	return err
}

// startError adds to a taken port the flag that picks another one.
func startError(err error) error {
	var pe *PortInUseError
	if !errors.As(err, &pe) {
		return err
	}
	if pe.Service == "Kafka" {
		return fmt.Errorf("%w: stop the program using it, or pass --port 0 for a random free port", err)
	}
	return fmt.Errorf("%w: stop the program using it, or pass --registry-port 0 for a random free port (--registry-port -1 for no registry)", err)
}

// banner prints the addresses and a CREATE TABLE that uses them.
func (k *kafkaCommand) banner(c *Cluster) {
	w := k.stdout
	fmt.Fprintf(w, "Kafka (kfake, in memory, development only) listening on %s\n", c.Bootstrap())
	format := fmt.Sprintf("'value.format' = 'avro-confluent',\n    'value.avro-confluent.url' = '%s'", c.RegistryURL())
	if c.RegistryURL() != "" {
		fmt.Fprintf(w, "Schema registry (srfake) on %s\n", c.RegistryURL())
	} else {
		fmt.Fprintln(w, "No schema registry (--registry-port -1).")
		format = "'value.format' = 'json'"
	}
	fmt.Fprintln(w, "Data is lost when this process exits. Stop with Ctrl-C.")
	fmt.Fprintf(w, `
Use it from Eddy SQL:
  CREATE TABLE order_events (
    order_id BIGINT,
    status   STRING
  ) WITH (
    'connector' = 'kafka',
    'topic' = 'order-events',
    'properties.bootstrap.servers' = '%s',
    %s
  );
`, c.Bootstrap(), format)
}
