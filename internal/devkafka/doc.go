// Package devkafka runs a local, in-process Kafka cluster and Confluent
// schema registry for development and tests: the `eddy dev kafka` command
// (Command) and the Start function behind it.
//
// Kafka is franz-go's kfake (one broker, everything in memory) and the
// schema registry is srfake, served from this process. Both listen on
// 127.0.0.1 only: there is no option for another host, because neither has
// authentication on by default and both lose all data when the process
// exits. They are for trying Eddy's Kafka tables on a laptop and for tests,
// never for production.
//
// # Behaviour worth knowing
//
//   - Topics are not created automatically when a client asks for an
//     unknown one (kfake's default, kept on purpose): Eddy creates the
//     topic of a Kafka table at CREATE TABLE, as against a real cluster
//     where auto creation is usually off. Other tools must create their
//     topics (kadm, kafka-topics.sh --create).
//   - A CreateTopics request with -1 partitions gets Options.Partitions
//     (default 1); replication factor -1 is accepted (one broker).
//   - Transactions and read_committed consumers work (kfake completes
//     transactions synchronously; it has no PREPARE states).
//   - srfake's compatibility check always answers "compatible".
//
// # Lifetime
//
// Start binds both ports before returning, so Bootstrap and RegistryURL are
// usable at once. Close stops the registry's HTTP server (awaiting its
// goroutine) and the Kafka cluster, and releases both ports, so a new
// Cluster can start on the same fixed ports right after. kfake's own
// connection goroutines see the cluster's shutdown and exit on their own
// just after Close returns.
package devkafka
