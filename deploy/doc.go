// Package deploy is the Go SDK of programs that deploy statements to an
// Eddy server (`eddy server`): the same binary deploys a pipeline when it
// runs, and stops, resumes, inspects or deletes its statements when it is
// run with a lifecycle action. It is the Go counterpart of the Confluent
// Table API plugin's ConfluentSettings.fromArgs and ConfluentTools.
//
//	func main() {
//		ctx := context.Background()
//		// Runs a lifecycle action and exits, if the first argument is one.
//		settings, err := deploy.FromArgs(os.Args[1:])
//		if err != nil {
//			log.Fatal(err)
//		}
//		env, err := settings.Environment(ctx)
//		if err != nil {
//			log.Fatal(err)
//		}
//		env.SetStatementName("orders-per-region")
//		if _, err := env.ExecuteSQL(ctx, "INSERT INTO totals SELECT ..."); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// # Settings
//
// FromArgs reads --server, --api-key, --api-secret, --config,
// --application-name, --statement-name, --on-conflict fail|replace,
// --action.await[=DURATION] and --property KEY=VALUE. Each setting comes
// from the first of: the flag, the properties file (--config FILE or
// $EDDY_CONFIG; keys server, api.key, api.secret, application.name,
// statement.name, on-conflict), the environment ($EDDY_SERVER,
// $EDDY_API_KEY, $EDDY_API_SECRET, $EDDY_APPLICATION_NAME,
// $EDDY_STATEMENT_NAME, $EDDY_ON_CONFLICT): the precedence of the eddy
// command, whose resolution this package reuses.
//
// # Lifecycle actions
//
// When the first argument is list, describe, stop, resume or delete,
// FromArgs runs that action and exits the process, before the program's
// own logic runs: with status 0 on success and 1 on any failure (not
// found, authentication failed, missing configuration, a statement that
// FAILED, a wait that timed out). describe, stop, resume and delete need
// --statement-name; the application name is prefixed to it. With
// --action.await, stop waits until the statement is STOPPED, resume until
// it is RUNNING and delete until it is gone (default at most 15 minutes).
// --help and --version print and exit with 0.
//
// # Deploying
//
// Settings.Environment connects to the server. Env.SetStatementName names
// the next statement only; Env.ExecuteSQL creates it as APP-NAME,
// idempotently: an unchanged statement is left alone, a changed one fails
// the deployment with the difference (on-conflict fail, the default) or is
// deleted and created again (on-conflict replace, which needs an
// application name). It then waits until the statement runs, and fails
// with its detail and latest exception if it FAILED. The Handle it
// returns stops, resumes, deletes and awaits the statement, and reads its
// results as a changelog (Changelog) or as a table (Materialize).
package deploy
