package devkafka_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/devkafka"
)

func ExampleStart() {
	// Port 0 and RegistryPort 0 pick free ports on 127.0.0.1.
	c, err := devkafka.Start(context.Background(), devkafka.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	// Give these to a Kafka client (kgo.SeedBrokers) and a schema
	// registry client (sr.URLs), or to a Kafka table's
	// 'properties.bootstrap.servers' and 'value.avro-confluent.url'.
	fmt.Println(strings.HasPrefix(c.Bootstrap(), "127.0.0.1:"))
	fmt.Println(strings.HasPrefix(c.RegistryURL(), "http://127.0.0.1:"))
	// Output:
	// true
	// true
}
