package cli

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// SHOW JOBS and STOP JOB are the Flink SQL client's statements for the jobs
// of a session's cluster; the shell answers them from the statements of the
// data directory or server it works on (a job is a statement that runs a
// query: INSERT, CREATE TABLE AS, SELECT).
var (
	showJobsRE = regexp.MustCompile(`(?is)^SHOW\s+JOBS$`)
	stopJobRE  = regexp.MustCompile(`(?is)^STOP\s+JOB\s+'((?:[^']|'')*)'((?:\s+WITH\s+(?:SAVEPOINT|DRAIN))*)$`)
	withRE     = regexp.MustCompile(`(?i)WITH\s+(SAVEPOINT|DRAIN)`)
)

// stopJobTimeout bounds how long STOP JOB waits for the final checkpoint.
var stopJobTimeout = 2 * time.Minute

// jobsEngine adds SHOW JOBS and STOP JOB to an engine that has a
// statements API.
type jobsEngine struct {
	Engine
	cl *client.Client
}

// withJobs returns eng with SHOW JOBS and STOP JOB when it has a
// statements API, eng itself otherwise.
func withJobs(eng Engine) Engine {
	sc, ok := eng.(statementClienter)
	if !ok {
		return eng
	}
	return &jobsEngine{Engine: eng, cl: sc.StatementClient()}
}

func (j *jobsEngine) Execute(ctx context.Context, sql string, interactive bool) (*Result, error) {
	sql = strings.TrimSpace(sql)
	switch {
	case showJobsRE.MatchString(sql):
		return j.showJobs(ctx)
	case stopJobRE.MatchString(sql):
		m := stopJobRE.FindStringSubmatch(sql)
		var savepoint, drain bool
		for _, w := range withRE.FindAllStringSubmatch(m[2], -1) {
			savepoint = savepoint || strings.EqualFold(w[1], "SAVEPOINT")
			drain = drain || strings.EqualFold(w[1], "DRAIN")
		}
		return j.stopJob(ctx, strings.ReplaceAll(m[1], "''", "'"), savepoint, drain)
	}
	return j.Engine.Execute(ctx, sql, interactive)
}

// OpenNotice and ExitNotice forward the engine's notices.
func (j *jobsEngine) OpenNotice() string {
	if n, ok := j.Engine.(noticer); ok {
		return n.OpenNotice()
	}
	return ""
}

func (j *jobsEngine) ExitNotice() string {
	if n, ok := j.Engine.(noticer); ok {
		return n.ExitNotice()
	}
	return ""
}

// isJob reports whether a statement runs a query (or may: a statement
// created stopped has no traits yet).
func isJob(st v1.Statement) bool {
	if st.Status.Traits == nil || st.Status.Traits.SQLKind == "" {
		return true
	}
	switch st.Status.Traits.SQLKind {
	case "INSERT_INTO", "CREATE_TABLE_AS", "SELECT", "STATEMENT_SET":
		return true
	}
	return false
}

// showJobs lists the jobs with Flink's columns: job id (the statement's
// uid), job name (its name), status (its phase) and start time.
func (j *jobsEngine) showJobs(ctx context.Context) (*Result, error) {
	sts, err := j.cl.ListAll(ctx, client.Filter{})
	if err != nil {
		return nil, remoteError(err)
	}
	var rows []types.Row
	for _, st := range sts {
		if !isJob(st) {
			continue
		}
		start := ""
		if st.Status.StartTime != nil {
			start = st.Status.StartTime.Local().Format("2006-01-02T15:04:05.000")
		}
		rows = append(rows, types.Row{Values: []types.Value{
			types.NewString(st.Metadata.UID), types.NewString(st.Name),
			types.NewString(string(st.Status.Phase)), types.NewString(start),
		}})
	}
	s := types.NewSchema(
		types.Field{Name: "job id", Type: types.String}, types.Field{Name: "job name", Type: types.String},
		types.Field{Name: "status", Type: types.String}, types.Field{Name: "start time", Type: types.String})
	return &Result{Rows: &RowStream{Schema: s, Static: true, Next: sliceNext(rows)}}, nil
}

// stopJob stops the statement whose uid or name is id, with a final
// checkpoint, and waits until it is STOPPED. Eddy always takes that
// checkpoint (it is what a resume continues from), so WITH SAVEPOINT
// changes only the message; WITH DRAIN is refused.
func (j *jobsEngine) stopJob(ctx context.Context, id string, savepoint, drain bool) (*Result, error) {
	if drain {
		return nil, sqlerr.Newf(sqlerr.Unsupported, "STOP JOB ... WITH DRAIN is not supported").
			WithHint("Eddy stops a job with a final checkpoint and resumes it from there (open windows stay open); use STOP JOB '%s' [WITH SAVEPOINT]", id)
	}
	sts, err := j.cl.ListAll(ctx, client.Filter{})
	if err != nil {
		return nil, remoteError(err)
	}
	var found *v1.Statement
	for i := range sts {
		if sts[i].Metadata.UID == id || sts[i].Name == id {
			found = &sts[i]
			break
		}
	}
	if found == nil {
		return nil, sqlerr.Newf(sqlerr.InvalidArgument, "Could not find job '%s'", id).WithHint("SHOW JOBS lists the jobs with their ids and names; STOP JOB takes either")
	}
	name := found.Name
	if found.Spec.Stopped || found.Status.Phase.IsTerminal() && found.Status.Phase != v1.Degraded {
		return &Result{Message: "Job '" + name + "' is not running: it is " + string(found.Status.Phase) + "."}, nil
	}
	if _, err := j.cl.StopStatement(ctx, name); err != nil {
		return nil, remoteError(err)
	}
	st, err := j.cl.Await(ctx, name, client.PhaseIn(v1.Stopped, v1.Failed, v1.Completed), stopJobTimeout)
	switch {
	case errors.Is(err, client.ErrTimeout):
		return nil, sqlerr.Newf(sqlerr.Runtime, "Job '%s' is still stopping after %s", name, stopJobTimeout).WithHint("eddy statement describe %s shows when it is STOPPED", name)
	case err != nil && !errors.Is(err, client.ErrFailed):
		return nil, remoteError(err)
	case st.Status.Phase != v1.Stopped:
		return &Result{Message: "Job '" + name + "' ended as " + string(st.Status.Phase) + ": " + st.Status.Detail}, nil
	}
	msg := "Job '" + name + "' has been stopped with a final checkpoint; eddy statement resume " + name + " continues it from there."
	if savepoint {
		msg = "Job '" + name + "' has been stopped with a savepoint: its final checkpoint, kept in the data directory with the statement; eddy statement resume " + name + " continues it from there."
	}
	return &Result{Message: msg}, nil
}
