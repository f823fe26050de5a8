package statement

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/internal/store"
)

// Errors returned by the manager; the server maps them to HTTP statuses.
var (
	ErrNotFound = errors.New("statement: not found")
	ErrExists   = errors.New("statement: already exists")
	ErrConflict = errors.New("statement: resource version conflict")
	ErrInvalid  = errors.New("statement: invalid request")
	// ErrIncompatibleState refuses to resume a statement whose functions
	// now declare state its checkpoint cannot be read as.
	ErrIncompatibleState = errors.New("statement: incompatible state")
)

// MaxNameLength is the longest statement name, application prefix
// included.
const MaxNameLength = 100

var namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// ValidateName checks a statement name.
func ValidateName(name string) error {
	if len(name) > MaxNameLength {
		return fmt.Errorf("%w: name %q is %d characters long; at most %d are allowed (application prefix included)", ErrInvalid, name, len(name), MaxNameLength)
	}
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%w: name %q must consist of lowercase letters, digits and '-', and start and end with a letter or digit", ErrInvalid, name)
	}
	return nil
}

// Options configure a Manager.
type Options struct {
	Engine *engine.Engine
	Clock  runtime.Clock
	Logger *slog.Logger
	// CheckpointInterval is the default checkpoint interval of statements
	// ('execution.checkpointing.interval' overrides it). Default: 1s.
	CheckpointInterval time.Duration
	// ResultCapacity is how many result rows a SELECT statement keeps.
	// Default: 10000.
	ResultCapacity int
	// NoRestart loads the statements without starting those that were
	// running: they keep their phase and run again at the next Open
	// without it (or when resumed). `eddy statement … --data-dir` uses it
	// to inspect and change statements without running them.
	NoRestart bool
}

// Manager owns every statement of a data directory. It is safe for
// concurrent use. Its goroutines (one monitor per running job) are owned
// and awaited by Close.
type Manager struct {
	opts   Options
	eng    *engine.Engine
	db     *store.DB
	logger *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	stmts map[string]*entry
}

// entry is one statement and what runs it.
type entry struct {
	st         v1.Statement
	exceptions []v1.Exception
	outcome    *engine.Outcome
	job        *runtime.Job
	results    *resultBuffer
	stopping   bool
	// replacing is set while Replace swaps the statement; other changes
	// get ErrConflict meanwhile.
	replacing bool
	monitor   chan struct{} // closed when the job's monitor returns
}

// persisted is what is stored per statement.
type persisted struct {
	Statement  v1.Statement   `json:"statement"`
	Exceptions []v1.Exception `json:"exceptions,omitempty"`
	Outcome    *storedOutcome `json:"outcome,omitempty"`
}

type storedOutcome struct {
	Kind          string            `json:"kind"`
	Sources       map[string]string `json:"sources,omitempty"`
	StateSchema   string            `json:"state_schema,omitempty"`
	OperatorState string            `json:"operator_state,omitempty"`
	Namespaces    []string          `json:"namespaces,omitempty"`
	Artifacts     []string          `json:"artifacts,omitempty"`
	// PlanVersion is the plan version the statement runs with; 0 for
	// statements stored before versions were recorded (plan.PlanV1).
	PlanVersion int `json:"plan_version,omitempty"`
}

func (o *storedOutcome) outcome() *engine.Outcome {
	return &engine.Outcome{Kind: o.Kind, Sources: o.Sources, StateSchema: o.StateSchema, OperatorState: o.OperatorState, Namespaces: o.Namespaces, Artifacts: o.Artifacts, PlanVersion: o.PlanVersion}
}

func storeOutcome(o *engine.Outcome) *storedOutcome {
	return &storedOutcome{Kind: o.Kind, Sources: o.Sources, StateSchema: o.StateSchema, OperatorState: o.OperatorState, Namespaces: o.Namespaces, Artifacts: o.Artifacts, PlanVersion: o.PlanVersion}
}

// planVersion returns the plan version a statement with outcome o resumes
// with: the one it first ran with, plan.PlanV1 for statements stored
// before versions were recorded, the latest (0) without an outcome.
func planVersion(o *engine.Outcome) int {
	switch {
	case o == nil:
		return 0
	case o.PlanVersion == 0:
		return plan.PlanV1
	}
	return o.PlanVersion
}

func key(name string) []byte { return append([]byte{store.PrefixStatement}, name...) }

// Open loads the statements of the engine's data directory and restarts
// those that were running.
func Open(opts Options) (*Manager, error) {
	if opts.Clock == nil {
		opts.Clock = runtime.SystemClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CheckpointInterval <= 0 {
		opts.CheckpointInterval = time.Second
	}
	if opts.ResultCapacity <= 0 {
		opts.ResultCapacity = 10000
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		opts: opts, eng: opts.Engine, db: opts.Engine.Env().DB, logger: opts.Logger.With("component", "statements"),
		ctx: ctx, cancel: cancel, stmts: map[string]*entry{},
	}
	var restart []*entry
	err := m.db.Scan([]byte{store.PrefixStatement}, func(_, v []byte) error {
		var p persisted
		if err := json.Unmarshal(v, &p); err != nil {
			return fmt.Errorf("decoding a stored statement: %w", err)
		}
		e := &entry{st: p.Statement, exceptions: p.Exceptions}
		if p.Outcome != nil {
			e.outcome = p.Outcome.outcome()
		}
		m.stmts[e.st.Name] = e
		switch e.st.Status.Phase {
		case v1.Running, v1.Pending, v1.Degraded, v1.Failing:
			if !e.st.Spec.Stopped {
				restart = append(restart, e)
			}
		case v1.Stopping:
			if e.st.Spec.Stopped {
				e.st.Status.Phase = v1.Stopped
			} else {
				restart = append(restart, e) // resumed while it was stopping
			}
		case v1.Deleting:
			// The delete did not finish: remove its state and checkpoint
			// with the statement, in one batch.
			delete(m.stmts, e.st.Name)
			b := m.db.NewBatch()
			if e.outcome != nil {
				if err := runtime.DeleteJobData(b, jobID(e), e.outcome.Namespaces); err != nil {
					return err
				}
			}
			if err := b.Delete(key(e.st.Name)); err != nil {
				return err
			}
			if err := b.Commit(true); err != nil {
				return fmt.Errorf("finishing the delete of %s: %w", e.st.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("loading statements: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if opts.NoRestart {
		restart = nil
	}
	for _, e := range restart {
		m.logger.Debug("restarting statement after restart", "statement", e.st.Name)
		m.start(e, true)
	}
	return m, nil
}

// Close stops every job (without changing the statements' phases, so they
// run again when the manager opens next) and waits for them.
func (m *Manager) Close() error {
	m.mu.Lock()
	var jobs []*runtime.Job
	for _, e := range m.stmts {
		if e.job != nil {
			jobs = append(jobs, e.job)
		}
	}
	m.mu.Unlock()
	m.cancel()
	for _, j := range jobs {
		j.Cancel()
	}
	m.wg.Wait()
	return nil
}

func (m *Manager) now() time.Time { return m.opts.Clock.Now().UTC() }

func newUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// GenerateName returns a fresh statement name that cannot collide:
// prefix-YYYYMMDD-HHMMSS-<12 hex>.
func (m *Manager) GenerateName(prefix string) string {
	if prefix == "" {
		prefix = "stmt"
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", prefix, m.now().Format("20060102-150405"), hex.EncodeToString(b))
}

// save persists e; m.mu must be held.
func (m *Manager) save(e *entry) {
	rv, _ := strconv.Atoi(e.st.Metadata.ResourceVersion)
	e.st.Metadata.ResourceVersion = strconv.Itoa(rv + 1)
	e.st.Metadata.UpdatedAt = m.now()
	p := persisted{Statement: e.st, Exceptions: e.exceptions}
	if o := e.outcome; o != nil {
		p.Outcome = storeOutcome(o)
	}
	b, err := json.Marshal(p)
	if err == nil {
		err = m.db.Set(key(e.st.Name), b)
	}
	if err != nil {
		m.logger.Error("persisting statement", "statement", e.st.Name, "err", err)
	}
}

func (m *Manager) setPhase(e *entry, p v1.Phase, detail string) {
	e.st.Status.Phase, e.st.Status.Detail = p, detail
	if p.IsTerminal() {
		t := m.now()
		e.st.Status.EndTime = &t
	}
	m.logger.Debug("statement phase", "statement", e.st.Name, "phase", p, "detail", detail)
	m.save(e)
}

func (m *Manager) addException(e *entry, err error) {
	name := "RuntimeException"
	if se, ok := sqlerr.As(err); ok {
		name = string(se.Code)
	}
	ex := v1.Exception{Kind: "StatementException", Name: name, Message: err.Error(), Timestamp: m.now()}
	e.exceptions = append([]v1.Exception{ex}, e.exceptions...)
	if len(e.exceptions) > 10 {
		e.exceptions = e.exceptions[:10]
	}
}

// Create creates and (unless spec.stopped) starts a statement.
func (m *Manager) Create(ctx context.Context, st v1.Statement) (v1.Statement, error) {
	var warnings []v1.Warning
	if st.Name == "" {
		st.Name = m.GenerateName("")
		warnings = append(warnings, v1.Warning{Severity: "LOW", CreatedAt: m.now(), Reason: "GENERATED_NAME",
			Message: "The statement was created without a name and got " + st.Name + "; a redeploy cannot address it. Give statements explicit names (and an application name) in deployments."})
	}
	if v := st.Spec.Properties["execution.checkpointing.interval"]; v != "" {
		if _, err := plan.ParseDuration(v); err != nil {
			warnings = append(warnings, v1.Warning{Severity: "MODERATE", CreatedAt: m.now(), Reason: "INVALID_PROPERTY",
				Message: fmt.Sprintf("'execution.checkpointing.interval' = '%s' is not a duration (%v); the default interval is used.", v, err)})
		}
	}
	if err := ValidateName(st.Name); err != nil {
		return v1.Statement{}, err
	}
	if strings.TrimSpace(st.Spec.Statement) == "" {
		return v1.Statement{}, fmt.Errorf("%w: spec.statement is empty", ErrInvalid)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.stmts[st.Name]; ok {
		return m.view(old), ErrExists
	}
	now := m.now()
	e := &entry{st: v1.Statement{
		APIVersion: v1.APIVersion, Kind: "Statement", Name: st.Name,
		Metadata: v1.Metadata{UID: newUID(), CreatedAt: now, Labels: st.Metadata.Labels},
		Spec:     st.Spec,
		Status:   v1.Status{Phase: v1.Pending, Warnings: warnings},
	}}
	m.stmts[st.Name] = e
	if st.Spec.Stopped {
		// Better than the anchor: a statement can be created stopped and
		// resumed later.
		m.setPhase(e, v1.Stopped, "Created stopped; resume it to run.")
		return m.view(e), nil
	}
	m.start(e, false)
	return m.view(e), nil
}

// jobID is the identity of a statement's state and checkpoints.
func jobID(e *entry) string { return "stmt/" + e.st.Metadata.UID }

// start runs the statement; m.mu must be held.
func (m *Manager) start(e *entry, resume bool) {
	e.stopping = false
	m.setPhase(e, v1.Pending, "Statement is being started.")
	interval := m.opts.CheckpointInterval
	if v := e.st.Spec.Properties["execution.checkpointing.interval"]; v != "" {
		if d, err := plan.ParseDuration(v); err == nil && d >= 0 { // 0: no periodic checkpoints (engine.startJob)
			interval = d
		}
	}
	opts := engine.RunOptions{
		Properties: e.st.Spec.Properties, JobID: jobID(e), Name: e.st.Name, Resume: resume, CheckpointInterval: interval,
	}
	if resume {
		// Its operators must read what their state was built from.
		opts.PlanVersion = planVersion(e.outcome)
		if e.outcome != nil {
			opts.StateSchema = e.outcome.StateSchema // the engine refuses incompatible state
			opts.OperatorState = e.outcome.OperatorState
		}
	}
	out, err := m.eng.Run(m.ctx, e.st.Spec.Statement, opts)
	if err != nil {
		m.addException(e, err)
		m.setPhase(e, v1.Failed, err.Error())
		return
	}
	if out.Sources == nil && e.outcome != nil {
		out.Sources = e.outcome.Sources
	}
	e.outcome = out
	e.st.Status.Traits = traits(out)
	t := m.now()
	e.st.Status.StartTime, e.st.Status.EndTime = &t, nil
	if out.Job == nil {
		if out.Rows != nil {
			e.results = newResultBuffer(m.opts.ResultCapacity, out.Schema)
			for _, r := range out.Rows {
				e.results.add(0, r)
			}
			e.results.finish()
		}
		m.setPhase(e, v1.Completed, completedDetail(out))
		return
	}
	e.job = out.Job
	if out.Kind == "SELECT" {
		e.results = newResultBuffer(m.opts.ResultCapacity, out.Schema)
	}
	e.monitor = make(chan struct{})
	m.setPhase(e, v1.Running, "Statement is running successfully.")
	m.wg.Add(1)
	go m.watch(e, out.Job, e.results, e.monitor)
}

func completedDetail(out *engine.Outcome) string {
	if out.Message != "" {
		return out.Message
	}
	return "Statement completed."
}

// watch follows a job until it ends and records how it ended.
func (m *Manager) watch(e *entry, job *runtime.Job, results *resultBuffer, done chan struct{}) {
	defer m.wg.Done()
	defer close(done)
	if results != nil {
		for r := range job.Results() {
			m.mu.Lock()
			results.add(int(r.Kind), r.Values)
			m.mu.Unlock()
		}
	}
	err := job.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	if results != nil {
		results.finish()
	}
	if e.job != job {
		return // replaced or deleted meanwhile
	}
	e.job = nil
	switch {
	case e.stopping || m.ctx.Err() != nil:
		// Stop, delete or shutdown: the caller sets the phase.
	case err != nil && !errors.Is(err, context.Canceled):
		m.addException(e, err)
		m.setPhase(e, v1.Failed, err.Error())
	default:
		m.setPhase(e, v1.Completed, "Statement completed: all input was processed.")
	}
}

func traits(out *engine.Outcome) *v1.Traits {
	t := &v1.Traits{SQLKind: out.Kind, IsAppendOnly: out.AppendOnly, UpsertColumns: out.Key, ChangelogMode: out.Changelog, IsBounded: out.Job == nil}
	if out.Schema != nil {
		t.Schema = &v1.Schema{}
		for _, f := range out.Schema.Fields {
			t.Schema.Columns = append(t.Schema.Columns, v1.Column{Name: f.Name, Type: f.Type.Nullable().String(), Nullable: !f.Type.NotNull})
		}
	}
	return t
}

// view returns a copy of the statement with live fields filled in; m.mu
// must be held.
func (m *Manager) view(e *entry) v1.Statement {
	st := e.st
	st.Metadata.Self = "/v1/statements/" + st.Name
	if e.job != nil && e.outcome != nil {
		if pos, err := e.job.CommittedPositions(); err == nil && len(pos) > 0 {
			st.Status.LatestOffsets = latestOffsets(e.outcome.Sources, pos)
		}
	}
	return st
}

func latestOffsets(sources map[string]string, pos map[string]int64) map[string]string {
	out := map[string]string{}
	for table, log := range sources {
		var offs []int64
		for p := 0; ; p++ {
			o, ok := pos[log+"/"+strconv.Itoa(p)]
			if !ok {
				break
			}
			offs = append(offs, o)
		}
		if len(offs) > 0 {
			out[table] = engine.FormatOffsets(offs)
		}
	}
	return out
}

// Get returns a statement.
func (m *Manager) Get(name string) (v1.Statement, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.stmts[name]
	if !ok {
		return v1.Statement{}, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return m.view(e), nil
}

// Filter selects statements in List.
type Filter struct {
	// NamePrefix keeps names starting with it.
	NamePrefix string
	// Labels keeps statements having every label.
	Labels map[string]string
	// Phase keeps statements in that phase (case-insensitive).
	Phase string
}

// List returns statements sorted by name, a page at a time: pageToken is
// the last name of the previous page; next is "" on the last page.
func (m *Manager) List(f Filter, pageSize int, pageToken string) (page []v1.Statement, next string) {
	if pageSize <= 0 || pageSize > 100 {
		pageSize = 100
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.stmts))
	for n, e := range m.stmts {
		if !strings.HasPrefix(n, f.NamePrefix) || n <= pageToken {
			continue
		}
		if f.Phase != "" && !strings.EqualFold(string(e.st.Status.Phase), f.Phase) {
			continue
		}
		match := true
		for k, v := range f.Labels {
			if e.st.Metadata.Labels[k] != v {
				match = false
			}
		}
		if match {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for i, n := range names {
		if i == pageSize {
			return page, page[len(page)-1].Name
		}
		page = append(page, m.view(m.stmts[n]))
	}
	return page, ""
}

// Update applies spec.stopped (stop or resume) if resourceVersion is the
// statement's current one. It returns at once with STOPPING or the new
// phase; stopping finishes in the background.
func (m *Manager) Update(ctx context.Context, name, resourceVersion string, stopped bool) (v1.Statement, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.stmts[name]
	if !ok {
		return v1.Statement{}, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if e.replacing {
		return m.view(e), fmt.Errorf("%w: %s is being replaced; retry once the replace finished", ErrConflict, name)
	}
	if resourceVersion != "" && resourceVersion != e.st.Metadata.ResourceVersion {
		return m.view(e), fmt.Errorf("%w: %s has resource_version %s, the request has %s; GET it again and retry",
			ErrConflict, name, e.st.Metadata.ResourceVersion, resourceVersion)
	}
	if e.st.Spec.Stopped == stopped {
		return m.view(e), nil
	}
	resume := !stopped && (e.st.Status.Phase == v1.Stopped || e.st.Status.Phase == v1.Failed || e.st.Status.Phase == v1.Completed)
	if resume {
		if err := m.checkResumable(ctx, e); err != nil {
			return m.view(e), err
		}
	}
	e.st.Spec.Stopped = stopped
	if stopped {
		m.stop(e)
	} else if resume {
		m.start(e, true)
	} else {
		m.save(e)
	}
	return m.view(e), nil
}

// stop takes a final checkpoint and stops the job; m.mu must be held.
func (m *Manager) stop(e *entry) {
	job := e.job
	if job == nil {
		if !e.st.Status.Phase.IsTerminal() {
			m.setPhase(e, v1.Stopped, "Statement was stopped.")
		} else {
			m.save(e)
		}
		return
	}
	e.stopping = true
	m.setPhase(e, v1.Stopping, "Statement is being stopped: taking a final checkpoint.")
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		err := job.Checkpoint(m.ctx)
		job.Cancel()
		<-e.monitor
		m.mu.Lock()
		defer m.mu.Unlock()
		if e.job == job {
			e.job = nil
		}
		if err != nil && m.ctx.Err() == nil {
			m.addException(e, fmt.Errorf("final checkpoint before stop: %w", err))
		}
		if m.ctx.Err() == nil && m.stmts[e.st.Name] == e {
			m.setPhase(e, v1.Stopped, "Statement was stopped; resume it to continue from its last checkpoint.")
			if !e.st.Spec.Stopped {
				// Resumed while it was stopping.
				m.start(e, true)
			}
		}
	}()
}

// Delete stops a statement, deletes its state and removes it.
func (m *Manager) Delete(ctx context.Context, name string) error {
	m.mu.Lock()
	e, ok := m.stmts[name]
	if !ok {
		m.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if e.replacing {
		m.mu.Unlock()
		return fmt.Errorf("%w: %s is being replaced; retry once the replace finished", ErrConflict, name)
	}
	e.stopping = true
	m.setPhase(e, v1.Deleting, "Statement is being deleted.")
	job, monitor := e.job, e.monitor
	m.mu.Unlock()
	if job != nil {
		job.Cancel()
		<-monitor
	}
	b := m.db.NewBatch()
	var derr error
	if job != nil {
		derr = job.DeleteState(b)
	} else if e.outcome != nil {
		// A stopped, failed or completed statement still has its state and
		// checkpoint.
		derr = runtime.DeleteJobData(b, jobID(e), e.outcome.Namespaces)
	}
	b.Delete(key(name))
	if err := b.Commit(true); err != nil {
		derr = errors.Join(derr, err)
	}
	m.mu.Lock()
	if m.stmts[name] == e {
		delete(m.stmts, name)
	}
	m.mu.Unlock()
	return derr
}

// Exceptions returns the latest exceptions, newest first.
func (m *Manager) Exceptions(name string) ([]v1.Exception, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.stmts[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return append([]v1.Exception(nil), e.exceptions...), nil
}

// Results returns up to max result rows from offset token ("" = 0) and the
// token of the next page ("" when the results are complete).
func (m *Manager) Results(name, token string, max int) ([]v1.ResultRow, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.stmts[name]
	if !ok {
		return nil, "", fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if e.results == nil {
		return nil, "", nil
	}
	from := int64(0)
	if token != "" {
		n, err := strconv.ParseInt(token, 10, 64)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("%w: invalid page_token %q", ErrInvalid, token)
		}
		from = n
	}
	rows, next, done := e.results.page(from, max)
	if done {
		return rows, "", nil
	}
	return rows, strconv.FormatInt(next, 10), nil
}

// JobMetrics returns the counters of a statement's running job.
func (m *Manager) JobMetrics(name string) (runtime.Metrics, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.stmts[name]
	if !ok || e.job == nil {
		return runtime.Metrics{}, false
	}
	return e.job.Metrics(), true
}
