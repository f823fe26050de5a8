package kafka_test

import (
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/types"
)

// Parse validates a table's options; a mistake comes back as an
// *OptionError that names the option.
func ExampleParse() {
	table := kafka.Table{
		Name:    "default_catalog.default_database.orders",
		Columns: []types.Field{{Name: "order_id", Type: types.Int}, {Name: "status", Type: types.String}},
		Options: map[string]string{
			"connector":                    "kafka",
			"topic":                        "orders",
			"properties.bootstrap.servers": "127.0.0.1:9092",
			"key.format":                   "raw",
			"key.fields":                   "order_id",
			"value.format":                 "json",
			"scan.startup.mode":            "latest-offset",
		},
	}
	cfg, err := kafka.Parse(table)
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.Topic, cfg.Startup.Mode, cfg.Delivery, cfg.KeyFields, cfg.ValueFields)

	table.Options["scan.startup.mode"] = "earliest"
	_, err = kafka.Parse(table)
	var oe *kafka.OptionError
	fmt.Println(errors.As(err, &oe), oe.Key)
	// Output:
	// orders latest-offset exactly-once [0] [0 1]
	// true scan.startup.mode
}
