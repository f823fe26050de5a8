package client_test

import (
	"context"
	"fmt"
	"log"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
)

// exampleServer starts an in-memory stand-in for `eddy server` and returns
// its URL. Its statements run as soon as they are asked for.
func exampleServer() string {
	f, srv := startFake()
	f.phases["shop-orders"] = []v1.Phase{v1.Running}
	f.phases["shop-top-products"] = []v1.Phase{v1.Completed}
	f.rows["shop-top-products"] = []v1.ResultRow{
		{Op: 0, Row: []any{"lamp", "3"}},
		{Op: 0, Row: []any{"desk", "2"}},
		{Op: 1, Row: []any{"lamp", "3"}},
		{Op: 2, Row: []any{"lamp", "4"}},
	}
	f.complete["shop-top-products"] = true
	return srv.URL
}

// Deploy a statement and wait until it runs.
func Example() {
	ctx := context.Background()
	c, err := client.New(
		client.Server(exampleServer()), // for example https://eddy.example.com
		client.APIKey("key", "secret"),
	)
	if err != nil {
		log.Fatal(err)
	}
	st, err := c.CreateStatement(ctx, v1.Statement{
		Name: "shop-orders",
		Spec: v1.Spec{
			Statement:  "INSERT INTO totals SELECT region, SUM(amount) FROM orders GROUP BY region",
			Properties: map[string]string{"sql.current-database": "shop"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", st.Name, st.Status.Phase)

	st, err = c.Await(ctx, st.Name, client.PhaseIn(v1.Running, v1.Completed), 15*time.Minute)
	if err != nil {
		// client.ErrFailed or client.ErrTimeout: st is the statement as
		// last seen.
		log.Fatal(err)
	}
	fmt.Println(st.Name, "is", st.Status.Phase)
	// Output:
	// created shop-orders PENDING
	// shop-orders is RUNNING
}

// A deploy that succeeds when the same statement exists already.
func ExampleIsExists() {
	ctx := context.Background()
	c, err := client.New(client.Server(exampleServer()), client.APIKey("key", "secret"))
	if err != nil {
		log.Fatal(err)
	}
	want := v1.Statement{Name: "shop-orders", Spec: v1.Spec{Statement: "INSERT INTO totals SELECT * FROM orders"}}
	for range 2 {
		_, err := c.CreateStatement(ctx, want)
		switch {
		case err == nil:
			fmt.Println("created")
		case client.IsExists(err):
			old, err := c.GetStatement(ctx, want.Name)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println("exists; same SQL:", old.Spec.Statement == want.Spec.Statement)
		default:
			log.Fatal(err)
		}
	}
	// Output:
	// created
	// exists; same SQL: true
}

// Stop a statement, keeping its state, and wait until it is stopped.
func ExampleClient_StopStatement() {
	ctx := context.Background()
	c, err := client.New(client.Server(exampleServer()), client.APIKey("key", "secret"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreateStatement(ctx, v1.Statement{Name: "nightly", Spec: v1.Spec{Statement: "INSERT INTO t SELECT * FROM s"}}); err != nil {
		log.Fatal(err)
	}
	st, err := c.StopStatement(ctx, "nightly")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("requested:", st.Status.Phase)
	// (A real server moves on to STOPPED by itself; Await would wait
	// for it: c.Await(ctx, "nightly", client.PhaseIn(v1.Stopped), time.Minute).)

	_, err = c.StopStatement(ctx, "no-such-statement")
	fmt.Println("not found:", client.IsNotFound(err))
	// Output:
	// requested: STOPPING
	// not found: true
}

// Read the results of a SELECT as a changelog.
func ExampleClient_ResultRows() {
	ctx := context.Background()
	c, err := client.New(client.Server(exampleServer()), client.APIKey("key", "secret"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreateStatement(ctx, v1.Statement{
		Name: "shop-top-products",
		Spec: v1.Spec{Statement: "SELECT product, COUNT(*) FROM orders GROUP BY product"},
	}); err != nil {
		log.Fatal(err)
	}
	ops := []string{"+I", "-U", "+U", "-D"}
	// follow = true keeps polling while the statement runs, until its
	// results are complete or ctx is done.
	for row, err := range c.ResultRows(ctx, "shop-top-products", true) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ops[row.Op], row.Row)
	}
	// Output:
	// +I [lamp 3]
	// +I [desk 2]
	// -U [lamp 3]
	// +U [lamp 4]
}

// List an application's statements.
func ExampleClient_ListAll() {
	ctx := context.Background()
	c, err := client.New(client.Server(exampleServer()), client.APIKey("key", "secret"))
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"shop-orders", "shop-returns", "web-clicks"} {
		if _, err := c.CreateStatement(ctx, v1.Statement{Name: name, Spec: v1.Spec{Statement: "INSERT INTO t SELECT * FROM s"}}); err != nil {
			log.Fatal(err)
		}
	}
	list, err := c.ListAll(ctx, client.Filter{NamePrefix: "shop-"})
	if err != nil {
		log.Fatal(err)
	}
	for _, st := range list {
		fmt.Println(st.Name, st.Status.Phase)
	}
	// Output:
	// shop-orders PENDING
	// shop-returns PENDING
}
