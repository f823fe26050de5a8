package runtime

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/internal/store"
)

// checkpointKey is where a job's committed source positions live.
func (j *Job) checkpointKey() []byte {
	return append([]byte{store.PrefixCheckpoint}, "positions/"+j.opts.ID...)
}

// posKey names a position in the checkpoint: "log/partition" for a log,
// "gen:<table>" (the rows read) for a generated input.
func posKey(log string, partition int) string {
	if strings.HasPrefix(log, genLogPrefix) {
		return log
	}
	return log + "/" + strconv.Itoa(partition)
}

// savePositions writes the source positions into the checkpoint batch, so
// they commit atomically with state and sink output.
func (j *Job) savePositions(b *store.Batch, positions []logstore.Position) error {
	if positions == nil {
		return nil
	}
	m := make(map[string]int64, len(positions))
	for _, p := range positions {
		m[posKey(p.Log, p.Partition)] = p.Offset
	}
	v, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("checkpoint: encoding positions: %w", err)
	}
	if err := b.Set(j.checkpointKey(), v); err != nil {
		return fmt.Errorf("checkpoint: writing positions: %w", err)
	}
	return nil
}

// loadPositions reads the positions of the job's last checkpoint.
func (j *Job) loadPositions() (map[string]int64, error) {
	v, ok, err := j.env.DB.Get(j.checkpointKey())
	if err != nil {
		return nil, fmt.Errorf("reading checkpoint of job %s: %w", j.opts.ID, err)
	}
	m := map[string]int64{}
	if !ok {
		return m, nil
	}
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, fmt.Errorf("decoding checkpoint of job %s: %w", j.opts.ID, err)
	}
	return m, nil
}

// CommittedPositions returns the source offsets of the job's last
// checkpoint, by "log/partition" (and the rows read of generated inputs,
// by "gen:<table>").
func (j *Job) CommittedPositions() (map[string]int64, error) { return j.loadPositions() }

// DeleteState removes everything the job persisted (state, timers and
// checkpointed positions) through b. The job must have stopped.
func (j *Job) DeleteState(b *store.Batch) error {
	return DeleteJobData(b, j.opts.ID, j.Namespaces())
}

// DeleteJobData removes the state namespaces and checkpoint of a job that
// is not running, by its ID.
func DeleteJobData(b *store.Batch, jobID string, namespaces []string) error {
	kv := state.NewPebble(b)
	for _, ns := range namespaces {
		if err := kv.ClearNamespace(ns); err != nil {
			return fmt.Errorf("deleting state of job %s: %w", jobID, err)
		}
	}
	key := append([]byte{store.PrefixCheckpoint}, "positions/"+jobID...)
	if err := b.Delete(key); err != nil {
		return fmt.Errorf("deleting checkpoint of job %s: %w", jobID, err)
	}
	sinks := sinkPrefix(jobID)
	end := append(append([]byte{}, sinks[:len(sinks)-1]...), sinks[len(sinks)-1]+1)
	if err := b.DeleteRange(sinks, end); err != nil {
		return fmt.Errorf("deleting sink markers of job %s: %w", jobID, err)
	}
	return nil
}

// sinkPrefix is where a job's external sinks keep their transaction
// markers and output copies.
func sinkPrefix(jobID string) []byte {
	return append([]byte{store.PrefixCheckpoint}, "sink/"+jobID+"/"...)
}

// connectorEnv is what the job's connectors get.
func (j *Job) connectorEnv() connector.Env {
	return connector.Env{Logger: j.logger, Now: j.env.Clock.Now, Job: j.opts.ID, KeyPrefix: sinkPrefix(j.opts.ID),
		Stdout: j.env.Stdout, Stderr: j.env.Stderr}
}

// kvAdapter gives connectors read access to committed checkpoints and
// synced commits of their own.
type kvAdapter struct{ db *store.DB }

func (a kvAdapter) Get(key []byte) ([]byte, bool, error) { return a.db.Get(key) }

func (a kvAdapter) Commit(fn func(connector.Batch) error) error {
	b := a.db.NewBatch()
	defer b.Close()
	if err := fn(b); err != nil {
		return err
	}
	return b.Commit(true)
}
