package deploy

import (
	"context"
	"encoding/json"
	"iter"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// Handle is a statement deployed by an Env (or named with Env.Handle). It
// is safe for concurrent use.
type Handle struct {
	env      *Env
	name     string
	outcome  Outcome
	deployed *v1.Statement
}

// Name returns the statement's full name (APP-NAME).
func (h *Handle) Name() string { return h.name }

// Outcome says what ExecuteSQL did: Created, Unchanged or Replaced
// (Existing for a Handle from Env.Handle).
func (h *Handle) Outcome() Outcome { return h.outcome }

// Deployed returns the statement as ExecuteSQL last saw it (after its
// wait), or nil for a Handle from Env.Handle. Its
// Status.StateCarriedFrom says whether a replaced statement took over the
// previous one's state. Statement reads it again.
func (h *Handle) Deployed() *v1.Statement { return h.deployed }

// Statement reads the statement from the server.
func (h *Handle) Statement(ctx context.Context) (*v1.Statement, error) {
	st, err := h.env.cl.GetStatement(ctx, h.name)
	return st, h.env.s.explain(err, h.name)
}

// Exceptions returns the statement's latest exceptions, newest first.
func (h *Handle) Exceptions(ctx context.Context) ([]v1.Exception, error) {
	exs, err := h.env.cl.Exceptions(ctx, h.name)
	return exs, h.env.s.explain(err, h.name)
}

// Stop stops the statement, keeping its state: a resume continues from its
// last checkpoint. With wait > 0 it waits at most that long until the
// statement is STOPPED (or COMPLETED, if it ended first); with 0 it
// returns once the server accepted the request.
func (h *Handle) Stop(ctx context.Context, wait time.Duration) (*v1.Statement, error) {
	return h.update(ctx, wait, true)
}

// Resume runs the stopped statement again from its last checkpoint. With
// wait > 0 it waits at most that long until the statement is RUNNING (or
// COMPLETED), and fails with a *StatementError if it FAILED.
func (h *Handle) Resume(ctx context.Context, wait time.Duration) (*v1.Statement, error) {
	return h.update(ctx, wait, false)
}

func (h *Handle) update(ctx context.Context, wait time.Duration, stop bool) (*v1.Statement, error) {
	update, targets := h.env.cl.ResumeStatement, []v1.Phase{v1.Running, v1.Completed}
	if stop {
		update, targets = h.env.cl.StopStatement, []v1.Phase{v1.Stopped, v1.Completed}
	}
	st, err := update(ctx, h.name)
	if err != nil || wait <= 0 {
		return st, h.env.s.explain(err, h.name)
	}
	st, err = awaitPhase(ctx, h.env.cl, h.name, wait, h.env.stderr(), targets...)
	return st, h.env.s.explain(err, h.name)
}

// Delete deletes the statement and its state; this cannot be undone. With
// wait > 0 it waits at most that long until the statement is gone.
func (h *Handle) Delete(ctx context.Context, wait time.Duration) error {
	if err := h.env.cl.DeleteStatement(ctx, h.name); err != nil {
		return h.env.s.explain(err, h.name)
	}
	if wait <= 0 {
		return nil
	}
	return h.env.s.explain(awaitGone(ctx, h.env.cl, h.name, wait, h.env.stderr()), h.name)
}

// Await waits, at most Settings.Timeout, until the statement is in one of
// phases (default RUNNING or COMPLETED). It returns a *StatementError when
// the statement FAILED (unless FAILED is awaited) or the time ran out.
func (h *Handle) Await(ctx context.Context, phases ...v1.Phase) (*v1.Statement, error) {
	if len(phases) == 0 {
		phases = []v1.Phase{v1.Running, v1.Completed}
	}
	st, err := awaitPhase(ctx, h.env.cl, h.name, h.env.s.timeout(), h.env.stderr(), phases...)
	return st, h.env.s.explain(err, h.name)
}

// Op is the kind of a change: insert, update before, update after, delete.
type Op int

// The kinds of changes, numbered as in the REST API.
const (
	Insert       Op = 0 // +I
	UpdateBefore Op = 1 // -U
	UpdateAfter  Op = 2 // +U
	Delete       Op = 3 // -D
)

// String returns +I, -U, +U or -D.
func (o Op) String() string {
	switch o {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return "?"
}

// IsRetraction reports whether the change removes a row (-U, -D).
func (o Op) IsRetraction() bool { return o == UpdateBefore || o == Delete }

// Change is one row of a statement's result changelog. Values are as the
// REST API renders them: strings, nil for NULL, nested ROWs as []any and
// MAPs as []any of [key, value] pairs.
type Change struct {
	Op     Op
	Values []any
}

// Changelog iterates over the statement's result changes from the first.
// While the statement runs it follows: it waits for more changes until the
// results are complete (the statement COMPLETED), ctx is done, or the loop
// breaks. An error is yielded once, as the last item. Only statements with
// results (SELECT, SHOW, DESCRIBE) have changes; INSERT and DDL have none.
func (h *Handle) Changelog(ctx context.Context) iter.Seq2[Change, error] {
	return h.changes(ctx, true)
}

func (h *Handle) changes(ctx context.Context, follow bool) iter.Seq2[Change, error] {
	return func(yield func(Change, error) bool) {
		for r, err := range h.env.cl.ResultRows(ctx, h.name, follow) {
			if err != nil {
				yield(Change{}, h.env.s.explain(err, h.name))
				return
			}
			if !yield(Change{Op: Op(r.Op), Values: r.Row}, nil) {
				return
			}
		}
	}
}

// Table is a statement's result applied as a table.
type Table struct {
	// Columns are the names of the result columns.
	Columns []string
	// Key are the positions of the upsert columns
	// (status.traits.upsert_columns); nil when the table is a multiset.
	Key []int
	// Rows are the rows in the order they were first inserted.
	Rows [][]any
}

// Materialize reads the statement's result changes produced so far and
// applies them to a table: by key when the result has upsert columns (+I
// and +U replace the row with the same key, -U and -D delete it), as a
// multiset otherwise (+I and +U add a row, -U and -D remove the most
// recently added equal row). It does not wait for more changes; call it
// again for a newer table.
func (h *Handle) Materialize(ctx context.Context) (*Table, error) {
	st, err := h.Statement(ctx)
	if err != nil {
		return nil, err
	}
	t := &Table{}
	if tr := st.Status.Traits; tr != nil {
		t.Key = tr.UpsertColumns
		if tr.Schema != nil {
			for _, c := range tr.Schema.Columns {
				t.Columns = append(t.Columns, c.Name)
			}
		}
	}
	m := newMaterializer(t.Key)
	for c, err := range h.changes(ctx, false) {
		if err != nil {
			return nil, err
		}
		m.apply(c)
	}
	t.Rows = m.rows()
	return t, nil
}

// materializer applies changes to a table kept in slots, by key or as a
// multiset (like the eddy shell's table mode). Retractions of absent rows
// are ignored.
type materializer struct {
	key   []int
	slots [][]any // nil: a deleted row
	// index maps an encoded key to its slots: one with key columns, the
	// live equal rows in insertion order without.
	index map[string][]int
	// lastRetracted is the slot emptied by the latest -U in a multiset,
	// which the following +U takes; -1 otherwise.
	lastRetracted int
}

func newMaterializer(key []int) *materializer {
	return &materializer{key: key, index: map[string][]int{}, lastRetracted: -1}
}

func (m *materializer) apply(c Change) {
	values := c.Values
	if values == nil {
		values = []any{}
	}
	k := m.encodeKey(values)
	if len(m.key) > 0 {
		at, ok := m.index[k]
		switch {
		case c.Op.IsRetraction():
			if ok {
				m.slots[at[0]] = nil
			}
		case ok:
			m.slots[at[0]] = values
		default:
			m.slots = append(m.slots, values)
			m.index[k] = []int{len(m.slots) - 1}
		}
		return
	}
	retracted := m.lastRetracted
	m.lastRetracted = -1
	if c.Op.IsRetraction() {
		at := m.index[k]
		if len(at) == 0 {
			return
		}
		i := at[len(at)-1]
		m.index[k] = at[:len(at)-1]
		m.slots[i] = nil
		if c.Op == UpdateBefore {
			m.lastRetracted = i
		}
		return
	}
	i := retracted
	if c.Op != UpdateAfter || i < 0 {
		m.slots = append(m.slots, values)
		i = len(m.slots) - 1
	} else {
		m.slots[i] = values
	}
	// Keep the slots of equal rows in position order, so that a
	// retraction removes the one that comes last.
	at := append(m.index[k], i)
	for j := len(at) - 1; j > 0 && at[j-1] > at[j]; j-- {
		at[j-1], at[j] = at[j], at[j-1]
	}
	m.index[k] = at
}

// encodeKey returns the JSON encoding of the key columns (the whole row
// without key columns), which is equal exactly for equal values.
func (m *materializer) encodeKey(values []any) string {
	var key []any
	if len(m.key) == 0 {
		key = values
	} else {
		key = make([]any, len(m.key))
		for j, i := range m.key {
			if i < len(values) {
				key[j] = values[i]
			}
		}
	}
	b, _ := json.Marshal(key) // values decoded from JSON always encode
	return string(b)
}

func (m *materializer) rows() [][]any {
	out := [][]any{}
	for _, r := range m.slots {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}
