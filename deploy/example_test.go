package deploy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/eddy-sql/eddy/deploy"
)

// connection returns the arguments a CI job passes to reach the server
// (here the examples' in-process server); a program passes os.Args[1:].
func connection(more ...string) []string {
	return append([]string{"--server", exampleServer.URL, "--api-key", exampleServer.Key, "--api-secret", exampleServer.Secret}, more...)
}

// A program that deploys a pipeline of two statements under the
// application name "shop". Running it again changes nothing.
func Example() {
	ctx := context.Background()
	for run := 1; run <= 2; run++ {
		// In a program: deploy.FromArgs(os.Args[1:]). A lifecycle action
		// (list, describe, stop, resume, delete) runs and exits here.
		settings, err := deploy.FromArgs(connection("--application-name", "shop", "--on-conflict", "replace"),
			deploy.WithStderr(io.Discard)) // the progress messages
		if err != nil {
			log.Fatal(err)
		}
		env, err := settings.Environment(ctx)
		if err != nil {
			log.Fatal(err)
		}
		env.SetStatementName("orders")
		orders, err := env.ExecuteSQL(ctx, "CREATE TABLE orders (id INT, region STRING, amount INT)")
		if err != nil {
			log.Fatal(err)
		}
		env.SetStatementName("large-orders")
		large, err := env.ExecuteSQL(ctx, "CREATE TABLE large_orders AS SELECT * FROM orders WHERE amount > 100")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("run %d: %s %s (%s), %s %s (%s)\n", run,
			orders.Name(), orders.Outcome(), orders.Deployed().Status.Phase,
			large.Name(), large.Outcome(), large.Deployed().Status.Phase)
	}
	// Output:
	// run 1: shop-orders created (COMPLETED), shop-large-orders created (RUNNING)
	// run 2: shop-orders unchanged (COMPLETED), shop-large-orders unchanged (RUNNING)
}

// The same program run with a lifecycle action stops a statement and
// exits: with status 0 once it is STOPPED, 1 on any failure.
func ExampleFromArgs_lifecycleAction() {
	ctx := context.Background()
	settings, err := deploy.FromArgs(connection("--application-name", "billing"), deploy.WithStderr(io.Discard))
	if err != nil {
		log.Fatal(err)
	}
	env, err := settings.Environment(ctx)
	if err != nil {
		log.Fatal(err)
	}
	env.SetStatementName("invoices")
	if _, err := env.ExecuteSQL(ctx, "CREATE TABLE invoices AS SELECT * FROM examples.marketplace.orders"); err != nil {
		log.Fatal(err)
	}

	// program stop --statement-name invoices --application-name billing --action.await
	args := append([]string{"stop", "--statement-name", "invoices", "--application-name", "billing", "--action.await"}, connection()...)
	_, err = deploy.FromArgs(args,
		deploy.WithExit(func(code int) { fmt.Println("exit status", code) }), // os.Exit in a program
		deploy.WithStderr(io.Discard),
		deploy.WithPollInterval(10*time.Millisecond))
	var ee *deploy.ExitError
	fmt.Println(errors.As(err, &ee))

	h, err := env.Handle("invoices")
	if err != nil {
		log.Fatal(err)
	}
	st, err := h.Statement(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Name, st.Status.Phase)
	// Output:
	// exit status 0
	// true
	// billing-invoices STOPPED
}

// Read a statement's result as a table, by its upsert key.
func ExampleHandle_Materialize() {
	ctx := context.Background()
	settings, err := deploy.FromArgs(connection("--application-name", "stock"), deploy.WithStderr(io.Discard))
	if err != nil {
		log.Fatal(err)
	}
	env, err := settings.Environment(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, st := range []struct{ name, sql string }{
		{"levels", "CREATE TABLE levels (sku STRING NOT NULL, qty INT, PRIMARY KEY (sku) NOT ENFORCED) WITH ('changelog.mode' = 'upsert')"},
		{"load", "INSERT INTO levels VALUES ('lamp', 3), ('desk', 2), ('lamp', 4)"},
	} {
		env.SetStatementName(st.name)
		if _, err := env.ExecuteSQL(ctx, st.sql); err != nil {
			log.Fatal(err)
		}
	}
	env.SetStatementName("show-levels")
	h, err := env.ExecuteSQL(ctx, "SELECT * FROM levels")
	if err != nil {
		log.Fatal(err)
	}
	defer h.Delete(ctx, 0) // a SELECT runs until it is stopped or deleted

	// The query runs in the background: read its changes until both
	// keys have arrived, then the table.
	n := 0
	for c, err := range h.Changelog(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(c.Op, c.Values)
		if n++; n == 4 {
			break
		}
	}
	tab, err := h.Materialize(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tab.Columns, "key", tab.Key)
	for _, row := range tab.Rows {
		fmt.Println(row)
	}
	// Output:
	// +I [lamp 3]
	// +I [desk 2]
	// -U [lamp 3]
	// +U [lamp 4]
	// [sku qty] key [0]
	// [lamp 4]
	// [desk 2]
}
