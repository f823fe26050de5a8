package statement

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/runtime"
)

// ReplaceResult says what Replace did.
type ReplaceResult struct {
	Statement v1.Statement
	// Unchanged is true when the spec was identical: nothing was done.
	Unchanged bool
	// Carried is true when the new statement took over the old one's state
	// and source positions; Reason explains why not otherwise.
	Carried bool
	Reason  string
}

// SameSpec reports whether two specs run the same SQL with the same
// properties (the stopped flag is not compared).
func SameSpec(a, b v1.Spec) bool {
	return strings.TrimSpace(a.Statement) == strings.TrimSpace(b.Statement) && maps.Equal(a.Properties, b.Properties)
}

// Replace replaces the statement named st.Name with st's spec. When every
// stateful PTF call keeps its uid and state types and the statement reads
// the same tables, the new statement carries the old one's state and source
// positions over (Confluent starts replaced statements fresh); otherwise it
// starts fresh and Reason says why.
func (m *Manager) Replace(ctx context.Context, st v1.Statement) (ReplaceResult, error) {
	if err := ValidateName(st.Name); err != nil {
		return ReplaceResult{}, err
	}
	m.mu.Lock()
	old, ok := m.stmts[st.Name]
	if !ok {
		m.mu.Unlock()
		created, err := m.Create(ctx, st)
		return ReplaceResult{Statement: created, Reason: "there was no statement to replace"}, err
	}
	if SameSpec(old.st.Spec, st.Spec) {
		defer m.mu.Unlock()
		return ReplaceResult{Statement: m.view(old), Unchanged: true}, nil
	}
	if old.replacing {
		defer m.mu.Unlock()
		return ReplaceResult{Statement: m.view(old)}, fmt.Errorf("%w: %s is being replaced already", ErrConflict, st.Name)
	}
	// Other changes of the statement wait until the swap below.
	old.replacing = true
	oldOutcome := old.outcome
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		old.replacing = false
		m.mu.Unlock()
	}()

	// Plan the new statement without running it.
	// With the old statement's plan version, so that its state can carry
	// over into operators planned the same way.
	next, err := m.eng.Run(ctx, st.Spec.Statement, engine.RunOptions{Properties: st.Spec.Properties, DryRun: true, PlanVersion: planVersion(oldOutcome)})
	if err != nil {
		return ReplaceResult{}, err
	}
	carry, reason := compatible(oldOutcome, next)

	// Stop the old statement with a final checkpoint.
	m.mu.Lock()
	job, monitor := old.job, old.monitor
	old.stopping = true
	m.mu.Unlock()
	if job != nil {
		if err := job.Checkpoint(ctx); err != nil {
			carry, reason = false, fmt.Sprintf("the old statement could not take a final checkpoint: %v", err)
		}
		job.Cancel()
		<-monitor
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if !carry && oldOutcome != nil {
		b := m.db.NewBatch()
		err := runtime.DeleteJobData(b, jobID(old), oldOutcome.Namespaces)
		if err == nil {
			err = b.Commit(true)
		}
		if err != nil {
			m.logger.Error("deleting the state of a replaced statement", "statement", st.Name, "err", err)
		}
	}
	e := &entry{st: old.st}
	e.st.Spec = st.Spec
	e.st.Metadata.Labels = st.Metadata.Labels
	e.st.Status = v1.Status{Phase: v1.Pending}
	if carry {
		e.st.Status.StateCarriedFrom = old.st.Name + "@" + old.st.Metadata.ResourceVersion
		e.outcome = oldOutcome // it resumes with the old plan version
	} else {
		e.st.Metadata.UID = newUID()
	}
	e.st.Metadata.CreatedAt = m.now()
	m.stmts[st.Name] = e
	if st.Spec.Stopped {
		m.setPhase(e, v1.Stopped, "Replaced and stopped; resume it to run.")
	} else {
		m.start(e, carry)
	}
	return ReplaceResult{Statement: m.view(e), Carried: carry, Reason: reason}, nil
}

// compatible decides whether a replacing statement may carry state over.
func compatible(old, next *engine.Outcome) (bool, string) {
	switch {
	case old == nil:
		return false, "the old statement never ran, so it has no state"
	case old.Kind != next.Kind:
		return false, fmt.Sprintf("the statement kind changed (%s -> %s)", old.Kind, next.Kind)
	case old.StateSchema != next.StateSchema:
		return false, fmt.Sprintf("the process table function's uid or state types changed (old %s, new %s)", old.StateSchema, next.StateSchema)
	case old.OperatorState != "" && old.OperatorState != next.OperatorState:
		return false, fmt.Sprintf("the state of an operator changed (old %s, new %s)", old.OperatorState, next.OperatorState)
	case !sameKeys(old.Sources, next.Sources):
		return false, "the statement reads different tables, so its source positions do not apply"
	}
	return true, ""
}

func sameKeys(a, b map[string]string) bool {
	ka := slices.Sorted(maps.Keys(a))
	kb := slices.Sorted(maps.Keys(b))
	return slices.Equal(ka, kb)
}
