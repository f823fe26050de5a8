// Command deploy deploys the order-status pipeline of the tutorial
// (docs/tutorial/order_status.sql) to an Eddy server, and manages it. It is
// the pattern of a Go program that deploys statements from CI/CD: the same
// binary deploys when it runs and, given a lifecycle action as its first
// argument, lists, describes, stops, resumes or deletes a statement it
// deployed.
//
//	go run ./examples/deploy --server http://127.0.0.1:8080 \
//	    --application-name orders --on-conflict replace
//	go run ./examples/deploy stop --statement-name order-status \
//	    --application-name orders --action.await
//
// The API key and secret come from --api-key/--api-secret, a properties
// file (--config) or $EDDY_API_KEY/$EDDY_API_SECRET. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/eddy-sql/eddy/deploy"
)

// The statements of the pipeline, deployed in this order, each under its
// own name (APP-NAME on the server). The two DDL statements use IF NOT
// EXISTS: a DDL statement runs once, and under --on-conflict replace a
// changed spec (a new --property changes every spec) runs it again, which
// must not fail because the function or table exists. order_status is a
// CREATE TABLE AS: a statement that keeps running, feeding the table.
var pipeline = []struct{ name, sql string }{
	{"order-status-tracker", `CREATE FUNCTION IF NOT EXISTS OrderStatusTracker AS 'examples.OrderStatusTracker'`},
	{"order-events", `CREATE TABLE IF NOT EXISTS order_events (
  order_id INT NOT NULL,
  event_type STRING,
  event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time
) DISTRIBUTED INTO 1 BUCKETS`},
	{"order-status", `CREATE TABLE order_status (
    PRIMARY KEY (order_id) NOT ENFORCED
) DISTRIBUTED INTO 1 BUCKETS
WITH ('changelog.mode' = 'upsert') AS
SELECT
    order_id,
    status
FROM OrderStatusTracker(
    input => TABLE order_events PARTITION BY order_id
)`},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the program: it returns the exit status instead of exiting, so
// that tests can run it. opts are for tests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, opts ...deploy.Option) int {
	opts = append([]deploy.Option{deploy.WithStdout(stdout), deploy.WithStderr(stderr)}, opts...)
	// A lifecycle action runs here and exits (with WithExit in tests, it
	// returns an *ExitError with the status instead).
	settings, err := deploy.FromArgs(args, opts...)
	if ee, ok := errors.AsType[*deploy.ExitError](err); ok {
		return ee.Code
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	env, err := settings.Environment(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	for _, st := range pipeline {
		env.SetStatementName(st.name)
		h, err := env.ExecuteSQL(ctx, st.sql)
		if err != nil {
			fmt.Fprintf(stderr, "Error: deploying %s: %v\n", st.name, err)
			return 1
		}
		fmt.Fprintf(stdout, "%-36s %-10s %s\n", h.Name(), h.Outcome(), h.Deployed().Status.Phase)
	}
	return 0
}
